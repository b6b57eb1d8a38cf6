//! `memcity ownership` on a real Python program (tests/python/session_registry.py) run under the
//! probe: a session registry's dict at the class attribute `Registry.sessions` grows among 200
//! handlers' small dicts of counters. The dict in the class owns the sessions and the heap's
//! growth, the sessions' attribute dicts are theirs (no cycle through all attribute dicts),
//! the handlers' dicts are a node apart that did not grow, bytes are conserved at every node.
//! Skipped where python3 is missing, unless CI=1 or MEMCITY_REQUIRE_PYTHON=1 (then it fails).

mod common;
use common::{ownership_json, ownership_nodes, tools_present};

#[test]
fn the_class_attributes_dict_owns_the_sessions() {
    if !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-ownership-python-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = common::python_session_rounds(&dir, 3, 5000);
    // The three rounds' snapshots (the probe also takes one at the start and one at exit).
    let files: Vec<&str> = written.lines().collect();
    assert_eq!(files.len(), 3, "{written}");

    let mut args = files.clone();
    args.extend(["--min-share", "0"]);
    let doc = ownership_json(&args);
    assert_eq!(doc["time"], 2);
    let nodes = ownership_nodes(&doc);
    let sessions: Vec<_> = nodes.iter().filter(|n| n["name"] == "__main__.Session").collect();
    assert_eq!(sessions.len(), 1, "one place owns the sessions, in no cycle");
    let session = sessions[0];
    assert_eq!(session["kind"], "class");
    let heap_growth = doc["root"]["growth_bytes"].as_i64().unwrap();
    let growth = session["growth_bytes"].as_i64().unwrap();
    // Most of it; the rest is chiefly the dict's str keys (heap file format 3 writes them).
    assert!(heap_growth > 0 && growth * 3 >= heap_growth * 2, "{growth} of {heap_growth}");
    assert!(session["new_objects"].as_u64().unwrap() >= 5_000, "new by the probe's ids: {session}");
    // Their owner: the dict the class Registry holds.
    let owner = nodes
        .iter()
        .find(|n| n["children"].as_array().unwrap().iter().any(|c| c["name"] == "__main__.Session"))
        .unwrap();
    assert_eq!(
        (&owner["name"], &owner["referrer"]),
        (&"builtins.dict".into(), &"builtins.type".into()),
        "{owner}"
    );
    let keys = owner["children"].as_array().unwrap().iter().find(|c| c["name"] == "builtins.str");
    assert!(keys.is_some_and(|k| k["new_objects"].as_u64().unwrap() >= 5_000), "its keys: {owner}");
    let owned_growth = owner["growth_bytes"].as_i64().unwrap();
    assert!(
        owned_growth * 10 >= heap_growth * 9,
        "the dict owns the growth: {owned_growth} of {heap_growth}"
    );
    // Each session's roles list is split by its owner.
    assert!(
        session["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "builtins.list" && c["referrer"] == "__main__.Session")
    );
    // The handlers' dicts of counters: one node apart, unchanged.
    let counters: Vec<_> = nodes
        .iter()
        .filter(|n| n["name"] == "builtins.dict" && n["referrer"] == "__main__.Handler")
        .collect();
    assert_eq!(counters.len(), 1);
    assert_eq!(counters[0]["objects"], 200);
    assert_eq!(counters[0]["growth_bytes"], 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
