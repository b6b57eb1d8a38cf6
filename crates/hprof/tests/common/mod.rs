//! Checks shared by the tests on the committed dump series and on a live JVM.
#![allow(dead_code)]

use std::path::Path;

use memcity_hprof::{Layout, class_totals, parse_histogram, read_dump};
use memcity_model::{History, Node};

/// Checks every class of a dump against the histogram: objects and bytes equal, except the
/// bytes of java.lang.Class (see docs/hprof.md), which must be within 0.5%.
pub fn check_against_histogram(dump: &Path, histogram: &Path) {
    let ours = class_totals(&read_dump(dump, &Layout::default(), &|_| {}).unwrap());
    let text = std::fs::read_to_string(histogram).unwrap();
    let theirs = parse_histogram(&text, &histogram.display().to_string()).unwrap();
    assert!(theirs.len() > 100, "{} classes only", theirs.len());
    for (name, &(objects, bytes)) in &theirs {
        let (our_objects, our_bytes) = ours.get(name).copied().unwrap_or_default();
        assert_eq!(our_objects, objects, "{name}: objects in {}", dump.display());
        if name == "java.lang.Class" {
            assert!(our_bytes.abs_diff(bytes) * 200 <= bytes, "{name}: {our_bytes} vs {bytes} bytes");
        } else {
            assert_eq!(our_bytes, bytes, "{name}: bytes in {}", dump.display());
        }
    }
    let extra: Vec<&String> = ours.keys().filter(|k| !theirs.contains_key(*k)).collect();
    assert!(extra.is_empty(), "classes the histogram does not have: {extra:?}");
}

pub fn leaf<'a>(tree: &'a Node, key: &str) -> &'a Node {
    fn find<'a>(n: &'a Node, key: &str) -> Option<&'a Node> {
        if n.key == key {
            return Some(n);
        }
        n.children.iter().find_map(|c| find(c, key))
    }
    find(tree, key).unwrap_or_else(|| panic!("no group {key}"))
}

const PERSON: &str = "Heap#Type:LeakApp$Person";
const LIST_NODE: &str = "Heap#Type:java.util.LinkedList$Node";
const MAP_NODE: &str = "Heap#Type:java.util.HashMap$Node";
const KEY: &str = "Heap#Type:LeakApp$SearchKey";

/// The leak of tests/java/LeakApp.java in a `type` history of three dumps taken after phases 1-3
/// with `people` and `searches` per phase.
pub fn check_leak(history: &History, people: u64, searches: u64) {
    memcity_model::validate_history(history, &|_| "sample".into(), &|i| format!("snapshots[{i}]")).unwrap();
    assert_eq!(history.snapshots.len(), 3);
    assert!(history.snapshots.windows(2).all(|w| w[0].time_ms < w[1].time_ms));
    let (first, last) = (&history.snapshots[0], &history.snapshots[2]);
    assert_eq!(leaf(&last.tree, PERSON).objects, (3 * people));
    assert_eq!(leaf(&last.tree, PERSON).objects - leaf(&first.tree, PERSON).objects, 2 * people);
    assert_eq!(leaf(&last.tree, KEY).objects - leaf(&first.tree, KEY).objects, 2 * searches);

    // Growth in objects over the series, strongest first.
    let mut growth: Vec<(i64, &str)> = last
        .tree
        .children
        .iter()
        .map(|n| {
            let before = first.tree.children.iter().find(|f| f.key == n.key).map_or(0, |f| f.objects);
            (n.objects as i64 - before as i64, n.key.as_str())
        })
        .collect();
    growth.sort_unstable_by(|a, b| b.cmp(a));
    let top: Vec<&str> = growth.iter().take(7).map(|g| g.1).collect();
    for key in [PERSON, LIST_NODE, MAP_NODE, KEY] {
        assert!(top.contains(&key), "{key} is not among the strongest growers {top:?}");
    }
    // The leak's references, counted as distinct objects.
    assert_eq!(last.points_to[LIST_NODE][PERSON], (3 * people));
    assert_eq!(last.pointed_from[PERSON][LIST_NODE], (3 * people));
    assert_eq!(last.points_to[MAP_NODE][KEY], 3 * searches);
    assert_eq!(last.pointed_from[KEY][MAP_NODE], 3 * searches);
    assert!(last.points_to[KEY].contains_key("Heap#Type:java.util.Date"));
    // Freeing every list node frees the persons and their strings too.
    let list = leaf(&last.tree, LIST_NODE);
    let person = leaf(&last.tree, PERSON);
    assert!(list.retained_bytes.unwrap() >= list.bytes + person.bytes + 2 * 3 * people * 24);
    let reachable = last.heap.as_ref().unwrap().reachable_bytes.unwrap();
    assert!(reachable > 0 && reachable <= last.tree.bytes);
}
