//! The sockets: accepting clients (up to the cap), the WebSocket handshake, and one thread per
//! client that reads messages, hands them to the server and sends the replies.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tungstenite::{Message as Frame, WebSocket};

use tungstenite::handshake::server::{Request, Response};

use crate::access::Refusal;
use crate::budget::{Metered, mib};
use crate::protocol::Reply;
use crate::server::{Shared, lock};

/// How long a send to a client may block before the client is dropped (it stopped reading).
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long to wait for the rest of an oversize message (and the peer's close) before hanging up.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a refused connection gets to send its request head before the 503.
const REFUSE_TIMEOUT: Duration = Duration::from_secs(1);
/// Refusals answered at once (each on a short thread); beyond this a connection is just closed.
const MAX_REFUSING: usize = 64;

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
            refuse_in_background(shared, stream);
            continue;
        }
        let id = shared.next_client.fetch_add(1, Ordering::SeqCst);
        let Ok(handle) = stream.try_clone() else { continue };
        lock(&shared.clients).insert(id, handle);
        let client_shared = shared.clone();
        let spawned = thread::Builder::new().name(format!("memcity-wire-client-{id}")).spawn(move || {
            serve_client(
                &client_shared,
                Metered::new(stream, &client_shared.budget, client_shared.config.handshake_timeout),
            );
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

/// Refuses on a thread of its own, so a client that sends its request slowly cannot hold up
/// the accept loop.
fn refuse_in_background(shared: &Arc<Shared>, stream: TcpStream) {
    if shared.refusing.fetch_add(1, Ordering::SeqCst) >= MAX_REFUSING {
        shared.refusing.fetch_sub(1, Ordering::SeqCst);
        let _ = stream.shutdown(Shutdown::Both);
        return;
    }
    let (max_clients, done) = (shared.config.max_clients, shared.clone());
    let spawned = thread::Builder::new().name("memcity-wire-refuse".into()).spawn(move || {
        refuse(stream, max_clients);
        done.refusing.fetch_sub(1, Ordering::SeqCst);
    });
    if spawned.is_err() {
        shared.refusing.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers the handshake of a connection over the client cap with HTTP 503.
fn refuse(mut stream: TcpStream, max_clients: usize) {
    let deadline = Instant::now() + REFUSE_TIMEOUT;
    let _ = stream.set_write_timeout(Some(REFUSE_TIMEOUT));
    // Read the request head first so closing does not reset the connection under the reply.
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
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

/// Logs a refused handshake in one line on stderr: the first few, then every thousandth, so a
/// page that keeps trying cannot flood the terminal.
fn log_refusal(shared: &Shared, peer: Option<std::net::SocketAddr>, refusal: &Refusal) {
    let count = shared.refused.fetch_add(1, Ordering::SeqCst) + 1;
    if count <= 10 || count.is_multiple_of(1000) {
        let peer = peer.map_or("a client".into(), |p| p.to_string());
        let line = format!(
            "memcity: refused a WebSocket handshake from {peer} ({} {}): {} [{count} refused so far]",
            refusal.status.as_u16(),
            refusal.status.canonical_reason().unwrap_or(""),
            refusal.reason
        );
        eprintln!("{}", memcity_model::escape::terminal(&line));
    }
}

fn serve_client(shared: &Shared, stream: Metered<'_>) {
    let max = shared.config.max_message_bytes;
    let config = WebSocketConfig::default().max_message_size(Some(max)).max_frame_size(Some(max));
    if stream.stream.set_write_timeout(Some(WRITE_TIMEOUT)).is_err() {
        return;
    }
    let peer = stream.stream.peer_addr().ok();
    let access = &shared.config.access;
    // tungstenite's own callback type: its error is the whole HTTP answer.
    #[allow(clippy::result_large_err)]
    let check = |request: &Request, response: Response| match access.check(request) {
        Ok(()) => Ok(response),
        Err(refusal) => {
            log_refusal(shared, peer, &refusal);
            Err(refusal.response())
        }
    };
    let Ok(mut ws) = tungstenite::accept_hdr_with_config(stream, check, Some(config)) else { return };
    if ws.get_mut().handshake_done(shared.config.idle_timeout).is_err() {
        return;
    }
    ws.get_mut().release();
    loop {
        let reply = match ws.read() {
            Ok(Frame::Text(text)) => shared.handle(tungstenite::Bytes::from(text), Instant::now()),
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
                return close(ws, error, CloseCode::Size, "message too large");
            }
            Err(tungstenite::Error::Io(_)) if ws.get_ref().over_budget => {
                let error = format!(
                    "message: refused: the server's memory budget of {} MiB is in use (history about {} MiB, \
                     messages in transit {} MiB); closing the connection, try again later",
                    mib(shared.budget.limit),
                    mib(shared.budget.held()),
                    mib(shared.budget.in_flight()),
                );
                ws.get_mut().release_all();
                return close(ws, error, CloseCode::Again, "server memory budget in use");
            }
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) =>
            {
                let idle = shared.config.idle_timeout.as_secs_f64();
                let error = format!("message: idle for {idle} s; closing the connection");
                return close(ws, error, CloseCode::Away, "idle");
            }
            Err(_) => return,
        };
        ws.get_mut().release();
        if !send(shared, &mut ws, reply) {
            return;
        }
    }
}

/// Sends a reply; a reply carrying the history is charged to the budget while it is built and
/// sent. Returns false when the client is gone.
fn send(shared: &Shared, ws: &mut WebSocket<Metered<'_>>, reply: Reply) -> bool {
    // The JSON of a history takes about half its estimated size in memory.
    let cost = reply.history.as_ref().map_or(0, |h| h.memory_estimate() / 2);
    let text = if cost == 0 {
        reply.to_text()
    } else if shared.budget.try_charge(cost) {
        let text = reply.to_text();
        drop(reply);
        let sent = ws.send(Frame::text(text)).is_ok();
        shared.budget.release(cost);
        return sent;
    } else {
        let error = format!(
            "message: refused: the reply would not fit in the server's memory budget of {} MiB now; try again later",
            mib(shared.budget.limit)
        );
        Reply::error(reply.kind, error).to_text()
    };
    ws.send(Frame::text(text)).is_ok()
}

/// Answers with `error`, closes with `code` and hangs up once the peer had time to read it.
fn close(mut ws: WebSocket<Metered<'_>>, error: String, code: CloseCode, reason: &str) {
    let _ = ws.send(Frame::text(Reply::error(None, error).to_text()));
    let _ = ws.close(Some(CloseFrame { code, reason: reason.to_string().into() }));
    let _ = ws.flush();
    drain(&mut ws.get_mut().stream);
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
