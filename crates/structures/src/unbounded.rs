//! The `unbounded-cache` cause (docs/objects.md, "Causes"): a map or set whose entry count grew
//! and never dropped from one snapshot to the next over a run — nothing is ever removed.
//! Counts, not entries, are compared: a dump's addresses move between snapshots, so an entry
//! cannot be followed, but a count can.

use memcity_heapgraph::TypedHeap;

use crate::causes::{Cause, thousands};
use crate::entries::{Roles, entries};
use crate::lang::Descriptions;
use crate::measure::{Options, measure_detected};

/// The entry count of the keyed structure (a map or a set) at each of `paths` in `heap`;
/// `None` where no keyed structure has that path.
pub fn entry_counts(heap: &TypedHeap, descriptions: &Descriptions, paths: &[&str]) -> Vec<Option<u64>> {
    let (measured, found) = measure_detected(heap, descriptions, Options { deep: false, leaves: false });
    let roles = Roles::new(heap, descriptions);
    paths
        .iter()
        .map(|path| {
            let head = measured.instances.iter().find(|m| m.path == *path)?.head;
            let i = found.instance_of(head).filter(|&i| roles.keyed(heap, &found, i))?;
            Some(entries(heap, &found, &roles, i, usize::MAX).len() as u64)
        })
        .collect()
}

/// The cause for a structure of type `type_name` with these entry counts, one per snapshot of
/// the run (`None` where it was absent): present in at least two snapshots, it grew from its
/// first count to its last and never had fewer entries than in the snapshot before.
pub fn unbounded_cache(type_name: &str, counts: &[Option<u64>]) -> Option<Cause> {
    let present: Vec<u64> = counts.iter().flatten().copied().collect();
    let (&first, &last) = (present.first()?, present.last()?);
    if present.len() < 2 || last <= first || present.windows(2).any(|w| w[1] < w[0]) {
        return None;
    }
    let message = format!(
        "{} → {} entries over {} snapshots, never fewer: nothing is removed from this {type_name} (a cache without eviction?)",
        thousands(first),
        thousands(last),
        present.len()
    );
    Some(Cause {
        kind: "unbounded-cache",
        type_name: type_name.to_string(),
        keys: last,
        distinct: None,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_that_grows_and_never_drops_is_the_cause() {
        let cause =
            unbounded_cache("java.util.HashMap", &[None, Some(2_000), Some(2_000), Some(6_000)]).unwrap();
        assert_eq!((cause.kind, cause.keys, cause.distinct), ("unbounded-cache", 6_000, None));
        assert_eq!(
            cause.message,
            "2,000 → 6,000 entries over 3 snapshots, never fewer: nothing is removed from this java.util.HashMap (a cache without eviction?)"
        );
        assert_eq!(unbounded_cache("M", &[Some(5), Some(9), Some(7), Some(12)]), None, "it evicted once");
        assert_eq!(unbounded_cache("M", &[Some(5), Some(5)]), None, "it did not grow");
        assert_eq!(unbounded_cache("M", &[Some(5)]), None, "one snapshot says nothing");
        assert_eq!(unbounded_cache("M", &[None, None]), None);
    }
}
