//! The heap model: live objects in dense slots (trace ids map to slots), their references,
//! and the GC roots. Applying an event checks it against the heap (dangling and duplicate ids);
//! `collect` is the garbage collector.

use rustc_hash::FxHashMap as HashMap;

use memcity_heapgraph::{HeapGraph, RootSet, reachable, root_sets};

use crate::trace::{Event, Op, RootKind, Strings};

mod typed;

/// Trace id → slot. Small ids (tracers usually number objects) index a vector; large ones
/// (addresses) go to a hash map.
#[derive(Debug, Default)]
struct SlotMap {
    dense: Vec<u32>,
    sparse: HashMap<u64, u32>,
    len: usize,
}

const NO_SLOT: u32 = u32::MAX;
const DENSE_IDS: u64 = 1 << 27;

impl SlotMap {
    fn get(&self, id: u64) -> Option<u32> {
        if id < DENSE_IDS {
            self.dense.get(id as usize).copied().filter(|&s| s != NO_SLOT)
        } else {
            self.sparse.get(&id).copied()
        }
    }

    /// Maps `id` (not mapped yet) to `slot`.
    fn insert(&mut self, id: u64, slot: u32) {
        if id < DENSE_IDS {
            if self.dense.len() <= id as usize {
                self.dense.resize((id as usize + 1).next_power_of_two(), NO_SLOT);
            }
            self.dense[id as usize] = slot;
        } else {
            self.sparse.insert(id, slot);
        }
        self.len += 1;
    }

    fn remove(&mut self, id: u64) {
        if id < DENSE_IDS {
            self.dense[id as usize] = NO_SLOT;
        } else {
            self.sparse.remove(&id);
        }
        self.len -= 1;
    }
}

/// [`memcity_heapgraph::prefetch`] by a trace's 64-bit index (an index past the end is no hint).
#[inline(always)]
fn prefetch<T>(items: &[T], index: u64) {
    memcity_heapgraph::prefetch(items, usize::try_from(index).unwrap_or(usize::MAX));
}

/// The objects, one entry per slot in each vector; a slot is reused after its object is freed.
#[derive(Debug, Default)]
pub struct Objects {
    pub id: Vec<u64>,
    pub alive: Vec<bool>,
    pub type_id: Vec<u32>,
    pub size: Vec<u64>,
    pub len: Vec<Option<u64>>,
    pub site_id: Vec<u32>,
    pub thread_id: Vec<u32>,
    /// How many GCs had run when the object was allocated (its age is the difference).
    pub birth_gc: Vec<u32>,
    /// The object's first reference in `References` (`NO_REF`: none).
    pub first_ref: Vec<u32>,
}

const NO_REF: u32 = u32::MAX;

impl Objects {
    fn reserve(&mut self, additional: usize) {
        self.id.reserve(additional);
        self.alive.reserve(additional);
        self.type_id.reserve(additional);
        self.size.reserve(additional);
        self.len.reserve(additional);
        self.site_id.reserve(additional);
        self.thread_id.reserve(additional);
        self.birth_gc.reserve(additional);
        self.first_ref.reserve(additional);
    }
}

/// Every object's non-null reference fields as linked lists in one slab, so a pointer store
/// allocates nothing (a vector per object made replay spend its time in malloc).
#[derive(Debug, Default)]
pub struct References {
    /// `(field, target slot, next entry of the same object)`.
    entries: Vec<(u32, u32, u32)>,
    free: Vec<u32>,
}

impl References {
    /// The targets of the list starting at `first`.
    fn targets(&self, mut entry: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::from_fn(move || {
            let (_, target, next) = *self.entries.get(entry as usize)?;
            entry = next;
            Some(target)
        })
    }

    /// Sets `field` in the list at `*first` to `to` (`None` removes it).
    fn store(&mut self, first: &mut u32, field: u32, to: Option<u32>) {
        // Find the field's entry and the entry before it.
        let mut prev: Option<u32> = None;
        let mut entry = *first;
        while entry != NO_REF && self.entries[entry as usize].0 != field {
            prev = Some(entry);
            entry = self.entries[entry as usize].2;
        }
        match (entry != NO_REF, to) {
            (true, Some(t)) => self.entries[entry as usize].1 = t,
            (true, None) => {
                let next = self.entries[entry as usize].2;
                match prev {
                    Some(p) => self.entries[p as usize].2 = next,
                    None => *first = next,
                }
                self.free.push(entry);
            }
            (false, Some(t)) => {
                let new = (field, t, *first);
                *first = match self.free.pop() {
                    Some(e) => {
                        self.entries[e as usize] = new;
                        e
                    }
                    None => {
                        self.entries.push(new);
                        (self.entries.len() - 1) as u32
                    }
                };
            }
            (false, None) => {}
        }
    }

    /// Frees the whole list at `*first`.
    fn clear(&mut self, first: &mut u32) {
        let mut entry = *first;
        while entry != NO_REF {
            self.free.push(entry);
            entry = self.entries[entry as usize].2;
        }
        *first = NO_REF;
    }
}

#[derive(Debug, Default)]
pub struct Heap {
    pub objects: Objects,
    references: References,
    slot_of: SlotMap,
    free_slots: Vec<u32>,
    /// Root name → (slot, kind) for each root entry.
    roots: HashMap<(u32, u32), RootKind>,
    /// The names the ops' ids stand for.
    pub strings: Strings,
    pub used_bytes: u64,
    pub gc_count: u32,
}

/// What one GC did.
#[derive(Debug, Clone, PartialEq)]
pub struct Collection {
    pub used_before: u64,
    pub used_after: u64,
    /// The heap as a graph with slots as objects (group 0 for all), and which slots are live.
    pub graph: HeapGraph,
    pub live: Vec<bool>,
}

impl Heap {
    /// An empty heap for ops interned into `strings`.
    pub fn with_strings(strings: Strings) -> Heap {
        Heap { strings, ..Heap::default() }
    }

    fn slot(&self, id: u64) -> Result<u32, String> {
        self.slot_of
            .get(id)
            .ok_or_else(|| format!("object {id} does not exist (never allocated or already freed)"))
    }

    pub fn live_count(&self) -> usize {
        self.slot_of.len
    }

    /// Applies every event except `gc` (see `collect`), interning its strings first.
    pub fn apply(&mut self, event: &Event) -> Result<(), String> {
        let op = self.strings.intern(event);
        self.apply_op(&op)
    }

    /// Applies a run of ops (a `gc` op does nothing here); an error names the op's index.
    ///
    /// Replay is bound by cache misses: a pointer store looks up a random object's slot, then
    /// its reference list. Prefetching what the ops a few steps ahead will touch lets those
    /// misses overlap instead of queueing one after the other.
    pub fn apply_ops(&mut self, ops: &[Op]) -> Result<(), (usize, String)> {
        const AHEAD: usize = 32;
        self.reserve_for(ops);
        for (i, op) in ops.iter().enumerate() {
            if let Some(op) = ops.get(i + AHEAD) {
                self.prefetch_slots(op);
            }
            if let Some(Op::Ptr { from, .. }) = ops.get(i + AHEAD / 2) {
                self.prefetch_first_ref(*from);
            }
            if let Some(Op::Ptr { from, .. }) = ops.get(i + AHEAD / 4) {
                self.prefetch_references(*from, 0);
            }
            if let Some(Op::Ptr { from, .. }) = ops.get(i + AHEAD / 8) {
                self.prefetch_references(*from, 1);
            }
            self.apply_op(op).map_err(|m| (i, m))?;
        }
        Ok(())
    }

    /// Grows the object and reference tables once for a run of ops, not by doubling while
    /// replaying (at 10M objects the copies and page faults were a tenth of the time).
    fn reserve_for(&mut self, ops: &[Op]) {
        let (allocs, ptrs) = ops.iter().fold((0, 0), |(a, p), op| match op {
            Op::Alloc { .. } => (a + 1, p),
            Op::Ptr { .. } => (a, p + 1),
            _ => (a, p),
        });
        self.objects.reserve(usize::saturating_sub(allocs, self.free_slots.len()));
        let refs = &mut self.references;
        refs.entries.reserve(usize::saturating_sub(ptrs, refs.free.len()));
    }

    fn prefetch_slots(&self, op: &Op) {
        match *op {
            Op::Ptr { from, to, .. } => {
                prefetch(&self.slot_of.dense, from);
                prefetch(&self.slot_of.dense, to.unwrap_or(u64::MAX));
            }
            Op::Alloc { id, .. } | Op::Root { id, .. } | Op::Unroot { id, .. } => {
                prefetch(&self.slot_of.dense, id)
            }
            Op::Gc { .. } => {}
        }
    }

    fn prefetch_first_ref(&self, id: u64) {
        if let Some(slot) = self.slot_of.get(id) {
            prefetch(&self.objects.first_ref, slot as u64);
        }
    }

    /// Prefetches entry `skip` of the object's reference list (the earlier ones are cached).
    fn prefetch_references(&self, id: u64, skip: usize) {
        if let Some(slot) = self.slot_of.get(id) {
            let entries = &self.references.entries;
            let mut entry = self.objects.first_ref[slot as usize];
            for _ in 0..skip {
                match entries.get(entry as usize) {
                    Some(e) => entry = e.2,
                    None => return,
                }
            }
            prefetch(entries, entry as u64);
        }
    }

    pub fn apply_op(&mut self, op: &Op) -> Result<(), String> {
        match *op {
            Op::Alloc { id, size, len, type_id, site, thread } => {
                self.alloc(id, size, len, type_id, site, thread)
            }
            Op::Ptr { from, to, field } => {
                let from = self.slot(from)?;
                let to = to.map(|t| self.slot(t)).transpose()?;
                self.references.store(&mut self.objects.first_ref[from as usize], field, to);
                Ok(())
            }
            Op::Root { id, kind, name } => {
                let slot = self.slot(id)?;
                if self.roots.insert((slot, name), kind).is_some() {
                    return Err(format!(
                        "object {id} is already the root `{}`",
                        self.strings.root_names.get(name)
                    ));
                }
                Ok(())
            }
            Op::Unroot { id, name } => {
                let slot = self.slot(id)?;
                match self.roots.remove(&(slot, name)) {
                    Some(_) => Ok(()),
                    None => {
                        Err(format!("object {id} is not the root `{}`", self.strings.root_names.get(name)))
                    }
                }
            }
            Op::Gc { .. } => Ok(()),
        }
    }

    fn alloc(
        &mut self,
        id: u64,
        size: u64,
        len: Option<u64>,
        type_id: u32,
        site: u32,
        thread: u32,
    ) -> Result<(), String> {
        if self.slot_of.get(id).is_some() {
            return Err(format!("object {id} is allocated twice (it is still alive)"));
        }
        // Every sum of object sizes later (per group, per snapshot) is a part of this one, so
        // refusing here keeps them all from wrapping.
        let Some(used) = self.used_bytes.checked_add(size) else {
            return Err(format!(
                "object {id} of {size} bytes would make the heap hold more than {} bytes",
                u64::MAX
            ));
        };
        let o = &mut self.objects;
        let slot = match self.free_slots.pop() {
            Some(s) => s,
            None => {
                o.id.push(0);
                o.alive.push(false);
                o.type_id.push(0);
                o.size.push(0);
                o.len.push(None);
                o.site_id.push(0);
                o.thread_id.push(0);
                o.birth_gc.push(0);
                o.first_ref.push(NO_REF);
                (o.id.len() - 1) as u32
            }
        };
        let s = slot as usize;
        o.id[s] = id;
        o.alive[s] = true;
        o.type_id[s] = type_id;
        o.size[s] = size;
        o.len[s] = len;
        o.site_id[s] = site;
        o.thread_id[s] = thread;
        o.birth_gc[s] = self.gc_count;
        self.references.clear(&mut o.first_ref[s]);
        self.slot_of.insert(id, slot);
        self.used_bytes = used;
        Ok(())
    }

    /// The names of the roots that hold each rooted slot ("app.Registry.people"), joined.
    pub fn root_names(&self) -> HashMap<u32, String> {
        let mut names: HashMap<u32, Vec<&str>> = HashMap::default();
        for &(slot, name) in self.roots.keys() {
            names.entry(slot).or_default().push(self.strings.root_names.get(name));
        }
        names
            .into_iter()
            .map(|(slot, mut n)| {
                n.sort_unstable();
                (slot, n.join(", "))
            })
            .collect()
    }

    /// The root kinds that hold each slot directly.
    pub fn root_sets(&self) -> Vec<RootSet> {
        root_sets(self.objects.id.len(), self.roots.iter().map(|(&(slot, _), &kind)| (slot, kind)))
    }

    /// The heap as a graph over slots (dead slots have no edges).
    pub fn graph(&self) -> HeapGraph {
        let n = self.objects.id.len();
        let mut edge_start = Vec::with_capacity(n + 1);
        let mut edges = Vec::new();
        edge_start.push(0);
        for &first in &self.objects.first_ref {
            edges.extend(self.references.targets(first));
            edge_start.push(edges.len() as u32);
        }
        let mut roots: Vec<u32> = self.roots.keys().map(|&(slot, _)| slot).collect();
        roots.sort_unstable();
        HeapGraph {
            group: vec![0; n].into(),
            shallow: self.objects.size.clone().into(),
            edge_start: edge_start.into(),
            edges: edges.into(),
            roots,
        }
    }

    /// Marks from the roots and frees every unreachable object.
    pub fn collect(&mut self) -> Collection {
        let used_before = self.used_bytes;
        let graph = self.graph();
        let live = reachable(&graph);
        let o = &mut self.objects;
        #[allow(clippy::needless_range_loop)] // one slot index into several parallel vectors
        for s in 0..o.id.len() {
            if o.alive[s] && !live[s] {
                o.alive[s] = false;
                self.references.clear(&mut o.first_ref[s]);
                self.slot_of.remove(o.id[s]);
                self.free_slots.push(s as u32);
                self.used_bytes -= o.size[s];
            }
        }
        self.gc_count += 1;
        Collection { used_before, used_after: self.used_bytes, graph, live }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alloc(id: u64) -> Event {
        Event::Alloc { id, type_name: "A".into(), size: 10, len: None, site: vec![], thread: "main".into() }
    }
    fn ptr(from: u64, to: Option<u64>) -> Event {
        Event::Ptr { from, field: "f".into(), to }
    }

    #[test]
    fn gc_frees_what_roots_do_not_reach() {
        let mut heap = Heap::default();
        for e in [
            alloc(1),
            alloc(2),
            alloc(3),
            ptr(1, Some(2)),
            ptr(2, Some(3)),
            Event::Root { id: 1, kind: RootKind::Static, name: "S.x".into() },
        ] {
            heap.apply(&e).unwrap();
        }
        heap.apply(&ptr(2, None)).unwrap(); // the store replaces the field: 3 is now garbage
        let c = heap.collect();
        assert_eq!((c.used_before, c.used_after), (30, 20));
        assert_eq!(heap.live_count(), 2);
        assert!(heap.apply(&ptr(1, Some(3))).unwrap_err().contains("object 3 does not exist"));
        heap.apply(&Event::Unroot { id: 1, name: "S.x".into() }).unwrap();
        heap.collect();
        assert_eq!((heap.live_count(), heap.used_bytes), (0, 0));
        heap.apply(&alloc(1)).unwrap(); // ids may be reused after their object is freed
    }

    #[test]
    fn sizes_that_would_wrap_the_heap_are_refused() {
        let huge = |id| Event::Alloc {
            id,
            type_name: "A".into(),
            size: u64::MAX,
            len: None,
            site: vec![],
            thread: "main".into(),
        };
        let mut heap = Heap::default();
        heap.apply(&huge(1)).unwrap();
        let error = heap.apply(&huge(2)).unwrap_err();
        assert_eq!(
            error,
            format!("object 2 of {} bytes would make the heap hold more than {} bytes", u64::MAX, u64::MAX)
        );
        assert_eq!(
            (heap.live_count(), heap.used_bytes),
            (1, u64::MAX),
            "nothing of the refused object stays"
        );
    }

    #[test]
    fn reference_lists_replace_remove_and_reuse_entries() {
        let mut refs = References::default();
        let (mut a, mut b) = (NO_REF, NO_REF);
        refs.store(&mut a, 1, Some(10));
        refs.store(&mut a, 2, Some(20));
        refs.store(&mut b, 1, Some(30));
        refs.store(&mut a, 1, Some(11)); // same field: replaced
        let sorted = |refs: &References, first| {
            let mut t: Vec<u32> = refs.targets(first).collect();
            t.sort();
            t
        };
        assert_eq!(sorted(&refs, a), [11, 20]);
        refs.store(&mut a, 2, None);
        refs.store(&mut a, 3, None); // clearing an unset field does nothing
        assert_eq!(sorted(&refs, a), [11]);
        refs.store(&mut a, 4, Some(40)); // reuses the freed entry
        assert_eq!(refs.entries.len(), 3);
        refs.clear(&mut a);
        assert_eq!((sorted(&refs, a), sorted(&refs, b)), (vec![], vec![30]));
    }

    #[test]
    fn address_sized_ids_work_like_small_ones() {
        let mut heap = Heap::default();
        let (a, b) = (0x7f00_0000_1000u64, 3u64);
        for e in [
            alloc(a),
            alloc(b),
            ptr(a, Some(b)),
            Event::Root { id: a, kind: RootKind::Jni, name: "g".into() },
        ] {
            heap.apply(&e).unwrap();
        }
        assert!(heap.apply(&alloc(a)).unwrap_err().contains("allocated twice"));
        heap.apply(&Event::Unroot { id: a, name: "g".into() }).unwrap();
        heap.collect();
        assert_eq!(heap.live_count(), 0);
        assert!(heap.apply(&ptr(a, None)).unwrap_err().contains("does not exist"));
    }

    #[test]
    fn rejects_duplicate_and_dangling_ids() {
        let mut heap = Heap::default();
        heap.apply(&alloc(1)).unwrap();
        assert!(heap.apply(&alloc(1)).unwrap_err().contains("allocated twice"));
        assert!(heap.apply(&ptr(9, None)).unwrap_err().contains("object 9 does not exist"));
        assert!(
            heap.apply(&Event::Unroot { id: 1, name: "x".into() }).unwrap_err().contains("not the root `x`")
        );
        let root = Event::Root { id: 1, kind: RootKind::Local, name: "x".into() };
        heap.apply(&root).unwrap();
        assert!(heap.apply(&root).unwrap_err().contains("already the root"));
    }
}
