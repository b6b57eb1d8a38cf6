//! What the fuzz target (crates/heapfile/fuzz) checks on any bytes; the seed corpus is replayed
//! through the same function by `tests/fuzz_seeds.rs`. A panic is a bug: bad input must give an
//! error, and what is accepted must go through the whole pipeline to a valid history.

use std::sync::Mutex;

use memcity_heapgraph::{AnalysisOptions, Grouper, Retained, Values, history_of, parse_list, value_identity};

use crate::import::series_heap;

/// The bytes as a heap file, grouped by type, site and root kind. Returns whether they were
/// accepted.
pub fn heap_file(data: &[u8]) -> bool {
    let Ok(file) = crate::parse(data, "fuzz.mcheap") else { return false };
    // The typed reader takes any file the parser accepts.
    let typed = crate::typed::typed_of(file.clone());
    assert_eq!(typed.heap.objects.type_of.len(), file.object_count());
    // Every object's values read back, as `memcity objects` and the causes read them.
    let values = crate::FileValues { heap: &typed.heap, values: &typed.values };
    for o in 0..file.object_count() as u32 {
        let text = values.text(o);
        assert!(values.cut(o).is_none() || text.is_some(), "only a text is cut");
        let _ = (values.boxed(o), value_identity(&values, 0, o));
    }
    let classifiers = parse_list("package,type,allocation-site,root-kind").expect("known");
    let grouper = Mutex::new(Grouper::new(classifiers));
    let analysis = AnalysisOptions { retained: Retained::Closure, ..AnalysisOptions::default() };
    let series = series_heap(file, "fuzz", &grouper, &analysis);
    let grouper = grouper.into_inner().unwrap_or_else(|e| e.into_inner());
    memcity_model::fuzzing::assert_round_trip(&history_of(&grouper, vec![series]));
    true
}
