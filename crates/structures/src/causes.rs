//! Why a structure grows, as a leak hunter names it (docs/structures.md, "Causes"). The first
//! cause is `duplicate-keys`: a hash map or set keyed by objects whose class compares by
//! identity (no `equals`/`hashCode` in Java, no `__eq__`/`__hash__` in Python, fresh objects
//! as a JavaScript Map's keys), so every lookup misses and adds a key equal by value to one it
//! already has.

use memcity_heapgraph::{EqualBy, TypedHeap, Values, value_identity};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::detect::{Structures, detect};
use crate::entries::{Roles, Slot, entries};
use crate::growth::{InstanceGrowth, Status};
use crate::lang::Descriptions;
use crate::report::Report;

/// The fewest keys of one class for the rule to look at them: a few hundred value-equal keys
/// are a small cost, not the leak a reader looks for.
pub const MIN_KEYS: u64 = 1_000;
/// The largest share of keys distinct by value (in percent) for the rule to fire.
pub const MAX_DISTINCT_PERCENT: u64 = 10;

/// One cause found in one structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// `duplicate-keys` or `unbounded-cache`.
    pub kind: &'static str,
    /// The class of the keys (`duplicate-keys`), the structure's type (`unbounded-cache`).
    pub type_name: String,
    /// The keys (or entries) it holds at the end.
    pub keys: u64,
    /// Of those, how many are distinct by value, where the cause counts them.
    pub distinct: Option<u64>,
    pub message: String,
}

/// The `duplicate-keys` cause of instance `i` of `found` in `heap`, if it has it: at least
/// [`MIN_KEYS`] keys of one class (the class with the most keys), of which at most
/// [`MAX_DISTINCT_PERCENT`] are distinct by value (same class, every field equal: primitives by
/// value, strings by text, boxed values by value, other references by identity). A key whose
/// values the source cannot read counts as distinct, so an unknown never makes a cause. The
/// caller asks only for structures that grew over its window (the rule's other half).
pub fn duplicate_keys(
    heap: &TypedHeap,
    found: &Structures,
    roles: &Roles,
    i: usize,
    values: &dyn Values,
) -> Option<Cause> {
    if !roles.keyed(heap, found, i) {
        return None;
    }
    let type_of = &heap.objects.type_of;
    let mut by_type: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for entry in entries(heap, found, roles, i, usize::MAX) {
        if let Slot::Object(k) = entry.key {
            by_type.entry(type_of[k as usize]).or_default().push(k);
        }
    }
    let (key_type, keys) = by_type.into_iter().max_by_key(|(t, keys)| (keys.len(), std::cmp::Reverse(*t)))?;
    let count = keys.len() as u64;
    if count < MIN_KEYS {
        return None;
    }
    let mut distinct: FxHashSet<(u32, Vec<EqualBy>)> = FxHashSet::default();
    for &k in &keys {
        let by_value = value_identity(values, key_type, k).unwrap_or((key_type, vec![EqualBy::Object(k)]));
        distinct.insert(by_value);
        // Past the share, the answer is known: no need to read the rest.
        if distinct.len() as u64 * 100 > count * MAX_DISTINCT_PERCENT {
            return None;
        }
    }
    let type_name = heap.objects.types[key_type as usize].name.clone();
    let head_type = heap.objects.type_name(found.instances[i].head);
    let distinct = distinct.len() as u64;
    let message = message(head_type, &type_name, count, distinct);
    Some(Cause { kind: "duplicate-keys", type_name, keys: count, distinct: Some(distinct), message })
}

/// Whether an instance the report lists grew over its window (survived, with more objects at
/// its end): the instances causes are looked for in. A caller can skip reading values without.
pub fn may_have_causes(report: &Report) -> bool {
    report.listed().into_iter().any(grew)
}

fn grew(i: &InstanceGrowth) -> bool {
    i.status == Status::Survived && i.growth.is_some_and(|g| g.deep_structure.objects > 0)
}

/// The causes of each instance [`Report::listed`] shows, in that order: looked for in the
/// survivors whose structure grew over the window (more objects at its end), in `end`, the
/// heap at the window's end, whose values `values` reads. Detects `end` again (a report keeps
/// numbers only); costs a walk of each such structure's entries.
pub fn listed_causes(
    report: &Report,
    end: &TypedHeap,
    descriptions: &Descriptions,
    values: &dyn Values,
) -> Vec<Vec<Cause>> {
    let listed = report.listed();
    if !may_have_causes(report) {
        return vec![Vec::new(); listed.len()];
    }
    let found = detect(end, descriptions);
    let roles = Roles::new(end, descriptions);
    listed
        .iter()
        .map(|i| {
            let at_end = report.at_end(i).filter(|_| grew(i));
            let instance = at_end.and_then(|m| found.instance_of(m.head));
            instance.and_then(|k| duplicate_keys(end, &found, &roles, k, values)).into_iter().collect()
        })
        .collect()
}

/// The causes of the instances at each of `paths` (their root paths as [`crate::measure`]
/// names them) in `heap`, whose values `values` reads; a path no instance has gets none. For
/// instances a caller already knows to grow (the leak gate's findings).
pub fn causes_at_paths(
    heap: &TypedHeap,
    descriptions: &Descriptions,
    values: &dyn Values,
    paths: &[&str],
) -> Vec<Vec<Cause>> {
    let options = crate::measure::Options { deep: false, leaves: false };
    let (measured, found) = crate::measure::measure_detected(heap, descriptions, options);
    let roles = Roles::new(heap, descriptions);
    paths
        .iter()
        .map(|path| {
            let head = measured.instances.iter().find(|m| m.path == *path).map(|m| m.head);
            let instance = head.and_then(|h| found.instance_of(h));
            instance.and_then(|i| duplicate_keys(heap, &found, &roles, i, values)).into_iter().collect()
        })
        .collect()
}

/// "80,000 keys of TravelApp$QueryKey, 30 distinct by value: does TravelApp$QueryKey define
/// equals and hashCode?", worded for the structure's language (told by its own type).
pub fn message(head_type: &str, key_type: &str, keys: u64, distinct: u64) -> String {
    let counted =
        format!("{} keys of {key_type}, {} distinct by value", thousands(keys), thousands(distinct));
    if head_type.starts_with("builtins.") || head_type.starts_with("collections.") {
        format!("{counted}: does {key_type} define __eq__ and __hash__?")
    } else if head_type.starts_with("java.") || head_type.contains('$') {
        format!("{counted}: does {key_type} define equals and hashCode?")
    } else {
        format!("{counted}: the {head_type} is keyed by fresh objects, equal by value but not the same")
    }
}

/// 80000 → "80,000".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;
