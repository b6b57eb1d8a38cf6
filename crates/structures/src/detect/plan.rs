//! Descriptions assigned to one heap's types (docs/structures.md, "Detection"): every wildcard
//! is resolved once per type name, never per object.

use std::fmt;

use memcity_heapgraph::{ObjectType, TypeKind, TypedHeap};
use rustc_hash::FxHashMap;

use crate::lang::{Description, Descriptions, matches};

pub(super) const NONE: u32 = u32::MAX;
/// What a part's type may point to, per heap type: nothing, an internal part, a leaf.
pub(super) const OUTSIDE: u8 = 0;
pub(super) const INTERNAL: u8 = 1;
pub(super) const LEAF: u8 = 2;

/// Per heap type: whether it is a head, and which row says what its objects may point to.
pub(crate) struct Plan {
    head: Vec<bool>,
    /// Per type, the row of what its objects may point to, or NONE (a type acting as a leaf).
    row_of: Vec<u32>,
    /// Per row, per type: OUTSIDE, INTERNAL or LEAF. One row per description in use (not per
    /// type: the types one wildcard describes share it), plus one for undescribed reference
    /// arrays, so memory is (descriptions in use + 1) × types bytes.
    rows: Vec<Vec<u8>>,
}

impl Plan {
    pub(crate) fn new(heap: &TypedHeap, descriptions: &Descriptions) -> Plan {
        let types = &heap.objects.types;
        let lookup = Lookup::new(descriptions);
        let mut head = vec![false; types.len()];
        let mut row_of = vec![NONE; types.len()];
        let mut rows: Vec<Vec<u8>> = Vec::new();
        let mut row_of_description: FxHashMap<usize, u32> = FxHashMap::default();
        let mut array_row = NONE;
        for (t, ty) in types.iter().enumerate() {
            match lookup.describe(&ty.name) {
                Some(d) => {
                    let description = &descriptions.list[d];
                    head[t] = description.head;
                    row_of[t] = *row_of_description.entry(d).or_insert_with(|| {
                        rows.push(row(description, types));
                        (rows.len() - 1) as u32
                    });
                }
                // The paper's rule: a reference array without a description points on to
                // anything, so `DS ArrayList { java.lang.Object[]; }` reaches the elements.
                None if ty.kind == TypeKind::ReferenceArray => {
                    if array_row == NONE {
                        rows.push(vec![INTERNAL; types.len()]);
                        array_row = (rows.len() - 1) as u32;
                    }
                    row_of[t] = array_row;
                }
                None => {}
            }
        }
        Plan { head, row_of, rows }
    }

    pub(crate) fn is_head(&self, t: u32) -> bool {
        self.head.get(t as usize).copied().unwrap_or(false)
    }

    pub(super) fn has_row(&self, t: u32) -> bool {
        self.row_of.get(t as usize).is_some_and(|&r| r != NONE)
    }

    pub(super) fn row(&self, t: u32) -> Option<&[u8]> {
        let r = *self.row_of.get(t as usize)?;
        self.rows.get(r as usize).map(Vec::as_slice)
    }

    /// The row of what objects of type `t` may point to, by its index.
    pub(super) fn row_index(&self, t: u32) -> Option<usize> {
        self.row_of.get(t as usize).filter(|&&r| r != NONE).map(|&r| r as usize)
    }

    pub(super) fn row_at(&self, r: usize) -> &[u8] {
        &self.rows[r]
    }

    pub(super) fn row_count(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn pointed(&self, row: Option<&[u8]>, t: u32) -> u8 {
        row.and_then(|r| r.get(t as usize).copied()).unwrap_or(OUTSIDE)
    }
}

/// What one description lets its objects point to, for every type of the heap: an internal
/// pattern wins over a leaf pattern that matches the same type.
fn row(d: &Description, types: &[ObjectType]) -> Vec<u8> {
    let hit =
        |leaf: bool, name: &str| d.pointed_to.iter().any(|p| p.leaf == leaf && matches(&p.pattern, name));
    types
        .iter()
        .map(|c| {
            if hit(false, &c.name) {
                INTERNAL
            } else if hit(true, &c.name) {
                LEAF
            } else {
                OUTSIDE
            }
        })
        .collect()
}

/// Finds a type name's description: an exact one before a wildcard one, a later before an
/// earlier (descriptions are unique per pattern, see `Descriptions::extend`).
pub(crate) struct Lookup<'a> {
    exact: FxHashMap<&'a str, usize>,
    /// Wildcard descriptions, the latest first.
    wildcards: Vec<(usize, &'a str)>,
}

impl<'a> Lookup<'a> {
    pub(crate) fn new(descriptions: &'a Descriptions) -> Lookup<'a> {
        let mut exact = FxHashMap::default();
        let mut wildcards = Vec::new();
        for (i, d) in descriptions.list.iter().enumerate() {
            if d.pattern.contains('*') {
                wildcards.push((i, d.pattern.as_str()));
            } else {
                exact.insert(d.pattern.as_str(), i);
            }
        }
        wildcards.reverse();
        Lookup { exact, wildcards }
    }

    /// The description of the type `name`: an exact one, else the latest wildcard that fits.
    pub(crate) fn describe(&self, name: &str) -> Option<usize> {
        self.exact
            .get(name)
            .copied()
            .or_else(|| self.wildcards.iter().find(|(_, p)| matches(p, name)).map(|&(i, _)| i))
    }
}

/// A type pattern of a description that matches no type of a heap: no error (a JDK
/// description finds nothing in a Python heap), but worth telling about a user's own file,
/// where it is most often a typo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where the description was written: `file:line`.
    pub origin: String,
    pub pattern: String,
    /// Whether the pattern is the described type itself, not one it points to.
    pub described: bool,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let role = if self.described { "described type" } else { "pointed-to type" };
        write!(f, "{}: warning: {role} {:?} matches no type of this heap", self.origin, self.pattern)
    }
}

/// The patterns of `descriptions` that match no type of `heap`, in the order written. Each
/// distinct pattern is tried once against each type name.
pub fn unmatched(heap: &TypedHeap, descriptions: &Descriptions) -> Vec<Warning> {
    let types = &heap.objects.types;
    let mut known: FxHashMap<&str, bool> = FxHashMap::default();
    let mut out = Vec::new();
    for d in &descriptions.list {
        let patterns =
            std::iter::once((&d.pattern, true)).chain(d.pointed_to.iter().map(|p| (&p.pattern, false)));
        for (pattern, described) in patterns {
            let found = *known
                .entry(pattern.as_str())
                .or_insert_with(|| types.iter().any(|t| matches(pattern, &t.name)));
            if !found {
                out.push(Warning { origin: d.origin.clone(), pattern: pattern.clone(), described });
            }
        }
    }
    out
}
