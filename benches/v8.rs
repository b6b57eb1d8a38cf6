//! V8 heap snapshot import on a snapshot of a synthetic Node heap (benches/js/synthetic.js,
//! written once into the target folder; MEMCITY_V8_BENCH_FILE names another). Before the
//! criterion runs, the same file is imported by memcity and parsed by Node's bare `JSON.parse`
//! (benches/js/json_parse.js), best of three each, and both times are printed side by side.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_v8::{ReadOptions, default_grouping};

/// Orders in the synthetic heap (about 1 KB of snapshot each).
const ORDERS: u32 = 60_000;

fn snapshot() -> PathBuf {
    if let Ok(file) = std::env::var("MEMCITY_V8_BENCH_FILE") {
        return PathBuf::from(file);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var("CARGO_TARGET_DIR").map_or_else(|_| root.join("target"), PathBuf::from);
    let file = dir.join(format!("bench-synthetic-{ORDERS}.heapsnapshot"));
    if !file.exists() {
        let status = Command::new("node")
            .arg("--max-old-space-size=8192")
            .arg(root.join("benches/js/synthetic.js"))
            .arg(ORDERS.to_string())
            .arg(&file)
            .status()
            .expect("node is needed to write the benchmark's snapshot (or set MEMCITY_V8_BENCH_FILE)");
        assert!(status.success());
    }
    file
}

fn import(file: &Path) -> memcity_model::History {
    memcity_v8::import(&[file.to_path_buf()], &default_grouping(), &memcity_heapgraph::Silent).unwrap()
}

/// memcity's import and Node's JSON.parse of the same file, best of three each.
fn side_by_side(file: &Path, mb: f64) {
    let best = (0..3)
        .map(|_| {
            let start = Instant::now();
            black_box(import(file));
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::MAX, f64::min);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/js/json_parse.js");
    let node = Command::new("node").arg("--max-old-space-size=8192").arg(script).arg(file).arg("3").output();
    let parse = node
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    // The script prints the best wall time, then that run's CPU time.
    let wall = |p: String| p.split_whitespace().next().and_then(|w| w.parse::<f64>().ok());
    println!("{}: {mb:.1} MB", file.display());
    println!(
        "  memcity import (parse + group + pointer maps + dominators + paths): {best:.0} ms ({:.0} MB/s)",
        mb / best * 1e3
    );
    match parse.and_then(wall) {
        Some(ms) => println!(
            "  node JSON.parse (bare, text already in memory):                  {ms:.0} ms ({:.0} MB/s)",
            mb / ms * 1e3
        ),
        None => println!("  node JSON.parse: node is not available"),
    }
}

fn bench(c: &mut Criterion) {
    let file = snapshot();
    let bytes = std::fs::metadata(&file).unwrap().len();
    side_by_side(&file, bytes as f64 / 1e6);
    let mut group = c.benchmark_group("v8");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("read (streaming parse into tables)", |b| {
        b.iter(|| {
            let (text, size_hint) = memcity_v8::source::open(&file, |_| {}).unwrap();
            memcity_v8::read::read(text, ReadOptions { size_hint, ..Default::default() }, &|_| {}).unwrap()
        })
    });
    group.bench_function("import (parse + group + pointer maps + dominators + paths)", |b| {
        b.iter(|| import(black_box(&file)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
