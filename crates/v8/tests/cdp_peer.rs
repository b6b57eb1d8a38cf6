//! `record` against a fake DevTools peer on 127.0.0.1: whole snapshots land on disk, and a peer
//! that closes, stalls or sends garbage gives a one-line error while what was recorded stays.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use memcity_v8::recorder::{RecordOptions, record};
use tungstenite::Message;

/// A tiny valid snapshot: the root holds one object through (GC roots) → (Stack roots).
const SNAPSHOT: &str = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic"],"string","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},"node_count":4,"edge_count":3},
"nodes":[9,0,1,0,1,9,1,3,0,1,9,2,5,0,1,3,3,7,64,0],
"edges":[1,1,5,1,1,10,1,1,15],
"strings":["","(GC roots)","(Stack roots)","Holder"]}"#;

#[derive(Clone, Copy, PartialEq)]
enum Then {
    /// Answer every snapshot request in full.
    Serve,
    /// After this many snapshots: send half a snapshot and close.
    CloseAfter(usize),
    /// After this many snapshots: go silent.
    StallAfter(usize),
    /// After this many snapshots: answer with garbage.
    GarbageAfter(usize),
}

/// Serves `/json/list` and one WebSocket session; returns the port.
fn peer(then: Then) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            // Both requests are longer than `head`: wait until it is full, or a request split
            // into small segments (a loaded machine) would be taken for the other kind.
            let mut head = [0u8; 16];
            let mut n = 0;
            for _ in 0..400 {
                n = stream.peek(&mut head).unwrap_or(0);
                if n == head.len() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            if head[..n].starts_with(b"GET /json/list") {
                list(stream, port);
            } else {
                std::thread::spawn(move || session(stream, then));
            }
        }
    });
    port
}

fn list(mut stream: TcpStream, port: u16) {
    let mut buf = [0u8; 4096];
    let _ = stream.read(&mut buf);
    let body = format!(
        r#"[{{"type":"node","title":"leak.js","url":"file:///leak.js","webSocketDebuggerUrl":"ws://elsewhere.invalid:{port}/abc"}}]"#
    );
    let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}", body.len());
}

fn session(stream: TcpStream, then: Then) {
    let Ok(mut ws) = tungstenite::accept(stream) else { return };
    let mut snapshots = 0;
    while let Ok(message) = ws.read() {
        let Message::Text(text) = message else { continue };
        let request: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
        let id = request["id"].as_u64().unwrap();
        let answer = |ws: &mut tungstenite::WebSocket<TcpStream>| {
            ws.send(Message::text(format!(r#"{{"id":{id},"result":{{}}}}"#))).is_ok()
        };
        if request["method"] != "HeapProfiler.takeHeapSnapshot" {
            if !answer(&mut ws) {
                return;
            }
            continue;
        }
        // memcity asks for numeric values; a peer asked without them hangs up.
        if request["params"]["captureNumericValue"] != true {
            return;
        }
        let chunk = |ws: &mut tungstenite::WebSocket<TcpStream>, part: &str| {
            let event =
                serde_json::json!({"method": "HeapProfiler.addHeapSnapshotChunk", "params": {"chunk": part}});
            ws.send(Message::text(event.to_string())).is_ok()
        };
        let (first, second) = SNAPSHOT.split_at(SNAPSHOT.len() / 2);
        match then {
            Then::CloseAfter(n) if snapshots == n => {
                chunk(&mut ws, first);
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            }
            Then::StallAfter(n) if snapshots == n => {
                chunk(&mut ws, first);
                std::thread::sleep(Duration::from_secs(5));
                return;
            }
            Then::GarbageAfter(n) if snapshots == n => {
                let _ = ws.send(Message::text("<html>not CDP</html>"));
                continue;
            }
            _ => {}
        }
        // Unrelated events on the way are ignored.
        let progress =
            r#"{"method":"HeapProfiler.reportHeapSnapshotProgress","params":{"done":1,"total":2}}"#;
        if !(ws.send(Message::text(progress)).is_ok()
            && chunk(&mut ws, first)
            && chunk(&mut ws, second)
            && answer(&mut ws))
        {
            return;
        }
        snapshots += 1;
    }
}

fn options(port: u16, name: &str, count: u32) -> RecordOptions {
    let out = std::env::temp_dir().join(format!("memcity-cdp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    RecordOptions {
        addr: format!("127.0.0.1:{port}"),
        target: None,
        every: Duration::from_millis(10),
        count,
        out,
        stall: Duration::from_millis(500),
    }
}

fn files(dir: &PathBuf) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_series_is_recorded_whole_and_imports() {
    let options = options(peer(Then::Serve), "serve", 3);
    let mut seen = 0;
    let written = record(&options, &mut |_, taken| {
        seen += 1;
        assert_eq!(taken.bytes, SNAPSHOT.len() as u64);
    })
    .unwrap();
    assert_eq!((written.len(), seen), (3, 3));
    assert_eq!(std::fs::read_to_string(&written[0]).unwrap(), SNAPSHOT);
    let names = files(&options.out);
    assert!(names.iter().all(|n| n.starts_with("Heap.") && n.ends_with(".heapsnapshot")), "{names:?}");
    let history = memcity_v8::import(
        std::slice::from_ref(&options.out),
        &memcity_v8::default_grouping(),
        &memcity_heapgraph::Silent,
    )
    .unwrap();
    assert_eq!(history.snapshots.len(), 3);
    assert_eq!(history.snapshots[2].tree.objects, 1);
    std::fs::remove_dir_all(&options.out).unwrap();
}

#[test]
fn a_peer_that_closes_stalls_or_sends_garbage_keeps_what_was_recorded() {
    for (then, name, says) in [
        (Then::CloseAfter(2), "close", "closed the connection during HeapProfiler.takeHeapSnapshot"),
        (Then::StallAfter(2), "stall", "no message for 500ms during HeapProfiler.takeHeapSnapshot (stalled)"),
        (Then::GarbageAfter(2), "garbage", "not a DevTools message during HeapProfiler.takeHeapSnapshot"),
    ] {
        let options = options(peer(then), name, 4);
        let stopped = record(&options, &mut |_, _| {}).unwrap_err();
        let message = stopped.error.to_string();
        assert!(message.contains(says), "{name}: {message}");
        assert!(!message.contains('\n'), "{message}");
        assert_eq!(stopped.written.len(), 2, "{name}");
        assert_eq!(files(&options.out).len(), 2, "{name}: no partial file stays");
        let history =
            memcity_v8::import(&stopped.written, &memcity_v8::default_grouping(), &memcity_heapgraph::Silent)
                .unwrap();
        assert_eq!(history.snapshots.len(), 2);
        std::fs::remove_dir_all(&options.out).unwrap();
    }
}

#[test]
fn no_inspector_or_no_target_is_a_clear_error() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let stopped = record(&options(port, "none", 1), &mut |_, _| {}).unwrap_err();
    assert!(stopped.error.0.contains("cannot connect"), "{}", stopped.error);
    let mut options = options(peer(Then::Serve), "target", 1);
    options.target = Some("checkout.html".into());
    let stopped = record(&options, &mut |_, _| {}).unwrap_err();
    assert!(
        stopped.error.0.contains("no target whose URL or title contains \"checkout.html\""),
        "{}",
        stopped.error
    );
}
