//! The heap graph's dominator-based algorithms on a generated heap shaped like a JVM's
//! (`common/jvm_heap.rs`). `MEMCITY_BENCH_OBJECTS` sets the heap size (default 1M; the issue's
//! target heap has 8.0M objects and 9.1M references).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_heapgraph::{closure_size, dominated_sizes, dominators, reachable, retainer_paths};

#[path = "common/jvm_heap.rs"]
mod jvm_heap;

use jvm_heap::{GROUPS, Heap, LIST_NODE, objects};

fn bench(c: &mut Criterion) {
    let g = Heap::generate(objects());
    let n = g.object_count();
    let label = format!("{:.2}M objects, {:.2}M references", n as f64 / 1e6, g.edges.len() as f64 / 1e6);
    eprintln!("dominators bench heap: {label}, {} roots, {GROUPS} groups", g.roots.len());
    let tree = dominators(&g);
    let live = reachable(&g);

    let mut group = c.benchmark_group("dominators");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(format!("dominator tree, {label} (objects/s)"), |b| {
        b.iter(|| black_box(dominators(&g).preorder.len()))
    });
    group.bench_function(format!("dominated sizes of {GROUPS} groups, {label}"), |b| {
        b.iter(|| black_box(dominated_sizes(&g, &tree, GROUPS)))
    });
    group.bench_function(format!("retainer paths of {GROUPS} groups, {label}"), |b| {
        b.iter(|| black_box(retainer_paths(&g, &tree, GROUPS)))
    });
    group.bench_function(format!("exact closure of the list nodes, {label}"), |b| {
        b.iter(|| black_box(closure_size(&g, &live, LIST_NODE)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
