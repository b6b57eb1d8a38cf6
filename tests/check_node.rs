//! The leak gate on a real Node program (docs/ci.md's recipe): tests/js/sessions.js writes a heap
//! snapshot after each of four rounds, once with its session registry only growing and once fixed
//! (sessions end); `memcity check` with its default limits fails the first and passes the second.
//! Skipped where node is missing, unless CI=1 or MEMCITY_REQUIRE_NODE=1 (then it fails).

mod common;
use common::{run, tools_present};

use std::path::Path;
use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn check(fixed: bool) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("memcity-check-node-{}-{fixed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/sessions.js");
    let mut node = Command::new("node");
    node.arg(script).arg(&dir).args(["4", "20000"]);
    if fixed {
        node.arg("fixed");
    }
    run(&mut node);
    let out = Command::new(MEMCITY).arg("check").arg(&dir).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn the_growing_registry_fails_the_gate_and_the_fixed_one_passes() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let (code, out) = check(false);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.lines().any(|l| l.starts_with("LEAK object › Session")), "{out}");
    let (code, out) = check(true);
    assert_eq!(code, Some(0), "{out}");
}
