//! `memcity tree` on real programs' heaps — a JVM dump series (tests/java/CacheLeak.java taken
//! with `memcity record`), a Node program's V8 snapshots (tests/js/sessions.js) and a Python
//! program's heap files under the probe (tests/python/session_registry.py): the icicle's
//! geometry holds on every frame (children inside their parent in proportion, siblings apart,
//! one order over time), scaled extents follow the heap, the first branch is the one that grew
//! most, and the HTML page is written from the same input. Each fails in CI where its tool is
//! missing (MEMCITY_REQUIRE_JVM / _NODE / _PYTHON or CI=1) and skips elsewhere.

mod common;
use common::{record_java, run, tools_present};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-tree-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The icicle of every snapshot of `inputs`, scaled, checked; the HTML page written too.
fn check_series(inputs: &[&str], dir: &Path, snapshots: usize) {
    let json = dir.join("tree.json");
    run(Command::new(MEMCITY)
        .arg("tree")
        .args(inputs)
        .args(["--times", "all", "--scaled", "--out"])
        .arg(&json));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["frames"].as_array().unwrap().len(), snapshots);
    common::trees::check_icicle(&doc);
    common::trees::check_scaled(&doc);
    // Ordered by growth over the whole series: the branches below the heap from most grown.
    let last = doc["frames"].as_array().unwrap().last().unwrap();
    let growth: Vec<i64> = last["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["depth"] == 1 && n["other"] == false)
        .map(|n| n["growth"].as_i64().unwrap())
        .collect();
    // A Python heap's builtins (with a dict's str keys and the values in the heap file) can
    // outgrow __main__ so far that the icicle folds the rest into "Other": one branch is enough.
    assert!(!growth.is_empty() && growth[0] > 0, "a branch grew: {growth:?}");
    assert!(growth.windows(2).all(|w| w[0] >= w[1]), "most grown first: {growth:?}");
    let html = dir.join("tree.html");
    run(Command::new(MEMCITY).arg("tree").args(inputs).arg("--out").arg(&html));
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("\"time\":").count(), snapshots, "every snapshot on the page's slider");
}

#[test]
fn a_jvm_dump_series_as_an_icicle() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir = temp("jvm");
    let series = record_java(&dir, "CacheLeak", &["20000"], 3);
    check_series(&[series.to_str().unwrap()], &dir, 3);
}

#[test]
fn a_node_snapshot_series_as_an_icicle() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = temp("node");
    let written = common::node_session_rounds(&dir, 3, 3000);
    let snapshots: Vec<&str> = written.lines().collect();
    assert_eq!(snapshots.len(), 3, "{written}");
    check_series(&snapshots, &dir, 3);
}

#[test]
fn a_python_heap_file_series_as_an_icicle() {
    if !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let dir = temp("python");
    let heaps = dir.join("heaps");
    let written = common::python_session_rounds(&heaps, 3, 3000);
    let files: Vec<&str> = written.lines().collect();
    assert_eq!(files.len(), 3, "{written}");
    check_series(&files, &dir, 3);
}
