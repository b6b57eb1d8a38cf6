//! Heap file import (docs/heapfile.md) on a synthetic snapshot shaped like the Python probe's:
//! module dicts holding lists of instances, each with a name string and a number, in about 620
//! groups. Parsing alone,
//! and one file through the whole pipeline (grouping, pointer maps, dominators, retainer paths).
//! Target: at least 1 M objects/s for the import.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_heapfile::{Grouping, HeapFile, Meta, default_grouping};
use memcity_heapgraph::{AnalysisOptions, Retained};

/// About `n` objects: 1 root dict, lists of 100 instances, each instance → (str, int).
fn synthetic(n: usize) -> HeapFile {
    let types = 60;
    let mut strings: Vec<String> = (0..types).map(|t| format!("app.module{}.Type{t}", t % 7)).collect();
    strings.extend(["builtins.dict", "builtins.list", "builtins.str", "builtins.int"].map(String::from));
    let (dict, list, str_, int) = (types as u32, types as u32 + 1, types as u32 + 2, types as u32 + 3);
    let sites: Vec<Vec<u32>> = (0..300)
        .map(|s| {
            strings.push(format!("app/module{}.py:{} x = make()", s % 7, s));
            vec![strings.len() as u32 - 1]
        })
        .collect();
    let mut file =
        HeapFile { meta: Meta { time_ms: 1, ..Meta::default() }, strings, sites, ..HeapFile::default() };
    let mut edges: Vec<Vec<u32>> = vec![Vec::new()];
    file.types.push(dict);
    file.site.push(u32::MAX);
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as u32
    };
    while file.types.len() + 3 <= n {
        let o = file.types.len() as u32;
        if o % 301 == 1 {
            edges[0].push(o);
            file.types.push(list);
            file.site.push(next() % 300);
            edges.push(Vec::new());
            continue;
        }
        let holder = o - (o - 1) % 301;
        edges[holder as usize].push(o);
        // As in real programs, each type is allocated at a few sites (5 here), strings at 20:
        // about 620 groups (a 774k-object snapshot of leak_sessions.py has 2 142).
        let ty = next() % types as u32;
        file.types.extend_from_slice(&[ty, str_, int]);
        file.site.extend_from_slice(&[ty * 5 + next() % 5, next() % 20, u32::MAX]);
        edges.extend([vec![o + 1, o + 2], Vec::new(), Vec::new()]);
    }
    let count = file.types.len();
    file.size = (0..count).map(|o| 16 + 8 * (o as u64 % 9)).collect();
    file.address = (0..count as u64).map(|o| 0x7f00_0000_0000 + 64 * o).collect();
    file.edge_start = std::iter::once(0)
        .chain(edges.iter().scan(0, |sum, e| {
            *sum += e.len() as u32;
            Some(*sum)
        }))
        .collect();
    file.edges = edges.concat().into();
    file.roots = vec![(0, memcity_heapgraph::RootKind::Global)];
    file
}

fn bench(c: &mut Criterion) {
    let file = synthetic(1_000_000);
    let bytes = file.to_bytes();
    let objects = file.object_count() as u64;
    eprintln!(
        "synthetic heap: {objects} objects, {} bytes ({:.1} per object)",
        bytes.len(),
        bytes.len() as f64 / objects as f64
    );
    let dir = std::env::temp_dir().join(format!("memcity-bench-heapfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("snapshot-000001.mcheap");
    std::fs::write(&path, &bytes).unwrap();

    let mut group = c.benchmark_group("heapfile");
    group.sample_size(10);
    group.throughput(Throughput::Elements(objects));
    group.bench_function("parse (1 M objects)", |b| {
        b.iter(|| memcity_heapfile::parse(black_box(&bytes), "bench").unwrap())
    });
    group.bench_function("import (1 M objects, package,type,allocation-site)", |b| {
        b.iter(|| memcity_heapfile::import(std::slice::from_ref(&path), &default_grouping()).unwrap())
    });
    let counts_only = Grouping {
        analysis: AnalysisOptions { pointer_maps: false, retained: Retained::None, retainer_paths: false },
        ..default_grouping()
    };
    group.bench_function("import (1 M objects, counts only)", |b| {
        b.iter(|| memcity_heapfile::import(std::slice::from_ref(&path), &counts_only).unwrap())
    });
    let maps = Grouping {
        analysis: AnalysisOptions { pointer_maps: true, retained: Retained::None, retainer_paths: false },
        ..default_grouping()
    };
    group.bench_function("import (1 M objects, pointer maps, no dominators)", |b| {
        b.iter(|| memcity_heapfile::import(std::slice::from_ref(&path), &maps).unwrap())
    });
    group.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);
