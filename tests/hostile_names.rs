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

/// A V8 heap snapshot named `name`: the GC roots hold a `TERMINAL` object that holds two
/// `MARKUP` objects. Each test writes its own, since the tests of this file run side by side in
/// one process and a rewrite truncates the file another test's memcity may be reading.
fn snapshot(name: &str) -> PathBuf {
    let meta = r#"{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},"node_count":5,"edge_count":4}"#;
    // root → (GC roots) → holder → 2 × item; fields: type, name, id, size, edges, trace, detached.
    let nodes = "9,0,1,0,1,0,0, 9,1,3,0,1,0,0, 3,2,5,32,2,0,0, 3,3,7,40,0,0,0, 3,3,9,40,0,0,0";
    let edges = "1,1,7, 1,1,14, 2,4,21, 2,4,28";
    let strings = serde_json::to_string(&["", "(GC roots)", TERMINAL, MARKUP, "items"]).unwrap();
    let text = format!(r#"{{"snapshot":{meta},"nodes":[{nodes}],"edges":[{edges}],"strings":{strings}}}"#);
    let path = temp(name);
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
    let snapshot = snapshot("hostile.heapsnapshot");
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
    let snapshot = snapshot("tree.heapsnapshot");
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

/// A series of `items.len()` V8 heap snapshots in one folder: the GC roots hold a holder named
/// `holder` (a constructor name) holding `items[s]` objects named `item` of 1 MB each.
fn growing_series(holder: &str, item: &str, items: &[usize]) -> PathBuf {
    let meta = r#"{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},"node_count":NODES,"edge_count":EDGES}"#;
    let dir = temp("growing");
    std::fs::create_dir_all(&dir).unwrap();
    let strings = serde_json::to_string(&["", "(GC roots)", holder, item]).unwrap();
    for (s, &count) in items.iter().enumerate() {
        let mut nodes = vec![format!("9,0,1,0,1,0,0, 9,1,3,0,1,0,0, 3,2,5,32,{count},0,0")];
        let mut edges = vec!["1,1,7, 1,1,14".to_string()];
        for i in 0..count {
            nodes.push(format!("3,3,{},1000000,0,0,0", 7 + 2 * i));
            edges.push(format!("1,{i},{}", 21 + 7 * i));
        }
        let meta = meta.replace("NODES", &(count + 3).to_string()).replace("EDGES", &(count + 2).to_string());
        let text = format!(
            r#"{{"snapshot":{meta},"nodes":[{}],"edges":[{}],"strings":{strings}}}"#,
            nodes.join(","),
            edges.join(",")
        );
        std::fs::write(dir.join(format!("Heap.{s}.heapsnapshot")), text).unwrap();
    }
    dir
}

#[test]
fn check_prints_each_finding_on_one_line_and_escapes_its_reports() {
    // A holder whose name would forge a second finding line, holding ever more items.
    let holder = format!("{TERMINAL}\nLEAK forged: +1 bytes");
    let dir = growing_series(&holder, MARKUP, &[1, 2, 3, 4, 5]);
    let (junit, report) = (temp("check.xml"), temp("check.html"));
    let out = memcity(&[
        "check",
        dir.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_clean("check", &out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().all(|l| !l.starts_with("LEAK forged")), "{text}");
    let items = text.lines().find(|l| l.contains("</script>")).unwrap_or_else(|| panic!("{text}"));
    assert!(items.starts_with("LEAK ") && items.contains("held by"), "{items}");
    assert!(text.contains("\\nLEAK forged"), "the newline shown escaped: {text}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(!xml.contains("<img") && xml.contains("&lt;img id=pwned"), "{xml}");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<img") && !html.contains("</script>") && html.contains("&lt;img id=pwned"));
}
