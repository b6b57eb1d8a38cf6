//! The committed dump series (data/hprof, from tests/java/LeakApp.java) against the JVM's own
//! class histograms taken at the same pauses, and the leak it shows.

use std::path::{Path, PathBuf};

mod common;

use common::{check_against_histogram, check_leak, leaf};
use memcity_heapgraph::{AnalysisOptions, Retained};
use memcity_hprof::{Grouping, ImportOptions, Layout};
use memcity_model::History;

fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof")
}

fn import_sample(classifiers: &str) -> History {
    let options = ImportOptions {
        layout: Layout::default(),
        grouping: Grouping {
            classifiers: memcity_hprof::parse_list(classifiers).unwrap(),
            analysis: AnalysisOptions { retained: Retained::Closure, ..AnalysisOptions::default() },
        },
        ..ImportOptions::default()
    };
    memcity_hprof::import(&[sample_dir()], &options, &memcity_heapgraph::Silent).unwrap()
}

#[test]
fn every_class_matches_the_jvm_histogram() {
    for i in 1..=3 {
        let dir = sample_dir();
        check_against_histogram(
            &dir.join(format!("dump{i}.hprof.gz")),
            &dir.join(format!("histogram{i}.txt")),
        );
    }
}

#[test]
fn the_leak_groups_grow_most_and_are_linked() {
    check_leak(&import_sample("type"), 2000, 1000);
}

#[test]
fn package_and_root_kind_trees() {
    let history = import_sample("package,type");
    let tree = &history.snapshots[2].tree;
    let util = leaf(tree, "Heap#Package:java#Package:java.util");
    assert_eq!(util.role, "Package");
    assert!(util.children.iter().any(|c| c.key.ends_with("#Type:java.util.HashMap$Node")));
    let sum: u64 = tree.children.iter().map(|c| c.bytes).sum();
    assert_eq!(sum, tree.bytes);

    let history = import_sample("type,root-kind");
    let tree = &history.snapshots[0].tree;
    let class = leaf(tree, "Heap#Type:java.lang.Class");
    assert!(class.children.iter().any(|c| c.name == "Sticky Class"), "{:?}", class.children);
    assert!(class.children.iter().all(|c| c.role == "GC Root Kind"));
    let person = leaf(tree, "Heap#Type:LeakApp$Person");
    assert_eq!(person.children.len(), 1);
    assert_eq!(person.children[0].name, "not a root");
}
