//! `memcity tree`: the icicle and sunburst exported without a window — geometry (children inside
//! their parent in proportion, no overlap, one order over time, scaled extents in proportion to
//! the heap), escaped SVG, and bad input in one line.

mod common;

use std::process::Command;

use serde_json::Value;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn tree(args: &[&str], out: &str) -> Value {
    let path = std::env::temp_dir().join(format!("memcity-tree-{}-{out}", std::process::id()));
    let run = Command::new(MEMCITY).arg("tree").args(args).arg("--out").arg(&path).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    if out.ends_with(".svg") { Value::String(text) } else { serde_json::from_str(&text).unwrap() }
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap()
}

#[test]
fn icicle_children_lie_inside_their_parent_in_proportion() {
    let doc = tree(&["scenario:linked-list", "--times", "all"], "all.json");
    assert_eq!(doc["kind"], "icicle");
    assert_eq!(doc["frames"].as_array().unwrap().len(), 30);
    common::trees::check_icicle(&doc);
}

#[test]
fn scaled_extents_follow_the_heap_and_sunbursts_have_angles() {
    let doc =
        tree(&["scenario:linked-list", "--times", "0,29", "--scaled", "--metric", "objects"], "scaled.json");
    let roots: Vec<(f64, f64)> = doc["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fr| (f(&fr["nodes"][0], "y1"), f(fr, "heap")))
        .collect();
    assert!((roots[1].0 - 1.0).abs() < 1e-9, "the largest heap fills the axis");
    assert!((roots[0].0 - roots[0].1 / roots[1].1).abs() < 1e-9, "{roots:?}");
    let sun = tree(&["scenario:linked-list", "--kind", "sunburst"], "sun.json");
    let node = &sun["frames"][0]["nodes"][1];
    assert!(f(node, "a1") > f(node, "a0") && f(node, "r1") > f(node, "r0"), "{node}");
    assert!(node.get("x0").is_none());
}

#[test]
fn the_svg_is_one_picture_with_escaped_names() {
    let svg = tree(&["scenario:linked-list", "--times", "0,29", "--kind", "icicle"], "pic.svg");
    let svg = svg.as_str().unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("snapshot 0") && svg.contains("snapshot 29"));
    assert!(svg.contains("app.model.Person.&lt;init&gt;"), "names are escaped");
    assert!(!svg.contains("<clinit>") && !svg.contains("<init>"));
    let sun = tree(&["scenario:linked-list", "--kind", "sunburst", "--drill", "Heap#Type:char[]"], "sun.svg");
    assert!(sun.as_str().unwrap().matches("<path").count() >= 2);
}

#[test]
fn bad_input_is_one_line() {
    let refused = |args: &[&str], needle: &str| common::refused(&[&["tree"], args].concat(), needle);
    let out = std::env::temp_dir().join("memcity-tree-bad.json");
    let out = out.to_str().unwrap();
    refused(&["scenario:linked-list", "--out", "/tmp/x.png"], "give a .json, .svg or .html file");
    refused(&["scenario:linked-list", "--drill", "Heap#Nope", "--out", out], "--drill Heap#Nope");
    refused(&["scenario:linked-list", "--times", "0,99", "--out", out], "snapshot 99");
    refused(&["scenario:linked-list", "--times", "0,x", "--out", out], "`x`");
    refused(&["scenario:linked-list", "--children", "0", "--out", out], "--children 0");
    refused(&["scenario:linked-list", "--out", "/nonexistent/dir/t.json"], "--out");
}

fn page(args: &[&str], name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("memcity-tree-{}-{name}", std::process::id()));
    let run = Command::new(MEMCITY).arg("tree").args(args).arg("--out").arg(&path).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    path
}

/// How often `needle` occurs in the element with `id` (up to its closing tag `end`).
fn count_in(dom: &str, id: &str, end: &str, needle: &str) -> usize {
    let start = dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id}"));
    let body = &dom[start..start + dom[start..].find(end).unwrap()];
    body.matches(needle).count()
}

#[test]
fn the_html_page_is_self_contained_and_explores_time_drill_down_and_the_timeline() {
    let html = page(&["scenario:linked-list", "--kind", "icicle"], "page.html");
    let text = std::fs::read_to_string(&html).unwrap();
    // Nothing is fetched: no sources, no links, no URL but the SVG namespace; the page says so.
    assert!(!text.contains("src=") && !text.contains("href=") && !text.contains("url("), "fetches nothing");
    assert!(!text.contains("https:"), "no secure URL either");
    assert_eq!(text.matches("http:").count(), text.matches("http://www.w3.org/2000/svg").count());
    assert!(text.contains("default-src 'none'"));
    // The same frames as the JSON export: all 30 times for the slider.
    let json = tree(&["scenario:linked-list", "--times", "all"], "all.json");
    assert_eq!(text.matches("\"time\":").count(), json["frames"].as_array().unwrap().len());
    let drill = "Heap#Type:char[]";
    let fragment = "time=12&drill=Heap%23Type%3Achar%5B%5D&pin=3,20";
    let Some(dom) = common::chromium_dom(&html, fragment) else { return };
    let _ = std::fs::remove_file(&html);
    // The view shows the drilled-into branch at snapshot 12: as many parts as the JSON export's
    // nodes under it, the root first.
    let frame = &json["frames"][12]["nodes"];
    let mut under = vec![drill.to_string()];
    for n in frame.as_array().unwrap() {
        if n["parent"].as_str().is_some_and(|p| under.iter().any(|u| u == p)) {
            under.push(n["key"].as_str().unwrap().to_string());
        }
    }
    assert!(under.len() > 3, "{under:?}");
    assert_eq!(count_in(&dom, "view", "</svg>", "class=\"node"), under.len(), "the drilled branch's parts");
    assert!(dom.contains("disabled=\"\">char[]</button>"), "the path ends at the drilled group");
    // Three small multiples (snapshots 3 and 20 pinned, 12 now), a point per snapshot.
    assert_eq!(count_in(&dom, "multiples", "</section>", "<figure"), 3);
    assert!(dom.contains("snapshot 12 · ") && dom.contains("(now)"));
    assert_eq!(count_in(&dom, "chart", "</svg>", "class=\"point\""), 30);
    // The linked list's leak window is marked on the chart.
    assert!(count_in(&dom, "chart", "</svg>", "<title>leak: snapshots") >= 1);
}
