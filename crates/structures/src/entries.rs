//! The entries of one structure as its program sees them (docs/structures.md, "Entries"): a
//! map's keys and values, a set's elements, a list's elements in order. The description's
//! roles say where they are (`key .key; value .value;` on a map's nodes); the structure's parts
//! are walked depth-first in reference order from the head, so a list reads first to last and
//! a hash map in its iteration order (bucket by bucket, each chain in order).

use memcity_heapgraph::{LabelKind, TypedHeap};
use rustc_hash::FxHashSet;

use crate::detect::{Lookup, Structures};
use crate::lang::{Descriptions, Role, RoleKind, Step};

/// One side of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The structure has no such side (a list has no keys, a set no values).
    Absent,
    /// A null reference.
    Null,
    Object(u32),
    /// A side the source does not show: V8 writes no node for a small integer, `undefined`,
    /// `null` or a boolean in a Map's table (a `pairs` role's index without a reference).
    Unknown,
}

/// One entry: a map's key and value, a set's element (as its key), a list's element (as its
/// value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    pub key: Slot,
    pub value: Slot,
}

/// How deep sets over maps over sets are followed (`keys` roles), so a cycle of them ends.
const NESTING: usize = 4;

/// The roles of every type of one heap, looked up once.
pub struct Roles {
    of_type: Vec<Vec<Role>>,
    /// Per type, whether its description or one of the parts it names says where entries are.
    with_entries: Vec<bool>,
}

impl Roles {
    pub fn new(heap: &TypedHeap, descriptions: &Descriptions) -> Roles {
        let lookup = Lookup::new(descriptions);
        let described: Vec<Option<usize>> =
            heap.objects.types.iter().map(|t| lookup.describe(&t.name)).collect();
        let of_type = described
            .iter()
            .map(|d| d.map_or_else(Vec::new, |d| descriptions.list[d].roles.clone()))
            .collect();
        let reaches = entries_reached(descriptions, &lookup);
        let with_entries = described.iter().map(|d| d.is_some_and(|d| reaches[d])).collect();
        Roles { of_type, with_entries }
    }

    /// Whether a structure headed by `o` says where its entries are (an empty one has none
    /// to show, but is known to be empty).
    pub fn has_entries(&self, heap: &TypedHeap, o: u32) -> bool {
        let t = heap.objects.type_of.get(o as usize).copied().unwrap_or(u32::MAX);
        self.with_entries.get(t as usize).copied().unwrap_or(false)
    }

    fn of(&self, heap: &TypedHeap, o: u32) -> &[Role] {
        let t = heap.objects.type_of.get(o as usize).copied().unwrap_or(u32::MAX);
        self.of_type.get(t as usize).map_or(&[], Vec::as_slice)
    }

    /// Whether type `t` is a head only where its objects meet a `requires` role.
    pub fn conditional(&self, t: u32) -> bool {
        self.of_type.get(t as usize).is_some_and(|r| r.iter().any(|r| r.kind == RoleKind::Requires))
    }

    /// Whether `o` may be a structure's head by its type's `requires` roles: each leads to an
    /// object.
    pub fn admits(&self, heap: &TypedHeap, o: u32) -> bool {
        self.of(heap, o)
            .iter()
            .filter(|r| r.kind == RoleKind::Requires)
            .all(|r| follow(heap, o, &r.path).iter().any(|s| matches!(s, Slot::Object(_))))
    }

    /// Whether instance `i`'s structure is keyed (a map or a set): its parts or head have a key role.
    pub fn keyed(&self, heap: &TypedHeap, found: &Structures, i: usize) -> bool {
        found.parts(i).iter().any(|&o| {
            self.of(heap, o).iter().any(|r| {
                matches!(
                    r.kind,
                    RoleKind::Key | RoleKind::Keys | RoleKind::Keyset | RoleKind::Entries | RoleKind::Pairs
                )
            })
        })
    }
}

/// Per description, whether it or an internal part it names (through their descriptions, not
/// through the heads of contained structures) has a role naming entries. A `pairs` role's
/// source may leave out whole entries (a V8 Map of small integers), so it tells no emptiness.
fn entries_reached(descriptions: &Descriptions, lookup: &Lookup<'_>) -> Vec<bool> {
    let names = |d: &crate::lang::Description| {
        d.roles.iter().any(|r| !matches!(r.kind, RoleKind::Walk | RoleKind::Requires | RoleKind::Pairs))
    };
    (0..descriptions.list.len())
        .map(|start| {
            let (mut seen, mut stack) = (FxHashSet::default(), vec![start]);
            while let Some(d) = stack.pop() {
                if !seen.insert(d) {
                    continue;
                }
                let description = &descriptions.list[d];
                if names(description) {
                    return true;
                }
                // Its internal parts, not structures it contains: their entries are not its own.
                let parts = description.pointed_to.iter().filter(|p| !p.leaf);
                let described = parts.filter_map(|p| lookup.describe(&p.pattern));
                stack.extend(described.filter(|&e| !descriptions.list[e].head));
            }
            false
        })
        .collect()
}

/// The first `limit` entries of instance `i` of `found` (a heap's detected structures).
pub fn entries(heap: &TypedHeap, found: &Structures, roles: &Roles, i: usize, limit: usize) -> Vec<Entry> {
    let mut out = Vec::new();
    collect(heap, found, roles, i, limit, NESTING, &mut out);
    out
}

fn collect(
    heap: &TypedHeap,
    found: &Structures,
    roles: &Roles,
    i: usize,
    limit: usize,
    nesting: usize,
    out: &mut Vec<Entry>,
) {
    let parts: FxHashSet<u32> = found.parts(i).iter().copied().collect();
    let g = &heap.graph;
    let mut seen = FxHashSet::default();
    let mut stack = vec![found.instances[i].head];
    while let Some(o) = stack.pop() {
        if out.len() >= limit {
            return;
        }
        if !seen.insert(o) {
            continue;
        }
        read_roles(heap, found, roles, o, limit, nesting, out);
        // Reversed: the first reference is walked first, and before it what `walk` names.
        stack.extend(g.referents(o).iter().rev().filter(|c| parts.contains(c) && !seen.contains(c)));
        for role in roles.of(heap, o).iter().filter(|r| r.kind == RoleKind::Walk) {
            let first = follow(heap, o, &role.path).into_iter().rev();
            stack.extend(first.filter_map(|s| match s {
                Slot::Object(c) if parts.contains(&c) && !seen.contains(&c) => Some(c),
                _ => None,
            }));
        }
    }
}

/// The entries part `o` holds by its type's roles.
fn read_roles(
    heap: &TypedHeap,
    found: &Structures,
    roles: &Roles,
    o: u32,
    limit: usize,
    nesting: usize,
    out: &mut Vec<Entry>,
) {
    let (mut keys, mut values) = (None, None);
    for role in roles.of(heap, o) {
        let targets = if role.kind == RoleKind::Pairs { Vec::new() } else { follow(heap, o, &role.path) };
        match role.kind {
            RoleKind::Key => keys = Some((targets, lists(&role.path))),
            RoleKind::Value => values = Some((targets, lists(&role.path))),
            RoleKind::Element => {
                let room = limit.saturating_sub(out.len());
                out.extend(targets.into_iter().take(room).map(|value| Entry { key: Slot::Absent, value }));
            }
            RoleKind::Keyset => {
                let room = limit.saturating_sub(out.len());
                out.extend(targets.into_iter().take(room).map(|key| Entry { key, value: Slot::Absent }));
            }
            RoleKind::Pairs => {
                let room = limit.saturating_sub(out.len());
                out.extend(pairs(heap, o, &role.path).into_iter().take(room));
            }
            RoleKind::Keys | RoleKind::Entries if nesting > 0 => {
                for target in targets {
                    let Some(inner) = (match target {
                        Slot::Object(t) => found.instance_of(t),
                        _ => None,
                    }) else {
                        continue;
                    };
                    let mut held = Vec::new();
                    collect(
                        heap,
                        found,
                        roles,
                        inner,
                        limit.saturating_sub(out.len()),
                        nesting - 1,
                        &mut held,
                    );
                    out.extend(held.into_iter().map(|e| match role.kind {
                        RoleKind::Entries => e,
                        _ => Entry {
                            key: if e.key == Slot::Absent { e.value } else { e.key },
                            value: Slot::Absent,
                        },
                    }));
                }
            }
            RoleKind::Keys | RoleKind::Entries | RoleKind::Walk | RoleKind::Requires => {}
        }
    }
    if keys.is_some() || values.is_some() {
        let room = limit.saturating_sub(out.len());
        out.extend(paired(keys, values).take(room));
    }
}

/// The entries a `pairs` role's path (ending in `[*]`) reaches from `o`: each array's elements
/// by index, 2k the key and 2k+1 the value of entry k; an index without a reference is an
/// unknown side, and entries without either are none.
fn pairs(heap: &TypedHeap, o: u32, path: &[Step]) -> Vec<Entry> {
    let g = &heap.graph;
    let labels = &heap.objects.labels;
    let before = path.split_last().map_or(path, |(_, before)| before);
    let mut out = Vec::new();
    for slot in follow(heap, o, before) {
        let Slot::Object(array) = slot else { continue };
        let edges = g.edge_range(array);
        let mut indexed: Vec<(u32, u32)> = edges
            .filter_map(|e| match labels.of_edge.get(e).and_then(|l| l.get()) {
                Some(LabelKind::Index(i)) => Some((i, g.edges[e])),
                _ => None,
            })
            .collect();
        indexed.sort_by_key(|&(i, _)| i);
        for entry in indexed.chunk_by(|a, b| a.0 / 2 == b.0 / 2) {
            let side = |parity| {
                entry.iter().find(|(i, _)| i % 2 == parity).map_or(Slot::Unknown, |&(_, t)| Slot::Object(t))
            };
            out.push(Entry { key: side(0), value: side(1) });
        }
    }
    out
}

/// The entries of one part from what its `key` and `value` paths reach (with whether the path
/// reaches a list: `[*]`, `['*']` or `?`), paired in order: a map's node has one of each, a
/// Python dict all its keys `?` and values `['*']`. A field that is not there is a null key or
/// value; a list that runs out (an older heap file's dict without its str keys) is absent.
fn paired(keys: Option<(Vec<Slot>, bool)>, values: Option<(Vec<Slot>, bool)>) -> impl Iterator<Item = Entry> {
    let len = |side: &Option<(Vec<Slot>, bool)>| side.as_ref().map_or(0, |(s, _)| s.len());
    let count = len(&keys).max(len(&values));
    let side = move |side: &Option<(Vec<Slot>, bool)>, i: usize| match side {
        None => Slot::Absent,
        Some((s, list)) => s.get(i).copied().unwrap_or(if *list { Slot::Absent } else { Slot::Null }),
    };
    (0..count).map(move |i| Entry { key: side(&keys, i), value: side(&values, i) })
}

/// Whether a path may reach several objects, or none.
fn lists(path: &[Step]) -> bool {
    path.iter().any(|s| !matches!(s, Step::Field(_)))
}

/// What a role's path reaches from `o`: a named reference that is not there is a null one;
/// `[*]` gives every element (a reference named by its index) in order; null elements are no
/// references and are skipped.
fn follow(heap: &TypedHeap, o: u32, path: &[Step]) -> Vec<Slot> {
    let g = &heap.graph;
    let labels = &heap.objects.labels;
    let mut at = vec![Slot::Object(o)];
    for step in path {
        let mut next = Vec::new();
        for slot in at {
            let Slot::Object(from) = slot else { continue };
            let edges = g.edge_range(from);
            match step {
                Step::Field(name) => {
                    let named = edges.clone().find(|&e| match labels.of_edge.get(e).and_then(|l| l.get()) {
                        Some(LabelKind::Field(n)) => labels.names.get(n as usize) == Some(name),
                        _ => false,
                    });
                    next.push(named.map_or(Slot::Null, |e| Slot::Object(g.edges[e])));
                }
                // Elements only: an array node may hold other references (V8's map pointer).
                Step::Unnamed => next.extend(
                    edges
                        .clone()
                        .filter(|&e| labels.of_edge.get(e).is_none_or(|l| l.get().is_none()))
                        .map(|e| Slot::Object(g.edges[e])),
                ),
                Step::Keyed => next.extend(
                    edges
                        .clone()
                        .filter(|&e| {
                            matches!(labels.of_edge.get(e).and_then(|l| l.get()), Some(LabelKind::Key(_)))
                        })
                        .map(|e| Slot::Object(g.edges[e])),
                ),
                Step::Each => next.extend(
                    edges
                        .filter(|&e| {
                            matches!(labels.of_edge.get(e).and_then(|l| l.get()), Some(LabelKind::Index(_)))
                        })
                        .map(|e| Slot::Object(g.edges[e])),
                ),
            }
        }
        at = next;
    }
    at
}

#[cfg(test)]
pub(crate) mod tests;
