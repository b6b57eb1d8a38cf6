//! What the fuzz target (crates/v8/fuzz) checks on any bytes; the seed corpus is replayed
//! through the same function by `tests/fuzz_seeds.rs`. A panic is a bug: bad input must give an
//! error, and what is accepted must go through the whole pipeline to a valid history.

use memcity_heapgraph::{
    AnalysisOptions, Grouper, Retained, SeriesHeap, group_heap_owned, history_of, parse_list,
};

use crate::graph::into_graph;
use crate::read::{ReadOptions, read};

/// The bytes as a heap snapshot's text, with every classifier a snapshot feeds. Returns whether
/// they were accepted.
pub fn snapshot(data: &[u8]) -> bool {
    let options =
        ReadOptions { edge_names: true, traces: true, size_hint: Some(data.len() as u64), labels: true };
    let Ok(raw) = read(data, options, &|_| {}) else { return false };
    let classifiers = parse_list("detached,node-type,script,allocation-site,root-kind,type").expect("known");
    let mut grouper = Grouper::new(classifiers);
    let js = into_graph(raw, &mut grouper);
    let live = memcity_heapgraph::reachable(&js.graph);
    let analysis = AnalysisOptions { retained: Retained::Closure, ..AnalysisOptions::default() };
    let heap = group_heap_owned(js.graph, grouper.group_count(), &live, &js.roots, &|_| None, &analysis);
    let series = SeriesHeap { time_ms: 0, label: "fuzz".into(), heap, metrics: Default::default() };
    memcity_model::fuzzing::assert_round_trip(&history_of(&grouper, vec![series]));
    true
}
