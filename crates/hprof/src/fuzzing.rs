//! What the fuzz target (crates/hprof/fuzz) checks on any bytes; the seed corpus is replayed
//! through the same function by `tests/fuzz_seeds.rs`. A panic is a bug: bad input must give an
//! error, and what is accepted must go through the whole pipeline to a valid history.

use memcity_heapgraph::{AnalysisOptions, Grouper, Retained, SeriesHeap, history_of, parse_list};

use crate::snapshot::{assign_leaves, group_dump};
use crate::{Layout, read_dump_bytes};

/// The bytes as an index ([`crate::index`]), through the same pipeline as [`read_dump`] and
/// into a typed heap. Returns whether they were accepted.
pub fn read_index(data: &[u8]) -> bool {
    let Ok((dump, labels)) = crate::index::read_index_bytes(data) else { return false };
    let typed = crate::typed::typed_of_dump(dump.clone(), labels);
    assert_eq!(typed.heap.objects.labels.of_edge.len(), typed.heap.graph.edges.len());
    let _ = typed.heap.objects.labels.text(0);
    group(dump);
    true
}

/// The bytes as an uncompressed HPROF dump, grouped by package, type and root kind. Returns
/// whether they were accepted.
pub fn read_dump(data: &[u8]) -> bool {
    let Ok(dump) = read_dump_bytes(data, "fuzz.hprof", &Layout::default(), &|_| {}) else { return false };
    group(dump);
    true
}

/// Groups a dump by package, type and root kind and checks the history round-trips.
fn group(mut dump: crate::Dump) {
    let mut grouper = Grouper::new(parse_list("package,type,root-kind").expect("known"));
    let mut roots = assign_leaves(&mut dump, &mut grouper);
    let analysis = AnalysisOptions { retained: Retained::Closure, ..AnalysisOptions::default() };
    let heap = group_dump(&mut dump, &mut roots, grouper.group_count(), &analysis);
    let series = SeriesHeap { time_ms: 0, label: "fuzz".into(), heap, metrics: Default::default() };
    memcity_model::fuzzing::assert_round_trip(&history_of(&grouper, vec![series]));
}
