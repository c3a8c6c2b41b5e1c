"""Drives `cotab mcp` with the official MCP Python SDK (`mcp` on PyPI), as
an LLM client would: initialize, list the tools, snapshot the page, click
the button whose name is given by its ref, save a screenshot and a PDF in
the workspace, list the requests, resize the page and switch it to the
dark scheme, then go to the chooser page, open its file chooser and answer
it with UPLOAD. Prints what it saw as one JSON object. Run by the
end-to-end test `e2e::mcp`:

    python client.py COTAB RUNTIME_DIR BUTTON_NAME WORKSPACE CHOOSER_URL UPLOAD
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


async def main(cotab, runtime_dir, button, workspace, chooser_url, upload):
    params = StdioServerParameters(
        command=cotab,
        args=["mcp", "--runtime-dir", runtime_dir, "--caps", "pdf"],
        cwd=workspace,
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
                await session.call_tool("browser_snapshot", {"selector": "body"})
            )
            shot, shot_error = text_of(
                await session.call_tool(
                    "browser_take_screenshot", {"filename": "shots/page.png"}
                )
            )
            pdf, pdf_error = text_of(
                await session.call_tool("browser_pdf_save", {"filename": "page.pdf"})
            )
            resized, resized_error = text_of(
                await session.call_tool("browser_resize", {"width": 640, "height": 480})
            )
            dark, dark_error = text_of(
                await session.call_tool("browser_emulate_media", {"colorScheme": "dark"})
            )
            network, network_error = text_of(
                await session.call_tool("browser_network_requests", {"static": True})
            )
            escape, escape_error = text_of(
                await session.call_tool(
                    "browser_pdf_save", {"filename": "../outside.pdf"}
                )
            )
            await session.call_tool("browser_navigate", {"url": chooser_url})
            page, _ = text_of(await session.call_tool("browser_snapshot", {}))
            attach = re.search(r'button "Attach files" \[ref=(e\d+)\]', page)
            chooser, chooser_error = ("", True)
            uploaded, uploaded_error = ("", True)
            if attach:
                chooser, chooser_error = text_of(
                    await session.call_tool(
                        "browser_click", {"element": "Attach files", "target": attach.group(1)}
                    )
                )
                uploaded, uploaded_error = text_of(
                    await session.call_tool("browser_file_upload", {"paths": [upload]})
                )
            # In a tab of its own, a click that changes one line of a form: the
            # answer says what changed since the snapshot, not the page again.
            await session.call_tool(
                "browser_tabs",
                {"action": "new", "url": chooser_url.replace("/chooser", "/signup")},
            )
            form, _ = text_of(await session.call_tool("browser_snapshot", {}))
            send = re.search(r'button "Sign up" \[ref=(e\d+)\]', form)
            changed, changed_error = ("", True)
            if send:
                changed, changed_error = text_of(
                    await session.call_tool(
                        "browser_click", {"element": "Sign up", "target": send.group(1)}
                    )
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
                        "screenshot": shot,
                        "screenshotError": shot_error,
                        "pdf": pdf,
                        "pdfError": pdf_error,
                        "resized": resized,
                        "resizedError": resized_error,
                        "dark": dark,
                        "darkError": dark_error,
                        "network": network,
                        "networkError": network_error,
                        "escape": escape,
                        "escapeError": escape_error,
                        "chooser": chooser,
                        "chooserError": chooser_error,
                        "uploaded": uploaded,
                        "uploadedError": uploaded_error,
                        "form": form,
                        "changed": changed,
                        "changedError": changed_error,
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))
