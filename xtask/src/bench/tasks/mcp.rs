//! One MCP server on stdio, as a model's client drives it: tools called in
//! turn, and everything the model would read of their answers counted in
//! calls, bytes and tokens (o200k_base).

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;
use tiktoken_rs::CoreBPE;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Longest a tool call may take before the task fails.
const CALL_DEADLINE: Duration = Duration::from_secs(60);

/// The servers compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peer {
    Cotab,
    PlaywrightMcp,
    ChromeDevtoolsMcp,
}

impl Peer {
    pub(crate) const ALL: [Peer; 3] = [Peer::Cotab, Peer::PlaywrightMcp, Peer::ChromeDevtoolsMcp];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Peer::Cotab => "cotab mcp",
            Peer::PlaywrightMcp => "Playwright MCP",
            Peer::ChromeDevtoolsMcp => "chrome-devtools-mcp",
        }
    }
}

/// What a model read of a server's answers in one task.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    /// Tool calls, and files the answers named that were read.
    pub(crate) calls: usize,
    pub(crate) bytes: usize,
    pub(crate) tokens: usize,
}

/// The o200k_base encoding, loaded once.
fn encoding() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("o200k_base ships in the crate"))
}

/// Tokens of `text` in o200k_base.
pub(crate) fn tokens(text: &str) -> usize {
    encoding().encode_ordinary(text).len()
}

/// A running server with its initialised session.
pub(crate) struct Server {
    pub(crate) peer: Peer,
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    /// Where the server writes the files its answers name.
    pub(crate) cwd: PathBuf,
    pub(crate) tally: Tally,
    /// Each counted answer: the tool (or `read`) and its tokens.
    pub(crate) calls: Vec<(String, usize)>,
    /// Whether an answer said the outline it showed was cut: the snapshot
    /// tool would show no more.
    pub(crate) saw_cut: bool,
}

impl Server {
    /// Starts `program` with `args` in `cwd` and initialises the session.
    pub(crate) async fn start(
        peer: Peer,
        program: &Path,
        args: &[String],
        cwd: &Path,
        env: &[(&str, &str)],
    ) -> Result<Server> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", program.display()))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut server = Server {
            peer,
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            next_id: 0,
            cwd: cwd.to_path_buf(),
            tally: Tally::default(),
            calls: Vec::new(),
            saw_cut: false,
        };
        server
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "cotab-task-bench", "version": "1"}
                }),
            )
            .await?;
        server
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(server)
    }

    async fn send(&mut self, message: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.stdin.write_all(&line).await?;
        Ok(())
    }

    /// One request and its result; the server's own requests are refused
    /// and its notifications passed over.
    async fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        let answer = tokio::time::timeout(CALL_DEADLINE, async {
            loop {
                let line = self
                    .lines
                    .next_line()
                    .await?
                    .ok_or_else(|| anyhow!("{} closed its output", self.peer.name()))?;
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                match (message.get("id"), message.get("method")) {
                    (Some(their), Some(_)) => {
                        let refusal = json!({"jsonrpc": "2.0", "id": their, "error":
                            {"code": -32601, "message": "not offered"}});
                        self.send(&refusal).await?;
                    }
                    (Some(n), None) if n.as_u64() == Some(id) => {
                        return Ok::<_, anyhow::Error>(message)
                    }
                    _ => {}
                }
            }
        })
        .await
        .map_err(|_| {
            anyhow!(
                "{method} had no answer from {} in {CALL_DEADLINE:?}",
                self.peer.name()
            )
        })??;
        if let Some(e) = answer.get("error") {
            bail!("{method}: {e}");
        }
        Ok(answer["result"].clone())
    }

    /// The size of the server's tool list (bytes and tokens of its JSON),
    /// which a model's client puts before every task: not in the tally.
    pub(crate) async fn tool_list(&mut self) -> Result<(usize, usize)> {
        let list = self.request("tools/list", json!({})).await?.to_string();
        Ok((list.len(), tokens(&list)))
    }

    /// Calls `tool` and returns the text of its answer, all of which the
    /// model reads and which is counted; a tool error fails the task.
    pub(crate) async fn call(&mut self, tool: &str, args: Value) -> Result<String> {
        let text = self.call_unchecked(tool, args).await?;
        match text {
            Ok(text) => Ok(text),
            Err(text) => bail!("{tool} failed on {}: {text}", self.peer.name()),
        }
    }

    /// [`Server::call`], with a tool error as its text.
    pub(crate) async fn call_unchecked(
        &mut self,
        tool: &str,
        args: Value,
    ) -> Result<std::result::Result<String, String>> {
        let result = self
            .request("tools/call", json!({"name": tool, "arguments": args}))
            .await?;
        let mut text = String::new();
        for part in result["content"].as_array().into_iter().flatten() {
            if let Some(t) = part["text"].as_str() {
                text.push_str(t);
                text.push('\n');
            }
        }
        self.count(tool, &text);
        Ok(match result["isError"] == true {
            true => Err(text),
            false => Ok(text),
        })
    }

    /// A call that is not part of the task, not counted: the one before
    /// it (a peer's own browser starts on its first call), or tidying the
    /// person's browser after it.
    pub(crate) async fn uncounted(&mut self, tool: &str, args: Value) -> Result<()> {
        let before = (self.tally, self.calls.len());
        self.call(tool, args).await?;
        self.tally = before.0;
        self.calls.truncate(before.1);
        self.saw_cut = false;
        Ok(())
    }

    /// Reads a file an answer named (`[Snapshot](path)`), as the model's
    /// own file tool would: one call, all of it counted.
    pub(crate) fn read_named(&mut self, answer: &str) -> Result<String> {
        let path = named_file(answer).ok_or_else(|| anyhow!("no file named in: {answer}"))?;
        let text = std::fs::read_to_string(self.cwd.join(path))
            .with_context(|| format!("reading {path}"))?;
        self.count("read", &text);
        Ok(text)
    }

    fn count(&mut self, what: &str, text: &str) {
        let n = tokens(text);
        // What the model would read, to see where tokens go.
        if std::env::var_os("COTAB_TASK_SHOW").is_some() {
            eprintln!("--- {} {what}, {n} tokens:\n{text}", self.peer.name());
        }
        self.tally.calls += 1;
        self.tally.bytes += text.len();
        self.tally.tokens += n;
        self.calls.push((what.to_owned(), n));
        self.saw_cut |= text.contains("(truncated: ");
    }

    /// Ends the server as a client does, by closing its input (cotab's
    /// session then ends and lets go of its tab); killed if it has not
    /// gone in 5 s.
    pub(crate) async fn stop(self) {
        let Server {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        if tokio::time::timeout(Duration::from_secs(5), child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }
}

/// The path of the first snapshot file an answer links to.
pub(crate) fn named_file(answer: &str) -> Option<&str> {
    let at = answer.find("[Snapshot](")? + "[Snapshot](".len();
    let rest = &answer[at..];
    Some(&rest[..rest.find(')')?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_file_an_answer_names_is_found() {
        let answer = "### Snapshot\n- [Snapshot](.playwright-mcp/page-1.yml)\n### Events";
        assert_eq!(named_file(answer), Some(".playwright-mcp/page-1.yml"));
        assert_eq!(named_file("### Snapshot\n```yaml\n- a\n```"), None);
    }

    #[test]
    fn tokens_are_counted_in_o200k_base() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("hello world"), 2);
    }
}
