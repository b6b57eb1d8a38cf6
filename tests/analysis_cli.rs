//! End to end: `memcity scenarios`, `analyze`, `windows` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn memcity(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memcity")).args(args).output().expect("memcity runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-analysis-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn scenarios_lists_all_five() {
    let out = memcity(&["scenarios"]);
    assert!(out.status.success());
    let text = stdout(&out);
    for name in ["linked-list", "http-client", "easytravel", "churn", "healthy"] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name} missing in {text}");
    }
}

#[test]
fn analyze_writes_a_history_the_model_loads() {
    let path = temp("ll.json");
    let out = memcity(&[
        "analyze",
        "--scenario",
        "linked-list",
        "--classifiers",
        "type",
        "--seed",
        "3",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let history = memcity_model::load_path(&path).unwrap();
    assert_eq!(history.snapshots.len(), 30);
    let last = history.snapshots.last().unwrap();
    assert!(last.heap.as_ref().unwrap().reachable_bytes.is_some());
    assert!(
        last.pointed_from["Heap#Type:app.model.Person"].contains_key("Heap#Type:java.util.LinkedList$Node")
    );
}

#[test]
fn analyze_replays_a_trace_file_and_rejects_bad_lines() {
    let good = temp("good.jsonl");
    std::fs::write(
        &good,
        concat!(
            r#"{"e":"alloc","id":1,"type":"A","size":16}"#,
            "\n",
            r#"{"e":"root","id":1,"kind":"static","name":"A.x"}"#,
            "\n",
            r#"{"e":"gc","id":1,"start":1,"end":2}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = memcity(&["analyze", "--trace", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"memcity/1\""));

    let bad = temp("bad.jsonl");
    std::fs::write(&bad, "{\"e\":\"gc\",\"id\":1,\"start\":1,\"end\":2}\n{\"e\":\"ptr\",\"from\":5,\"field\":\"x\",\"to\":null}\n").unwrap();
    let out = memcity(&["analyze", "--trace", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("bad.jsonl: line 2: object 5 does not exist"), "{}", stderr(&out));
}

#[test]
fn analyze_rejects_unknown_scenarios_and_classifiers() {
    let out = memcity(&["analyze", "--scenario", "nope"]);
    assert!(!out.status.success() && stderr(&out).contains("unknown scenario `nope`"));
    let out = memcity(&["analyze", "--scenario", "churn", "--classifiers", "type,size"]);
    assert!(!out.status.success() && stderr(&out).contains("unknown classifier `size`"));
    let out = memcity(&["analyze", "--scenario", "churn", "--gcs", "0"]);
    assert!(!out.status.success() && stderr(&out).contains("for '--gcs <GCS>': 0 is not in 1..="));
    let out = memcity(&["analyze", "--trace", "/nonexistent/trace.jsonl"]);
    assert!(!out.status.success() && stderr(&out).contains("cannot open trace /nonexistent/trace.jsonl"));
    let out = memcity(&["windows", "scenario:nope"]);
    assert!(!out.status.success() && stderr(&out).contains("unknown scenario `nope`"));
}

#[test]
fn windows_reports_a_leak_only_where_there_is_one() {
    let leak = stdout(&memcity(&["windows", "scenario:linked-list"]));
    assert!(leak.lines().any(|l| l.starts_with("leak ")), "{leak}");
    let healthy = stdout(&memcity(&["windows", "scenario:healthy"]));
    assert!(!healthy.contains("leak"), "{healthy}");
}

#[test]
fn trace_writes_scenarios_and_converts_between_json_lines_and_binary() {
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let (binary, jsonl) = (temp("ll.mctrace"), temp("ll.jsonl"));
    let scenario = ["--scenario", "linked-list", "--gcs", "4", "--scale", "0.2"];
    let out = memcity(&[&["trace"][..], &scenario, &["--out", &path(&binary)]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let out = memcity(&["trace", "--trace", &path(&binary), "--out", &path(&jsonl)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(&binary).unwrap().starts_with(b"MCTRACE\x01"));
    assert!(std::fs::read_to_string(&jsonl).unwrap().starts_with(r#"{"e":"alloc""#));

    // The scenario, its binary trace and its JSON Lines trace give the same history.
    let analyze = |input: &[&str]| stdout(&memcity(&[&["analyze", "--no-retained"][..], input].concat()));
    let direct = analyze(&scenario);
    assert!(direct.contains("\"memcity/1\""));
    assert_eq!(analyze(&["--trace", &path(&binary)]), direct);
    assert_eq!(analyze(&["--trace", &path(&jsonl)]), direct);

    // A cut-off binary trace is refused with its record number.
    let bytes = std::fs::read(&binary).unwrap();
    let cut = temp("cut.mctrace");
    std::fs::write(&cut, &bytes[..bytes.len() - 1]).unwrap();
    let out = memcity(&["analyze", "--trace", &path(&cut)]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("cut.mctrace: record ") && err.contains("the file ends inside a record"), "{err}");
    // The app refuses it the same way, before opening a window.
    let out = memcity(&[&path(&cut), "--screenshot", &path(&temp("cut.png"))]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("the file ends inside a record"), "{}", stderr(&out));
    let out = memcity(&["trace", "--scenario", "linked-list", "--out", "/nonexistent/dir/x.mctrace"]);
    assert!(!out.status.success() && stderr(&out).contains("the folder /nonexistent/dir does not exist"));
}

#[test]
fn synthetic_traces_have_the_asked_size_and_exclude_other_inputs() {
    let path = temp("synthetic.jsonl");
    let out = memcity(&["trace", "--synthetic", "500", "--out", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with(r#"{"e":"alloc""#)).count(), 500);
    assert_eq!(text.lines().count(), 1001);
    let out = memcity(&["analyze", "--synthetic", "500", "--no-retained"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let history: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let live = history["snapshots"][0]["tree"]["objects"].as_u64().unwrap();
    assert!((16..500).contains(&live), "{live}");
    let out = memcity(&["analyze", "--synthetic", "5", "--scenario", "churn"]);
    assert!(!out.status.success() && stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
    let out = memcity(&["trace", "--synthetic", "0", "--out", temp("zero.jsonl").to_str().unwrap()]);
    assert!(!out.status.success() && stderr(&out).contains("for '--synthetic <N>': 0 is not in 1..="));
}
