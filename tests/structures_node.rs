//! `memcity structures` on a real Node program (tests/js/sessions.js): a session registry's
//! `Map` at `registry.sessions` (a property of the global object) grows among 200 handlers'
//! small Maps of counters that do not; the program writes a heap snapshot after each round with
//! `v8.writeHeapSnapshot`. The registry's Map comes first by retained HGP (≥ 50 %), named by the
//! property that holds it, and the small Maps are non-growth. Skipped where node is missing,
//! unless CI=1 or MEMCITY_REQUIRE_NODE=1 (then it fails).

mod common;
use common::{run, tools_present};

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

#[test]
fn the_growing_session_map_is_one_map_among_hundreds() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-structures-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = common::node_session_rounds(&dir, 3, 5000);
    let snapshots: Vec<&str> = written.lines().collect();
    assert_eq!(snapshots.len(), 3, "{written}");

    // The first and the last snapshot, named one by one.
    let out = run(Command::new(MEMCITY)
        .arg("structures")
        .args([snapshots[0], snapshots[2]])
        .args(["--top", "0", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let instances = report["instances"].as_array().unwrap();
    let sessions = &instances[0];
    assert_eq!(sessions["type"], "Map", "{sessions}");
    assert_eq!(sessions["identity"], "global .registry .sessions", "{sessions}");
    assert!(sessions["hgp"]["retained"].as_f64().unwrap() >= 50.0, "{sessions}");
    assert_eq!(sessions["pattern"], "single-ownership container growth");
    let leaves: Vec<&str> =
        sessions["leaves"].as_array().unwrap().iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert!(leaves.contains(&"Session"), "{leaves:?}");
    // The handlers' 200 Maps of counters are there, and none of them grew.
    let counters: Vec<&serde_json::Value> =
        instances.iter().filter(|i| i["identity"].as_str().unwrap().ends_with(".counters")).collect();
    assert_eq!(counters.len(), 200, "{} counter maps", counters.len());
    assert!(counters.iter().all(|i| i["type"] == "Map" && i["pattern"] == "non-growth"));
    assert!(
        counters.iter().all(|i| i["identity"].as_str().unwrap().starts_with("global .registry .handlers"))
    );

    // The folder as a series: the same leader.
    let out = run(Command::new(MEMCITY).arg("structures").arg(&dir).args(["--top", "1", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["instances"][0]["identity"], "global .registry .sessions");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A session store that is a plain object used as a dictionary (tests/js/sessions.js with
/// `object`: `Object.create(null)` keyed by session id): it is found, ranked and named like a Map, and
/// `check`'s one finding names it, with the groups growing in it as its detail; the fixed
/// program passes.
#[test]
fn a_plain_object_used_as_a_dictionary_is_the_growing_map() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-structures-node-dict-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (leak, fixed) = (dir.join("leak"), dir.join("fixed"));
    common::node_rounds("sessions.js", &leak, 3, 3000, &["leak", "object"]);
    common::node_rounds("sessions.js", &fixed, 3, 3000, &["fixed", "object"]);
    let out = run(Command::new(MEMCITY).arg("structures").arg(&leak).args(["--top", "3", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let store = &report["instances"][0];
    assert_eq!(
        (store["type"].as_str(), store["identity"].as_str()),
        (Some("Object"), Some("global .registry .sessions"))
    );
    assert!(store["hgp"]["retained"].as_f64().unwrap() >= 50.0, "{store}");
    assert_eq!(store["pattern"], "single-ownership container growth");
    assert_eq!(store["objects_end"].as_u64().unwrap() - store["objects_start"].as_u64().unwrap(), 12000);
    // The gate: one finding, named by the property that holds the store.
    let limits = ["--min-steps", "2", "--max-growth-bytes", "100000"];
    let out = Command::new(MEMCITY).arg("check").arg(&leak).args(limits).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with("LEAK structure Object: ") && first.ends_with("held by global .registry .sessions"),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("  holds object › Session: ")), "{text}");
    // The sessions and the store's own groups are its detail; the property names (strings V8
    // interns, which its string table holds too) may stay a finding of their own.
    assert!(!text.lines().any(|l| l.starts_with("LEAK object › ")), "{text}");
    let out = Command::new(MEMCITY).arg("check").arg(&fixed).args(limits).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}
