//! One snapshot with everything known of its nodes (memcity_heapgraph's `TypedHeap`): the type
//! names grouping uses, V8's node ids (stable across the snapshots of one program), the first
//! frame of the allocation trace where the snapshot has traces, and every kept reference named
//! as V8 names it — property, context and internal edges by name, element and hidden edges by
//! index, and internal edges named by a number (the slots of an elements store) by that index;
//! a Map's or Set's table by entry ([`crate::tables`]). Weak edges are left out as the import
//! leaves them out.

use std::path::Path;

use memcity_heapgraph::{
    EdgeLabels, HeapGraph, Label, LabelKind, NO_SITE, ObjectTable, ObjectType, Table, TypeKind, TypedHeap,
};
use rustc_hash::FxHashMap as HashMap;

use crate::error::V8Error;
use crate::graph::gc_root_holders;
use crate::names::type_name;
use crate::read::{RawHeap, ReadOptions, read};
use crate::source;

/// A snapshot's typed heap.
pub struct TypedSnapshot {
    /// The bytes reachable from the GC roots.
    pub reachable_bytes: u64,
    pub heap: TypedHeap,
}

/// Reads one `.heapsnapshot` (plain or gzipped) into a typed heap.
pub fn typed_heap(file: &Path) -> Result<TypedSnapshot, V8Error> {
    let name = file.display().to_string();
    let (text, size_hint) = source::open(file, |_| {})?;
    let options = ReadOptions { edge_names: false, traces: true, size_hint, labels: true };
    let raw = source::read_ahead(text, |text| read(text, options, &|_| {})).map_err(|f| f.in_file(&name))?;
    typed_of(raw).map_err(|message| V8Error::new(name, message))
}

/// The typed heap of a read snapshot (read with [`ReadOptions::labels`]).
pub fn typed_of(raw: RawHeap) -> Result<TypedSnapshot, String> {
    typed_keeping_strings(raw).map(|(typed, _)| typed)
}

/// [`typed_of`], handing back the snapshot's string table, which a reader of values needs.
pub(crate) fn typed_keeping_strings(
    mut raw: RawHeap,
) -> Result<(TypedSnapshot, crate::strings::Strings), String> {
    let n = raw.node_count();
    if raw.edge_labels.len() != raw.edges.len() || raw.ids.len() != n {
        return Err("the snapshot was read without its edge names".into());
    }
    // Edge names become a table of their own: only the strings edges use, each once.
    let strings = raw.strings.len();
    let mut names: Vec<String> = Vec::new();
    let mut name_of: HashMap<u32, u32> = HashMap::default();
    let mut of_edge = Table::with_capacity(raw.edges.len());
    for (edge, &label) in raw.edge_labels.iter().enumerate() {
        of_edge.push(match label.get() {
            Some(LabelKind::Field(s)) => {
                if s as usize >= strings {
                    return Err(format!(
                        "edges[{edge}].name_or_index: string {s} does not exist (the snapshot has {strings} strings)"
                    ));
                }
                let next = names.len() as u32;
                let at = *name_of.entry(s).or_insert_with(|| {
                    names.push(raw.strings.get(s).into_owned());
                    next
                });
                // V8 names the slots of its internal arrays (an Array's elements store) by
                // number: those are indices.
                match names[at as usize].parse::<u64>() {
                    Ok(i) if names[at as usize].bytes().all(|b| b.is_ascii_digit()) => Label::index(i),
                    _ => Label::field(at),
                }
            }
            _ => label,
        });
    }
    raw.edge_labels = Table::default();
    crate::tables::renumber(&raw, &names, &mut of_edge);
    // Types by node type and name, as grouping names them.
    let mut types: Vec<ObjectType> = Vec::new();
    let mut type_index: HashMap<(u8, u32), u32> = HashMap::default();
    let mut named: HashMap<String, u32> = HashMap::default();
    let mut type_of: Table<u32> = Table::with_capacity(n);
    for o in 0..n {
        let (t, name) = (raw.node_type[o], raw.name[o]);
        let id = match type_index.get(&(t, name)) {
            Some(&id) => id,
            None => {
                let node_type = raw.node_types[t as usize].as_str();
                let text = type_name(node_type, &raw.strings.get(name)).into_owned();
                let kind = kind_of(node_type);
                let next = types.len() as u32;
                let id = *named.entry(format!("{node_type}\u{0}{text}")).or_insert_with(|| {
                    types.push(ObjectType { name: text, kind });
                    next
                });
                type_index.insert((t, name), id);
                id
            }
        };
        type_of.push(id);
    }
    // Allocation sites: the top frame of each node's trace, where the snapshot has traces.
    let (mut sites, mut site_of) = (Vec::new(), Table::default());
    if !raw.trace_node.is_empty() && !raw.traces.nodes.is_empty() {
        let index = raw.traces.index();
        let mut site_index: HashMap<u32, u32> = HashMap::default();
        site_of = raw
            .trace_node
            .iter()
            .map(|id| match index.get(id) {
                None => NO_SITE,
                Some(&trace) => *site_index.entry(trace).or_insert_with(|| {
                    match raw.traces.frames(trace, &raw.strings).into_iter().next() {
                        Some(frame) => {
                            sites.push(frame);
                            sites.len() as u32 - 1
                        }
                        None => NO_SITE,
                    }
                }),
            })
            .collect();
    }
    let holders = gc_root_holders(&raw);
    let root_names = root_names(&raw, &holders, &types, &type_of);
    let root_kinds: Vec<(u32, memcity_heapgraph::RootKind)> =
        holders.iter().map(|&(o, kind, _)| (o, kind)).collect();
    let roots = holders.into_iter().map(|(o, _, _)| o).collect();
    let graph = HeapGraph {
        group: type_of.clone().into(),
        shallow: std::mem::take(&mut raw.shallow),
        edge_start: std::mem::take(&mut raw.edge_start),
        edges: std::mem::take(&mut raw.edges),
        roots,
    };
    let live = memcity_heapgraph::reachable(&graph);
    let reachable_bytes = graph.shallow.iter().zip(&live).filter(|(_, l)| **l).map(|(s, _)| s).sum();
    let objects = ObjectTable {
        types,
        type_of,
        sites,
        site_of,
        identity: std::mem::take(&mut raw.ids),
        identity_stable: true,
        labels: EdgeLabels { names, of_edge },
        root_names,
        root_kinds,
    };
    Ok((
        TypedSnapshot { reachable_bytes, heap: TypedHeap { graph, objects, tree: None } },
        std::mem::take(&mut raw.strings),
    ))
}

/// What a path from each GC root starts with, as DevTools names the holders: an object the
/// snapshot's own root holds (the global object: `global` in Node, `Window / https://…` in a
/// page) by its name, any other by the synthetic root that holds it and its type
/// (`(Global handles): Map`). A root held by several is named by the first that holds it.
fn root_names(
    raw: &RawHeap,
    holders: &[(u32, memcity_heapgraph::RootKind, u32)],
    types: &[ObjectType],
    type_of: &[u32],
) -> Vec<(u32, String)> {
    let mut names: Vec<(u32, String)> = Vec::with_capacity(holders.len());
    let mut named = rustc_hash::FxHashSet::default();
    for &(o, _, holder) in holders {
        if !named.insert(o) {
            continue;
        }
        let ty =
            type_of.get(o as usize).and_then(|&t| types.get(t as usize)).map_or("?", |t| t.name.as_str());
        names.push((
            o,
            match holder {
                0 => ty.to_string(),
                c => format!("{}: {ty}", raw.strings.get(raw.name[c as usize])),
            },
        ));
    }
    names.sort_by_key(|(o, _)| *o);
    names
}

/// How a V8 node type holds references: internal arrays (elements and property backing
/// stores) by index, objects and closures by name; strings, numbers, code and V8's own
/// structures are "other".
pub fn kind_of(node_type: &str) -> TypeKind {
    match node_type {
        "array" => TypeKind::ReferenceArray,
        "object" | "closure" | "regexp" | "native" => TypeKind::Instance,
        _ => TypeKind::Other,
    }
}
