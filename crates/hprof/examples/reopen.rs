//! Times one dump's import as `memcity import` does it, with an index for reopening: the first
//! opening reads the dump and writes the index, the next ones read the index.
//!
//! `cargo run --release -p memcity-hprof --example reopen -- DUMP.hprof INDEX_DIR [fresh]`:
//! `fresh` removes the dump's index first, so the run is a first opening.
//! INDEX_DIR `none`: no index (what `--no-index` does).
//! `open` instead of `fresh`: only opens the dump (from the index where there is one), the part
//! of an import the index replaces, without grouping it.
//! `… --example reopen -- generate DUMP.hprof OBJECTS` writes a generated dump of about
//! OBJECTS objects (what `memcity generate-dump` writes).

use std::path::PathBuf;
use std::time::Instant;

use memcity_hprof::{ImportOptions, import};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("generate") {
        let objects = args[2].parse().expect("a number of objects");
        let spec = memcity_hprof::generate::Spec::for_objects(objects);
        let summary = memcity_hprof::generate::write_file(&PathBuf::from(&args[1]), &spec).expect("written");
        println!("{summary:?}");
        return;
    }
    let [dump, dir, rest @ ..] = &args[..] else { panic!("usage: reopen DUMP INDEX_DIR [fresh]") };
    let dir = PathBuf::from(dir);
    if rest.first().map(String::as_str) == Some("fresh") {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let index = (dir.as_os_str() != "none").then_some(dir);
    let options = ImportOptions { index, ..ImportOptions::default() };
    let start = Instant::now();
    if rest.first().map(String::as_str) == Some("open") {
        let opened =
            memcity_hprof::open_dump(dump.as_ref(), &options.opening(), false, &memcity_heapgraph::Silent)
                .expect("opened");
        let (objects, from_index) = (opened.dump.graph.object_count(), opened.from_index);
        println!("{:.2} s, {objects} objects, from the index: {from_index}", start.elapsed().as_secs_f64());
        return;
    }
    let history = import(&[PathBuf::from(dump)], &options, &memcity_heapgraph::Silent).expect("imported");
    let heap = history.snapshots[0].heap.as_ref().expect("a heap");
    println!("{:.2} s, {:?} bytes reachable", start.elapsed().as_secs_f64(), heap.reachable_bytes);
}
