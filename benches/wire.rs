//! The WebSocket interface with a 10k-leaf tree (100 packages × 100 types): parsing a snapshot
//! message, applying it, a pushed snapshot's round trip over 127.0.0.1, and the server-side
//! latency from receipt of a message to the change being visible to `Server::latest`.

use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use memcity_model::{FORMAT, History, MetricNames, Node, Snapshot};
use memcity_wire::protocol::{Change, history_message, parse_message, snapshot_message};
use memcity_wire::{Connection, LiveHistory, Server, ServerConfig, Update};

const PACKAGES: usize = 100;
const TYPES: usize = 100;

fn snapshot(i: usize) -> Snapshot {
    let mut root = Node::leaf("Heap", "Heap", "Root", 0, 0);
    for p in 0..PACKAGES {
        let mut package = Node::leaf(&format!("Heap#pkg{p}"), &format!("pkg{p}"), "Package", 0, 0);
        for t in 0..TYPES {
            let objects = ((p * TYPES + t) % 13 + 1 + i) as u64;
            let key = format!("Heap#pkg{p}#Type{t}");
            package.children.push(Node::leaf(&key, &format!("Type{t}"), "Type", objects, objects * 32));
        }
        package.objects = package.children.iter().map(|c| c.objects).sum();
        package.bytes = package.children.iter().map(|c| c.bytes).sum();
        root.children.push(package);
    }
    root.objects = root.children.iter().map(|c| c.objects).sum();
    root.bytes = root.children.iter().map(|c| c.bytes).sum();
    Snapshot { gc_id: Some(i as u64), ..Snapshot::new(1000 * i as u64, root) }
}

fn history(n: usize) -> History {
    History {
        format: FORMAT.into(),
        metric_names: MetricNames::default(),
        snapshots: (0..n).map(snapshot).collect(),
    }
}

fn parse(c: &mut Criterion) {
    let text = snapshot_message(&snapshot(0));
    let mut group = c.benchmark_group("wire");
    group.sample_size(20).throughput(Throughput::Elements(1));
    group.bench_function("parse_10k_leaf_snapshot", |b| b.iter(|| parse_message(text.as_bytes()).unwrap()));
    group.finish();
}

fn apply(c: &mut Criterion) {
    let mut group = c.benchmark_group("wire");
    group.sample_size(10).throughput(Throughput::Elements(1));
    for len in [10, 100] {
        let base = history(len);
        let next = snapshot(len);
        group.bench_function(format!("apply_10k_leaf_snapshot_to_{len}"), |b| {
            b.iter_batched_ref(
                || {
                    let mut live = LiveHistory::new();
                    live.apply(Change::History(base.clone()));
                    (live, Change::Snapshot(Box::new(next.clone())))
                },
                |(live, change)| assert!(live.apply(change.clone()).changed),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// Appends `iters` snapshots to a server holding 10–19 snapshots (it is reset, untimed, every
/// 10 appends) and returns the time of the appends alone. `each` sees the server after each.
fn appends(
    iters: u64,
    mut each: impl FnMut(&Server, &Receiver<Update>, &mut Connection) -> Duration,
) -> Duration {
    let server =
        Server::start(ServerConfig { addr: "127.0.0.1:0".into(), ..ServerConfig::default() }).unwrap();
    let updates = server.subscribe();
    let mut connection =
        Connection::open(&format!("ws://{}", server.local_addr()), Duration::from_secs(60)).unwrap();
    let base = history_message(&history(10));
    let next: Vec<String> = (10..20).map(|i| snapshot_message(&snapshot(i))).collect();
    let mut total = Duration::ZERO;
    for k in 0..iters as usize {
        if k % 10 == 0 {
            connection.request(base.clone()).unwrap();
        }
        connection.send(next[k % 10].clone()).unwrap();
        total += each(&server, &updates, &mut connection);
    }
    total
}

fn round_trip(c: &mut Criterion) {
    let mut group = c.benchmark_group("wire");
    group.sample_size(10).throughput(Throughput::Elements(1));
    group.bench_function("push_10k_leaf_snapshot_round_trip", |b| {
        b.iter_custom(|iters| {
            // Time from sending to the reply, per snapshot (message already built).
            appends(iters, |_, _, connection| {
                let sent = Instant::now();
                let reply = connection.receive().unwrap();
                assert!(reply.starts_with(r#"{"ok":true"#), "{reply}");
                sent.elapsed()
            })
        })
    });
    group.bench_function("receipt_to_latest_10k_leaf_snapshot", |b| {
        b.iter_custom(|iters| {
            appends(iters, |server, updates, connection| {
                let update = loop {
                    let update = updates.recv_timeout(Duration::from_secs(60)).unwrap();
                    if update.kind == "snapshot" {
                        break update;
                    }
                };
                // `latest` already shows this version when the update is sent; the update's
                // age is receipt (whole message read) → visible, plus the channel hop.
                let latency = update.received.elapsed();
                assert!(server.latest().unwrap().0 >= update.version);
                connection.receive().unwrap();
                latency
            })
        })
    });
    group.finish();
}

criterion_group!(benches, parse, apply, round_trip);
criterion_main!(benches);
