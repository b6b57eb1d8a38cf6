//! A JavaScript Map's entries and the `duplicate-keys` cause on a real Node program
//! (tests/js/key_cache.js): a cache Map keyed by a fresh `{city, day}` per lookup grows with
//! keys equal by value (30 distinct), and `structures`, `check` and `objects` name the cause and
//! read its entries back as the program set them; keyed by a string, the Map stops at 30 and no
//! cause is named. Numbers are read where the snapshot exposes them: written by Node with
//! `exposeNumericValues`, and taken by `memcity record --inspect` (which asks for them); a
//! snapshot without them never calls keys that differ only by a number duplicates. Skipped
//! where node is missing, unless CI=1 or MEMCITY_REQUIRE_NODE=1 (then it fails).

mod common;
use common::{node_rounds, run, tools_present};

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
const CACHE: &str = "global .service .cache";
const MESSAGE: &str = "6,000 keys of Object, 30 distinct by value: the Map is keyed by fresh objects, equal by value but not the same";

fn json(args: &[&str], input: &Path) -> serde_json::Value {
    let out = run(Command::new(MEMCITY).arg(args[0]).arg(input).args(&args[1..]));
    serde_json::from_str(&out).unwrap()
}

/// The cache's causes in `structures --json`.
fn cache_causes(input: &Path) -> serde_json::Value {
    cache(input)["causes"].clone()
}

/// The cache in `structures --json`: its path starts with the global object's name, `global`
/// in a snapshot Node writes itself, `global / ` in one taken over the inspector.
fn cache(input: &Path) -> serde_json::Value {
    let report = json(&["structures", "--top", "0", "--json"], input);
    let all = report["instances"].as_array().unwrap();
    let cache = all.iter().find(|i| i["identity"].as_str().unwrap().ends_with(" .service .cache"));
    cache.unwrap_or_else(|| panic!("no {CACHE}")).clone()
}

/// The snapshots of key_cache.js with `flags` in `dir`, taken again (three tries) where the
/// cache is not named by its path from the global object: V8 at times lists the Map itself
/// among its `(Strong roots)` at the moment of a snapshot, and memcity then names it so.
fn rounds(dir: &Path, flags: &[&str]) {
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(dir);
        node_rounds("key_cache.js", dir, 3, 2000, flags);
        let report = json(&["structures", "--top", "0", "--json"], dir);
        let named = report["instances"].as_array().unwrap().iter().any(|i| i["identity"] == CACHE);
        if named {
            return;
        }
    }
    panic!("{CACHE} never named in three runs of key_cache.js {flags:?}");
}

fn field<'a>(object: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let fields = object["fields"].as_array().unwrap_or_else(|| panic!("{object}"));
    fields.iter().find(|f| f["name"] == name).map_or(&serde_json::Value::Null, |f| &f["value"])
}

#[test]
fn a_map_keyed_by_fresh_objects_names_its_cause_and_its_entries_read_back() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-causes-node-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (leak, fixed) = (dir.join("leak"), dir.join("fixed"));
    rounds(&leak, &[]);
    rounds(&fixed, &["fixed"]);

    let cause = serde_json::json!([{"kind": "duplicate-keys", "type": "Object", "keys": 6000, "distinct": 30,
                                    "message": MESSAGE}]);
    assert_eq!(cache_causes(&leak), cause);
    // The entries, key → value, in insertion order, as the program set them.
    let found = json(&["objects", "--structure", CACHE, "--entries", "31", "--json"], &leak);
    assert_eq!(found["target"]["entries"], 6000);
    let entries = found["entries"].as_array().unwrap();
    const CITIES: [&str; 10] =
        ["Linz", "Graz", "Wien", "Salzburg", "Innsbruck", "Brno", "Kosice", "Krakow", "Bratislava", "Praha"];
    for (i, e) in entries.iter().enumerate() {
        let (city, day) = (CITIES[i % 10], i % 3);
        assert_eq!(e["key"]["type"], "Object", "{e}");
        assert_eq!(field(&e["key"], "city"), city, "{e}");
        assert_eq!(field(&e["key"], "day"), day, "{e}");
        assert_eq!(e["value"]["value"], format!("{city}#{day}"), "{e}");
        assert!(e.get("unknown").is_none(), "{e}");
    }
    // Small integers are no nodes in a Map's table: such a value is unknown, not null.
    let hits = json(&["objects", "--structure", "global .service .hits", "--json"], &leak);
    assert_eq!(field(&hits["entries"][0]["key"], "city"), "Linz", "{hits}");
    assert_eq!(hits["entries"][1]["key"]["value"], "total", "{hits}");
    for e in hits["entries"].as_array().unwrap() {
        assert!(e.get("value").is_none() && e["unknown"] == serde_json::json!(["value"]), "{e}");
    }
    let text =
        run(Command::new(MEMCITY).arg("objects").arg(&leak).args(["--structure", "global .service .hits"]));
    assert!(
        text.lines()
            .any(|l| l.starts_with("  2. (string) ") && l.contains("\"total\"") && l.ends_with(" → ?")),
        "{text}"
    );
    // The gate names it on the cache's line, with the count that never drops.
    let limits = ["--min-steps", "2", "--max-growth-bytes", "100000"];
    let out = Command::new(MEMCITY).arg("check").arg(&leak).args(limits).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("LEAK structure Map: ") && line.contains(&format!("held by {CACHE};")),
        "{text}"
    );
    assert!(line.contains(&format!("duplicate-keys: {MESSAGE}")), "{line}");
    assert!(line.contains("unbounded-cache: ") && line.contains(" → 6,000 entries"), "{line}");

    // Fixed: one string key per city and day, and no cause anywhere.
    let report = json(&["structures", "--top", "0", "--json"], &fixed);
    let all = report["instances"].as_array().unwrap();
    assert!(all.iter().all(|i| i["causes"] == serde_json::json!([])), "a cause in the fixed program");
    let found = json(&["objects", "--structure", CACHE, "--entries", "2", "--json"], &fixed);
    assert_eq!(found["target"]["entries"], 30);
    assert_eq!(found["entries"][1]["key"]["value"], "Graz|1");
    assert_eq!(found["entries"][1]["value"]["value"], "Graz#1");
    let out = Command::new(MEMCITY).arg("check").arg(&fixed).args(limits).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_numeric_values_keys_that_differ_by_a_number_are_not_duplicates() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-causes-node-plain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // 6,000 keys in one city, each its own day: distinct by value, alike without the days.
    rounds(&dir, &["unique", "plain"]);
    assert_eq!(cache_causes(&dir), serde_json::json!([]));
    let found = json(&["objects", "--structure", CACHE, "--entries", "1", "--json"], &dir);
    let key = &found["entries"][0]["key"];
    assert_eq!(field(key, "city"), "Linz", "{key}");
    let names: Vec<&str> =
        key["fields"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(!names.contains(&"day"), "a small integer is no node without numeric values: {names:?}");
    // With numbers the same keys are 6,000 distinct ones: still no cause.
    let numbers = dir.join("numbers");
    rounds(&numbers, &["unique"]);
    assert_eq!(cache_causes(&numbers), serde_json::json!([]));
    let found = json(&["objects", "--structure", CACHE, "--entries", "8", "--json"], &numbers);
    assert_eq!(field(&found["entries"][7]["key"], "day"), 7);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_inspect_takes_numbers_and_the_cause_is_named() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-causes-node-inspect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/key_cache.js");
    let mut node = Command::new("node")
        .arg("--inspect=127.0.0.1:0")
        .arg(script)
        .args(["-", "0", "2000", "stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(node.stderr.take().unwrap());
    let listening = stderr.lines().map_while(Result::ok).find_map(|l| {
        l.strip_prefix("Debugger listening on ws://127.0.0.1:")
            .map(|r| r.split('/').next().unwrap().to_string())
    });
    let port = listening.expect("node announces its inspector");
    let (mut stdin, mut stdout) = (node.stdin.take().unwrap(), BufReader::new(node.stdout.take().unwrap()));
    let mut round = |n: u32| {
        writeln!(stdin, "go").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), format!("round {n}"));
    };
    // One recording (V8's node ids hold within one inspector session): snapshots at 0 s, 4 s
    // and 8 s, rounds of 2,000 lookups before the first and at 2 s and 6 s.
    round(1);
    let record = Command::new(MEMCITY)
        .args(["record", "--inspect", &format!("127.0.0.1:{port}"), "--every", "4s", "--count", "3", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    for n in 2..=3 {
        std::thread::sleep(Duration::from_secs(if n == 2 { 2 } else { 4 }));
        round(n);
    }
    let recorded = record.wait_with_output().unwrap();
    assert!(recorded.status.success(), "{}", String::from_utf8_lossy(&recorded.stderr));
    let _ = node.kill();
    let _ = node.wait();
    // A loaded machine may take a snapshot late: the keys are 4,000 or 6,000, 30 distinct.
    let cache = cache(&dir);
    let causes = &cache["causes"];
    assert_eq!(
        (&causes[0]["kind"], &causes[0]["distinct"]),
        (&"duplicate-keys".into(), &30.into()),
        "{causes}"
    );
    assert!(causes[0]["keys"].as_u64().unwrap() >= 4000, "{causes}");
    let path = cache["identity"].as_str().unwrap();
    let found = json(&["objects", "--structure", path, "--entries", "3", "--json"], &dir);
    assert_eq!(field(&found["entries"][2]["key"], "day"), 2, "a small integer, taken by record --inspect");
    assert_eq!(field(&found["entries"][2]["key"], "city"), "Wien");
    let _ = std::fs::remove_dir_all(&dir);
}
