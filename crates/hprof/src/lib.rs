//! memcity's HPROF importer: a series of JVM heap dumps (`jcmd PID GC.heap_dump`, plain or
//! gzipped) becomes a history, one snapshot per dump, ordered by the dumps' own timestamps.
//!
//! A dump is read in two passes over its bytes (memory-mapped, or decompressed into memory):
//! pass 1 ([`parse`]) scans the records sequentially, pass 2 ([`resolve`]) reads the objects in
//! parallel into a heap graph. Sizes follow the JVM's layout ([`Layout`]) so counts and bytes
//! match `jcmd PID GC.class_histogram`.

pub mod classes;
mod cursor;
pub mod detect;
pub mod error;
pub mod fuzzing;
pub mod generate;
pub mod histogram;
pub mod ids;
pub mod import;
pub mod index;
pub mod inflate;
pub mod jdk;
pub mod layout;
pub mod parse;
pub mod precheck;
pub mod resolve;
pub mod roots;
pub mod snapshot;
pub mod source;
pub mod typed;
pub mod values;

use std::path::Path;

pub use error::HprofError;
pub use histogram::{Histogram, parse_histogram};
pub use import::{ImportOptions, Inspect, closure_of, import, import_inspecting};
pub use index::{Opened, Opening, open_dump};
pub use inflate::Inflation;
pub use layout::Layout;
pub use memcity_heapgraph::Grouping;
pub use memcity_heapgraph::ROOT_KEY;
pub use memcity_heapgraph::{Classifier, RootKind, parse_list};
pub use resolve::Dump;
pub use snapshot::default_grouping;
pub use typed::{TypedDump, dump_time, typed_heap};
pub use values::{DumpValues, typed_heap_with_values};

/// Reads one dump file. `progress(bytes)` reports how far pass 1 got.
pub fn read_dump(path: &Path, layout: &Layout, progress: &dyn Fn(u64)) -> Result<Dump, HprofError> {
    let name = path.display().to_string();
    let bytes = source::open(path)?;
    read_dump_bytes(&bytes, &name, layout, progress)
}

/// Reads a dump from memory; `name` names it in errors.
pub fn read_dump_bytes(
    bytes: &[u8],
    name: &str,
    layout: &Layout,
    progress: &dyn Fn(u64),
) -> Result<Dump, HprofError> {
    let raw = parse::scan(bytes, progress).map_err(|f| f.in_file(name))?;
    resolve::resolve(bytes, raw, layout).map_err(|f| f.in_file(name))
}

/// Objects and bytes per class name, the way the JVM's class histogram counts them.
pub fn class_totals(dump: &Dump) -> Histogram {
    let mut totals = Histogram::new();
    for (&class, &size) in dump.graph.group.keys().iter().zip(&dump.graph.shallow) {
        let entry = totals.entry(dump.classes.names[class as usize].clone()).or_default();
        entry.0 += 1;
        entry.1 += size;
    }
    totals
}
