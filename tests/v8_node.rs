//! End to end on a real Node program (tests/js/leak.js): it leaks RequestContext objects into a
//! Map held by a SessionStore and writes a heap snapshot after each round; `memcity import`
//! turns the folder into a history in which RequestContext is the top grower and `memcity why`
//! leads from it to the store. Skipped where node is missing, unless CI=1 or
//! MEMCITY_REQUIRE_NODE=1 (then it fails).

mod common;
use common::{find, run, tools_present};

use std::path::{Path, PathBuf};
use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
const CONTEXT: &str = "Heap#Node Type:object#Type:RequestContext";

fn leaves(node: &memcity_model::Node, out: &mut Vec<(String, u64)>) {
    if node.children.is_empty() {
        out.push((node.key.clone(), node.bytes));
    }
    node.children.iter().for_each(|c| leaves(c, out));
}

/// Runs the leaking program with allocation tracking; returns the folder of its snapshots.
fn record(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-v8-node-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/leak.js");
    let out = run(Command::new("node")
        .arg("--track-heap-objects")
        .arg(script)
        .args(["4", "3000"])
        .current_dir(&dir));
    assert_eq!(out.lines().count(), 4, "{out}");
    dir
}

#[test]
fn a_node_leak_is_the_top_grower_and_its_retainer_path_reaches_the_holder() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = record("leak");
    let out = dir.join("history.json");
    run(Command::new(MEMCITY).arg("import").arg(&dir).arg("--out").arg(&out));
    let history = memcity_model::load_path(&out).unwrap();
    assert_eq!(history.snapshots.len(), 4);
    let counts: Vec<u64> =
        history.snapshots.iter().map(|s| find(&s.tree, CONTEXT).map_or(0, |n| n.objects)).collect();
    assert_eq!(counts, [3000, 6000, 9000, 12000]);
    // The top grower in bytes, first to last snapshot.
    let (mut first, mut last) = (Vec::new(), Vec::new());
    leaves(&history.snapshots[0].tree, &mut first);
    leaves(&history.snapshots[3].tree, &mut last);
    let before: std::collections::HashMap<_, _> = first.into_iter().collect();
    let mut growth: Vec<(i64, String)> =
        last.into_iter().map(|(k, b)| (b as i64 - *before.get(&k).unwrap_or(&0) as i64, k)).collect();
    growth.sort();
    assert_eq!(growth.last().unwrap().1, CONTEXT, "growth: {:?}", &growth[growth.len() - 5..]);

    let why = run(Command::new(MEMCITY).arg("why").arg(&dir).args(["--key", CONTEXT, "--json"]));
    let steps: Vec<serde_json::Value> = serde_json::from_str(&why).unwrap();
    let keys: Vec<&str> = steps.iter().map(|s| s["key"].as_str().unwrap()).collect();
    assert_eq!(keys[0], CONTEXT);
    assert!(keys.contains(&"Heap#Node Type:object#Type:Map"), "{keys:?}");
    assert!(keys.contains(&"Heap#Node Type:object#Type:SessionStore"), "{keys:?}");
    assert_eq!(steps[0]["objects"], 12000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn node_snapshots_carry_allocation_sites_and_scripts() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = record("sites");
    let out = dir.join("sites.json");
    let classifiers = "script,type,allocation-site:2";
    run(Command::new(MEMCITY)
        .arg("import")
        .arg(&dir)
        .args(["--classifiers", classifiers, "--out"])
        .arg(&out));
    let history = memcity_model::load_path(&out).unwrap();
    let mut keys = Vec::new();
    history.snapshots[3].tree.walk(&mut |n, _| {
        if n.children.is_empty() && n.key.contains("#Type:RequestContext#") {
            keys.push((n.key.clone(), n.objects));
        }
    });
    // Every context comes from handle() in leak.js, called from the main loop.
    assert_eq!(keys.len(), 1, "{keys:?}");
    let (key, objects) = &keys[0];
    assert_eq!(*objects, 12000);
    assert!(key.contains("#Script:") && key.contains("tests/js/leak.js#"), "{key}");
    assert!(key.contains("#Allocation Site:handle leak.js:"), "{key}");
    std::fs::remove_dir_all(&dir).unwrap();
}
