//! The data-structure city end to end (docs/structures.md, "The data-structure city"): the
//! classifiers `containing-structure` and `leaf` and `--structure-view` on `memcity import` and
//! `memcity analyze`, on the leaking scenario, its trace file and the committed heap dumps;
//! every refusal is one line.

mod common;
use common::refused;
use common::{buildings, find};

use std::path::PathBuf;
use std::process::{Command, Output};

use memcity_model::{History, Node};

fn memcity(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("memcity runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-structure-city-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs `memcity ARGS --out FILE` and loads the history it wrote.
fn city(args: &[&str], name: &str) -> History {
    let out = temp(name);
    let mut all = args.to_vec();
    all.extend(["--out", out.to_str().unwrap()]);
    let o = memcity(&all);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    memcity_model::load_path(&out).unwrap()
}

const LIST: &str = "java.util.LinkedList static app.model.Registry.people";

#[test]
fn the_leaking_list_is_one_district_holding_the_people() {
    let history =
        city(&["import", "scenario:linked-list", "--classifiers", "containing-structure,type"], "list.json");
    let (first, last) = (&history.snapshots[0], history.snapshots.last().unwrap());
    assert_eq!(last.label.as_deref(), Some("GC #30"));
    let list =
        |s: &memcity_model::Snapshot| find(&s.tree, &format!("Heap#Containing Structure:{LIST}")).cloned();
    let district = list(last).expect("the list's district");
    let people = district.children.iter().find(|c| c.name == "app.model.Person").expect("its people");
    // Every Person of the heap is a leaf of the list (the plain city counts them by type), and
    // the list's people pile up.
    let plain = command_history(&["analyze", "--scenario", "linked-list"]);
    let persons = find(&plain.snapshots.last().unwrap().tree, "Heap#Type:app.model.Person").unwrap().objects;
    assert_eq!(people.objects, persons);
    let person = |d: &Node| d.children.iter().find(|c| c.name == "app.model.Person").map_or(0, |c| c.objects);
    assert!(people.objects > 10 * person(&list(first).unwrap()));
    // What the list holds is everything but its nodes and head; retained sizes still come.
    let nodes = district.children.iter().find(|c| c.name == "java.util.LinkedList$Node").unwrap();
    assert_eq!(nodes.objects, people.objects);
    assert!(people.retained_bytes.unwrap() > people.bytes);
    // The rest of the heap is in no structure.
    assert!(find(&last.tree, "Heap#Containing Structure:(in no structure)").is_some());
}

/// The history `memcity ARGS` writes to standard output.
fn command_history(args: &[&str]) -> History {
    let o = memcity(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    memcity_model::load_bytes(&o.stdout, "stdout").unwrap()
}

#[test]
fn the_leaf_classifier_puts_the_data_apart_from_the_structure() {
    let history = city(
        &["import", "scenario:linked-list", "--classifiers", "containing-structure,leaf,type"],
        "leaf.json",
    );
    let last = history.snapshots.last().unwrap();
    let key =
        |role: &str, ty: &str| format!("Heap#Containing Structure:{LIST}#Role in Structure:{role}#Type:{ty}");
    assert!(find(&last.tree, &key("leaves", "app.model.Person")).is_some_and(|n| n.objects > 1000));
    assert!(find(&last.tree, &key("structure", "java.util.LinkedList")).is_some_and(|n| n.objects == 1));
    assert!(find(&last.tree, &key("structure", "java.util.LinkedList$Node")).is_some());
    assert!(find(&last.tree, &key("leaves", "java.util.LinkedList$Node")).is_none());
    // Retainer paths and pointer maps work as in any city: the people lead to the static field.
    let why =
        memcity(&["why", temp("leaf.json").to_str().unwrap(), "--key", &key("leaves", "app.model.Person")]);
    let text = String::from_utf8_lossy(&why.stdout);
    assert!(text.contains("<- GC roots: Static Field app.model.Registry.people"), "{text}");
    assert!(last.points_to.contains_key(&key("structure", "java.util.LinkedList$Node")));

    // The same city from `analyze` and from the scenario's trace file, read while replayed.
    let analyzed = command_history(&[
        "analyze",
        "--scenario",
        "linked-list",
        "--classifiers",
        "containing-structure,leaf,type",
    ]);
    assert_eq!(analyzed, history);
    let trace = temp("list.mctrace");
    assert!(
        memcity(&["trace", "--scenario", "linked-list", "--out", trace.to_str().unwrap()]).status.success()
    );
    let traced = city(
        &["import", trace.to_str().unwrap(), "--classifiers", "containing-structure,leaf,type"],
        "t.json",
    );
    assert_eq!(traced, history);
}

#[test]
fn the_view_keeps_one_building_per_top_level_structure() {
    let history = city(&["import", "scenario:linked-list", "--structure-view", "identity"], "view.json");
    let last = history.snapshots.last().unwrap();
    let shown = buildings(&last.tree);
    assert!(shown.iter().all(|b| b.objects == 1), "one head per building");
    let heaviest = shown.iter().max_by_key(|b| b.retained_bytes).unwrap();
    assert_eq!(heaviest.key, format!("Heap#Type:java.util.LinkedList#Containing Structure:{LIST}"));
    // Its head holds most of the heap, which still counts whole.
    let heap = last.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap();
    assert!(heaviest.retained_bytes.unwrap() * 2 > heap, "{heaviest:?} of {heap}");
    assert!(last.tree.objects < 10 && heap > 100_000);

    let by_site = city(&["import", "scenario:linked-list", "--structure-view", "site"], "site.json");
    let key = "Heap#Type:java.util.LinkedList#Allocation Site:app.model.Registry.<clinit>";
    assert!(find(&by_site.snapshots.last().unwrap().tree, key).is_some());
}

#[test]
fn the_view_of_heap_dumps_finds_the_maps_and_lists_that_hold_the_heap() {
    let history = city(&["import", "data/hprof", "--structure-view", "identity"], "dumps.json");
    let last = history.snapshots.last().unwrap();
    assert_eq!(last.label.as_deref(), Some("dump3.hprof.gz"));
    let mut shown = buildings(&last.tree);
    shown.sort_by_key(|b| std::cmp::Reverse(b.retained_bytes));
    assert_eq!(shown[0].name, "java.util.LinkedList static LeakApp.PEOPLE");
    assert_eq!(shown[1].name, "java.util.HashMap static LeakApp.CACHE");
}

#[test]
fn structure_cities_refuse_what_they_cannot_do_in_one_line() {
    let out = temp("refused.json");
    let out = out.to_str().unwrap();
    refused(&["import", "data/hprof", "--structure-view", "size", "--out", out], "--structure-view");
    refused(
        &["import", "data/sample-leak.json", "--classifiers", "containing-structure,type", "--out", out],
        "carries groups, not objects",
    );
    let broken = temp("broken.ds");
    std::fs::write(&broken, "DS Foo { Bar }").unwrap();
    let broken = broken.to_str().unwrap();
    refused(
        &["import", "data/hprof", "--structure-view", "site", "--structures", broken, "--out", out],
        "broken.ds:1:",
    );
    refused(
        &["import", "scenario:linked-list", "--classifiers", "leaf,thread", "--out", out],
        "classifier `thread` cannot be combined with data structures",
    );
    refused(
        &["import", "data/hprof", "--classifiers", "type", "--structures", broken, "--out", out],
        "descriptions are used by --structure-view",
    );
    refused(
        &["import", "data/hprof", "--classifiers", "type", "--structure-view", "site", "--out", out],
        "not both",
    );
    refused(&["analyze", "--scenario", "churn", "--classifiers", "leaf,age"], "classifier `age`");
    refused(&["--structure-view", "sites"], "--structure-view");
    refused(&["--structure-view", "site", "--bench-render"], "cannot be combined with --bench-render");
    refused(&["--structure-view", "site", "--tour", "linked-list"], "--tour");
    // In the app, --structures alone is for the Data structures tab: a broken file is refused.
    refused(&["--structures", broken, "scenario:churn"], "broken.ds:1:");
}
