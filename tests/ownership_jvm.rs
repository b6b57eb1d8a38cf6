//! `memcity ownership` on a live JVM (tests/java/SessionLeak.java): a session manager that keeps
//! every session in a HashMap, each session with a HashMap of attributes; dumps taken with
//! `memcity record` at the program's pauses. The manager's map is a node apart from the
//! sessions' maps and owns the heap's growth; bytes are conserved at every node. Skipped where
//! no JDK is installed, unless MEMCITY_REQUIRE_JVM=1 or CI=1.

mod common;
use common::{ownership_json, ownership_nodes, record_java, tools_present};

#[test]
fn the_managers_map_splits_from_the_sessions_maps_and_owns_the_growth() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-ownership-jvm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let series = record_java(&dir, "SessionLeak", &["20000"], 3);
    let series = series.to_str().unwrap();

    let doc = ownership_json(&[series, "--min-share", "0"]);
    assert_eq!(doc["time"], 2);
    let nodes = ownership_nodes(&doc);
    let named = |name: &str, referrer: &str| -> Vec<&serde_json::Value> {
        nodes.iter().copied().filter(|n| n["name"] == name && n["referrer"] == referrer).collect()
    };
    let manager_map = named("java.util.HashMap", "SessionLeak$SessionManager");
    let session_maps = named("java.util.HashMap", "SessionLeak$Session");
    assert_eq!(manager_map.len(), 1, "one node for the manager's map");
    assert_eq!(session_maps.len(), 1, "one node for all sessions' maps");
    let (manager_map, session_maps) = (manager_map[0], session_maps[0]);
    assert_eq!(manager_map["objects"], 1);
    assert_eq!(session_maps["objects"], 60_000, "{session_maps}");
    assert_eq!(manager_map["kind"], "collection");

    // The manager's map owns the sessions, their maps and the growth.
    let heap_growth = doc["root"]["growth_bytes"].as_i64().unwrap();
    let growth = manager_map["growth_bytes"].as_i64().unwrap();
    assert!(heap_growth > 0 && growth * 10 >= heap_growth * 9, "{growth} of {heap_growth}");
    let mut below = vec![manager_map];
    let mut found = false;
    while let Some(n) = below.pop() {
        found |= std::ptr::eq(n, session_maps);
        below.extend(n["children"].as_array().unwrap());
    }
    assert!(found, "the sessions' maps lie below the manager's map");
    // Its parts are its own: the table of the manager's map apart from the sessions' tables.
    let tables = named("java.util.HashMap$Node[]", "java.util.HashMap in SessionLeak$SessionManager");
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0]["objects"], 1);
    let session = nodes.iter().find(|n| n["name"] == "SessionLeak$Session").unwrap();
    assert_eq!(session["objects"], 60_000);
    assert_eq!(session["new_objects"], 20_000, "count increase: dump addresses move");
    // The sessions' reference back to their manager makes no cycle of them.
    for n in nodes.iter().filter(|n| n["kind"] == "cycle") {
        let members: Vec<&str> =
            n["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        assert!(
            !members.contains(&"SessionLeak$Session") && !members.contains(&"SessionLeak$SessionManager"),
            "{members:?}"
        );
    }

    // The first dump: the same split, nothing before it.
    let first = ownership_json(&[series, "--time", "0", "--min-share", "0"]);
    let first_nodes = ownership_nodes(&first);
    let sessions_then = first_nodes.iter().find(|n| n["name"] == "SessionLeak$Session").unwrap();
    assert_eq!(sessions_then["objects"], 20_000);
    assert_eq!(sessions_then["growth_bytes"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}
