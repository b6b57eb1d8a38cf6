//! `memcity waste` on the committed dumps of tests/java/LeakApp.java, whose searches make a new
//! `"city-" + (i % 10)` key text and a new `"result for city-…"` value per search (100 a
//! round): each text is held by 100 strings in the first dump and 300 in the last, and every
//! copy but one is wasted — the string (24 bytes) and its byte[] (24 or 40 bytes), exactly.
//! Malformed flags are one line, exit 2.

use std::process::{Command, Output};

const DUMPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hprof");

fn waste(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memcity")).arg("waste").arg(DUMPS).args(args).output().unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = waste(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (count, wasted bytes) of one text.
fn copies(found: &serde_json::Value, text: &str) -> (u64, u64) {
    let all = found["waste"]["duplicate_strings"].as_array().unwrap();
    let d = all.iter().find(|d| d["text"] == text).unwrap_or_else(|| panic!("no {text:?} in {found}"));
    (d["count"].as_u64().unwrap(), d["wasted_bytes"].as_u64().unwrap())
}

#[test]
fn duplicate_strings_waste_every_copy_but_one() {
    let first = json(&["--time", "0", "--top", "30", "--json"]);
    assert_eq!(first["time"], 0);
    assert_eq!(copies(&first, "result for city-3"), (100, 99 * (24 + 40)));
    assert_eq!(copies(&first, "city-3"), (100, 99 * (24 + 24)));
    let last = json(&["--top", "30", "--json"]);
    assert_eq!(last["time"], 2, "the last dump by default");
    assert_eq!(copies(&last, "result for city-7"), (300, 299 * (24 + 40)));
    // The most wasteful first.
    let wasted: Vec<u64> = last["waste"]["duplicate_strings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["wasted_bytes"].as_u64().unwrap())
        .collect();
    assert!(wasted.windows(2).all(|w| w[0] >= w[1]), "{wasted:?}");
    let empty = last["waste"]["empty_collections"].as_array().unwrap();
    assert!(
        empty.iter().any(|e| e["type"] == "java.util.ArrayList" && e["count"].as_u64() > Some(0)),
        "{last}"
    );
    assert!(
        empty.iter().all(|e| e["type"] != "java.util.Properties"),
        "the system properties are no empty map"
    );
    // The JDK's own small maps with default tables of 16 and more slots are sparse: at most a
    // quarter full, their empty slots' bytes wasted.
    let sparse = last["waste"]["sparse_collections"].as_array().unwrap();
    let map = sparse.iter().find(|s| s["type"] == "java.util.HashMap").unwrap_or_else(|| panic!("{last}"));
    let (entries, slots) = (map["entries"].as_u64().unwrap(), map["slots"].as_u64().unwrap());
    assert!(entries > 0 && entries * 4 <= slots && map["wasted_bytes"].as_u64() > Some(0), "{map}");
    // Integers held in collections are boxes a collection of ints would not need.
    let boxed = last["waste"]["boxed_primitives"].as_array().unwrap();
    assert!(
        boxed.iter().any(|b| b["box_type"] == "java.lang.Integer"
            && b["boxes"].as_u64() <= b["count"].as_u64()
            && b["wasted_bytes"].as_u64() >= Some(16)),
        "{last}"
    );
    let out = waste(&["--top", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("19136 B wasted  300 copies  \"result for city-"), "{text}");
    assert!(
        text.contains("sparse collections, arrays at most 25% full")
            && text.contains(" sparse  java.util.HashMap  ("),
        "{text}"
    );
    assert!(text.contains("boxed primitives in collections (2 shown):"), "{text}");
}

#[test]
fn malformed_flags_are_one_line_exit_2() {
    for (args, needle) in [
        (&["--top", "0"][..], "--top 0"),
        (&["--top", "x"], "invalid value 'x' for '--top <N>'"),
        (&["--time", "3"], "--time 3: the input has 3 dumps (0..2)"),
        (&["--bogus"], "unexpected argument '--bogus'"),
        (&["--structures", "/nonexistent.ds"], "--structures"),
    ] {
        let out = waste(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle) && err.trim_end().lines().count() == 1, "{args:?}: {err}");
    }
}
