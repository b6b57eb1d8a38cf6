//! HPROF import on the committed sample series (data/hprof): reading one dump (both passes) and
//! the whole series into a history.

use std::hint::black_box;
use std::io::Read;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcity_heapgraph::{AnalysisOptions, Retained};
use memcity_hprof::{ImportOptions, Layout, read_dump_bytes};

fn bench(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hprof");
    let mut bytes = Vec::new();
    let file = std::fs::File::open(dir.join("dump3.hprof.gz")).unwrap();
    flate2::read::MultiGzDecoder::new(file).read_to_end(&mut bytes).unwrap();

    let mut group = c.benchmark_group("hprof");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("read_dump (decompressed dump3)", |b| {
        b.iter(|| read_dump_bytes(black_box(&bytes), "dump3", &Layout::default(), &|_| {}).unwrap())
    });
    group.finish();

    // Side by side: the default import (one dominator tree per dump: retained sizes and
    // retainer paths) against `--no-retained`.
    let mut group = c.benchmark_group("hprof_series");
    group.sample_size(10);
    let files =
        std::fs::read_dir(&dir).unwrap().flatten().filter(|e| e.path().to_string_lossy().ends_with(".gz"));
    group.throughput(Throughput::Bytes(files.map(|e| e.metadata().unwrap().len()).sum()));
    let mut bare = ImportOptions::default();
    bare.grouping.analysis =
        AnalysisOptions { retained: Retained::None, retainer_paths: false, ..AnalysisOptions::default() };
    for (name, options) in
        [("default (dominators, paths)", ImportOptions::default()), ("--no-retained", bare)]
    {
        group.bench_function(format!("import data/hprof, 3 gzipped dumps, package,type, {name}"), |b| {
            b.iter(|| {
                memcity_hprof::import(std::slice::from_ref(&dir), &options, &memcity_heapgraph::Silent)
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
