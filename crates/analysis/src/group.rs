//! The replayed heap's objects described for the one grouping pipeline: each live slot's facts
//! (type, site, thread, age, array length, root kinds) decide its leaf group.

use memcity_heapgraph::{Grouper, LeafMemo, ObjectFacts, RootSet};

use crate::heap::Heap;

/// The facts the classifiers look at, as interned ids; an object's leaf depends only on these.
type FactsKey = (u32, u32, u32, u32, u8, RootSet);

/// Leaf groups of a replay, memoized by facts across its GCs.
#[derive(Default)]
pub struct Leaves(LeafMemo<FactsKey>);

impl Leaves {
    /// The leaf group of every live slot (dead slots get group 0, the root, never a leaf).
    pub fn assign(
        &mut self,
        grouper: &mut Grouper,
        heap: &Heap,
        live: &[bool],
        roots: &[RootSet],
    ) -> Vec<u32> {
        let uses = grouper.uses();
        let o = &heap.objects;
        let mut groups = vec![0; live.len()];
        for s in (0..live.len()).filter(|&s| live[s]) {
            let age = heap.gc_count - o.birth_gc[s];
            let kind = match o.len[s] {
                None => 0,
                Some(n) if n < 255 => 1,
                Some(_) => 2,
            };
            let key: FactsKey = (
                if uses.type_name { o.type_id[s] } else { 0 },
                if uses.site { o.site_id[s] } else { 0 },
                if uses.thread { o.thread_id[s] } else { 0 },
                if uses.age { age } else { 0 },
                if uses.len { kind } else { 0 },
                if uses.roots { roots[s] } else { RootSet::NONE },
            );
            groups[s] = self.0.leaf(grouper, key, || ObjectFacts {
                type_name: heap.strings.types.get(o.type_id[s]),
                site: heap.strings.sites.get(o.site_id[s]),
                thread: heap.strings.threads.get(o.thread_id[s]),
                age,
                len: o.len[s],
                roots: roots[s],
                ..ObjectFacts::default()
            });
        }
        groups
    }
}
