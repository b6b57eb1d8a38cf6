//! `memcity objects` on the committed dumps of tests/java/LeakApp.java (gzipped: values come
//! from their inflated copy): the list of people reads first to last with every field as the
//! program set it (`Person("person-N", "pN@example.org", N % 90)`), an object found again by
//! its id, a group's objects largest retained first; malformed flags and targets are one line,
//! exit 2.

use std::process::{Command, Output};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
const DUMPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hprof");

fn objects(args: &[&str]) -> Output {
    Command::new(MEMCITY).arg("objects").arg(DUMPS).args(args).output().unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = objects(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A field's `value` by name.
fn field<'a>(object: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    let fields = object["fields"].as_array().unwrap();
    &fields.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no {name} in {object}"))["value"]
}

#[test]
fn a_lists_entries_read_first_to_last_with_their_values() {
    let found = json(&["--structure", "static LeakApp.PEOPLE", "--entries", "25", "--json"]);
    assert_eq!(found["time"], 2, "the last dump by default");
    assert_eq!(found["target"]["type"], "java.util.LinkedList");
    assert_eq!(found["target"]["entries"], 6000);
    let entries = found["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 25);
    for (n, e) in entries.iter().enumerate() {
        assert_eq!(e["index"], n);
        let person = &e["value"];
        assert_eq!(person["type"], "LeakApp$Person");
        assert_eq!(field(person, "name"), &format!("person-{n}"));
        assert_eq!(field(person, "email"), &format!("p{n}@example.org"));
        assert_eq!(field(person, "age"), (n % 90) as u64);
        assert!(person["retained_bytes"].as_u64().unwrap() >= person["shallow_bytes"].as_u64().unwrap());
    }
    // The first dump holds a third of them.
    let first = json(&["--structure", "static LeakApp.PEOPLE", "--time", "0", "--entries", "1", "--json"]);
    assert_eq!((first["time"].as_u64(), first["target"]["entries"].as_u64()), (Some(0), Some(2000)));

    // An entry's object found again by its id, with the same fields.
    let id = entries[3]["value"]["id"].as_str().unwrap();
    assert!(id.starts_with("0x"), "{id}");
    let again = json(&["--object", id, "--json"]);
    assert_eq!(again["objects"][0]["fields"], entries[3]["value"]["fields"]);
    assert_eq!(
        again["target"],
        serde_json::json!({"kind": "object", "name": id, "type": "LeakApp$Person", "objects": 1})
    );
    // A string field's reference is an object too: a String with its text as value.
    let name =
        entries[3]["value"]["fields"].as_array().unwrap().iter().find(|f| f["name"] == "name").unwrap();
    let string = json(&["--object", name["ref"].as_str().unwrap(), "--json"]);
    assert_eq!(string["objects"][0]["value"], "person-3");
    // A byte[] shows its length and first elements.
    let bytes =
        string["objects"][0]["fields"].as_array().unwrap().iter().find(|f| f["name"] == "value").unwrap();
    let array = json(&["--object", bytes["ref"].as_str().unwrap(), "--json"]);
    assert_eq!(array["objects"][0]["length"], 8);
    assert_eq!(array["objects"][0]["elements"][0]["value"], u64::from(b'p'));

    // The text form: one line per object, strings quoted.
    let out = objects(&["--structure", "static LeakApp.PEOPLE", "--entries", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[1] LeakApp$Person") && text.contains("name: \"person-1\""), "{text}");
}

#[test]
fn a_groups_objects_come_largest_retained_first() {
    let key = "Heap#Package:(default package)#Type:LeakApp$Person";
    let out = objects(&["--group", key, "--entries", "5", "--json"]);
    let found: serde_json::Value = match out.status.success() {
        true => serde_json::from_slice(&out.stdout).unwrap(),
        false => panic!("{}", String::from_utf8_lossy(&out.stderr)),
    };
    assert_eq!(found["target"]["objects"], 6000);
    let shown = found["objects"].as_array().unwrap();
    assert_eq!(shown.len(), 5);
    let retained: Vec<u64> = shown.iter().map(|o| o["retained_bytes"].as_u64().unwrap()).collect();
    assert!(retained.windows(2).all(|w| w[0] >= w[1]), "{retained:?}");
}

/// Refused with one line on stderr that holds `needle`, exit 2.
fn refused(args: &[&str], needle: &str) {
    let out = objects(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn malformed_flags_and_missing_targets_are_one_line_exit_2() {
    refused(&[], "required arguments were not provided");
    refused(&["--group", "a", "--object", "b"], "cannot be used with");
    refused(&["--object", "0x1", "--entries", "x"], "invalid value 'x' for '--entries <N>'");
    refused(&["--object", "0x1", "--entries", "-1"], "unexpected argument '-1'");
    refused(&["--object", "0x1", "--entries", "0"], "--entries 0");
    refused(&["--object", "0x1", "--time", "3"], "--time 3: the input has 3 dumps (0..2)");
    refused(&["--object", "0x1", "--time", "x"], "invalid value 'x' for '--time <I>'");
    refused(&["--object", "0x1", "--bogus"], "unexpected argument '--bogus'");
    refused(&["--object", ""], "--object: empty");
    refused(&["--group", " "], "--group: empty");
    refused(&["--object", "0x1"], "no object has the id \"0x1\"");
    refused(&["--object", "person-3"], "a dump's ids are its addresses");
    refused(&["--structure", "static Nope.X"], "the largest: \"static LeakApp.PEOPLE\"");
    refused(&["--group", "Heap#Type:Nope"], "no group has the key");
    refused(&["--object", "0x1", "--structures", "/nonexistent.ds"], "--structures");
    let out = Command::new(MEMCITY)
        .args(["objects", "/nonexistent/dump.hprof", "--object", "0x1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end().lines().count(), 1);
    let out = Command::new(MEMCITY)
        .args(["objects", concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"), "--object", "0x1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end().lines().count(), 1);
}

#[test]
fn a_trace_shows_references_by_name_without_values() {
    let out = Command::new(MEMCITY)
        .args([
            "objects",
            "scenario:linked-list",
            "--structure",
            "static app.model.Registry.people",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["target"]["type"], "java.util.LinkedList");
    let entries = found["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    // No values, but every reference by the trace's own ids, which find the object again.
    let id = entries[0]["value"]["id"].as_str().unwrap().to_string();
    let again = Command::new(MEMCITY)
        .args(["objects", "scenario:linked-list", "--object", &id, "--json"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["objects"][0]["type"], entries[0]["value"]["type"]);
}
