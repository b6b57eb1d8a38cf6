//! `memcity tree --out FILE.html`: one self-contained page to explore the tree over time — the
//! time slider, hover, drill-down and the timeline of small multiples — with the data inline
//! and nothing fetched (tree_page.html holds the page and its script). Names reach the page as
//! JSON inside a script element, escaped so no name can end that element, and the script only
//! ever sets them as text.

use anyhow::Result;
use memcity_model::History;
use serde_json::json;

use crate::cli::tree::{TreeArgs, Trees, frame_json, kind_name, metric_name};

const PAGE: &str = include_str!("tree_page.html");
const SLOT: &str = "/*MEMCITY_DATA*/";

pub fn page(trees: &Trees, history: &History, args: &TreeArgs) -> Result<String> {
    let heaps: Vec<u64> = trees.timeline.values.iter().map(|v| v.get(trees.metric)[0]).collect();
    let windows: Vec<_> = memcity_analysis::windows::detect(history)
        .iter()
        .map(|w| json!({"kind": w.kind.label(), "first": w.first, "last": w.last}))
        .collect();
    let data = json!({
        "title": args.inputs.join(" "),
        "kind": kind_name(args.kind),
        "metric": metric_name(args.metric),
        "sort": format!("{:?}", args.sort).to_lowercase(),
        "scaled": args.scaled,
        "heaps": heaps,
        "labels": history.snapshots.iter().map(|s| s.display_label()).collect::<Vec<_>>(),
        "windows": windows,
        "frames": trees.frames.iter().map(|f| frame_json(trees, f, true)).collect::<Vec<_>>(),
    });
    Ok(PAGE.replacen(SLOT, &script_safe(&serde_json::to_string(&data)?), 1))
}

/// JSON that can stand inside a `<script>` element: `<`, `>` and `&` (which only occur inside
/// strings) as JSON escapes, and the two line separators JavaScript once read as line ends.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_name_can_close_the_script_element_and_the_json_still_reads_the_same() {
        let json =
            serde_json::to_string(&json!({"name": "</script><script>alert(1)</script> & \u{2028}"})).unwrap();
        let safe = script_safe(&json);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["name"], "</script><script>alert(1)</script> & \u{2028}");
    }
}
