//! Every instance of one heap in a few numbers, for a report that lists a few of them: its
//! measure and an identity, and no words. An instance is known by a hash of its root path (the
//! source's stable id where it has one) and named only once it is listed: a heap dump of
//! 620 M objects holds some 37 M structures, and naming each (two strings, its type's name)
//! took more memory than the heap's own tables, for a report that shows twenty.

use memcity_heapgraph::{Table, TypedHeap};

use crate::detect::{Scratch, Structures, detect};
use crate::growth::Measure;
use crate::heads::PathHasher;
use crate::lang::Descriptions;
use crate::measure::{InstanceKey, InstanceMeasure, PathNamer, type_name};

/// One instance: plain numbers, so that tens of millions of them are a [`Table`] (in a work
/// file past the memory budget).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Brief {
    /// The hash of its root path, or its head's stable id: what pairs it across a window.
    pub key: u64,
    pub measure: Measure,
    pub head: u32,
    /// 1 where a structure contains it.
    pub contained: u32,
}

// SAFETY: integers only (Measure is eight u64), no padding: every bit pattern is a value.
unsafe impl memcity_heapgraph::table::Plain for Brief {}

/// One heap's instances in brief, with what names and fills in the listed ones later.
pub(crate) struct Briefs<'h> {
    pub heap: &'h TypedHeap,
    /// In detection's order (`found.instances`).
    pub instances: Table<Brief>,
    pub heap_bytes: u64,
    pub found: Structures,
    namer: PathNamer<'h>,
}

/// Detects and measures every instance of `heap`, the transitive size only where `deep`.
pub(crate) fn measure_briefly<'h>(
    heap: &'h TypedHeap,
    descriptions: &Descriptions,
    deep: bool,
) -> Briefs<'h> {
    let found = detect(heap, descriptions);
    let namer = PathNamer::new(heap);
    let objects = &heap.objects;
    let mut hasher = PathHasher::new(heap, namer.paths());
    let mut scratch = Scratch::new(heap.graph.object_count());
    let instances = (0..found.instances.len())
        .map(|i| {
            let instance = &found.instances[i];
            let key = match objects.identity_stable {
                true => objects.identity.get(instance.head as usize).copied().unwrap_or(u64::MAX),
                false => hasher.hash(instance.head),
            };
            let measure = Measure {
                retained: instance.retained,
                deep: if deep { found.deep_size(heap, i, &mut scratch) } else { Default::default() },
                structure: instance.structure,
                deep_structure: instance.deep_structure,
            };
            Brief { key, measure, head: instance.head, contained: u32::from(instance.contained) }
        })
        .collect();
    drop(hasher);
    Briefs { heap, instances, heap_bytes: found.heap_bytes, found, namer }
}

impl Briefs<'_> {
    pub(crate) fn keys(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.instances.iter().map(|b| b.key)
    }

    /// Instance `i` in words, as [`crate::measure::measure_with`] measures it without leaves:
    /// keyed by its root path in full (or its stable id), named by its path as shown.
    pub(crate) fn named(&self, i: usize) -> InstanceMeasure {
        let b = self.instances[i];
        let objects = &self.heap.objects;
        let (full, path) = self.namer.named(b.head, !objects.identity_stable);
        let key = match full {
            Some(full) => InstanceKey::Path(full),
            None => InstanceKey::Object(objects.identity.get(b.head as usize).copied().unwrap_or(u64::MAX)),
        };
        InstanceMeasure {
            key,
            path,
            head: b.head,
            type_name: type_name(self.heap, b.head).to_string(),
            site: objects.site(b.head).map(String::from),
            contained: b.contained != 0,
            measure: b.measure,
            leaves: Vec::new(),
        }
    }
}
