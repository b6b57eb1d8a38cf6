//! `memcity structures` end to end on the teaching scenarios and a trace file: the leaking
//! instance comes first by retained HGP, named by the field that holds it, and every fixed
//! program's structures come out as non-growth; bad descriptions and windows are one-line errors.

mod common;
use common::refused;

use std::process::{Command, Output};

use serde_json::Value;

fn memcity(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memcity")).args(args).output().expect("memcity runs")
}

fn report(args: &[&str]) -> Value {
    let mut all = vec!["structures"];
    all.extend(args);
    all.push("--json");
    let out = memcity(&all);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The scenario's top instance: its type, identity, retained HGP and pattern.
fn top(scenario: &str) -> (String, String, f64, String) {
    let r = report(&[scenario]);
    let first = &r["instances"][0];
    (
        first["type"].as_str().unwrap().into(),
        first["identity"].as_str().unwrap().into(),
        first["hgp"]["retained"].as_f64().unwrap_or(0.0),
        first["pattern"].as_str().unwrap().into(),
    )
}

#[test]
fn each_leak_is_its_instance_named_by_its_field() {
    let cases = [
        ("scenario:linked-list", "java.util.LinkedList", "static app.model.Registry.people"),
        ("scenario:http-client", "java.util.HashMap", "static app.feed.Fetcher.connectionManager .mapHosts"),
        (
            "scenario:easytravel",
            "java.util.concurrent.ConcurrentHashMap",
            "static com.dynatrace.easytravel.LocationCache.cache",
        ),
    ];
    for (scenario, ty, identity) in cases {
        let (t, id, hgp, pattern) = top(scenario);
        assert_eq!((t.as_str(), id.as_str()), (ty, identity), "{scenario}");
        assert!(hgp >= 50.0, "{scenario}: retained HGP {hgp}");
        assert_eq!(pattern, "single-ownership container growth", "{scenario}");
    }
}

#[test]
fn fixed_programs_show_no_growing_structure() {
    for scenario in ["scenario:linked-list-fixed", "scenario:http-client-fixed", "scenario:easytravel-fixed"]
    {
        let r = report(&[scenario, "--top", "0"]);
        let instances = r["instances"].as_array().unwrap();
        let survivors: Vec<&Value> = instances.iter().filter(|i| i["status"] == "survived").collect();
        assert!(!survivors.is_empty(), "{scenario}");
        for i in survivors {
            assert_eq!(i["pattern"], "non-growth", "{scenario}: {i}");
        }
        // The request-scoped lists come and go: reported by their fate, with no growth.
        for i in instances.iter().filter(|i| i["status"] != "survived") {
            assert!(i["status"] == "appeared" || i["status"] == "died", "{i}");
            assert_eq!(i["pattern"], Value::Null, "{i}");
            assert_eq!(i["hgp"]["retained"], Value::Null, "{i}");
        }
    }
}

#[test]
fn the_report_has_every_field_and_the_leaves_of_the_leak() {
    let r = report(&["scenario:linked-list", "--from", "5", "--to", "20", "--top", "2"]);
    assert_eq!(r["window"], serde_json::json!({"from": 5, "to": 20}));
    assert!(r["heap_growth_bytes"].as_i64().unwrap() > 0);
    let list = &r["instances"][0];
    for field in [
        "type",
        "identity",
        "allocation_site",
        "status",
        "objects_start",
        "objects_end",
        "retained_bytes_start",
        "retained_bytes_end",
        "deep_bytes_start",
        "deep_bytes_end",
        "structure_bytes_start",
        "structure_bytes_end",
        "deep_structure_bytes_start",
        "deep_structure_bytes_end",
        "hgp",
        "pattern",
        "leaves",
    ] {
        assert!(!list[field].is_null(), "{field}");
    }
    assert_eq!(list["status"], "survived");
    assert_eq!(list["allocation_site"], "app.model.Registry.<clinit>");
    assert!(list["objects_end"].as_u64() > list["objects_start"].as_u64());
    let person = &list["leaves"][0];
    assert_eq!(person["type"], "app.model.Person");
    assert_eq!(person["allocation_site"], "app.model.Registry.register");
    assert!(person["objects_end"].as_u64() > person["objects_start"].as_u64());
    // Deep size counts what the people hold too; the structure does not.
    assert!(list["deep_bytes_end"].as_u64() > list["deep_structure_bytes_end"].as_u64());
    // Sorting by another metric and the table.
    assert_eq!(
        report(&["scenario:linked-list", "--sort", "deep-structure"])["instances"][0]["type"],
        "java.util.LinkedList"
    );
    let text =
        String::from_utf8(memcity(&["structures", "scenario:linked-list", "--top", "1"]).stdout).unwrap();
    assert!(text.contains("java.util.LinkedList static app.model.Registry.people"), "{text}");
    assert!(
        text.contains("single-ownership container growth") && text.contains("leaves app.model.Person"),
        "{text}"
    );
}

#[test]
fn a_trace_file_reads_like_its_scenario() {
    let dir = std::env::temp_dir().join(format!("memcity-structures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("linked-list.mctrace");
    let out = memcity(&["trace", "--scenario", "linked-list", "--out", trace.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        report(&[trace.to_str().unwrap()])["instances"][0],
        report(&["scenario:linked-list"])["instances"][0]
    );
}

#[test]
fn users_describe_their_own_structures_and_bad_files_are_one_line() {
    let dir = std::env::temp_dir().join(format!("memcity-structures-ds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A person as a structure of its own (its name and e-mail strings as leaves): people become
    // instances, contained in the list.
    let mine = dir.join("person.ds");
    std::fs::write(&mine, "namespace app.model;\nDS Person { (java.lang.String); }\n").unwrap();
    let bad = dir.join("bad.ds");
    std::fs::write(&bad, "DS Registry {\n  java.util.LinkedList\n}\n").unwrap();
    refused(
        &["structures", "scenario:linked-list", "--structures", bad.to_str().unwrap()],
        "bad.ds:3:1: expected ';'",
    );
    refused(&["structures", "scenario:linked-list", "--structures", "/no/such.ds"], "/no/such.ds");
    refused(&["structures", "scenario:linked-list", "--to", "99"], "--to 99: the input has");
    refused(&["structures", "scenario:linked-list", "--from", "9", "--to", "3"], "--from 9 is after --to 3");
    refused(&["structures", "scenario:nope"], "nope");
    refused(&["structures", "/no/such/dump.hprof"], "/no/such/dump.hprof: no such file or folder");
    let snapshot = dir.join("page.heapsnapshot");
    std::fs::write(&snapshot, "{}").unwrap();
    refused(&["structures", snapshot.to_str().unwrap()], "page.heapsnapshot");
    let not_a_dump = dir.join("heap.hprof");
    std::fs::write(&not_a_dump, "JAVA PROFILE").unwrap();
    refused(&["structures", not_a_dump.to_str().unwrap()], "heap.hprof");
    let r = report(&["scenario:linked-list", "--structures", mine.to_str().unwrap(), "--top", "0"]);
    let types: Vec<&str> =
        r["instances"].as_array().unwrap().iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert!(types.contains(&"java.util.LinkedList"), "{types:?}");
    // A pattern of the user's that matches no type is a warning on stderr, not an error.
    let typo = dir.join("typo.ds");
    std::fs::write(&typo, "DS app.model.Persn { (*); }\n").unwrap();
    let out = memcity(&["structures", "scenario:linked-list", "--structures", typo.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("typo.ds:1: warning: described type \"app.model.Persn\" matches no type"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn heap_dumps_name_the_static_field_that_holds_each_leak() {
    let dumps = format!("{}/data/hprof", env!("CARGO_MANIFEST_DIR"));
    let r = report(&[&dumps, "--top", "0"]);
    let instances = r["instances"].as_array().unwrap();
    let find = |identity: &str| {
        instances.iter().find(|i| i["identity"] == identity).unwrap_or_else(|| panic!("{identity}"))
    };
    assert_eq!(instances[0]["identity"], "static LeakApp.PEOPLE");
    assert_eq!(instances[0]["type"], "java.util.LinkedList");
    let cache = find("static LeakApp.CACHE");
    assert_eq!(cache["type"], "java.util.HashMap");
    for leak in [&instances[0], cache] {
        assert_eq!(leak["pattern"], "single-ownership container growth", "{leak}");
    }
    assert_eq!(cache["leaves"][0]["type"], "LeakApp$SearchKey");
    // The JDK's own maps did not grow.
    let jdk =
        instances.iter().filter(|i| i["identity"].as_str().unwrap().starts_with("static java.")).count();
    assert!(jdk > 5, "{jdk}");
    for i in instances.iter().filter(|i| i["identity"].as_str().unwrap().starts_with("static java.")) {
        assert_eq!(i["pattern"], "non-growth", "{i}");
    }
}

/// Heap files are read by `structures`; a broken one is refused in one line naming the file and
/// the byte, never with a panic: cut short, a bad reference-name table, an out-of-range name.
#[test]
fn malformed_heap_files_are_one_line() {
    let dir = std::env::temp_dir().join(format!("memcity-structures-heapfiles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/heapfile/tests/data/version-1.mcheap");
    // A version 1 file has no names, and is still read.
    let out = memcity(&["structures", good.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.join("cut.mcheap");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&["structures", cut.to_str().unwrap()], "cut.mcheap: at byte ");
    // Version 2 with NAME sections that lie.
    let file = memcity_heapfile::parse(&bytes, "v1").unwrap();
    let mut bad = file.clone();
    bad.labels = vec![9999; file.edges.len()].into();
    let path = dir.join("label.mcheap");
    std::fs::write(&path, bad.to_bytes()).unwrap();
    refused(&["structures", path.to_str().unwrap()], "a reference's name is string 9999, but there are 6");
    let v2 = file.to_bytes();
    let at = v2.windows(4).position(|w| w == b"NAME").unwrap();
    let mut table = v2.clone();
    table[at + 16] ^= 1; // the count, under a CRC that no longer matches
    let path = dir.join("table.mcheap");
    std::fs::write(&path, &table).unwrap();
    refused(
        &["structures", path.to_str().unwrap()],
        &format!("table.mcheap: at byte {}: the NAME section is corrupted", at + 4),
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
