//! The analysis core's speed: trace replay (events/s) and grouping (objects/s) on a generated
//! trace (`memcity_analysis::synthetic`; `memcity trace --synthetic N` writes the same one).
//! `MEMCITY_BENCH_OBJECTS` sets the heap size (default 1M; the target is 10M).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_analysis::group::Leaves;
use memcity_analysis::replay::Replay;
use memcity_analysis::trace::write_binary_trace;
use memcity_analysis::{Event, Grouping, Trace, read_binary_trace};
use memcity_heapgraph::{AnalysisOptions, Classifier, Grouper, Retained};

fn objects() -> u64 {
    std::env::var("MEMCITY_BENCH_OBJECTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

fn bench(c: &mut Criterion) {
    let n = objects();
    let events: Vec<Event> = memcity_analysis::synthetic::events(n).collect();
    let heap_events = &events[..events.len() - 1];
    // Reading a trace interns its strings once; replay then works on integer ops.
    let mut interned = Trace::from_events(&events);
    let gc = interned.ops.pop().unwrap();
    let bare = AnalysisOptions { pointer_maps: false, retained: Retained::None, retainer_paths: false };
    let options = || Grouping {
        classifiers: vec![Classifier::Type, Classifier::AllocationSite { depth: 1 }],
        analysis: bare,
    };

    let mut group = c.benchmark_group("analysis");
    group.sample_size(10);
    group.throughput(Throughput::Elements(heap_events.len() as u64));
    group.bench_function(format!("replay {n} objects (events/s)"), |b| {
        b.iter(|| {
            let mut replay = Replay::with_strings(options(), interned.strings.clone());
            replay.apply_ops(&interned.ops).unwrap();
            black_box(replay.heap.live_count())
        })
    });
    group.bench_function(format!("intern {n} objects' events (events/s)"), |b| {
        b.iter(|| black_box(Trace::from_events(heap_events).ops.len()))
    });
    let mut binary = Vec::new();
    write_binary_trace(&interned, &mut binary).unwrap();
    group.bench_function(format!("read {n} objects' binary trace (events/s)"), |b| {
        b.iter(|| black_box(read_binary_trace(&binary, "bench").unwrap().ops.len()))
    });
    drop(binary);

    let mut replay = Replay::with_strings(options(), interned.strings.clone());
    replay.apply_ops(&interned.ops).unwrap();
    let live = vec![true; replay.heap.objects.id.len()];
    group.throughput(Throughput::Elements(n));
    group.bench_function(format!("group {n} objects type,allocation-site (objects/s)"), |b| {
        let roots = replay.heap.root_sets();
        b.iter(|| {
            let mut grouper = Grouper::new(options().classifiers);
            black_box(Leaves::default().assign(&mut grouper, &replay.heap, &live, &roots))
        })
    });
    group.bench_function(format!("gc {n} objects: mark, sweep, group, pointer maps (objects/s)"), |b| {
        b.iter_batched(
            || {
                let mut r = Replay::with_strings(
                    Grouping { analysis: AnalysisOptions { pointer_maps: true, ..bare }, ..options() },
                    interned.strings.clone(),
                );
                r.apply_ops(&interned.ops).unwrap();
                r
            },
            |mut r| {
                r.apply_ops(&[gc]).unwrap();
                black_box(r)
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
