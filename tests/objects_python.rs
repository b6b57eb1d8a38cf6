//! The `duplicate-keys` cause in a Python program under the probe (tests/python/key_cache.py):
//! a dict keyed by instances of a class without `__eq__` and `__hash__` grows with keys equal
//! by value (10 cities × 3 days), and `structures` and `check` name the cause in Python's
//! words; with `fixed` (the key class compares by value) the dict stops at 30 keys and no
//! cause is named. The probe's heap files carry no values: the keys' attributes compare by
//! identity, which CPython's interned strings and small ints make value-equal ones share.
//! Skipped where python3 is missing, unless CI=1 or MEMCITY_REQUIRE_PYTHON=1.

mod common;
use common::{python_rounds, run, tools_present};

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
const CACHE: &str = "module __main__ .Service .cache";

#[test]
fn a_dict_keyed_by_instances_without_eq_names_its_cause() {
    if !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-objects-python-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (leak, fixed) = (dir.join("leak"), dir.join("fixed"));
    python_rounds("key_cache.py", &leak, 3, 2000, &[]);
    python_rounds("key_cache.py", &fixed, 3, 2000, &["fixed"]);

    let out = run(Command::new(MEMCITY).arg("structures").arg(&leak).args(["--top", "0", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let all = report["instances"].as_array().unwrap();
    let cache = all.iter().find(|i| i["identity"] == CACHE).unwrap_or_else(|| panic!("no {CACHE}"));
    let message = "6,000 keys of __main__.QueryKey, 30 distinct by value: does __main__.QueryKey define __eq__ and __hash__?";
    assert_eq!(
        cache["causes"],
        serde_json::json!([{"kind": "duplicate-keys", "type": "__main__.QueryKey", "keys": 6000, "distinct": 30,
                            "message": message}])
    );
    // The gate names it on the cache's line.
    let limits = ["--min-steps", "2", "--max-growth-bytes", "100000"];
    let out = Command::new(MEMCITY).arg("check").arg(&leak).args(limits).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let line =
        text.lines().find(|l| l.contains(&format!("held by {CACHE};"))).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&format!("duplicate-keys: {message}")), "{line}");

    // Fixed: the dict holds one key per city and day, and no instance has a cause.
    let out = run(Command::new(MEMCITY).arg("structures").arg(&fixed).args(["--top", "0", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let all = report["instances"].as_array().unwrap();
    assert!(all.iter().all(|i| i["causes"] == serde_json::json!([])), "a cause in the fixed program");
    let out = run(Command::new(MEMCITY).arg("objects").arg(&fixed).args(["--structure", CACHE, "--json"]));
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found["target"]["entries"], 30);
    let key = &found["entries"][0]["key"];
    assert_eq!(key["type"], "__main__.FixedKey");
    let names: Vec<&str> =
        key["fields"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"city") && names.contains(&"day"), "attributes as fields: {names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
