//! Layout of synthetic max trees (10k, 100k, 1M leaves, depth 3), one snapshot's frame at the same
//! sizes, the tree views' partition of one snapshot (the whole tree, and pruned as the Tree tab
//! shows it), and loading a ~100 MB memcity/1 file. Targets (2-core machine): 1M-leaf layout
//! < 1 s, one frame at 1M buildings < 5 ms, one partition of a 100k-node tree < 20 ms.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use memcity_layout::{Settings, frame, layout};
use memcity_model::{Timeline, load_file, save_history, synthetic};

fn settings() -> Settings {
    // Keep every leaf: the synthetic trees have ~100 children per node at 1M leaves.
    Settings { children: usize::MAX, ..Settings::default() }
}

fn layout_and_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("city");
    group.sample_size(10).measurement_time(Duration::from_secs(8));
    for leaves in [10_000usize, 100_000, 1_000_000] {
        let timeline = Timeline::new(&synthetic::history(leaves, 3, 1));
        group.throughput(Throughput::Elements(leaves as u64));
        group.bench_with_input(BenchmarkId::new("layout", leaves), &timeline, |b, t| {
            b.iter(|| layout(t, &settings()))
        });
        let city = layout(&timeline, &settings());
        assert!(city.buildings.len() >= leaves * 9 / 10);
        group.bench_with_input(BenchmarkId::new("frame", leaves), &city, |b, city| b.iter(|| frame(city, 2)));
    }
    group.finish();
}

fn partition(c: &mut Criterion) {
    use memcity_layout::partition::{Pruning, SortBy, TreeView, partition, sort_order, window_scale};
    use memcity_model::Metric;
    let mut group = c.benchmark_group("tree_views");
    group.sample_size(10).measurement_time(Duration::from_secs(8));
    for leaves in [10_000usize, 100_000] {
        let timeline = Timeline::new(&synthetic::history(leaves, 3, 1));
        let nodes = timeline.groups.len() as u64;
        let order = sort_order(&timeline, Metric::Bytes, SortBy::Growth, 0, 2);
        let scale = window_scale(&timeline, Metric::Bytes, 0, 0, 2);
        group.throughput(Throughput::Elements(nodes));
        // Every node (no pruning), and as the tab shows it (90 % / 9 children).
        for (name, pruning) in
            [("whole", Pruning { share: 1.0, max_children: usize::MAX }), ("pruned", Pruning::default())]
        {
            let view = TreeView { metric: Metric::Bytes, order: &order, pruning, root: 0, levels: 3, scale };
            let parts = partition(&timeline, &view, 2);
            assert!(name == "pruned" || parts.len() as u64 >= nodes * 9 / 10);
            group.bench_with_input(BenchmarkId::new(name, nodes), &view, |b, view| {
                b.iter(|| partition(&timeline, view, 2))
            });
        }
        group.bench_with_input(BenchmarkId::new("sort_order", nodes), &timeline, |b, t| {
            b.iter(|| sort_order(t, Metric::Bytes, SortBy::Growth, 0, 2))
        });
    }
    group.finish();
}

fn load(c: &mut Criterion) {
    // 92k leaves × 10 snapshots is about 100 MB of memcity/1 JSON.
    let path = std::env::temp_dir().join("memcity-bench-92k-leaves.json");
    if !path.exists() {
        save_history(&synthetic::history(92_000, 10, 3), &path).unwrap();
    }
    let bytes = std::fs::metadata(&path).unwrap().len();
    let mut group = c.benchmark_group("load");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Bytes(bytes));
    group.bench_function(format!("memcity1_{}MB", bytes / 1_000_000), |b| {
        b.iter(|| load_file(&path).unwrap())
    });
    group.finish();
}

criterion_group!(benches, layout_and_frame, partition, load);
criterion_main!(benches);
