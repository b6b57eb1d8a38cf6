//! Clients: push a history to a memcity server (whole, or live snapshot by snapshot), and fetch
//! a history from an AntTracks-style server through its capability protocol.

use std::fmt;
use std::net::{TcpStream, ToSocketAddrs};
use std::thread;
use std::time::Duration;

use memcity_model::{History, LoadError, attach_anttracks_pointer_maps, load_bytes};
use serde_json::{Value, json};
use tungstenite::client::IntoClientRequest;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message as Frame, WebSocket};

use crate::protocol::{history_message, snapshot_message};

/// How long a client waits to connect and for each answer unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a client gave up: the connection, the server's answer, or the data it sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError(pub String);

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientError {}

impl From<LoadError> for ClientError {
    fn from(e: LoadError) -> Self {
        ClientError(e.to_string())
    }
}

/// An open WebSocket connection that sends JSON text and waits for text answers.
pub struct Connection {
    url: String,
    ws: WebSocket<TcpStream>,
}

impl Connection {
    /// Connects to a `ws://HOST:PORT[/path]` URL; `timeout` bounds connecting and each answer.
    pub fn open(url: &str, timeout: Duration) -> Result<Connection, ClientError> {
        let fail = |what: String| ClientError(format!("{url}: {what}"));
        let request = url.into_client_request().map_err(|e| fail(format!("not a WebSocket URL: {e}")))?;
        let uri = request.uri();
        if uri.scheme_str() != Some("ws") {
            return Err(fail("only ws:// URLs are supported (no TLS)".into()));
        }
        let host = uri.host().ok_or_else(|| fail("no host in the URL".into()))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(80);
        let addrs =
            (host, port).to_socket_addrs().map_err(|e| fail(format!("cannot resolve {host}: {e}")))?;
        let mut last = None;
        let mut stream = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let stream = stream.ok_or_else(|| {
            fail(format!("cannot connect: {}", last.map_or("no address".into(), |e| e.to_string())))
        })?;
        stream.set_read_timeout(Some(timeout)).map_err(|e| fail(e.to_string()))?;
        stream.set_write_timeout(Some(timeout)).map_err(|e| fail(e.to_string()))?;
        // Answers (a `get`, AntTracks' trees) may be large; the user chose this server.
        let config = WebSocketConfig::default().max_message_size(None).max_frame_size(None);
        let (ws, _) = tungstenite::client::client_with_config(request, stream, Some(config))
            .map_err(|e| fail(handshake_failure(e)))?;
        Ok(Connection { url: url.to_string(), ws })
    }

    /// Sends one text message.
    pub fn send(&mut self, text: String) -> Result<(), ClientError> {
        self.ws.send(Frame::text(text)).map_err(|e| ClientError(format!("{}: cannot send: {e}", self.url)))
    }

    /// Sends one binary message (memcity's server refuses them; this is for tests and other
    /// servers).
    pub fn send_binary(&mut self, bytes: Vec<u8>) -> Result<(), ClientError> {
        self.ws.send(Frame::binary(bytes)).map_err(|e| ClientError(format!("{}: cannot send: {e}", self.url)))
    }

    /// Waits for the next text message (answering pings on the way).
    pub fn receive(&mut self) -> Result<String, ClientError> {
        loop {
            match self.ws.read() {
                Ok(Frame::Text(text)) => return Ok(text.as_str().to_string()),
                Ok(Frame::Binary(bytes)) => {
                    return String::from_utf8(bytes.to_vec()).map_err(|_| {
                        ClientError(format!("{}: a binary answer that is not UTF-8", self.url))
                    });
                }
                Ok(Frame::Close(frame)) => {
                    let why =
                        frame.map_or(String::new(), |f| format!(" ({} {})", u16::from(f.code), f.reason));
                    return Err(ClientError(format!("{}: the server closed the connection{why}", self.url)));
                }
                Ok(_) => {}
                Err(e) => return Err(ClientError(format!("{}: no answer: {e}", self.url))),
            }
        }
    }

    /// Sends `text` and returns the answer.
    pub fn request(&mut self, text: String) -> Result<String, ClientError> {
        self.send(text)?;
        self.receive()
    }

    /// Closes politely; errors are of no interest at that point.
    pub fn close(mut self) {
        let _ = self.ws.close(None);
        let _ = self.ws.flush();
    }
}

/// Why a handshake failed, with the server's own one-line reason when it refused us (a missing
/// token, an Origin it does not allow).
fn handshake_failure(error: tungstenite::HandshakeError<tungstenite::ClientHandshake<TcpStream>>) -> String {
    use tungstenite::HandshakeError;
    let HandshakeError::Failure(tungstenite::Error::Http(response)) = &error else {
        return format!("WebSocket handshake failed: {error}");
    };
    let body = response.body().as_deref().map(String::from_utf8_lossy).unwrap_or_default();
    let reason: String = body.trim().trim_start_matches("memcity: ").chars().take(300).collect();
    let hint = if response.status().as_u16() == 401 {
        format!(" (give ?token=… in the URL or set {})", crate::access::TOKEN_VARIABLE)
    } else {
        String::new()
    };
    let line = format!("the server refused the connection: {}: {reason}{hint}", response.status());
    memcity_model::escape::terminal(&line).into_owned()
}

/// Sends `history` as one `history` message; `on_reply` sees the reply text. Fails if the
/// server answers with an error.
pub fn push_history(url: &str, history: &History, on_reply: &mut dyn FnMut(&str)) -> Result<(), ClientError> {
    let mut connection = Connection::open(url, DEFAULT_TIMEOUT)?;
    let reply = connection.request(history_message(history))?;
    on_reply(&reply);
    connection.close();
    check_reply(&reply, "the history")
}

/// Sends `history` snapshot by snapshot, `delay` apart, as a live program would: the first as a
/// one-snapshot `history` message (it replaces what the server has and carries the metric
/// names), then `snapshot` messages. Stops at the first error.
pub fn push_live(
    url: &str,
    history: &History,
    delay: Duration,
    on_reply: &mut dyn FnMut(&str),
) -> Result<(), ClientError> {
    let mut connection = Connection::open(url, DEFAULT_TIMEOUT)?;
    for (i, snapshot) in history.snapshots.iter().enumerate() {
        if i > 0 && !delay.is_zero() {
            thread::sleep(delay);
        }
        let text = if i == 0 {
            let format = history.format.clone();
            let metric_names = history.metric_names.clone();
            history_message(&History { format, metric_names, snapshots: vec![snapshot.clone()] })
        } else {
            snapshot_message(snapshot)
        };
        let reply = connection.request(text)?;
        on_reply(&reply);
        check_reply(&reply, &format!("snapshot {i}"))?;
    }
    connection.close();
    Ok(())
}

fn check_reply(reply: &str, what: &str) -> Result<(), ClientError> {
    let value: Value = serde_json::from_str(reply)
        .map_err(|e| ClientError(format!("the server's reply to {what} is not JSON: {e}")))?;
    if value.get("ok") == Some(&Value::Bool(true)) {
        return Ok(());
    }
    let error = value.get("error").and_then(Value::as_str).unwrap_or("no error given");
    Err(ClientError(format!("the server rejected {what}: {error}")))
}

/// Fetches a history from an AntTracks-style server: its trees (GET-ALL-TREES) with points-to
/// and pointed-from maps attached by time. Without `tab`, the first tab of GET-TAB-LIST is used.
pub fn fetch_anttracks(url: &str, tab: Option<i64>, timeout: Duration) -> Result<History, ClientError> {
    let mut connection = Connection::open(url, timeout)?;
    let tab = match tab {
        Some(tab) => tab,
        None => first_tab(&ask(&mut connection, "GET-TAB-LIST", 0)?)?,
    };
    let trees = ask(&mut connection, "GET-ALL-TREES", tab)?;
    let source = format!("{url} GET-ALL-TREES (tab {tab})");
    let mut history = load_bytes(&data_bytes(trees), &source)?;
    for (capability, points_to) in [("GET-ALL-POINTS-TO-MAPS", true), ("GET-ALL-POINTED-FROM-MAPS", false)] {
        let maps = ask(&mut connection, capability, tab)?;
        if maps.is_null() {
            continue;
        }
        let source = format!("{url} {capability} (tab {tab})");
        history = attach_anttracks_pointer_maps(history, &data_bytes(maps), &source, points_to)?;
    }
    connection.close();
    Ok(history)
}

/// Sends one capability request and returns the `data` of its successful answer. Answers to
/// other requests (a server may push its own) are skipped, a bounded number of them.
fn ask(connection: &mut Connection, capability: &str, tab: i64) -> Result<Value, ClientError> {
    let request = json!({ "capability": capability, "tabId": tab, "parameters": [] });
    connection.send(request.to_string())?;
    let url = connection.url.clone();
    let what = |m: String| ClientError(format!("{url} {capability} (tab {tab}): {m}"));
    for _ in 0..100 {
        let text = connection.receive()?;
        let answer: Value =
            serde_json::from_str(&text).map_err(|e| what(format!("the answer is not JSON: {e}")))?;
        if answer.pointer("/request/capability").and_then(Value::as_str) != Some(capability) {
            continue;
        }
        return match answer.get("status").and_then(Value::as_str) {
            Some("success") => Ok(answer.get("data").cloned().unwrap_or(Value::Null)),
            Some("failed") => {
                let error = answer.get("error").map_or("no error given".to_string(), |e| match e {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                Err(what(format!("the server failed: {error}")))
            }
            other => Err(what(format!(
                "at status: expected \"success\" or \"failed\", found {}",
                other.map_or("nothing".into(), |s| format!("\"{s}\""))
            ))),
        };
    }
    Err(what("no answer to this request among the next 100 messages".into()))
}

/// `data` as JSON bytes for the model's readers; a string is taken as JSON text already.
fn data_bytes(data: Value) -> Vec<u8> {
    match data {
        Value::String(text) => text.into_bytes(),
        other => other.to_string().into_bytes(),
    }
}

/// The first tab of a GET-TAB-LIST answer: an array of tab ids, or of objects with an integer
/// `tabId` or `id`.
fn first_tab(list: &Value) -> Result<i64, ClientError> {
    let fail = |m: &str| ClientError(format!("GET-TAB-LIST: {m}"));
    let tabs = list.as_array().ok_or_else(|| fail("at data: expected an array of tabs"))?;
    let first = tabs.first().ok_or_else(|| fail("the server has no open tabs"))?;
    let id = match first {
        Value::Number(n) => n.as_i64(),
        Value::Object(o) => o.get("tabId").or_else(|| o.get("id")).and_then(Value::as_i64),
        _ => None,
    };
    id.ok_or_else(|| fail("at data[0]: expected a tab id or an object with an integer \"tabId\" or \"id\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_lists_give_their_first_tab() {
        assert_eq!(first_tab(&json!([3, 4])), Ok(3));
        assert_eq!(first_tab(&json!([{"tabId": 5, "name": "x"}])), Ok(5));
        assert_eq!(first_tab(&json!([{"id": 6}])), Ok(6));
        assert!(first_tab(&json!([])).unwrap_err().0.contains("no open tabs"));
        assert!(first_tab(&json!({"tabs": []})).unwrap_err().0.contains("expected an array"));
        assert!(first_tab(&json!(["a"])).unwrap_err().0.contains("at data[0]"));
    }

    #[test]
    fn replies_are_checked() {
        assert!(check_reply(r#"{"ok":true}"#, "x").is_ok());
        assert_eq!(
            check_reply(r#"{"ok":false,"error":"bad key"}"#, "snapshot 3").unwrap_err().0,
            "the server rejected snapshot 3: bad key"
        );
        assert!(check_reply("nope", "x").unwrap_err().0.contains("not JSON"));
    }

    #[test]
    fn urls_are_checked() {
        let e = |url| Connection::open(url, Duration::from_secs(1)).err().unwrap().0;
        assert!(e("http://127.0.0.1:1").contains("only ws://"), "{}", e("http://127.0.0.1:1"));
        assert!(e("not a url").contains("not a WebSocket URL"));
    }
}
