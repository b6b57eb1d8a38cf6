//! Bounded resources over real sockets: clients that idle or trickle their handshake lose their
//! slot, and the memory budget refuses what does not fit while keeping what was applied.

mod common;

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use memcity_wire::protocol::{history_message, snapshot_message};
use memcity_wire::{Connection, Server, ServerConfig};

fn short_limits(max_clients: usize) -> ServerConfig {
    ServerConfig {
        max_clients,
        idle_timeout: Duration::from_millis(800),
        handshake_timeout: Duration::from_millis(800),
        ..ServerConfig::default()
    }
}

/// Sockets that send a handshake one byte every 100 ms, until `stop`.
fn tricklers(server: &Server, n: usize, stop: &Arc<AtomicBool>) -> Vec<thread::JoinHandle<()>> {
    (0..n)
        .map(|_| {
            let (addr, stop) = (server.local_addr(), stop.clone());
            thread::spawn(move || {
                let Ok(mut socket) = TcpStream::connect(addr) else { return };
                let request = b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";
                for byte in request.iter().cycle() {
                    if stop.load(Ordering::SeqCst) || socket.write_all(&[*byte]).is_err() {
                        return;
                    }
                    thread::sleep(Duration::from_millis(100));
                }
            })
        })
        .collect()
}

/// Connects, retrying while the server answers 503, until `within` has passed.
fn connect_within(server: &Server, within: Duration) -> Result<Connection, String> {
    let deadline = Instant::now() + within;
    loop {
        match Connection::open(&url(server), TIMEOUT) {
            Ok(c) => return Ok(c),
            Err(e) if Instant::now() >= deadline => return Err(e.0),
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

#[test]
fn trickled_handshakes_lose_their_slot_at_the_deadline() {
    let server = start(short_limits(2));
    let stop = Arc::new(AtomicBool::new(false));
    let threads = tricklers(&server, 2, &stop);
    thread::sleep(Duration::from_millis(200));
    let refused = Connection::open(&url(&server), TIMEOUT).err().expect("both slots are taken").0;
    assert!(refused.contains("503"), "{refused}");
    // A per-read timeout never fires on a byte every 100 ms; the handshake deadline does.
    let mut c = connect_within(&server, Duration::from_secs(3)).expect("a slot frees at the deadline");
    assert_eq!(ask(&mut c, r#"{"type":"clear"}"#)["ok"], true);
    stop.store(true, Ordering::SeqCst);
    threads.into_iter().for_each(|t| t.join().unwrap());
}

#[test]
fn idle_clients_are_closed_and_free_their_slot() {
    let server = start(short_limits(2));
    let mut idle = [connect(&server), connect(&server)];
    assert!(Connection::open(&url(&server), TIMEOUT).is_err(), "both slots are taken");
    let started = Instant::now();
    let mut c = connect_within(&server, Duration::from_secs(3)).expect("idle clients are dropped");
    assert!(started.elapsed() >= Duration::from_millis(500), "not before the idle timeout");
    assert_eq!(ask(&mut c, r#"{"type":"clear"}"#)["ok"], true);
    for client in &mut idle {
        let said = client.receive().expect("told why").to_string();
        assert!(said.contains("idle for 0.8 s"), "{said}");
        let closed = client.receive().unwrap_err().0;
        assert!(closed.contains("1001"), "{closed}");
    }
}

#[test]
fn a_new_client_is_served_beside_idle_and_trickling_sockets() {
    let server = start(ServerConfig::default());
    let idle: Vec<Connection> = (0..24).map(|_| connect(&server)).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let threads = tricklers(&server, 24, &stop);
    thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let mut c = Connection::open(&url(&server), TIMEOUT).expect("the default cap leaves room");
    assert_eq!(ask(&mut c, r#"{"type":"clear"}"#)["ok"], true);
    assert!(started.elapsed() < Duration::from_secs(2), "served in {:?}", started.elapsed());
    stop.store(true, Ordering::SeqCst);
    threads.into_iter().for_each(|t| t.join().unwrap());
    drop(idle);
}

#[test]
fn a_message_beyond_the_memory_budget_is_refused_while_it_arrives() {
    let server = start(ServerConfig { max_memory_bytes: 4 << 20, ..ServerConfig::default() });
    let small = history(1, 5);
    let mut c = connect(&server);
    assert_eq!(ask(&mut c, &history_message(&small))["ok"], true);
    let big = history_message(&history(4, 5_000));
    assert!(big.len() < 4 << 20 && big.len() * 3 > 4 << 20, "charged three times: {}", big.len());
    let mut pusher = connect(&server);
    let reply = pusher.request(big).unwrap();
    assert!(reply.contains(r#""ok":false"#) && reply.contains("memory budget of 4 MiB"), "{reply}");
    let closed = pusher.receive().unwrap_err().0;
    assert!(closed.contains("1013"), "{closed}");
    // Nothing changed, nothing stays charged: the same small history is accepted again.
    assert_eq!(get(&mut connect(&server)), (1, small.clone()));
    assert_eq!(ask(&mut connect(&server), &history_message(&small))["ok"], true);
}

#[test]
fn a_history_growing_beyond_the_budget_is_refused_and_the_connection_stays() {
    let server = start(ServerConfig { max_memory_bytes: 2 << 20, ..ServerConfig::default() });
    let mut c = connect(&server);
    let mut refused = None;
    for i in 0..200 {
        let reply = ask(&mut c, &snapshot_message(&snapshot(i, 200)));
        if reply["ok"] == false {
            refused = Some((i, reply["error"].as_str().unwrap().to_string()));
            break;
        }
    }
    let (i, error) = refused.expect("the budget is reached");
    assert!(i > 3, "several snapshots fit first");
    assert!(error.contains("over the server's budget"), "{error}");
    assert_eq!(ask(&mut c, r#"{"type":"get"}"#)["ok"], true, "the connection is still up");
    assert_eq!(server.latest().unwrap().1.snapshots.len(), i);
}
