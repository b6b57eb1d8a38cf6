//! The sockets: accepting clients (up to the cap), the WebSocket handshake, and one thread per
//! client that reads messages, hands them to the server and sends the replies.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use tungstenite::Message as Frame;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, WebSocketConfig};

use crate::protocol::Reply;
use crate::server::{Shared, lock};

/// How long a new connection may take to send its WebSocket handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a send to a client may block before the client is dropped (it stopped reading).
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long to wait for the rest of an oversize message (and the peer's close) before hanging up.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

pub(crate) fn accept_loop(shared: &Arc<Shared>, listener: TcpListener) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else {
            // Out of file descriptors or a connection reset before accept: wait, keep serving.
            thread::sleep(Duration::from_millis(10));
            continue;
        };
        let full = lock(&shared.clients).len() >= shared.config.max_clients;
        if full {
            refuse(stream, shared.config.max_clients);
            continue;
        }
        let id = shared.next_client.fetch_add(1, Ordering::SeqCst);
        let Ok(handle) = stream.try_clone() else { continue };
        lock(&shared.clients).insert(id, handle);
        let client_shared = shared.clone();
        let spawned = thread::Builder::new().name(format!("memcity-wire-client-{id}")).spawn(move || {
            serve_client(&client_shared, stream);
            lock(&client_shared.clients).remove(&id);
        });
        let mut threads = lock(&shared.threads);
        threads.retain(|t| !t.is_finished());
        match spawned {
            Ok(thread) => threads.push(thread),
            Err(_) => {
                lock(&shared.clients).remove(&id);
            }
        }
    }
}

/// Answers the handshake of a connection over the client cap with HTTP 503.
fn refuse(mut stream: TcpStream, max_clients: usize) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    // Read the request head first so closing does not reset the connection under the reply.
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let body = format!("memcity: too many clients (at most {max_clients}); try again later\n");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.shutdown(Shutdown::Both);
}

fn serve_client(shared: &Shared, stream: TcpStream) {
    let max = shared.config.max_message_bytes;
    let config = WebSocketConfig::default().max_message_size(Some(max)).max_frame_size(Some(max));
    if stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT)).is_err()
        || stream.set_write_timeout(Some(WRITE_TIMEOUT)).is_err()
    {
        return;
    }
    let Ok(mut ws) = tungstenite::accept_with_config(stream, Some(config)) else { return };
    if ws.get_mut().set_read_timeout(None).is_err() {
        return;
    }
    loop {
        let reply = match ws.read() {
            Ok(Frame::Text(text)) => shared.handle(text.as_bytes(), Instant::now()),
            Ok(Frame::Binary(_)) => {
                Reply::error(None, "message: a binary frame: send each JSON message as a text frame")
            }
            // Pings are answered and a close is echoed by tungstenite on the next read or flush.
            Ok(_) => {
                if ws.flush().is_err() {
                    return;
                }
                continue;
            }
            Err(tungstenite::Error::Capacity(e)) => {
                // The rest of the message is still on the wire and cannot be skipped frame by
                // frame, so answer, close with 1009 (Message Too Big) and hang up.
                let error =
                    format!("message: too large: {e} (the cap is {max} bytes); closing the connection");
                let _ = ws.send(Frame::text(Reply::error(None, error).to_text()));
                let close = CloseFrame { code: CloseCode::Size, reason: "message too large".into() };
                let _ = ws.close(Some(close));
                let _ = ws.flush();
                drain(ws.get_mut());
                return;
            }
            Err(_) => return,
        };
        if ws.send(Frame::text(reply.to_text())).is_err() {
            return;
        }
    }
}

/// Reads and drops what the peer still sends, for a bounded time, so that closing the socket
/// does not reset the connection before the peer has read our reply.
fn drain(stream: &mut TcpStream) {
    let deadline = Instant::now() + DRAIN_TIMEOUT;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let mut buf = vec![0u8; 64 * 1024];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
}
