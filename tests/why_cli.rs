//! End to end: `memcity why` on a scenario, a history file and heap dumps, and its refusals.

use std::process::{Command, Output};

fn memcity(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memcity")).args(args).output().expect("memcity runs")
}

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const CHARS: &str = "Heap#Type:char[]#Allocation Site:app.model.Person.<init>";

#[test]
fn why_prints_the_chain_up_to_the_static_field() {
    let out = memcity(&["why", "scenario:linked-list", "--key", CHARS]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[0].trim_start().starts_with("char[] ‹ app.model.Person.<init>"), "{text}");
    assert!(lines[2].starts_with("<- app.model.Person ‹ app.model.Registry.register"), "{text}");
    assert!(lines[4].starts_with("<- java.util.LinkedList ‹"), "{text}");
    assert_eq!(lines[5], "<- GC roots: Static Field app.model.Registry.people");
    // The same chain in field names, from the static field down to one char[].
    assert_eq!(lines[6], "path: static app.model.Registry.people → .last → .item → .name → .value");
}

#[test]
fn why_json_lists_steps_from_the_group_to_the_root() {
    let out = memcity(&["why", "scenario:linked-list", "--key", CHARS, "--time", "10", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let steps: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = steps.as_array().unwrap();
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[0]["key"], CHARS);
    for field in ["key", "name", "objects", "bytes", "retained_bytes"] {
        assert!(steps.iter().all(|s| !s[field].is_null()), "{field}");
    }
    assert_eq!(steps[4]["name"], "java.util.LinkedList ‹ app.model.Registry.<clinit>");
    assert_eq!(steps[4]["roots"][0], "Static Field app.model.Registry.people");
}

#[test]
fn why_on_heap_dumps_reaches_the_class_holding_the_cache() {
    let out = memcity(&[
        "why",
        &repo("data/hprof"),
        "--key",
        "Heap#Package:(default package)#Type:LeakApp$SearchKey",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("<- java.util.HashMap "), "{text}");
    assert!(text.ends_with("<- GC roots: class LeakApp, held by several roots\n"), "{text}");
}

#[test]
fn why_refuses_bad_keys_times_and_inputs_without_paths_in_one_line() {
    for (args, needle) in [
        (vec!["scenario:linked-list", "--key", "Heap#Type:nope"], "no group has the key \"Heap#Type:nope\""),
        (vec!["scenario:linked-list", "--key", "Heap#Type:char[]"], "is a district, not a leaf group"),
        (vec!["scenario:linked-list", "--key", CHARS, "--time", "30"], "--time 30 is out of range"),
        (vec!["scenario:nope", "--key", CHARS], "unknown scenario"),
    ] {
        let out = memcity(&[&["why"][..], &args].concat());
        assert!(!out.status.success(), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let sample = repo("data/sample-leak.json");
    let history: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sample).unwrap()).unwrap();
    let leaf =
        history["snapshots"][0]["tree"]["children"][0]["children"][0]["key"].as_str().unwrap().to_string();
    let out = memcity(&["why", &sample, "--key", &leaf]);
    assert!(stderr(&out).contains("has no retainer path"), "{}", stderr(&out));
}
