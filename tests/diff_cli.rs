//! `memcity diff`: the leaking scenario against its fixed variant, two moments of one run, and
//! bad input refused in one line.

mod common;
use common::refused;
use common::run;

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

#[test]
fn the_fix_shows_as_the_leaking_groups_shrinking() {
    let out = run(Command::new(MEMCITY).args(["diff", "scenario:linked-list", "scenario:linked-list-fixed"]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("before: scenario:linked-list (GC #30)"), "{out}");
    // The first group changed most, and it is a Person's data shrinking by the 1,140 people the
    // fixed registry lets go.
    assert!(lines[2].contains("-1140") && lines[2].contains("app.model.Person"), "{out}");
    assert!(out.lines().any(|l| l.contains("java.util.LinkedList$Node › java.util.LinkedList.linkLast")));
}

#[test]
fn two_moments_of_one_run_and_the_json_file() {
    let json = std::env::temp_dir().join(format!("memcity-diff-{}.json", std::process::id()));
    run(Command::new(MEMCITY)
        .args(["diff", "scenario:linked-list", "scenario:linked-list", "--at-before", "0", "--json"])
        .arg(&json));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    assert_eq!(report["before"]["label"], "GC #1");
    assert_eq!(report["after"]["label"], "GC #30");
    let groups = report["groups"].as_array().unwrap();
    let first = &groups[0];
    assert!(first["delta_bytes"].as_i64().unwrap() > 0, "{first}");
    assert_eq!(
        first["delta_objects"].as_i64().unwrap(),
        first["after"]["objects"].as_i64().unwrap() - first["before"]["objects"].as_i64().unwrap()
    );
    let sizes: Vec<u64> = groups.iter().map(|g| g["delta_bytes"].as_i64().unwrap().unsigned_abs()).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "largest change first");
}

#[test]
fn bad_input_is_one_line() {
    refused(&["diff", "/nonexistent/before.hprof", "scenario:linked-list"], "/nonexistent/before.hprof");
    refused(&["diff", "scenario:linked-list", "scenario:linked-list", "--at-after", "99"], "--at-after 99");
    refused(&["diff", "scenario:linked-list", "scenario:no-such"], "no-such");
    let garbage = std::env::temp_dir().join(format!("memcity-diff-garbage-{}.json", std::process::id()));
    std::fs::write(&garbage, b"{\"snapshots\": [").unwrap();
    refused(&["diff", garbage.to_str().unwrap(), "scenario:linked-list"], "memcity-diff-garbage");
    let _ = std::fs::remove_file(&garbage);
    refused(
        &["diff", "scenario:linked-list", "scenario:linked-list", "--json", "/nonexistent/dir/out.json"],
        "--json",
    );
}
