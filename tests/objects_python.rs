//! The `duplicate-keys` cause in a Python program under the probe (tests/python/key_cache.py):
//! a dict keyed by instances of a class without `__eq__` and `__hash__` grows with keys equal
//! by value (10 cities × 3 days), and `structures` and `check` name the cause in Python's
//! words; with `fixed` (the key class compares by value) the dict stops at 30 keys and no
//! cause is named. The keys' fields are fresh objects (a str joined at run time, an int above
//! CPython's small ints), so only the heap file's values (format 3) tell them equal; the values
//! read back as the program set them, a hostile city's control characters escaped.
//! Skipped where python3 is missing, unless CI=1 or MEMCITY_REQUIRE_PYTHON=1.

mod common;
use common::{python_rounds, run, tools_present};

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
const CACHE: &str = "module __main__ .Service .cache";
const CITIES: [&str; 10] = [
    "Linz",
    "Graz",
    "Wien",
    "Salzburg",
    "Innsbruck",
    "Brno",
    "Kosice",
    "Krakow",
    "Bratislava",
    "Praha</script>\u{1b}[2J\u{7}",
];

/// Field `name` of an object of `memcity objects --json`.
fn field<'a>(object: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let fields = object["fields"].as_array().unwrap();
    fields.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no field {name} in {object}"))
}

/// The first 20 entries of the cache map key k to value `CITY#DAY`, exactly as the program
/// set them: its k-th lookup's city and day.
fn assert_entries_read_back(found: &serde_json::Value, key_type: &str) {
    let entries = found["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 20);
    for (k, entry) in entries.iter().enumerate() {
        let (city, day) = (CITIES[k % 10], 1000 + k % 3);
        let key = &entry["key"];
        assert_eq!(key["type"], key_type);
        assert_eq!(field(key, "city")["value"], city, "{entry}");
        assert_eq!(field(key, "city")["type"], "builtins.str");
        assert_eq!(field(key, "day")["value"], day, "{entry}");
        assert_eq!(entry["value"]["value"], format!("{city}#{day}"), "{entry}");
    }
}

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
    // The gate names it on the cache's line, and the dict, which never drops a key, as a
    // cache without eviction.
    let limits = ["--min-steps", "2", "--max-growth-bytes", "100000"];
    let out = Command::new(MEMCITY).arg("check").arg(&leak).args(limits).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let line =
        text.lines().find(|l| l.contains(&format!("held by {CACHE};"))).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&format!("duplicate-keys: {message}")), "{line}");
    // (The probe's first snapshot comes at a GC point in the first round: its count varies.)
    let unbounded = "never fewer: nothing is removed from this builtins.dict";
    assert!(line.contains("; unbounded-cache: ") && line.contains(" → 6,000 entries over "), "{line}");
    assert!(line.contains(unbounded), "{line}");

    // Inside the cache: its entries key → value, as the program set them. Keys equal by value
    // hold different str objects: identity alone would call every key distinct.
    let out = run(Command::new(MEMCITY).arg("objects").arg(&leak).args(["--structure", CACHE, "--json"]));
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found["target"]["entries"], 6000);
    assert_entries_read_back(&found, "__main__.QueryKey");
    let (first, again) = (&found["entries"][0]["key"], &found["entries"][10]["key"]);
    assert_eq!(field(first, "city")["value"], field(again, "city")["value"]);
    assert_ne!(field(first, "city")["ref"], field(again, "city")["ref"], "fresh strings");
    let third = &found["entries"][3]["key"];
    assert_eq!(field(first, "day")["value"], field(third, "day")["value"]);
    assert_ne!(field(first, "day")["ref"], field(third, "day")["ref"], "ints above the cached ones");
    // The terminal gets the hostile city escaped: no control character, `</script>` as text.
    let out = run(Command::new(MEMCITY).arg("objects").arg(&leak).args(["--structure", CACHE]));
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains(r#"city: "Praha</script>\u{1b}[2J\u{7}""#), "{out}");

    // Fixed: the dict holds one key per city and day, and no instance has a cause.
    let out = run(Command::new(MEMCITY).arg("structures").arg(&fixed).args(["--top", "0", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let all = report["instances"].as_array().unwrap();
    assert!(all.iter().all(|i| i["causes"] == serde_json::json!([])), "a cause in the fixed program");
    let out = run(Command::new(MEMCITY).arg("objects").arg(&fixed).args(["--structure", CACHE, "--json"]));
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found["target"]["entries"], 30);
    assert_entries_read_back(&found, "__main__.FixedKey");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every kind of value the probe writes reads back as the program set it
/// (tests/python/atoms.py), in JSON exactly and in the terminal escaped.
#[test]
fn a_python_objects_attributes_read_back_as_the_program_set_them() {
    if !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-atoms-python-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    python_rounds("atoms.py", &dir, 1, 1, &[]);
    let holders = "module __main__ .HOLDERS";
    let out = run(Command::new(MEMCITY).arg("objects").arg(&dir).args(["--structure", holders, "--json"]));
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    let entry = &found["entries"][0];
    assert_eq!(entry["key"]["value"], "holder", "{entry}");
    let holder = &entry["value"];
    assert_eq!(holder["type"], "__main__.Holder");
    let value = |name: &str| field(holder, name)["value"].clone();
    assert_eq!(value("city"), "Linz");
    assert_eq!(value("hostile"), "</script>\u{1b}[31m\u{7}\u{2028}");
    assert_eq!(value("big"), "12345678901234567890123", "beyond 64 bits: its digits");
    assert_eq!(value("day"), -1004);
    assert_eq!(value("ratio"), 0.1);
    assert_eq!(value("low"), "-Infinity");
    assert_eq!(value("raw"), "b'\\x00ab\\''");
    assert_eq!(value("nothing"), serde_json::Value::Null);
    assert_eq!(value("flag"), true);
    // A long str is cut at 200 characters, its whole length kept.
    assert_eq!(value("long"), format!("{}…", "x".repeat(200)));
    let long = field(holder, "long")["ref"].as_str().unwrap().to_string();
    let out = run(Command::new(MEMCITY).arg("objects").arg(&dir).args(["--object", &long, "--json"]));
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(found["objects"][0]["length"], 1000, "{found}");
    // The terminal: no control character, the hostile text escaped.
    let out = run(Command::new(MEMCITY).arg("objects").arg(&dir).args(["--structure", holders]));
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains(r#"hostile: "</script>\u{1b}[31m\u{7}\u{2028}""#), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
