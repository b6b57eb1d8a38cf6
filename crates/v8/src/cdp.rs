//! Heap snapshots from a running program over the Chrome DevTools Protocol: a Node process
//! started with `--inspect`, or a Chromium/Electron with `--remote-debugging-port`. The target
//! is found with `GET /json/list` on the inspector port; its WebSocket is opened on the address
//! the user gave (never on a host the peer names). Each snapshot collects garbage first (as
//! DevTools does) and streams V8's `addHeapSnapshotChunk` events straight to a file.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

/// The longest `/json/list` answer read.
const MAX_LIST: u64 = 4 << 20;
/// The largest CDP message accepted (V8 sends chunks of about 100 KB).
const MAX_MESSAGE: usize = 64 << 20;

/// What went wrong talking to the DevTools peer, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdpError(pub String);

impl std::fmt::Display for CdpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CdpError {}

fn fail<T>(message: impl Into<String>) -> Result<T, CdpError> {
    Err(CdpError(message.into()))
}

/// One debuggable target of `/json/list`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Target {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(rename = "webSocketDebuggerUrl", default)]
    pub websocket: String,
}

/// Resolves `HOST:PORT` to the first address that accepts a connection.
pub fn connect(addr: &str, timeout: Duration) -> Result<(TcpStream, SocketAddr), CdpError> {
    let addrs =
        addr.to_socket_addrs().map_err(|e| CdpError(format!("{addr}: not a HOST:PORT address: {e}")))?;
    let mut last = None;
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => return Ok((s, a)),
            Err(e) => last = Some(e),
        }
    }
    fail(format!("{addr}: cannot connect: {}", last.map_or("no address".into(), |e| e.to_string())))
}

/// The targets the inspector at `addr` lists (`GET /json/list`).
pub fn list_targets(addr: &str, timeout: Duration) -> Result<Vec<Target>, CdpError> {
    let (mut stream, _) = connect(addr, timeout)?;
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            CdpError(format!("{addr}: GET /json/list: no answer within {timeout:?}"))
        }
        _ => CdpError(format!("{addr}: GET /json/list: {e}")),
    };
    stream.set_read_timeout(Some(timeout)).map_err(io)?;
    stream.set_write_timeout(Some(timeout)).map_err(io)?;
    // DevTools checks Host against DNS rebinding: an IP address or localhost passes.
    // One write: the request arrives as one segment, not one per formatted piece.
    let request = format!("GET /json/list HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(io)?;
    let answer = read_answer(&mut stream).map_err(io)?;
    let body = http_body(&answer).map_err(|e| CdpError(format!("{addr}: GET /json/list: {e}")))?;
    serde_json::from_slice(&body)
        .map_err(|e| CdpError(format!("{addr}: GET /json/list: not a DevTools target list: {e}")))
}

/// Reads an HTTP answer until it is complete: its Content-Length, the end of a chunked body, or
/// the end of the stream (Chromium keeps the connection open after the answer).
fn read_answer(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut answer = Vec::new();
    let mut buf = [0u8; 16 << 10];
    loop {
        let n = stream.read(&mut buf)?;
        answer.extend_from_slice(&buf[..n]);
        if n == 0 || answer.len() as u64 >= MAX_LIST || answer_complete(&answer) {
            return Ok(answer);
        }
    }
}

fn answer_complete(answer: &[u8]) -> bool {
    let Some(split) = answer.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let body = answer.len() - split - 4;
    if let Some(length) = head.lines().find_map(|l| l.strip_prefix("content-length:")) {
        return length.trim().parse::<usize>().is_ok_and(|len| body >= len);
    }
    head.contains("transfer-encoding: chunked") && answer.ends_with(b"0\r\n\r\n")
}

/// The body of an HTTP/1.1 200 answer (plain or chunked).
fn http_body(answer: &[u8]) -> Result<Vec<u8>, String> {
    let split =
        answer.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no HTTP header (not an inspector port?)")?;
    let head = String::from_utf8_lossy(&answer[..split]);
    let status = head.lines().next().unwrap_or("");
    if !status.starts_with("HTTP/1.") || status.split_whitespace().nth(1) != Some("200") {
        return Err(format!("the answer is `{}`, not 200 OK", status.chars().take(80).collect::<String>()));
    }
    let body = &answer[split + 4..];
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return Ok(body.to_vec());
    }
    let (mut out, mut rest) = (Vec::new(), body);
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").ok_or("broken chunked body")?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "broken chunk size")?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(rest.get(..size).ok_or("truncated chunk")?);
        rest = rest.get(size + 2..).ok_or("truncated chunk")?;
    }
}

/// The target to record: the one whose URL or title contains `filter`, else Node's single
/// target or the first page.
pub fn pick(targets: &[Target], filter: Option<&str>) -> Result<Target, CdpError> {
    let usable = targets.iter().filter(|t| !t.websocket.is_empty());
    let found = match filter {
        Some(f) => usable.clone().find(|t| t.url.contains(f) || t.title.contains(f)),
        None => {
            usable.clone().find(|t| t.kind == "node").or_else(|| usable.clone().find(|t| t.kind == "page"))
        }
    };
    found.cloned().ok_or_else(|| {
        let listed: Vec<String> = targets.iter().map(|t| format!("{} {}", t.kind, t.url)).collect();
        let wanted = filter
            .map_or("node or page target".into(), |f| format!("target whose URL or title contains {f:?}"));
        CdpError(format!("no {wanted} among the inspector's targets [{}]", listed.join(", ")))
    })
}

/// An open DevTools session with one target.
pub struct Session {
    ws: WebSocket<TcpStream>,
    next_id: u64,
    stall: Duration,
    peer: String,
    /// Time spent decoding and handling messages (not waiting for them).
    own: Duration,
}

/// What the peer sends: answers (with `id`) and events (with `method`).
#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
    method: Option<String>,
    #[serde(default)]
    params: Option<ChunkParams>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
struct ChunkParams {
    chunk: Option<String>,
}

/// How long one snapshot took and how much of that was memcity's own work.
#[derive(Debug, Clone, Copy, Default)]
pub struct Taken {
    pub bytes: u64,
    pub total: Duration,
    /// Decoding messages and writing chunks (the rest is V8 making the snapshot and sending it).
    pub own: Duration,
}

impl Session {
    /// Opens the target's WebSocket at `addr` (the path from its `webSocketDebuggerUrl`).
    /// `stall` bounds the wait for any message.
    pub fn open(addr: &str, target: &Target, stall: Duration) -> Result<Session, CdpError> {
        let path = target
            .websocket
            .strip_prefix("ws://")
            .and_then(|rest| rest.find('/').map(|i| &rest[i..]))
            .ok_or_else(|| {
                CdpError(format!("{addr}: the target's WebSocket URL {:?} is not ws://", target.websocket))
            })?;
        let (stream, _) = connect(addr, stall)?;
        let io = |e: std::io::Error| CdpError(format!("{addr}: {e}"));
        stream.set_read_timeout(Some(stall)).map_err(io)?;
        stream.set_write_timeout(Some(stall)).map_err(io)?;
        let config =
            WebSocketConfig::default().max_message_size(Some(MAX_MESSAGE)).max_frame_size(Some(MAX_MESSAGE));
        let url = format!("ws://{addr}{path}");
        let (ws, _) = tungstenite::client::client_with_config(url.as_str(), stream, Some(config))
            .map_err(|e| CdpError(format!("{url}: WebSocket handshake failed: {e}")))?;
        let mut session = Session { ws, next_id: 1, stall, peer: url, own: Duration::ZERO };
        session.call("HeapProfiler.enable", "{}", &mut |_| Ok(()))?;
        Ok(session)
    }

    /// Sends a command and waits for its answer; events on the way go to `event`.
    fn call(
        &mut self,
        method: &str,
        params: &str,
        event: &mut dyn FnMut(Incoming) -> Result<(), CdpError>,
    ) -> Result<(), CdpError> {
        let id = self.next_id;
        self.next_id += 1;
        let text = format!(r#"{{"id":{id},"method":"{method}","params":{params}}}"#);
        self.ws.send(Message::text(text)).map_err(|e| self.broken(method, e))?;
        loop {
            let message = self.ws.read().map_err(|e| self.broken(method, e))?;
            let handling = Instant::now();
            let text = match message {
                Message::Text(text) => text,
                Message::Close(frame) => {
                    let why =
                        frame.map_or(String::new(), |f| format!(" ({} {})", u16::from(f.code), f.reason));
                    return fail(format!(
                        "{}: the peer closed the connection during {method}{why}",
                        self.peer
                    ));
                }
                Message::Binary(_) => {
                    return fail(format!("{}: a binary message during {method} (not CDP)", self.peer));
                }
                _ => continue,
            };
            let incoming: Incoming = serde_json::from_str(text.as_str()).map_err(|e| {
                let shown: String = text.as_str().chars().take(60).collect();
                CdpError(format!("{}: not a DevTools message during {method}: {e}: {shown:?}", self.peer))
            })?;
            if incoming.id == Some(id) {
                if let Some(error) = incoming.error {
                    return fail(format!("{}: {method} failed: {error}", self.peer));
                }
                return Ok(());
            }
            event(incoming)?;
            self.own += handling.elapsed();
        }
    }

    fn broken(&self, method: &str, e: tungstenite::Error) -> CdpError {
        let stalled = matches!(&e, tungstenite::Error::Io(io) if matches!(io.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut));
        if stalled {
            return CdpError(format!(
                "{}: no message for {:?} during {method} (stalled)",
                self.peer, self.stall
            ));
        }
        CdpError(format!("{}: connection lost during {method}: {e}", self.peer))
    }

    /// Collects garbage, then streams one heap snapshot into `out`.
    pub fn snapshot(&mut self, out: &mut impl Write) -> Result<Taken, CdpError> {
        let start = Instant::now();
        let mut taken = Taken::default();
        self.call("HeapProfiler.collectGarbage", "{}", &mut |_| Ok(()))?;
        let mut on_event = |incoming: Incoming| {
            if incoming.method.as_deref() == Some("HeapProfiler.addHeapSnapshotChunk") {
                let Some(chunk) = incoming.params.and_then(|p| p.chunk) else {
                    return fail("an addHeapSnapshotChunk event without a chunk");
                };
                taken.bytes += chunk.len() as u64;
                if let Err(e) = out.write_all(chunk.as_bytes()) {
                    return fail(format!("cannot write the snapshot: {e}"));
                }
            }
            Ok(())
        };
        self.own = Duration::ZERO;
        // Numbers too: without them a small integer is no node, and keys that differ only by one
        // could not be told apart (docs/objects.md, "Causes").
        let params = r#"{"reportProgress":false,"captureNumericValue":true}"#;
        self.call("HeapProfiler.takeHeapSnapshot", params, &mut on_event)?;
        let flush = Instant::now();
        out.flush().map_err(|e| CdpError(format!("cannot write the snapshot: {e}")))?;
        taken.own = self.own + flush.elapsed();
        taken.total = start.elapsed();
        Ok(taken)
    }

    pub fn close(mut self) {
        let _ = self.ws.close(None);
        let _ = self.ws.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_bodies_plain_and_chunked() {
        assert_eq!(http_body(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]").unwrap(), b"[]");
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[{\r\n3\r\n}]\n\r\n0\r\n\r\n";
        assert_eq!(http_body(chunked).unwrap(), b"[{}]\n");
        assert!(http_body(b"HTTP/1.1 404 Not Found\r\n\r\n").unwrap_err().contains("404"));
        assert!(http_body(b"garbage").unwrap_err().contains("no HTTP header"));
        assert!(answer_complete(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]"));
        assert!(!answer_complete(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[]"));
    }

    #[test]
    fn targets_are_picked_by_url_or_kind() {
        let t = |kind: &str, url: &str| Target {
            kind: kind.into(),
            title: String::new(),
            url: url.into(),
            websocket: format!("ws://127.0.0.1:1/{url}"),
        };
        let list = [t("page", "about:blank"), t("page", "file:///leak.html"), t("node", "file:///app.js")];
        assert_eq!(pick(&list, Some("leak")).unwrap().url, "file:///leak.html");
        assert_eq!(pick(&list, None).unwrap().kind, "node");
        assert_eq!(pick(&list[..2], None).unwrap().url, "about:blank");
        assert!(pick(&list, Some("nope")).unwrap_err().0.contains("file:///leak.html"));
    }
}
