//! `memcity ownership` on a real Node program (tests/js/sessions.js): a session registry's
//! `Map` that only grows among 200 handlers' small Maps of counters; a heap snapshot after each
//! round. The sessions own the heap's growth, their new objects counted by V8's node ids; the
//! handlers' Maps are a node of their own that did not grow; bytes are conserved at every node.
//! Skipped where node is missing, unless CI=1 or MEMCITY_REQUIRE_NODE=1 (then it fails).

mod common;
use common::{ownership_json, ownership_nodes, tools_present};

#[test]
fn the_sessions_own_the_growth_of_a_node_heap() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-ownership-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = common::node_session_rounds(&dir, 3, 5000);
    assert_eq!(written.lines().count(), 3, "{written}");

    let doc = ownership_json(&[dir.to_str().unwrap(), "--min-share", "0"]);
    assert_eq!(doc["time"], 2);
    let nodes = ownership_nodes(&doc);
    let sessions: Vec<_> = nodes.iter().filter(|n| n["name"] == "Session").collect();
    assert_eq!(sessions.len(), 1, "one place owns the sessions");
    let session = sessions[0];
    assert_eq!(session["objects"], 15_000);
    assert_eq!(session["new_objects"], 5_000, "new by V8's node ids");
    let heap_growth = doc["root"]["growth_bytes"].as_i64().unwrap();
    let growth = session["growth_bytes"].as_i64().unwrap();
    assert!(heap_growth > 0 && growth * 10 >= heap_growth * 9, "{growth} of {heap_growth}");
    // Each session's roles array is split by its owner.
    assert!(
        session["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "Array" && c["referrer"] == "Session")
    );
    // The handlers' Maps of counters: one node apart, unchanged.
    let counters: Vec<_> =
        nodes.iter().filter(|n| n["name"] == "Map" && n["referrer"] == "Handler").collect();
    assert_eq!(counters.len(), 1);
    assert_eq!(counters[0]["objects"], 200);
    // Their tables may be rebuilt by the engine between snapshots (a few bytes a map), never
    // grown with the sessions.
    let counter_growth = counters[0]["growth_bytes"].as_i64().unwrap();
    assert!(counter_growth.abs() * 20 < growth, "the counters stay put: {counter_growth} against {growth}");
    assert_eq!(counters[0]["new_objects"], 0);
    // The registry's Map is split from theirs (a plain object's Map, where the engine's own
    // objects own each other in one cycle: docs/ownership.md).
    let registry = nodes.iter().find(|n| {
        n["name"] == "Map" && n["referrer"] == "Object"
            || n["members"].as_array().is_some_and(|m| m.iter().any(|m| m == "Map in Object"))
    });
    assert!(registry.is_some(), "the registry's Map");
    std::fs::remove_dir_all(&dir).unwrap();
}
