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
    let typed = crate::typed::typed_of_dump(dump.clone(), labels, None);
    assert_eq!(typed.heap.objects.labels.of_edge.len(), typed.heap.graph.edges.len());
    let _ = typed.heap.objects.labels.text(0);
    group(dump);
    true
}

/// The most objects a fuzzed tree may claim.
const TREE_OBJECTS: u64 = 4096;

/// The bytes as the body of a kept dominator tree ([`crate::index`]) over a heap of as many
/// objects as its meta block says (at most [`TREE_OBJECTS`], 8 bytes each, a chain in three
/// groups), and that heap grouped with the tree: whatever tree passes the checks, the analyses
/// that read it must not panic. Returns whether they were accepted.
pub fn read_tree(data: &[u8]) -> bool {
    let claimed = data.get(8..16).map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    let n = claimed.min(TREE_OBJECTS) as usize;
    let shallow = vec![8u64; n];
    let Ok(kept) = crate::index::read_tree_bytes(data, &shallow) else { return false };
    let edges: Vec<u32> = (1..n as u32).collect();
    let edge_start: Vec<u32> = (0..=n as u32).map(|o| o.min((n as u32).saturating_sub(1))).collect();
    let mut roots: Vec<u32> = if n > 0 { vec![0] } else { Vec::new() };
    roots.extend(&kept.held_by_vm);
    let graph = memcity_heapgraph::HeapGraph {
        group: (0..n as u32).map(|o| o % 3).collect(),
        shallow: shallow.into(),
        edge_start: edge_start.into(),
        edges: edges.into(),
        roots,
    };
    let live = vec![true; n];
    let none = vec![memcity_heapgraph::RootSet::NONE; n];
    let tree = memcity_heapgraph::TreeSource::Known(kept.tree);
    let options = AnalysisOptions::default();
    let silent = &memcity_heapgraph::Silent;
    let (heap, _) = memcity_heapgraph::group_heap_owned_with_tree(
        graph,
        tree,
        3,
        &live,
        &none,
        &|_| None,
        &options,
        silent,
    );
    assert_eq!(heap.counts.iter().map(|c| c.objects).sum::<u64>(), n as u64);
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
