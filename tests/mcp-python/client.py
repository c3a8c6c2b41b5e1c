"""Drives `cotab mcp` with the official MCP Python SDK (`mcp` on PyPI), as
an LLM client would: initialize, list the tools, snapshot the page, click
the button whose name is given by its ref, snapshot again. Prints what it
saw as one JSON object. Run by the end-to-end test `e2e::mcp`:

    python client.py COTAB RUNTIME_DIR BUTTON_NAME
"""

import asyncio
import json
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result):
    """The text content of a tool result, and whether it is an error."""
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    return "\n".join(texts), bool(result.is_error)


async def main(cotab, runtime_dir, button):
    params = StdioServerParameters(
        command=cotab, args=["mcp", "--runtime-dir", runtime_dir]
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            snapshot, snapshot_error = text_of(await session.call_tool("browser_snapshot", {}))
            found = re.search(r'button "%s" \[ref=(e\d+)\]' % re.escape(button), snapshot)
            clicked, clicked_error = ("", True)
            if found:
                clicked, clicked_error = text_of(
                    await session.call_tool(
                        "browser_click",
                        {"element": button, "target": found.group(1)},
                    )
                )
            unknown, unknown_error = text_of(
                await session.call_tool("browser_snapshot", {"depth": 2})
            )
            print(
                json.dumps(
                    {
                        "server": init.server_info.name,
                        "tools": [t.name for t in tools.tools],
                        "snapshot": snapshot,
                        "snapshotError": snapshot_error,
                        "ref": found.group(1) if found else None,
                        "clicked": clicked,
                        "clickedError": clicked_error,
                        "unknownArgument": unknown,
                        "unknownArgumentError": unknown_error,
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
