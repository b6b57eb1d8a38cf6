//! `memcity objects` on a live Node program's V8 heap snapshots (tests/js/sessions.js): an
//! Array's elements read in order, each handler's route string read back as the program wrote
//! it (V8 writes a string's text as its node's name). Skipped where Node is not installed,
//! unless MEMCITY_REQUIRE_NODE=1 or CI=1.

mod common;
use common::{node_session_rounds, tools_present};

use std::process::Command;

#[test]
fn an_arrays_elements_and_their_strings_read_back_in_order() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-objects-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    node_session_rounds(&dir, 2, 50);
    let out = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .arg("objects")
        .arg(&dir)
        .args(["--structure", "global .registry .handlers", "--entries", "30", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["time"], 1, "the last snapshot");
    assert_eq!(found["target"]["type"], "Array");
    assert_eq!(found["target"]["entries"], 200, "every handler");
    let entries = found["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 30);
    for (i, e) in entries.iter().enumerate() {
        let handler = &e["value"];
        assert_eq!(handler["type"], "Handler");
        let fields = handler["fields"].as_array().unwrap();
        let route = fields.iter().find(|f| f["name"] == "route").unwrap_or_else(|| panic!("{handler}"));
        assert_eq!(route["value"], format!("/route/{i}"), "{handler}");
        // A V8 node id, which finds the handler again.
        let id = handler["id"].as_str().unwrap();
        assert!(id.bytes().all(|b| b.is_ascii_digit()), "{id}");
    }
    let id = entries[7]["value"]["id"].as_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .arg("objects")
        .arg(&dir)
        .args(["--object", id, "--time", "0", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fields = again["objects"][0]["fields"].as_array().unwrap();
    assert!(
        fields.iter().any(|f| f["name"] == "route" && f["value"] == "/route/7"),
        "V8 ids hold across snapshots"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .arg("objects")
        .arg(&dir)
        .args(["--object", "1", "--time", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--time 2: the input has 2 heap snapshots (0..1)") && err.lines().count() == 1,
        "{err}"
    );
    // A group of the snapshot's default grouping (node type, then type): every Handler.
    let out = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .arg("objects")
        .arg(&dir)
        .args(["--group", "Heap#Node Type:object#Type:Handler", "--entries", "3", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let group: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(group["target"]["objects"], 200);
    assert!(group["objects"].as_array().unwrap().iter().all(|o| o["type"] == "Handler"));
    let _ = std::fs::remove_dir_all(&dir);
}
