//! The leak gate on a live JVM (docs/ci.md's recipe): `memcity record` takes four dumps of
//! tests/java/CacheLeak.java, then `memcity check` with its default limits fails the leaking
//! program (its search cache's key lacks equals/hashCode) and passes the fixed one. Skipped where
//! no JDK is installed, unless MEMCITY_REQUIRE_JVM=1 or CI=1.

mod common;
use common::{record_java, tools_present};

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn check(args: &[&str], name: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("memcity-check-jvm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let series = record_java(&dir, "CacheLeak", args, 4);
    let out = Command::new(MEMCITY).arg("check").arg(&series).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn the_leaking_cache_fails_the_gate_and_its_fix_passes() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let (code, out) = check(&["20000"], "leak");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.lines().any(|l| l.starts_with("LEAK ") && l.contains("CacheLeak")), "{out}");
    // The map itself, by the field that holds it.
    assert!(
        out.lines()
            .any(|l| l.starts_with("LEAK structure java.util.HashMap: ")
                && l.contains("held by static CacheLeak")),
        "{out}"
    );
    let (code, out) = check(&["20000", "fixed"], "fixed");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("pass: 0 group(s)"), "{out}");
}
