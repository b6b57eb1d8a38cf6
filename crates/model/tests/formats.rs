//! The readers: the three layouts of the sample load to equal models, and every kind of bad input
//! is rejected with an error naming the file, snapshot and JSON path.

use std::path::{Path, PathBuf};

use memcity_model::{History, LoadError, Timeline, load_bytes, load_path, write_history};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name)
}

/// What AntTracks' export carries: times, trees and pointer maps (no GC ids, labels or metrics).
fn core(h: &History) -> Vec<(u64, String, String, String)> {
    h.snapshots
        .iter()
        .map(|s| {
            (
                s.time_ms,
                serde_json::to_string(&s.tree).unwrap(),
                serde_json::to_string(&s.points_to).unwrap(),
                serde_json::to_string(&s.pointed_from).unwrap(),
            )
        })
        .collect()
}

#[test]
fn three_formats_load_to_equal_models() {
    let file = load_path(&data("sample-leak.json")).unwrap();
    let folder = load_path(&data("sample-leak-folder")).unwrap();
    let anttracks = load_path(&data("sample-leak-anttracks")).unwrap();
    assert_eq!(file.snapshots.len(), 8);
    assert_eq!(file, folder, "memcity/1 file and snapshot folder");
    assert_eq!(core(&file), core(&anttracks), "memcity/1 file and AntTracks export");
    assert!(!anttracks.snapshots[3].points_to.is_empty());
}

#[test]
fn writer_round_trips() {
    let history = load_path(&data("sample-leak.json")).unwrap();
    let mut bytes = Vec::new();
    write_history(&history, &mut bytes).unwrap();
    assert_eq!(load_bytes(&bytes, "round trip").unwrap(), history);
}

#[test]
fn anttracks_array_of_trees_in_one_file() {
    let trees: Vec<String> = (0..3)
        .map(|i| format!(r#"{{"time": {}, "root": {{"key": "Heap", "name": "Heap", "role": "Root", "bytes": {}, "objects": {i}}}}}"#, i * 10, i * 8))
        .collect();
    let h = load_bytes(format!("[{}]", trees.join(",")).as_bytes(), "trees.json").unwrap();
    assert_eq!(h.snapshots.len(), 3);
    assert_eq!(h.snapshots[2].tree.objects, 2);
    assert!(h.snapshots[2].tree.children.is_empty());
}

fn doc(tree: &str) -> String {
    format!(r#"{{"format": "memcity/1", "snapshots": [{{"time_ms": 1, "tree": {tree}}}]}}"#)
}

fn leaf(key: &str, objects: &str) -> String {
    format!(r#"{{"key": "{key}", "name": "{key}", "role": "Type", "objects": {objects}, "bytes": 8}}"#)
}

fn root(children: &[String]) -> String {
    format!(
        r#"{{"key": "Heap", "name": "Heap", "objects": 1, "bytes": 8, "children": [{}]}}"#,
        children.join(",")
    )
}

fn rejects(json: &str) -> LoadError {
    load_bytes(json.as_bytes(), "bad.json").expect_err("must be rejected")
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = rejects("{\"format\": \"memcity/1\",\n \"snapshots\": [ {\"time_ms\": 1,, } ] }");
    assert_eq!(e.file, "bad.json");
    assert!(e.message.starts_with("malformed JSON") && e.message.contains("line 2"), "{e}");
}

#[test]
fn negative_and_fractional_counts_name_their_path() {
    let e = rejects(&doc(&root(&[leaf("Heap#A", "1"), leaf("Heap#B", "-5")])));
    assert_eq!(e.path, "snapshots[0].tree.children[1].objects", "{e}");
    assert!(e.to_string().contains("-5"), "{e}");
    let e = rejects(&doc(&root(&[leaf("Heap#A", "1.5")])));
    assert_eq!(e.path, "snapshots[0].tree.children[0].objects", "{e}");
}

#[test]
fn missing_field_is_named() {
    let e = rejects(&doc(r#"{"key": "Heap", "name": "Heap", "objects": 1}"#));
    assert!(e.message.contains("missing field `bytes`"), "{e}");
    assert_eq!(e.path, "snapshots[0].tree", "{e}");
}

#[test]
fn duplicate_key_in_one_tree() {
    let e = rejects(&doc(&root(&[leaf("Heap#A", "1"), leaf("Heap#A", "2")])));
    assert_eq!((e.snapshot, e.path.as_str()), (Some(0), "snapshots[0].tree.children[1].key"), "{e}");
    assert!(e.message.contains("duplicate key \"Heap#A\""), "{e}");
}

#[test]
fn key_that_changes_its_parent() {
    let p1 = format!(
        r#"{{"key": "Heap#P", "name": "P", "objects": 1, "bytes": 8, "children": [{}]}}"#,
        leaf("Heap#X", "1")
    );
    let s0 = format!(r#"{{"time_ms": 1, "tree": {}}}"#, root(&[p1]));
    let s1 = format!(r#"{{"time_ms": 2, "tree": {}}}"#, root(&[leaf("Heap#X", "1")]));
    let e = rejects(&format!(r#"{{"snapshots": [{s0}, {s1}]}}"#));
    assert_eq!((e.snapshot, e.path.as_str()), (Some(1), "snapshots[1].tree.children[0]"), "{e}");
    assert!(e.message.contains("has parent \"Heap\" here but parent \"Heap#P\" in snapshot 0"), "{e}");
}

#[test]
fn pointer_map_key_naming_no_node() {
    let json = format!(
        r#"{{"snapshots": [{{"time_ms": 1, "tree": {}, "points_to": {{"Heap#A": {{"Heap#Ghost": 3}}}}}}]}}"#,
        root(&[leaf("Heap#A", "1")])
    );
    let e = rejects(&json);
    assert_eq!(e.path, "snapshots[0].points_to[\"Heap#A\"][\"Heap#Ghost\"]", "{e}");
}

#[test]
fn empty_history_unknown_format_and_time_order() {
    assert!(rejects(r#"{"format": "memcity/1", "snapshots": []}"#).message.contains("empty history"));
    let e = rejects(r#"{"format": "memcity/9", "snapshots": []}"#);
    assert!(e.message.contains("unknown format version \"memcity/9\""), "{e}");
    let t = root(&[]);
    let e = rejects(&format!(
        r#"{{"snapshots": [{{"time_ms": 5, "tree": {t}}}, {{"time_ms": 2, "tree": {t}}}]}}"#
    ));
    assert_eq!(e.path, "snapshots[1].time_ms", "{e}");
    assert!(rejects(r#"{"hello": 1}"#).message.contains("not a memcity history"));
    assert!(rejects("").message.contains("malformed JSON"));
}

#[test]
fn folder_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("memcity-model-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("points-to-maps")).unwrap();
    let e = load_path(&dir).expect_err("empty folder");
    assert!(e.message.contains("empty history"), "{e}");
    std::fs::write(dir.join("a.json"), format!(r#"{{"time": 5, "root": {}}}"#, root(&[leaf("Heap#A", "1")])))
        .unwrap();
    std::fs::write(dir.join("points-to-maps/m.json"), r#"[{"time": 6, "pointerMap": {}}]"#).unwrap();
    let e = load_path(&dir).expect_err("map without snapshot");
    assert!(e.file.ends_with("m.json") && e.message.contains("time 6 ms matches no snapshot"), "{e}");
    std::fs::write(
        dir.join("points-to-maps/m.json"),
        r#"[{"time": 5, "pointerMap": {"Heap#A": {"Heap#B": 1}}}]"#,
    )
    .unwrap();
    let e = load_path(&dir).expect_err("unknown key");
    assert!(e.file.ends_with("a.json") && e.message.contains("\"Heap#B\" names no node"), "{e}");
    std::fs::write(dir.join("b.json"), "{ nope").unwrap();
    let e = load_path(&dir).expect_err("broken file");
    assert!(e.file.ends_with("b.json"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(load_path(Path::new("/no/such/history.json")).unwrap_err().message.contains("cannot read"));
}

#[test]
fn meta_trees_max_and_growth() {
    let history = load_path(&data("sample-leak.json")).unwrap();
    let t = Timeline::new(&history);
    let node = t.group("Heap#java.util#LinkedList$Node").unwrap() as usize;
    let first = history.snapshots[0].tree.children[1].children[0].objects;
    let last = history.snapshots[7].tree.children[1].children[0].objects;
    assert_eq!(t.growth.objects[node], last as i64 - first as i64);
    assert_eq!(t.max.objects[node], last);
    let request = t.group("Heap#com.example.app#Request").unwrap() as usize;
    assert_eq!(t.max.objects[request], t.values[0].objects[request], "a shrinking group peaks first");
    assert!(t.growth.objects[request] < 0);
    assert_eq!(t.path_label(node as u32), "Heap → Package: java.util → Type: LinkedList$Node");
}

#[test]
fn pushing_snapshots_builds_the_same_timeline_as_new() {
    // The sample, and a history whose later snapshots bring new groups and a new district.
    let grows = format!(
        r#"{{"format": "memcity/1", "snapshots": [{{"time_ms": 1, "tree": {}}}, {{"time_ms": 2, "tree": {}}},
            {{"time_ms": 3, "tree": {}}}]}}"#,
        root(&[leaf("H#a", "3")]),
        root(&[leaf("H#a", "1"), leaf("H#b", "4")]),
        root(&[
            leaf("H#b", "9"),
            r#"{"key": "H#p", "name": "p", "objects": 2, "bytes": 32, "retained_bytes": 64,
                "children": [{"key": "H#p#c", "name": "c", "objects": 2, "bytes": 32}]}"#
                .to_string(),
        ]),
    );
    for history in
        [load_path(&data("sample-leak.json")).unwrap(), load_bytes(grows.as_bytes(), "grows").unwrap()]
    {
        let mut first = history.clone();
        first.snapshots.truncate(1);
        let mut pushed = Timeline::new(&first);
        for snapshot in &history.snapshots[1..] {
            pushed.push(snapshot);
        }
        assert_eq!(pushed, Timeline::new(&history));
    }
}

fn with_retainers(retainers: &str) -> String {
    let p = format!(
        r#"{{"key": "Heap#P", "name": "P", "objects": 3, "bytes": 24, "children": [{}, {}]}}"#,
        leaf("Heap#P#A", "2"),
        leaf("Heap#P#B", "1")
    );
    format!(r#"{{"snapshots": [{{"time_ms": 1, "tree": {}, "retainers": {retainers}}}]}}"#, root(&[p]))
}

fn step(key: &str, objects: u64) -> String {
    format!(r#"{{"key": "{key}", "objects": {objects}, "bytes": 8, "retained_bytes": 16}}"#)
}

#[test]
fn retainer_paths_load_and_round_trip() {
    let json = with_retainers(&format!(
        r#"{{"Heap#P#A": {{"steps": [{}, {}], "roots": ["Static Field"]}}}}"#,
        step("Heap#P#A", 2),
        step("Heap#P#B", 1)
    ));
    let h = load_bytes(json.as_bytes(), "ok.json").unwrap();
    let path = &h.snapshots[0].retainers["Heap#P#A"];
    assert_eq!((path.steps.len(), path.roots[0].as_str()), (2, "Static Field"));
    let mut out = Vec::new();
    memcity_model::write_history(&h, &mut out).unwrap();
    assert_eq!(load_bytes(&out, "again.json").unwrap(), h);
}

#[test]
fn malformed_retainer_paths_are_refused_with_their_path() {
    let cases = [
        (r#"{"Heap#P#A": {"steps": []}}"#.to_string(), "at least one step", ".steps"),
        (
            format!(r#"{{"Heap#P#A": {{"steps": [{}]}}}}"#, step("Heap#P#B", 1)),
            "starts at its own group",
            ".steps[0].key",
        ),
        (
            format!(r#"{{"Heap#P#A": {{"steps": [{}, {}]}}}}"#, step("Heap#P#A", 1), step("Heap#P", 1)),
            "names a district, not a leaf",
            ".steps[1].key",
        ),
        (
            format!(r#"{{"Heap#P#A": {{"steps": [{}, {}]}}}}"#, step("Heap#P#A", 1), step("Heap#Z", 1)),
            "names no node",
            ".steps[1].key",
        ),
        (
            format!(r#"{{"Heap#P#A": {{"steps": [{}]}}}}"#, step("Heap#P#A", 9)),
            "holds 9 objects",
            ".steps[0]",
        ),
        (
            format!(r#"{{"Heap#P#A": {{"steps": [{}], "why": 1}}}}"#, step("Heap#P#A", 1)),
            "unknown field `why`",
            "",
        ),
    ];
    for (retainers, message, at) in cases {
        let e = rejects(&with_retainers(&retainers));
        assert!(e.message.contains(message), "{e}");
        assert!(e.path.starts_with("snapshots[0].retainers"), "{e}");
        assert!(e.path.ends_with(at), "{at}: {e}");
    }
}

#[test]
fn retainer_steps_may_name_how_they_are_held() {
    let named =
        r#"{"key": "Heap#P#A", "objects": 2, "bytes": 8, "retained_bytes": 16, "via": ".first .next"}"#;
    let json = with_retainers(&format!(
        r#"{{"Heap#P#A": {{"steps": [{named}, {}], "roots": ["Static Field"]}}}}"#,
        step("Heap#P#B", 1)
    ));
    let h = load_bytes(json.as_bytes(), "via.json").unwrap();
    let steps = &h.snapshots[0].retainers["Heap#P#A"].steps;
    assert_eq!(steps[0].via.as_deref(), Some(".first .next"));
    assert_eq!(steps[1].via, None, "a step without the field (an older file) has none");
    let out = serde_json::to_string(&h).unwrap();
    assert_eq!(out.matches("\"via\"").count(), 1, "written only where known: {out}");
    // Unknown fields are still refused.
    let typo = with_retainers(&format!(
        r#"{{"Heap#P#A": {{"steps": [{}], "roots": []}}}}"#,
        r#"{"key": "Heap#P#A", "objects": 2, "bytes": 8, "retained_bytes": 16, "vía": "x"}"#
    ));
    assert!(load_bytes(typo.as_bytes(), "typo.json").is_err());
}
