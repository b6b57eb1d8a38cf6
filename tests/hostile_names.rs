//! Names from someone else's heap are shown, never obeyed: a V8 snapshot whose constructors are
//! named with terminal escapes and HTML goes through `import`, `why`, `windows` and `layout`,
//! and no byte below 0x20 but newline and tab reaches stdout or stderr; the city JSON cannot
//! close a script element, nor the ownership SVG hold markup.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

const TERMINAL: &str = "Evil\u{1b}]0;PWNED\u{7}\u{1b}[31mRed\u{9b}2J";
const MARKUP: &str = "</script><img id=pwned src=x onerror=alert(1)>";

fn memcity(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memcity")).args(args).output().expect("memcity runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-hostile-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A V8 heap snapshot: the GC roots hold a `TERMINAL` object that holds two `MARKUP` objects.
fn snapshot() -> PathBuf {
    let meta = r#"{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},"node_count":5,"edge_count":4}"#;
    // root → (GC roots) → holder → 2 × item; fields: type, name, id, size, edges, trace, detached.
    let nodes = "9,0,1,0,1,0,0, 9,1,3,0,1,0,0, 3,2,5,32,2,0,0, 3,3,7,40,0,0,0, 3,3,9,40,0,0,0";
    let edges = "1,1,7, 1,1,14, 2,4,21, 2,4,28";
    let strings = serde_json::to_string(&["", "(GC roots)", TERMINAL, MARKUP, "items"]).unwrap();
    let text = format!(r#"{{"snapshot":{meta},"nodes":[{nodes}],"edges":[{edges}],"strings":{strings}}}"#);
    let path = temp("hostile.heapsnapshot");
    std::fs::write(&path, text).unwrap();
    path
}

/// No control byte but newline and tab in what memcity printed.
fn assert_clean(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let bad: Vec<u8> = bytes.iter().copied().filter(|&b| b < 0x20 && b != b'\n' && b != b'\t').collect();
        assert!(
            bad.is_empty(),
            "{what}: {stream} holds control bytes {bad:?}: {}",
            String::from_utf8_lossy(bytes)
        );
        assert!(!String::from_utf8_lossy(bytes).contains('\u{9b}'), "{what}: {stream} holds a C1 CSI");
    }
}

#[test]
fn hostile_names_are_escaped_in_every_output() {
    let snapshot = snapshot();
    let history_file = temp("hostile.json");
    let out = memcity(&["import", snapshot.to_str().unwrap(), "--out", history_file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_clean("import", &out);
    let history = memcity_model::load_path(&history_file).unwrap();
    let mut keys: Vec<String> = Vec::new();
    history.snapshots[0].tree.walk(&mut |node, _| {
        if node.is_leaf() {
            keys.push(node.key.clone());
        }
    });
    let key =
        |name: &str| keys.iter().find(|k| k.contains(name)).unwrap_or_else(|| panic!("{keys:?}")).clone();
    for k in [key(TERMINAL), key(MARKUP)] {
        for json in [false, true] {
            let mut args = vec!["why", snapshot.to_str().unwrap(), "--key", &k];
            if json {
                args.push("--json");
            }
            let out = memcity(&args);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_clean("why", &out);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(json || text.contains("Evil\\x1b]0;PWNED\\x07"), "the name is shown escaped: {text}");
        }
    }
    // A key that names nothing: the error echoes it, escaped.
    let out = memcity(&["why", snapshot.to_str().unwrap(), "--key", TERMINAL]);
    assert!(!out.status.success());
    assert_clean("why with an unknown key", &out);
    let out = memcity(&["windows", history_file.to_str().unwrap()]);
    assert_clean("windows", &out);
    // The city JSON shows the text and cannot close a script element.
    let city = temp("city.json");
    let out = memcity(&["layout", history_file.to_str().unwrap(), "--out", city.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_clean("layout", &out);
    let text = std::fs::read_to_string(&city).unwrap();
    assert!(!text.contains('<') && !text.contains('>'), "no raw markup in the city JSON");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(value.to_string().contains(MARKUP), "the name reads back whole");
    // The ownership picture names the classes, escaped.
    let svg = temp("ownership.svg");
    let out = memcity(&[
        "ownership",
        snapshot.to_str().unwrap(),
        "--min-share",
        "0",
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_clean("ownership", &out);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(!text.contains(MARKUP) && !text.contains("<img"), "no raw markup in the SVG");
    assert!(text.contains("&lt;img id=pwned"), "the name is shown escaped");
    assert!(!text.contains('\u{1b}'), "no terminal escape in the SVG");
}

#[test]
fn tree_exports_show_hostile_names_as_text() {
    let snapshot = snapshot();
    let (svg, html) = (temp("tree.svg"), temp("tree.html"));
    for out in [&svg, &html] {
        let run = memcity(&["tree", snapshot.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_clean("tree", &run);
    }
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(!picture.contains(MARKUP) && picture.contains("&lt;/script&gt;&lt;img"), "escaped in the SVG");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains(MARKUP) && !page.contains("<img"), "no raw markup in the page's data");
    let Some(dom) = common::chromium_dom(&html, "") else { return };
    assert!(!dom.contains("id=\"pwned\""), "the name never became an element");
    assert!(dom.contains("&lt;/script&gt;&lt;img id=pwned"), "it reads as text in the drawn tree");
}
