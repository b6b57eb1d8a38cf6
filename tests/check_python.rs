//! The leak gate on a real Python program (docs/ci.md's recipe): the probe takes heap files of
//! probes/python/examples/leak_sessions.py and of its fixed variant, and `memcity check` (default
//! limits) fails the first and passes the second. The requests are driven by count, one heap file
//! a round (tests/python/example_rounds.py), not by time: a loaded machine once took only three
//! files in a timed run, too few steps to judge. Skipped where python3 is missing, unless CI=1 or
//! MEMCITY_REQUIRE_PYTHON=1 (then it fails).

mod common;
use common::tools_present;

use std::path::Path;
use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
/// Four steps or more (the probe adds its start and exit snapshots), one more than a finding
/// must grow in; 400 sessions a round, about 0.5 MB: 2 MB over the run, twice the limit.
const ROUNDS: u32 = 5;
const REQUESTS: u32 = 400;

fn check(example: &str) -> (Option<i32>, String) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("memcity-check-python-{}-{example}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let status = Command::new("python3")
        .arg(repo.join("probes/python/memcity_probe.py"))
        .arg("--out")
        .arg(&dir)
        // Snapshots at the rounds' ends only.
        .args(["--no-fork", "--every-ms", "600000"])
        .arg(repo.join("tests/python/example_rounds.py"))
        .arg(repo.join(format!("probes/python/examples/{example}.py")))
        .args([ROUNDS.to_string(), REQUESTS.to_string()])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{example}: the probe failed");
    let files = std::fs::read_dir(&dir).map_or(0, |d| d.count());
    assert!(files as u32 >= ROUNDS, "{example}: {files} heap files for {ROUNDS} rounds");
    let out = Command::new(MEMCITY).arg("check").arg(&dir).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn the_leaking_sessions_fail_the_gate_and_the_fixed_ones_pass() {
    if !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let (code, out) = check("leak_sessions");
    assert_eq!(code, Some(1), "{out}");
    // One leak, one finding: the list of sessions, holding the groups made in the script.
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with("LEAK structure builtins.list") && first.contains(".SESSIONS"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  holds ") && l.contains("leak_sessions.py")), "{out}");
    let (code, out) = check("fixed_sessions");
    assert_eq!(code, Some(0), "{out}");
}
