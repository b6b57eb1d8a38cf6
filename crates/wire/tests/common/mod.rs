//! Helpers shared by the end-to-end tests: servers on 127.0.0.1 port 0 and sample histories.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use memcity_model::{FORMAT, History, MetricNames, Node, PointerMap, Snapshot};
use memcity_wire::{Connection, Server, ServerConfig};
use serde_json::Value;

/// Bounds every wait in the tests so nothing hangs.
pub const TIMEOUT: Duration = Duration::from_secs(20);

pub fn start(config: ServerConfig) -> Server {
    Server::start(ServerConfig { addr: "127.0.0.1:0".into(), ..config }).expect("server starts")
}

pub fn start_default() -> Server {
    start(ServerConfig::default())
}

pub fn url(server: &Server) -> String {
    format!("ws://{}", server.local_addr())
}

pub fn connect(server: &Server) -> Connection {
    Connection::open(&url(server), TIMEOUT).expect("connects")
}

/// Sends `text` and parses the reply.
pub fn ask(connection: &mut Connection, text: &str) -> Value {
    let reply = connection.request(text.to_string()).expect("a reply");
    serde_json::from_str(&reply).expect("the reply is JSON")
}

/// The server's history as a client sees it (`get`).
pub fn get(connection: &mut Connection) -> (u64, History) {
    let reply = ask(connection, r#"{"type":"get"}"#);
    assert_eq!(reply["ok"], true, "{reply}");
    let history = serde_json::from_value(reply["history"].clone()).expect("a history");
    (reply["version"].as_u64().expect("a version"), history)
}

/// A growing heap: `snapshots` snapshots of a Heap → package → type tree with `leaves` types;
/// a new type appears in each snapshot and sizes grow.
pub fn history(snapshots: usize, leaves: usize) -> History {
    let snapshots = (0..snapshots).map(|i| snapshot(i, leaves + i)).collect();
    History {
        format: FORMAT.into(),
        metric_names: MetricNames { objects: "instances".into(), bytes: "shallow bytes".into() },
        snapshots,
    }
}

pub fn snapshot(i: usize, leaves: usize) -> Snapshot {
    let mut root = Node::leaf("Heap", "Heap", "Root", 0, 0);
    let packages = leaves.div_ceil(100).max(1);
    for p in 0..packages {
        let key = format!("Heap#p{p}");
        root.children.push(Node::leaf(&key, &format!("p{p}"), "Package", 0, 0));
    }
    for l in 0..leaves {
        let package = &mut root.children[l / 100];
        let key = format!("{}#T{l}", package.key);
        let objects = (l as u64 % 7 + 1) * (i as u64 + 1);
        package.children.push(Node::leaf(&key, &format!("T{l}"), "Type", objects, objects * 24));
    }
    for package in &mut root.children {
        package.objects = package.children.iter().map(|c| c.objects).sum();
        package.bytes = package.children.iter().map(|c| c.bytes).sum();
    }
    root.objects = root.children.iter().map(|c| c.objects).sum();
    root.bytes = root.children.iter().map(|c| c.bytes).sum();
    let mut points_to = PointerMap::new();
    if leaves > 1 {
        let first = &root.children[0].children;
        points_to.insert(first[0].key.clone(), [(first[1].key.clone(), i as u64 + 1)].into());
    }
    Snapshot { gc_id: Some(i as u64), points_to, ..Snapshot::new(1000 * i as u64, root) }
}

/// A fresh file path under the system's temporary folder.
pub fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-wire-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}
