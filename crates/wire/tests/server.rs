//! End to end over real sockets on 127.0.0.1: pushing, live appends, many clients, bad
//! messages, caps, saving.

mod common;

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use memcity_model::{History, load_path, save_history};
use memcity_wire::protocol::{history_message, snapshot_message};
use memcity_wire::{Connection, ServerConfig, push_history, push_live};

#[test]
fn pushed_history_reads_back_equal() {
    let server = start_default();
    assert_eq!(server.latest(), None);
    let history = history(5, 30);
    let mut replies = Vec::new();
    push_history(&url(&server), &history, &mut |r| replies.push(r.to_string())).unwrap();
    assert_eq!(replies, [r#"{"ok":true,"type":"history","version":1,"snapshots":5}"#]);
    let (version, latest) = server.latest().unwrap();
    assert_eq!((version, &*latest), (1, &history));
    assert_eq!(get(&mut connect(&server)), (1, history));
}

#[test]
fn fifty_live_snapshots_equal_the_file() {
    let file = temp_path("live-50.json");
    save_history(&history(50, 40), &file).unwrap();
    let from_file = load_path(&file).unwrap();
    let server = start_default();
    let updates = server.subscribe();
    let mut replies = 0;
    push_live(&url(&server), &from_file, Duration::ZERO, &mut |_| replies += 1).unwrap();
    assert_eq!(replies, 50);
    let (version, latest) = server.latest().unwrap();
    assert_eq!((version, &*latest), (50, &from_file));
    let updates: Vec<_> = updates.try_iter().collect();
    assert_eq!(updates.len(), 50);
    assert_eq!(updates[0].kind, "history");
    assert!(updates[1..].iter().all(|u| u.kind == "snapshot"));
    assert_eq!(updates.iter().map(|u| u.snapshots).collect::<Vec<_>>(), (1..=50).collect::<Vec<_>>());
    // A live view can rebuild the history from the updates alone.
    assert_eq!(updates[0].appended, None);
    let appended: Vec<_> = updates[1..].iter().map(|u| (*u.appended.clone().unwrap()).clone()).collect();
    assert_eq!(appended, from_file.snapshots[1..]);
}

#[test]
fn twenty_clients_at_once() {
    let server = start(ServerConfig { max_clients: 32, ..ServerConfig::default() });
    let first = history(1, 10);
    push_history(&url(&server), &first, &mut |_| {}).unwrap();
    let barrier = Arc::new(Barrier::new(21));
    let threads: Vec<_> = (0..20)
        .map(|c| {
            let (url, barrier) = (url(&server), barrier.clone());
            thread::spawn(move || {
                let mut connection = Connection::open(&url, TIMEOUT).unwrap();
                barrier.wait(); // all connected
                barrier.wait(); // counted
                let mut versions = Vec::new();
                for k in 0..5 {
                    // Same time as the first snapshot, so any interleaving keeps time order.
                    let mut snapshot = snapshot(0, 10);
                    snapshot.label = Some(format!("client {c} #{k}"));
                    let reply = ask(&mut connection, &snapshot_message(&snapshot));
                    assert_eq!(reply["ok"], true, "{reply}");
                    versions.push(reply["version"].as_u64().unwrap());
                }
                connection.close();
                versions
            })
        })
        .collect();
    barrier.wait();
    assert_eq!(server.clients(), 20);
    barrier.wait();
    let mut versions: Vec<u64> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    versions.sort();
    assert_eq!(versions, (2..=101).collect::<Vec<_>>(), "every append is applied exactly once");
    let (_, latest) = server.latest().unwrap();
    assert_eq!(latest.snapshots.len(), 101);
    for c in 0..20 {
        let labels: Vec<_> = latest
            .snapshots
            .iter()
            .filter_map(|s| s.label.as_deref())
            .filter(|l| l.starts_with(&format!("client {c} #")))
            .collect();
        let expected: Vec<_> = (0..5).map(|k| format!("client {c} #{k}")).collect();
        assert_eq!(labels, expected, "one client's snapshots stay in its order");
    }
}

/// Each bad message, and what its error must say.
const BAD: &[(&str, &str)] = &[
    ("{", "malformed JSON: EOF while parsing an object at line 1 column 1"),
    ("hello", "message: malformed JSON: expected value at line 1 column 1"),
    ("[1]", "message: not a JSON object"),
    (r#"{"snapshot":{}}"#, "message: invalid value: missing field `type` at line 1 column 15"),
    (r#"{"type":["history"]}"#, "message: at type: invalid value: invalid type: sequence, expected a string"),
    (r#"{"type":"delete"}"#, "message: at type: unknown message type \"delete\""),
    (r#"{"type":"clear","all":true}"#, "message: at all: invalid value: unknown field `all`"),
    (r#"{"type":"snapshot"}"#, "message: invalid value: missing field `snapshot`"),
    (
        r#"{"type":"snapshot","snapshot":{"time_ms":9000,"tree":{"key":"Heap","name":"Heap","objects":"many","bytes":1}}}"#,
        "message: at snapshot.tree.objects: invalid value: invalid type: string \"many\", expected u64",
    ),
    (
        r#"{"type":"snapshot","snapshot":{"time_ms":9000,"tree":{"key":"Heap","name":"Heap","objects":-3,"bytes":1}}}"#,
        "message: at snapshot.tree.objects: invalid value: invalid value: integer `-3`, expected u64",
    ),
    (
        r#"{"type":"snapshot","snapshot":{"time_ms":9000,"tree":{"key":"Other","name":"Other","objects":1,"bytes":1}}}"#,
        "message: snapshot 3: at snapshot.tree.key: root key \"Other\" differs from snapshot 0's root key \"Heap\"",
    ),
    (
        r#"{"type":"snapshot","snapshot":{"time_ms":500,"tree":{"key":"Heap","name":"Heap","objects":1,"bytes":1}}}"#,
        "message: snapshot 3: at snapshot.time_ms: snapshots must be ordered by time: 500 ms comes after 2000 ms",
    ),
    (
        r#"{"type":"snapshot","snapshot":{"time_ms":9000,"tree":{"key":"Heap","name":"Heap","objects":1,"bytes":1,
            "children":[{"key":"Heap#p0#T1","name":"T1","objects":1,"bytes":1}]}}}"#,
        "message: snapshot 3: at snapshot.tree.children[0]: key \"Heap#p0#T1\" has parent \"Heap\" here but \
         parent \"Heap#p0\" in snapshot 0",
    ),
    (
        r#"{"type":"snapshot","snapshot":{"time_ms":9000,"tree":{"key":"Heap","name":"Heap","objects":1,"bytes":1,
            "children":[{"key":"Heap#x","name":"x","objects":1,"bytes":1},{"key":"Heap#x","name":"x","objects":1,"bytes":1}]}}}"#,
        "message: snapshot 3: at snapshot.tree.children[1].key: duplicate key \"Heap#x\" (also at snapshot.tree.children[0])",
    ),
    (
        r#"{"type":"pointers","snapshot":1,"points_to":{"Heap#p0#T0":{"Heap#nowhere":2}}}"#,
        "message: snapshot 1: at points_to[\"Heap#p0#T0\"][\"Heap#nowhere\"]: pointer-map key \"Heap#nowhere\" names no node",
    ),
    (
        r#"{"type":"pointers","snapshot":7,"points_to":{}}"#,
        "message: at snapshot: no snapshot 7: the history has 3 snapshots",
    ),
    (
        r#"{"type":"pointers","time_ms":1,"points_to":{}}"#,
        "message: at time_ms: no snapshot was taken at 1 ms",
    ),
    (r#"{"type":"pointers","time_ms":0}"#, "message: no pointer maps"),
    (
        r#"{"type":"history","format":"memcity/2","snapshots":[]}"#,
        "message: at format: unknown format version \"memcity/2\"",
    ),
    (r#"{"type":"history","snapshots":[]}"#, "message: empty history: it has no snapshots"),
    (
        r#"{"type":"history","snapshots":{}}"#,
        "message: at snapshots: invalid value: invalid type: map, expected a sequence",
    ),
    (r#"{"type":"save"}"#, "message: no save path"),
    (
        r#"{"type":"save","path":"/nonexistent-dir/x.json"}"#,
        "message: at path: clients may not choose where the server writes",
    ),
];

#[test]
fn every_bad_message_gets_its_error_and_changes_nothing() {
    let server = start_default();
    let mut connection = connect(&server);
    let history = history(3, 20);
    assert_eq!(ask(&mut connection, &history_message(&history))["ok"], true);
    let mut wrong = Vec::new();
    for (text, expected) in BAD {
        let reply = ask(&mut connection, text);
        assert_eq!(reply["ok"], false, "{text} was accepted: {reply}");
        let error = reply["error"].as_str().unwrap();
        let named = text.contains(r#""type":"snapshot""#) || text.contains(r#""type":"pointers""#);
        if named {
            assert!(reply["type"] == "snapshot" || reply["type"] == "pointers", "{reply}");
        }
        if !error.contains(expected) {
            wrong.push(format!("{text}:\n  got  {error}\n  want {expected}"));
        }
        // The connection stays up and nothing changed.
        assert_eq!(get(&mut connection), (1, history.clone()), "after {text}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A binary frame is refused the same way.
    connection.send_binary(b"{\"type\":\"clear\"}".to_vec()).unwrap();
    let reply: serde_json::Value = serde_json::from_str(&connection.receive().unwrap()).unwrap();
    assert!(reply["error"].as_str().unwrap().contains("binary frame"), "{reply}");
    assert_eq!(get(&mut connection), (1, history));
}

#[test]
fn oversize_message_is_rejected() {
    let server = start(ServerConfig { max_message_bytes: 4096, ..ServerConfig::default() });
    let small = history(1, 5);
    push_history(&url(&server), &small, &mut |_| {}).unwrap();
    let big = history_message(&history(1, 200));
    assert!(big.len() > 4096);
    let mut connection = connect(&server);
    let reply = connection.request(big).unwrap();
    assert!(reply.contains(r#""ok":false"#) && reply.contains("too large"), "{reply}");
    assert!(reply.contains("the cap is 4096 bytes"), "{reply}");
    let closed = connection.receive().unwrap_err().0;
    assert!(closed.contains("closed the connection (1009"), "{closed}");
    // The server is still up, with the history as it was.
    assert_eq!(get(&mut connect(&server)), (1, small));
}

#[test]
fn clients_over_the_cap_are_refused() {
    let server = start(ServerConfig { max_clients: 2, ..ServerConfig::default() });
    let _a = connect(&server);
    let _b = connect(&server);
    let refused = Connection::open(&url(&server), TIMEOUT).err().expect("third client refused").0;
    assert!(refused.contains("503"), "{refused}");
    drop(_a);
    // The slot frees once the server sees the hang-up.
    let deadline = Instant::now() + TIMEOUT;
    while server.clients() > 1 {
        assert!(Instant::now() < deadline, "the server never noticed the closed client");
        thread::sleep(Duration::from_millis(10));
    }
    let mut c = connect(&server);
    assert_eq!(ask(&mut c, r#"{"type":"clear"}"#)["ok"], true);
}

#[test]
fn save_writes_on_message_and_on_shutdown() {
    let configured = temp_path("configured.json");
    let dir = temp_path("save-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let chosen = dir.join("chosen.json");
    let _ = std::fs::remove_file(&configured);
    let server = start(ServerConfig {
        save_path: Some(configured.clone()),
        save_dir: Some(dir.clone()),
        ..ServerConfig::default()
    });
    let mut connection = connect(&server);
    let nothing = ask(&mut connection, r#"{"type":"save"}"#);
    assert!(nothing["error"].as_str().unwrap().contains("nothing to save"), "{nothing}");
    let first = history(2, 10);
    ask(&mut connection, &history_message(&first));
    let saved = ask(&mut connection, r#"{"type":"save","path":"chosen.json"}"#);
    assert_eq!(saved["path"], chosen.display().to_string(), "{saved}");
    assert_eq!(load_path(&chosen).unwrap(), first);
    let saved = ask(&mut connection, r#"{"type":"save"}"#);
    assert_eq!(saved["ok"], true, "{saved}");
    assert_eq!(load_path(&configured).unwrap(), first);

    let more = history(3, 10);
    ask(&mut connection, &snapshot_message(&more.snapshots[2]));
    connection.close();
    assert_eq!(server.shutdown().unwrap(), Some(configured.clone()));
    let on_exit: History = load_path(&configured).unwrap();
    assert_eq!(on_exit.snapshots.len(), 3);
    assert_eq!(on_exit.snapshots[2], more.snapshots[2]);
}

#[test]
fn shutdown_hangs_up_on_clients() {
    let server = start_default();
    let mut connection = connect(&server);
    assert_eq!(ask(&mut connection, r#"{"type":"clear"}"#)["ok"], true);
    let started = Instant::now();
    assert_eq!(server.shutdown(), Ok(None));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(connection.request(r#"{"type":"get"}"#.into()).is_err());
}

#[test]
fn updates_arrive_soon_after_receipt() {
    let server = start_default();
    let updates = server.subscribe();
    let mut connection = connect(&server);
    ask(&mut connection, &history_message(&history(1, 10)));
    let update = updates.recv_timeout(TIMEOUT).unwrap();
    assert_eq!((update.version, update.kind, update.snapshots), (1, "history", 1));
    assert!(update.received.elapsed() < TIMEOUT);
    assert_eq!(server.version(), 1);
}

#[test]
fn a_plain_http_request_is_dropped_and_the_server_goes_on() {
    use std::io::{Read, Write};
    let server = start_default();
    let mut raw = std::net::TcpStream::connect(server.local_addr()).unwrap();
    raw.set_read_timeout(Some(TIMEOUT)).unwrap();
    raw.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut answer = String::new();
    let _ = raw.read_to_string(&mut answer);
    assert!(!answer.starts_with("HTTP/1.1 101"), "{answer}");
    let deadline = Instant::now() + TIMEOUT;
    while server.clients() > 0 {
        assert!(Instant::now() < deadline, "the failed handshake kept its slot");
        thread::sleep(Duration::from_millis(10));
    }
    let mut connection = connect(&server);
    assert_eq!(ask(&mut connection, r#"{"type":"clear"}"#)["ok"], true);
}
