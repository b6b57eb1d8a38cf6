//! A generated trace of any size, for benchmarks and for trying memcity on a big heap: objects
//! of 50 types from 200 allocation sites on 4 threads under 16 static roots; each later object
//! is stored into one of four fields of a random earlier object, replacing what that field
//! held (so most objects are garbage by the one GC at the end). Random stores make replay's
//! memory access as unfriendly as it gets.

use crate::trace::{Event, RootKind};

/// The events for `objects` objects: 2 per object, then the GC.
pub fn events(objects: u64) -> impl Iterator<Item = Event> {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        // xorshift64: fast, and the same trace on every machine.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let per_object = (1..=objects).flat_map(move |id| {
        let r = next();
        let alloc = Event::Alloc {
            id,
            type_name: format!("app.pkg{}.Type{}", r % 5, r % 50),
            size: 16 + 8 * (r % 8),
            len: (r % 7 == 0).then_some(r % 300),
            site: vec![format!("app.Code.method{}", (r >> 8) % 200)],
            thread: format!("worker-{}", (r >> 16) % 4),
        };
        let link = if id <= 16 {
            Event::Root { id, kind: RootKind::Static, name: format!("Roots.r{id}") }
        } else {
            let from = 1 + next() % (id - 1);
            Event::Ptr { from, field: format!("f{}", id % 4), to: Some(id) }
        };
        [alloc, link]
    });
    per_object.chain(std::iter::once(Event::Gc { id: 1, start: 1, end: 2 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{default_grouping, replay};
    use crate::trace::Trace;

    #[test]
    fn the_gc_keeps_what_the_last_stores_reach() {
        let events: Vec<Event> = events(2000).collect();
        // The oracle: the last store to each field wins; walk from the roots.
        let mut fields = std::collections::HashMap::new();
        for e in &events {
            if let Event::Ptr { from, field, to: Some(to) } = e {
                fields.insert((*from, field.clone()), *to);
            }
        }
        let mut live: std::collections::BTreeSet<u64> = (1..=16).collect();
        let mut todo: Vec<u64> = live.iter().copied().collect();
        while let Some(o) = todo.pop() {
            for ((from, _), to) in &fields {
                if *from == o && live.insert(*to) {
                    todo.push(*to);
                }
            }
        }
        assert!(live.len() > 100 && live.len() < 2000, "{}", live.len());

        let trace = Trace::from_events(&events);
        assert_eq!(trace.ops.len(), 4001);
        assert_eq!(trace.strings.types.values.len(), 50);
        let history = replay(trace, default_grouping(), "synthetic").unwrap();
        assert_eq!(history.snapshots[0].tree.objects, live.len() as u64);
    }
}
