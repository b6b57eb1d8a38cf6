//! The app's network inputs end to end: `memcity --connect` opens an AntTracks server's trees
//! (rendered headless), and `--listen`/`--connect` refuse bad addresses before any window opens.

use std::net::TcpListener;
use std::process::Command;

use tungstenite::Message;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn memcity(args: &[&str]) -> (bool, String) {
    let o = Command::new(MEMCITY).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A one-connection AntTracks-style server: tab 3 with two trees in which `List` grows.
fn fake_anttracks() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut ws = tungstenite::accept(stream).unwrap();
        let tree = |time: u64, list: u64| {
            serde_json::json!({"time": time, "root": {"key": "H", "name": "H", "role": "Root",
                "bytes": 16 * (list + 40), "objects": list + 40, "children": [
                {"key": "H#List", "name": "List", "role": "Type", "bytes": 16 * list, "objects": list},
                {"key": "H#Other", "name": "Other", "role": "Type", "bytes": 640, "objects": 40}]}})
        };
        while let Ok(Message::Text(text)) = ws.read() {
            let request: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            let data = match request["capability"].as_str().unwrap() {
                "GET-TAB-LIST" => serde_json::json!([{"tabId": 3}]),
                "GET-ALL-TREES" => serde_json::json!([tree(100, 10), tree(200, 900)]),
                _ => serde_json::json!([]),
            };
            let response =
                serde_json::json!({"request": request, "status": "success", "sender": 3, "data": data});
            ws.send(Message::text(response.to_string())).unwrap();
        }
    });
    url
}

#[test]
fn connect_opens_the_trees_of_an_anttracks_server() {
    let png = std::env::temp_dir().join(format!("memcity-connect-{}.png", std::process::id()));
    let url = fake_anttracks();
    let (ok, err) = memcity(&[
        "--connect",
        &url,
        "--time",
        "1",
        "--size",
        "160x90",
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    if !ok && err.contains("the renderer stopped") && std::env::var_os("MEMCITY_REQUIRE_VULKAN").is_none() {
        eprintln!("SKIPPED: no Vulkan adapter here");
        return;
    }
    assert!(ok, "{err}");
    // `--time 1` was accepted, so both trees arrived; the PNG is the city of that history.
    assert!(std::fs::metadata(&png).unwrap().len() > 100);
    std::fs::remove_file(&png).unwrap();
}

#[test]
fn network_flags_are_checked_before_any_window() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, needle) in [
        (vec!["--listen", "not-an-address"], "--listen: cannot listen on not-an-address"),
        (vec!["--listen", &taken], "--listen: cannot listen on"),
        (vec!["--connect", "ws://127.0.0.1:1"], "--connect: ws://127.0.0.1:1: cannot connect"),
        (vec!["--connect", "http://x"], "--connect: http://x"),
        (vec!["data/sample-leak.json", "--connect", "ws://127.0.0.1:1"], "cannot be used with"),
        (vec!["--tab", "3"], "--connect"),
        (
            vec!["data/hprof/dump1.hprof.gz", "data/sample-leak.json"],
            "data/sample-leak.json: not a heap dump (.hprof, .hprof.gz), V8 heap snapshot (.heapsnapshot) or folder of them",
        ),
        (vec!["data/hprof/dump1.hprof.gz", "data/hprof/nope.hprof"], "data/hprof/nope.hprof: no such file"),
    ] {
        let mut all = args.clone();
        all.extend(["--screenshot", "/tmp/never.png"]);
        let (ok, err) = memcity(&all);
        assert!(!ok && err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn several_heap_dumps_open_as_one_series() {
    let png = std::env::temp_dir().join(format!("memcity-dumps-{}.png", std::process::id()));
    let args = [
        "data/hprof/dump2.hprof.gz",
        "data/hprof/dump1.hprof.gz",
        "--time",
        "1",
        "--size",
        "64x36",
        "--screenshot",
    ];
    let (ok, err) = memcity(&[&args[..], &[png.to_str().unwrap()]].concat());
    if !ok && err.contains("the renderer stopped") && std::env::var_os("MEMCITY_REQUIRE_VULKAN").is_none() {
        eprintln!("SKIPPED: no Vulkan adapter here");
        return;
    }
    assert!(ok, "{err}");
    std::fs::remove_file(&png).unwrap();
    // Two dumps are two snapshots: a third does not exist.
    let (ok, err) = memcity(&[&args[..2], &["--time", "2", "--screenshot", "/tmp/never.png"]].concat());
    assert!(!ok && err.contains("--time 2: the history has 2 snapshots"), "{err}");
}
