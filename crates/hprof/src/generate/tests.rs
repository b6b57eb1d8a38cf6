use super::*;
use crate::{class_totals, parse, read_dump_bytes};

fn generated(spec: &Spec) -> (Vec<u8>, Summary) {
    let mut bytes = Vec::new();
    let summary = write(&mut bytes, spec).unwrap();
    (bytes, summary)
}

fn small_spec() -> Spec {
    Spec { entries: 3_000, small_maps: 500, segment_bytes: 256 << 10, timestamp_ms: 1_700_000_000_000 }
}

#[test]
fn the_reader_counts_what_was_written() {
    let (bytes, summary) = generated(&small_spec());
    assert_eq!(summary.bytes, bytes.len() as u64);
    assert!(summary.segments > 3, "several heap dump segments: {}", summary.segments);
    let dump = read_dump_bytes(&bytes, "generated", &crate::Layout::default(), &|_| {}).unwrap();
    assert_eq!(class_totals(&dump), summary.histogram, "objects and JVM sizes per class");
    assert_eq!(dump.graph.edges.len() as u64, summary.references);
    // 16 per entry, a named-map node per 8 entries, 5 per small map, and the fixed few.
    assert_eq!(summary.objects, 3_000 * 16 + 375 + 500 * 5 + 12);
    assert_eq!(dump.graph.object_count() as u64, summary.objects + CLASSES_WRITTEN);
}

const CLASSES_WRITTEN: u64 = 16;

/// The reader counts each class's objects, their bytes and the first of them as it resolves
/// them: what a sweep of the classes and sizes finds.
#[test]
fn the_reader_counts_each_class_as_it_resolves() {
    let (bytes, _) = generated(&small_spec());
    let dump = read_dump_bytes(&bytes, "generated", &crate::Layout::default(), &|_| {}).unwrap();
    let (keys, sizes) = (dump.graph.group.keys(), &dump.graph.shallow);
    let mut swept = vec![memcity_heapgraph::KeyTotal::default(); dump.classes.names.len()];
    keys.iter().zip(sizes.iter()).enumerate().for_each(|(o, (&k, &s))| swept[k as usize].add(o as u64, s));
    assert_eq!(dump.graph.group.totals(), Some(&swept[..]));
    assert!(swept.iter().any(|t| t.first >= u64::from(dump.first_class_node)), "class objects count too");
}

#[test]
fn addresses_are_a_compressed_oops_heap() {
    let (bytes, _) = generated(&small_spec());
    let raw = parse::scan(&bytes, &|_| {}).unwrap();
    assert!(raw.object_ids.is_sorted() && raw.object_ids.iter().all(|id| id % 8 == 0));
    let detected = crate::detect::detect(&bytes, &raw);
    assert_eq!(detected.layout, crate::Layout::default());
    assert_eq!(detected.matched, detected.sampled, "every distance is the object's size");
}

#[test]
fn every_object_is_reachable_and_names_chain_in_buckets() {
    let (bytes, summary) = generated(&small_spec());
    let dump = read_dump_bytes(&bytes, "generated", &crate::Layout::default(), &|_| {}).unwrap();
    let live = memcity_heapgraph::reachable(&dump.graph);
    assert!(live.iter().all(|&l| l), "the roots and statics reach everything");
    // Nodes referencing a node: collision chains in the named map.
    let node = dump.classes.names.iter().position(|n| n == "java.util.HashMap$Node").unwrap() as u32;
    let chained = (0..dump.first_class_node)
        .filter(|&o| dump.graph.group[o as usize] == node)
        .filter(|&o| dump.graph.referents(o).iter().any(|&t| dump.graph.group[t as usize] == node))
        .count();
    assert!(chained > 20, "{chained} chained nodes");
    assert_eq!(summary.histogram["java.util.HashMap"].0, 2 + 500);
}

#[test]
fn for_objects_comes_close_and_bad_specs_are_refused() {
    for n in [1_000u64, 1_000_000, 100_000_000] {
        let plan = Plan::new(&Spec::for_objects(n));
        let objects = plan.entries * 16 + plan.entries.div_ceil(8) + plan.small_maps * 5 + 12;
        assert!(objects.abs_diff(n) * 100 <= n + 2_000, "{objects} for {n}");
    }
    let bad = Spec { entries: 0, ..small_spec() };
    let err = write(Vec::new(), &bad).unwrap_err();
    assert!(err.to_string().contains("entries must be 1 to"), "{err}");
    let bad = Spec { entries: MAX_ENTRIES + 1, ..small_spec() };
    assert!(write(Vec::new(), &bad).is_err());
}
