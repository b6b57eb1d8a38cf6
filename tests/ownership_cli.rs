//! `memcity ownership` on the built-in linked-list scenario (a trace replayed by the analysis
//! core): the registry's LinkedList owns the leak through the cycle of its nodes, the JSON has
//! the documented fields, bytes are conserved at every node, the SVG draws the paper's picture
//! with its history bar, and bad input fails in one line.

mod common;
use common::{ownership_json, ownership_nodes};

use std::process::{Command, Output};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn memcity(args: &[&str]) -> Output {
    Command::new(MEMCITY).args(args).output().unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-ownership-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn the_linked_list_leak_is_owned_by_the_registry_through_the_cycle_of_its_nodes() {
    let doc = ownership_json(&["scenario:linked-list", "--min-share", "0"]);
    assert_eq!(doc["time"], 29, "the last snapshot by default");
    let nodes = ownership_nodes(&doc);
    let list = nodes
        .iter()
        .find(|n| n["name"] == "java.util.LinkedList" && n["referrer"] == "static app.model.Registry.people")
        .expect("the registry's list");
    assert_eq!(list["kind"], "collection");
    let heap = doc["heap_bytes"].as_u64().unwrap();
    assert!(list["owned_bytes"].as_u64().unwrap() * 2 > heap, "the list owns most of the heap: {list}");
    let cycle = &list["children"][0];
    assert_eq!(cycle["kind"], "cycle");
    assert_eq!(cycle["name"], "cycle of java.util.LinkedList$Node");
    assert_eq!(
        cycle["members"],
        serde_json::json!([
            "java.util.LinkedList$Node in java.util.LinkedList in static app.model.Registry.people"
        ])
    );
    let person = &cycle["children"][0];
    assert_eq!(person["name"], "app.model.Person");
    assert!(person["new_objects"].as_u64().unwrap() > 0, "people joined since the GC before");
    assert!(person["growth_bytes"].as_i64().unwrap() > 0);
    // Strings are shared between the people and elsewhere: their copy here is a fraction.
    let strings = &person["children"][0];
    assert_eq!(strings["name"], "java.lang.String");
    assert!(strings["fraction"].as_f64().unwrap() < 1.0);

    // The first snapshot has nothing before it.
    let first = ownership_json(&["scenario:linked-list", "--time", "0", "--min-share", "0"]);
    assert_eq!(first["time"], 0);
    assert!(ownership_nodes(&first).iter().all(|n| n["growth_bytes"] == 0 && n["new_objects"] == 0));
    assert!(first["heap_bytes"].as_u64().unwrap() < heap);

    // The default hides nodes under 0.1 % of the heap.
    let shown = ownership_json(&["scenario:linked-list"]);
    let mut pending = vec![&shown["root"]];
    let mut count = 0;
    while let Some(n) = pending.pop() {
        assert!(n["owned_bytes"].as_u64().unwrap() * 1000 >= heap || n["kind"] == "root", "{}", n["name"]);
        pending.extend(n["children"].as_array().unwrap());
        count += 1;
    }
    assert!(count < nodes.len(), "{count} of {} nodes shown", nodes.len());
}

#[test]
fn the_svg_is_the_papers_picture() {
    let svg = temp("linked-list.svg");
    let out = memcity(&["ownership", "scenario:linked-list", "--out", svg.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert!(text.contains(">cycle of LinkedList$Node"), "the cycle is labelled");
    assert!(text.contains("url(#new)") && text.contains("url(#growth)"), "new objects and growth hatched");
    assert!(text.contains("<polyline"), "sparklines in the large nodes");
    // The history bar: a band and a magenta line per snapshot, the shown one in yellow.
    assert_eq!(text.matches("stroke=\"#d0309a\"").count(), 29);
    assert_eq!(text.matches("stroke=\"#f5d000\"").count(), 1);
    assert!(text.contains("<title>snapshot 29: "));
    // Green → red by own bytes: the char arrays (most bytes of their own) are the reddest.
    assert!(text.contains("<title>char[]\n"), "tooltips start with the full name");
}

#[test]
fn bad_input_fails_in_one_line() {
    let empty = temp("nothing-here");
    std::fs::create_dir_all(&empty).unwrap();
    let corrupt = temp("corrupt.hprof");
    std::fs::write(&corrupt, b"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\x01\x8c\0\0\0\0\x1c\0\0").unwrap();
    let json = temp("o.json");
    let json = json.to_str().unwrap();
    let history = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample-leak.json");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["scenario:linked-list", "--out", "o.txt"], "give a .json or .svg file"),
        (vec!["scenario:linked-list", "--min-share", "2", "--out", json], "no share of the heap"),
        (vec!["scenario:linked-list", "--min-share", "abc", "--out", json], "no share of the heap"),
        (vec!["scenario:linked-list", "--min-share", "-0.5", "--out", json], "--min-share -0.5"),
        (vec!["scenario:linked-list", "--min-share", "NaN", "--out", json], "--min-share NaN"),
        (vec!["scenario:linked-list", "--large", "0", "--out", json], "--large"),
        (
            vec!["scenario:linked-list", "--time", "30", "--out", json],
            "--time 30: the input has 30 snapshot(s)",
        ),
        (vec!["scenario:nope", "--out", json], "nope"),
        (vec![empty.to_str().unwrap(), "--out", json], "nothing-here: the folder is empty"),
        (vec![corrupt.to_str().unwrap(), "--out", json], "corrupt.hprof: at byte 32: truncated dump"),
        (vec![history, "--out", json], "carries groups, not objects"),
        (vec!["/no/such/file.hprof", "--out", json], "/no/such/file.hprof"),
        (vec!["scenario:linked-list", "--out", "/no/such/folder/o.json"], "does not exist"),
        (vec!["scenario:linked-list", "--structures", "/no/such.ds", "--out", json], "--structures"),
    ];
    for (args, expected) in cases {
        let mut all = vec!["ownership"];
        all.extend(&args);
        let out = memcity(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!std::path::Path::new(json).exists(), "nothing written on failure");
}
