//! The data-structure analysis of `memcity structures` (`memcity_structures::report`: both
//! ends of a window detected and named, paired, ranked, the listed read in full) on generated
//! heaps shaped like a JVM's (`common/jvm_heap.rs`). The window's end is its start with 20 %
//! more containers after it, so every structure of the start survives and the others appear.
//! Objects are known as in a dump: every reference named (by its position) and every root
//! named, so that instances pair by their reference paths. `MEMCITY_BENCH_OBJECTS` sets the
//! start's size (default 1M). The whole command on real dumps: `benches/structures/side_by_side.sh`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_heapgraph::{
    EdgeLabels, HeapGraph, Label, ObjectTable, ObjectType, TypeKind, TypedHeap, TypedSnapshot,
};
use memcity_structures::{SortBy, builtin, detect, report};

#[path = "common/jvm_heap.rs"]
mod jvm_heap;

use jvm_heap::*;

/// The type named by each group of the generated heap.
fn object_type(t: u32) -> ObjectType {
    let (name, kind) = match t {
        HOLDER => ("app.Holder".to_string(), TypeKind::Instance),
        LINKED_LIST => ("java.util.LinkedList".to_string(), TypeKind::Instance),
        LIST_NODE => ("java.util.LinkedList$Node".to_string(), TypeKind::Instance),
        HASH_MAP => ("java.util.HashMap".to_string(), TypeKind::Instance),
        TABLE => ("java.util.HashMap$Node[]".to_string(), TypeKind::ReferenceArray),
        MAP_NODE => ("java.util.HashMap$Node".to_string(), TypeKind::Instance),
        ARRAY_LIST => ("java.util.ArrayList".to_string(), TypeKind::Instance),
        ARRAY => ("java.lang.Object[]".to_string(), TypeKind::ReferenceArray),
        STRING => ("java.lang.String".to_string(), TypeKind::Instance),
        CHARS => ("char[]".to_string(), TypeKind::PrimitiveArray),
        item => (format!("app.Item{}", item - 10), TypeKind::Instance),
    };
    ObjectType { name, kind }
}

/// The generated heap of `objects` objects as the snapshot at `index`, typed and named.
fn snapshot(objects: usize, index: usize) -> TypedSnapshot {
    let graph: HeapGraph = Heap::generate(objects);
    let n = graph.object_count();
    let of_edge =
        (0..n).flat_map(|o| (0..graph.referents(o as u32).len() as u64).map(Label::index)).collect();
    let objects = ObjectTable {
        types: (0..GROUPS as u32).map(object_type).collect(),
        type_of: graph.group.to_table(),
        labels: EdgeLabels { names: Vec::new(), of_edge },
        // The holders, in ascending order as they were made.
        root_names: graph.roots.iter().enumerate().map(|(k, &r)| (r, format!("holder {k}"))).collect(),
        ..ObjectTable::default()
    };
    TypedSnapshot {
        index,
        time_ms: index as u64,
        reachable_bytes: graph.shallow.iter().sum(),
        label: format!("heap {index}"),
        metrics: Default::default(),
        heap: TypedHeap { graph, objects, tree: None },
    }
}

fn bench(c: &mut Criterion) {
    let (first, last) = (snapshot(objects(), 0), snapshot(objects() * 6 / 5, 1));
    let descriptions = builtin();
    let (start, end) = (first.heap.graph.object_count(), last.heap.graph.object_count());
    let label = format!("{:.2}M + {:.2}M objects", start as f64 / 1e6, end as f64 / 1e6);
    let found = detect(&first.heap, &descriptions).instances.len();
    eprintln!("structures bench heaps: {label}, {found} structures at the start");

    let mut group = c.benchmark_group("structures");
    group.sample_size(10);
    group.throughput(Throughput::Elements(start as u64));
    group.bench_function(format!("detect, start of {label} (objects/s)"), |b| {
        b.iter(|| black_box(detect(&first.heap, &descriptions).instances.len()))
    });
    group.throughput(Throughput::Elements((start + end) as u64));
    group.bench_function(format!("report of the window, {label} (objects/s)"), |b| {
        b.iter(|| {
            black_box(report(&first, Some(&last), &descriptions, SortBy::Retained, 20).window.instances.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
