//! The attacks of a web page on a local server, over real sockets on 127.0.0.1: a handshake
//! with a browser's Origin is refused before any message is read, tools without one still
//! push, tokens are required where set, and clients cannot choose where the server writes.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;

use common::*;
use memcity_wire::access::url_with_token;
use memcity_wire::{Access, Connection, ServerConfig, push_history};
use tungstenite::client::IntoClientRequest;

/// A handshake as a browser sends it, with `headers` added; the HTTP status it gets.
fn handshake_status(url: &str, headers: &[(&'static str, &str)]) -> u16 {
    let mut request = url.into_client_request().unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    let addr = request.uri().authority().unwrap().as_str().to_string();
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    match tungstenite::client::client(request, stream) {
        Ok((_, response)) => response.status().as_u16(),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response))) => {
            response.status().as_u16()
        }
        Err(e) => panic!("handshake: {e}"),
    }
}

#[test]
fn a_web_page_cannot_push_or_save_over_a_users_file() {
    let dir = temp_path("attack-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = dir.join("bashrc");
    std::fs::write(&victim, "# the user's shell start-up file\n").unwrap();
    let server = start(ServerConfig { save_dir: Some(dir.clone()), ..ServerConfig::default() });
    // What the attack page sends: a history named to run a command, then a save over the file.
    let mut stream = TcpStream::connect(server.local_addr()).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    let head = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        port = server.local_addr().port()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(answer.contains("Origin \"https://evil.example\" is not allowed"), "{answer}");
    assert_eq!(server.refused(), 1);
    assert_eq!(server.latest(), None, "no message of the page was read");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "# the user's shell start-up file\n");
    // The same page through the WebSocket client, with a history and a save queued: refused.
    assert_eq!(handshake_status(&url(&server), &[("origin", "https://evil.example")]), 403);
    // Even a client that gets in (a tool) cannot replace a file that is not a history.
    let mut tool = connect(&server);
    let pushed = ask(&mut tool, &memcity_wire::protocol::history_message(&history(1, 3)));
    assert_eq!(pushed["ok"], true);
    for path in ["bashrc", "../bashrc", victim.to_str().unwrap()] {
        let reply = ask(&mut tool, &format!(r#"{{"type":"save","path":{path:?}}}"#));
        assert_eq!(reply["ok"], false, "{path}: {reply}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "# the user's shell start-up file\n");
    let reply = ask(&mut tool, r#"{"type":"save","path":"run.json"}"#);
    assert_eq!(reply["ok"], true, "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tools_without_origin_push_and_allowed_origins_connect() {
    let access = Access { allowed_origins: vec!["http://localhost:5173".into()], ..Access::default() };
    let server = start(ServerConfig { access, ..ServerConfig::default() });
    push_history(&url(&server), &history(2, 5), &mut |_| {}).unwrap();
    assert_eq!(server.latest().unwrap().1.snapshots.len(), 2);
    assert_eq!(handshake_status(&url(&server), &[("origin", "http://localhost:5173")]), 101);
    assert_eq!(handshake_status(&url(&server), &[("origin", "http://localhost:5174")]), 403);
    // DNS rebinding: a page on a name that resolves to 127.0.0.1.
    assert_eq!(handshake_status(&url(&server), &[("host", "rebind.evil.example")]), 403);
    assert_eq!(server.refused(), 2);
}

#[test]
fn tokens_missing_wrong_and_right() {
    let access = Access { token: Some("correct-horse".into()), ..Access::default() };
    let server = start(ServerConfig { access, ..ServerConfig::default() });
    let plain = url(&server);
    let error = push_history(&plain, &history(1, 3), &mut |_| {}).unwrap_err().to_string();
    assert!(error.contains("401") && error.contains("no token"), "{error}");
    let wrong = url_with_token(&plain, Some("battery-staple"));
    let error = push_history(&wrong, &history(1, 3), &mut |_| {}).unwrap_err().to_string();
    assert!(error.contains("wrong token"), "{error}");
    assert_eq!(server.latest(), None);
    assert_eq!(server.url(), url_with_token(&plain, Some("correct-horse")));
    push_history(&server.url(), &history(1, 3), &mut |_| {}).unwrap();
    assert_eq!(server.latest().unwrap().0, 1);
    assert_eq!(handshake_status(&plain, &[("authorization", "Bearer correct-horse")]), 101);
    assert!(Connection::open(&plain, TIMEOUT).is_err());
}

#[test]
fn beyond_loopback_a_server_needs_a_token() {
    let error =
        memcity_wire::Server::start(ServerConfig { addr: "0.0.0.0:0".into(), ..ServerConfig::default() })
            .err()
            .expect("refused")
            .to_string();
    assert!(error.contains("needs a token"), "{error}");
    let access = Access { allowed_origins: vec!["*".into()], ..Access::default() };
    let error = memcity_wire::Server::start(ServerConfig { access, ..ServerConfig::default() });
    assert!(error.err().expect("refused").to_string().contains("needs a token"));
}
