//! The analysis core's speed: trace replay (events/s) and grouping (objects/s) on a generated
//! trace. `MEMCITY_BENCH_OBJECTS` sets the heap size (default 1M; the target is 10M).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_analysis::classify::Classifier;
use memcity_analysis::group::Grouper;
use memcity_analysis::replay::Replay;
use memcity_analysis::trace::write_binary_trace;
use memcity_analysis::{Event, ReplayOptions, RootKind, Trace, read_binary_trace};

fn objects() -> u64 {
    std::env::var("MEMCITY_BENCH_OBJECTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

/// `n` objects of 50 types from 200 sites on 4 threads, each referenced by an earlier one (a
/// random tree under 16 static roots), then one GC.
fn trace(n: u64) -> Vec<Event> {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut events = Vec::with_capacity(2 * n as usize + 20);
    for id in 1..=n {
        let r = next();
        events.push(Event::Alloc {
            id,
            type_name: format!("app.pkg{}.Type{}", r % 5, r % 50),
            size: 16 + 8 * (r % 8),
            len: (r % 7 == 0).then_some(r % 300),
            site: vec![format!("app.Code.method{}", (r >> 8) % 200)],
            thread: format!("worker-{}", (r >> 16) % 4),
        });
        if id <= 16 {
            events.push(Event::Root { id, kind: RootKind::Static, name: format!("Roots.r{id}") });
        } else {
            let from = 1 + next() % (id - 1);
            events.push(Event::Ptr { from, field: format!("f{}", id % 4), to: Some(id) });
        }
    }
    events.push(Event::Gc { id: 1, start: 1, end: 2 });
    events
}

fn bench(c: &mut Criterion) {
    let n = objects();
    let events = trace(n);
    let (gc, heap_events) = events.split_last().unwrap();
    // Reading a trace interns its strings once; replay then works on integer ops.
    let interned = Trace::from_events(heap_events);
    let options = || ReplayOptions {
        classifiers: vec![Classifier::Type, Classifier::AllocationSite { depth: 1 }],
        pointer_maps: false,
        retained: false,
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
        b.iter(|| black_box(Grouper::new(options().classifiers).assign(&replay.heap, &live)))
    });
    group.bench_function(format!("gc {n} objects: mark, sweep, group, pointer maps (objects/s)"), |b| {
        b.iter_batched(
            || {
                let mut r = Replay::with_strings(
                    ReplayOptions { pointer_maps: true, ..options() },
                    interned.strings.clone(),
                );
                r.apply_ops(&interned.ops).unwrap();
                r
            },
            |mut r| {
                r.apply(gc).unwrap();
                black_box(r)
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
