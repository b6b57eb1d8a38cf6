//! The AntTracks client against a small fake AntTracks server on 127.0.0.1.

use std::net::TcpListener;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use memcity_wire::fetch_anttracks;
use serde_json::{Value, json};
use tungstenite::Message;

const TIMEOUT: Duration = Duration::from_secs(20);

/// Serves one connection: answers each capability request with `answer(capability, tabId)`
/// (`Ok(data)` → success, `Err(error)` → failed), first pushing an unrelated message as a real
/// server may. Returns the requests it saw.
fn fake_anttracks(
    answer: impl Fn(&str, i64) -> Result<Value, String> + Send + 'static,
) -> (String, JoinHandle<Vec<Value>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let thread = thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut ws = tungstenite::accept(stream).unwrap();
        let mut seen = Vec::new();
        loop {
            let text = match ws.read() {
                Ok(Message::Text(text)) => text.as_str().to_string(),
                Ok(Message::Close(_)) | Err(_) => break,
                Ok(_) => continue,
            };
            let request: Value = serde_json::from_str(&text).unwrap();
            let capability = request["capability"].as_str().unwrap().to_string();
            let tab = request["tabId"].as_i64().unwrap();
            seen.push(request.clone());
            let notice = json!({"request": {"capability": "HEARTBEAT"}, "status": "success", "sender": 0});
            ws.send(Message::text(notice.to_string())).unwrap();
            let response = match answer(&capability, tab) {
                Ok(data) => json!({"request": request, "status": "success", "sender": tab, "data": data}),
                Err(error) => json!({"request": request, "status": "failed", "sender": tab, "error": error}),
            };
            ws.send(Message::text(response.to_string())).unwrap();
        }
        seen
    });
    (url, thread)
}

fn trees() -> Value {
    let tree = |time: u64, bytes: u64| {
        json!({"time": time, "root": {"key": "Heap", "name": "Heap", "role": "Root", "bytes": bytes + 16, "objects": 3,
        "children": [
            {"key": "Heap#String", "name": "String", "role": "Type", "bytes": bytes, "objects": 2},
            {"key": "Heap#Node", "name": "Node", "role": "Type", "bytes": 16, "objects": 1}
        ]}})
    };
    json!([tree(100, 48), tree(200, 96)])
}

fn anttracks(capability: &str, tab: i64) -> Result<Value, String> {
    assert_eq!(tab, 7, "{capability} asked for the wrong tab");
    match capability {
        "GET-TAB-LIST" => Ok(json!([{"tabId": 7, "name": "trace.trace"}, {"tabId": 8}])),
        "GET-ALL-TREES" => Ok(trees()),
        "GET-ALL-POINTS-TO-MAPS" => {
            Ok(json!([{"time": 200, "pointerMap": {"Heap#Node": {"Heap#String": 2}}}]))
        }
        "GET-ALL-POINTED-FROM-MAPS" => {
            Ok(json!([{"time": 200, "pointerMap": {"Heap#String": {"Heap#Node": 1}}}]))
        }
        other => Err(format!("unknown capability {other}")),
    }
}

#[test]
fn fetches_trees_and_pointer_maps_of_the_first_tab() {
    let (url, server) = fake_anttracks(|c, tab| anttracks(c, if c == "GET-TAB-LIST" { 7 } else { tab }));
    let history = fetch_anttracks(&url, None, TIMEOUT).unwrap();
    let capabilities: Vec<_> = server.join().unwrap().iter().map(|r| r["capability"].clone()).collect();
    assert_eq!(
        capabilities,
        ["GET-TAB-LIST", "GET-ALL-TREES", "GET-ALL-POINTS-TO-MAPS", "GET-ALL-POINTED-FROM-MAPS"]
    );
    assert_eq!(history.snapshots.iter().map(|s| s.time_ms).collect::<Vec<_>>(), [100, 200]);
    assert_eq!(history.snapshots[1].tree.children[0].bytes, 96);
    assert!(history.snapshots[0].points_to.is_empty());
    assert_eq!(history.snapshots[1].points_to["Heap#Node"]["Heap#String"], 2);
    assert_eq!(history.snapshots[1].pointed_from["Heap#String"]["Heap#Node"], 1);
    // The same data read from AntTracks' export files gives the same trees.
    let from_export = memcity_model::load_bytes(trees().to_string().as_bytes(), "export").unwrap();
    assert_eq!(history.snapshots[0], from_export.snapshots[0]);
}

#[test]
fn a_given_tab_skips_the_tab_list() {
    let (url, server) = fake_anttracks(anttracks);
    let history = fetch_anttracks(&url, Some(7), TIMEOUT).unwrap();
    assert_eq!(history.snapshots.len(), 2);
    let requests = server.join().unwrap();
    assert_eq!(requests[0], json!({"capability": "GET-ALL-TREES", "tabId": 7, "parameters": []}));
}

#[test]
fn a_failed_answer_is_reported() {
    let (url, _server) = fake_anttracks(|c, _| match c {
        "GET-ALL-TREES" => Err("no trace loaded in tab 3".into()),
        _ => Ok(Value::Null),
    });
    let error = fetch_anttracks(&url, Some(3), TIMEOUT).unwrap_err().0;
    assert_eq!(error, format!("{url} GET-ALL-TREES (tab 3): the server failed: no trace loaded in tab 3"));
}

#[test]
fn bad_trees_are_rejected_with_their_path() {
    let (url, _server) = fake_anttracks(|c, _| match c {
        "GET-ALL-TREES" => {
            Ok(json!([{"time": 1, "root": {"key": "H", "name": "H", "bytes": -5, "objects": 1}}]))
        }
        _ => Ok(Value::Null),
    });
    let error = fetch_anttracks(&url, Some(1), TIMEOUT).unwrap_err().0;
    assert!(
        error.starts_with(&format!("{url} GET-ALL-TREES (tab 1): at [0].root.bytes: invalid value")),
        "{error}"
    );
}

#[test]
fn pointer_maps_must_match_a_snapshot() {
    let (url, _server) = fake_anttracks(|c, _| match c {
        "GET-ALL-TREES" => Ok(trees()),
        "GET-ALL-POINTS-TO-MAPS" => Ok(json!([{"time": 150, "pointerMap": {}}])),
        _ => Ok(json!([])),
    });
    let error = fetch_anttracks(&url, Some(1), TIMEOUT).unwrap_err().0;
    assert_eq!(
        error,
        format!(
            "{url} GET-ALL-POINTS-TO-MAPS (tab 1): at [0].time: pointer map for time 150 ms matches no snapshot"
        )
    );
}

#[test]
fn an_empty_tab_list_is_reported() {
    let (url, _server) = fake_anttracks(|_, _| Ok(json!([])));
    let error = fetch_anttracks(&url, None, TIMEOUT).unwrap_err().0;
    assert_eq!(error, "GET-TAB-LIST: the server has no open tabs");
}

#[test]
fn no_server_is_reported() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let error = fetch_anttracks(&format!("ws://127.0.0.1:{port}"), Some(1), TIMEOUT).unwrap_err().0;
    assert!(error.contains("cannot connect"), "{error}");
}
