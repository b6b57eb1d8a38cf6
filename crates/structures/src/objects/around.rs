//! What is around the objects a look shows: who references each of them (its referrers, by
//! field) and its path from a GC root in field names, as an object inspector shows them.

use memcity_heapgraph::{TypedHeap, Values};
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::ObjectShown;
use crate::measure::PathNamer;

/// Referrers listed per object (all are counted).
pub const REFERRERS: usize = 10;

/// One object referencing a shown one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Referrer {
    pub id: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// The reference's name (`.next`, `[3]`), where the source names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// Fills in the referrers and root paths of `shown`, whose heap objects are `objects` (in the
/// same order). One pass over the references and one breadth-first walk from the roots.
pub fn fill(heap: &TypedHeap, values: &dyn Values, objects: &[u32], shown: &mut [ObjectShown]) {
    if objects.is_empty() {
        return;
    }
    let at: FxHashMap<u32, usize> = objects.iter().enumerate().map(|(k, &o)| (o, k)).collect();
    let g = &heap.graph;
    for from in 0..g.object_count() as u32 {
        let start = g.edge_range(from).start;
        for (i, to) in g.referents(from).iter().enumerate() {
            let Some(&k) = at.get(to) else { continue };
            let s = &mut shown[k];
            s.referrer_count = Some(s.referrer_count.unwrap_or(0) + 1);
            if s.referrers.len() < REFERRERS {
                s.referrers.push(Referrer {
                    id: values.id(from),
                    type_name: heap.objects.type_name(from).to_string(),
                    field: heap.objects.labels.text(start + i),
                });
            }
        }
    }
    let namer = PathNamer::new(heap);
    for (s, &o) in shown.iter_mut().zip(objects) {
        s.referrer_count.get_or_insert(0);
        s.path = namer.paths().reached(o).then(|| namer.full(o));
    }
}
