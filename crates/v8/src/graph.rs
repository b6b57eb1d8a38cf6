//! A read snapshot as the one heap graph: V8's nodes are the objects (node `i` of the file is
//! object `i`), the kept edges are the references, and the objects that the synthetic root
//! and its `(GC roots)` subroots point at are the GC roots, each with its root kind.

use memcity_heapgraph::{Grouper, HeapGraph, ObjectFacts, RootKind, RootSet, Table, root_sets};
use rustc_hash::FxHashMap as HashMap;

use crate::names::{detached, name_matters, root_kind, type_name};
use crate::read::{NO_NAME, RawHeap};

/// The objects the snapshot's synthetic roots hold, with the kind of each holder. The synthetic
/// root containers are node 0 and the synthetic nodes reachable from it through synthetic
/// nodes only; they are bookkeeping, not objects, so they are left out of the live heap.
pub fn gc_roots(heap: &RawHeap) -> Vec<(u32, RootKind)> {
    gc_root_holders(heap).into_iter().map(|(o, kind, _)| (o, kind)).collect()
}

/// [`gc_roots`] with the synthetic container that holds each root (node 0 for the objects the
/// snapshot's own root holds, such as the global object), in the order they are found: the
/// snapshot root's objects first.
pub fn gc_root_holders(heap: &RawHeap) -> Vec<(u32, RootKind, u32)> {
    let n = heap.node_count();
    if n == 0 {
        return Vec::new();
    }
    let synthetic = heap.node_types.iter().position(|t| t == "synthetic").map(|t| t as u8);
    let is_container = |o: u32| Some(heap.node_type[o as usize]) == synthetic;
    let mut container = vec![false; n];
    container[0] = true;
    let mut stack = vec![0u32];
    let mut roots = Vec::new();
    while let Some(c) = stack.pop() {
        let kind = root_kind(&heap.strings.get(heap.name[c as usize]), c == 0);
        for &t in &heap.edges[heap.edge_range(c as usize)] {
            if is_container(t) {
                if !container[t as usize] {
                    container[t as usize] = true;
                    stack.push(t);
                }
            } else {
                roots.push((t, kind, c));
            }
        }
    }
    roots
}

/// A snapshot ready for the pipeline.
pub struct JsHeap {
    pub graph: HeapGraph,
    pub roots: Vec<RootSet>,
}

/// What decides a node's leaf (fields a classifier list does not use stay zero).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct LeafKey {
    node_type: u8,
    name: u32,
    script: u32,
    detached: u8,
    roots: RootSet,
    trace: u32,
}

/// Puts every node into its leaf group of `grouper` and builds the heap graph.
pub fn into_graph(mut heap: RawHeap, grouper: &mut Grouper) -> JsHeap {
    let n = heap.node_count();
    let pairs = gc_roots(&heap);
    let roots = root_sets(n, pairs.iter().copied());
    let uses = grouper.uses();
    let scripts = if uses.script { scripts(&heap) } else { Table::default() };
    let trace_index = if uses.site { heap.traces.index() } else { HashMap::default() };
    let name_matters: Vec<bool> = heap.node_types.iter().map(|t| name_matters(t)).collect();
    // Leaves by what decides them: the names are formatted once per key, not per node.
    let mut memo: HashMap<LeafKey, u32> = HashMap::default();
    let mut sites: HashMap<u32, Vec<String>> = HashMap::default();
    let mut group: Table<u32> = Table::with_capacity(n);
    for (o, &rooted) in roots.iter().enumerate() {
        let t = heap.node_type[o];
        let detachedness = heap.detachedness.get(o).copied();
        let key = LeafKey {
            node_type: t,
            name: if name_matters[t as usize] { heap.name[o] } else { NO_NAME },
            script: scripts.get(o).copied().unwrap_or(NO_NAME),
            detached: if uses.detached { detachedness.unwrap_or(0) } else { 0 },
            roots: if uses.roots { rooted } else { RootSet::NONE },
            trace: heap
                .trace_node
                .get(o)
                .and_then(|id| trace_index.get(id))
                .copied()
                .filter(|_| uses.site)
                .unwrap_or(NO_NAME),
        };
        let site = if key.trace != NO_NAME {
            sites.entry(key.trace).or_insert_with(|| heap.traces.frames(key.trace, &heap.strings)).as_slice()
        } else {
            &[]
        };
        let leaf = match memo.get(&key) {
            Some(&leaf) => leaf,
            None => {
                let node_type = heap.node_types[t as usize].as_str();
                let name = heap.strings.get(heap.name[o]);
                let script = if key.script == NO_NAME { "".into() } else { heap.strings.get(key.script) };
                let leaf = grouper.leaf(&ObjectFacts {
                    type_name: &type_name(node_type, &name),
                    node_type,
                    script: &script,
                    detached: detached(node_type, &name, detachedness),
                    roots: key.roots,
                    site,
                    ..ObjectFacts::default()
                });
                memo.insert(key, leaf);
                leaf
            }
        };
        group.push(leaf);
    }
    let graph = HeapGraph {
        group: group.into(),
        shallow: std::mem::take(&mut heap.shallow),
        edge_start: std::mem::take(&mut heap.edge_start),
        edges: std::mem::take(&mut heap.edges),
        roots: pairs.iter().map(|&(o, _)| o).collect(),
    };
    JsHeap { graph, roots }
}

/// The script (string index) that defined each node's function or constructor, [`NO_NAME`] if
/// none: closures through their SharedFunctionInfo, objects through their map's constructor.
fn scripts(heap: &RawHeap) -> Table<u32> {
    let named = |s: &str| heap.strings.find(s).unwrap_or(NO_NAME - 1);
    let (shared, script, script_or_debug) = (named("shared"), named("script"), named("script_or_debug_info"));
    let (map, constructor, back_pointer) = (named("map"), named("constructor"), named("back_pointer"));
    let constructor_or_back = named("constructor_or_back_pointer");
    let closure = heap.node_types.iter().position(|t| t == "closure").map(|t| t as u8);
    let object = heap.node_types.iter().position(|t| t == "object").map(|t| t as u8);
    let code = heap.node_types.iter().position(|t| t == "code").map(|t| t as u8);
    let edge = |o: u32, names: &[u32]| -> Option<u32> {
        let range = heap.edge_range(o as usize);
        range.clone().find(|&e| names.contains(&heap.edge_names[e])).map(|e| heap.edges[e])
    };
    let of_closure = |c: u32| -> u32 {
        edge(c, &[shared])
            .and_then(|sfi| edge(sfi, &[script_or_debug, script]))
            .filter(|&s| {
                Some(heap.node_type[s as usize]) == code
                    && !heap.strings.get(heap.name[s as usize]).is_empty()
            })
            .map_or(NO_NAME, |s| heap.name[s as usize])
    };
    let mut by_map: HashMap<u32, u32> = HashMap::default();
    (0..heap.node_count() as u32)
        .map(|o| match Some(heap.node_type[o as usize]) {
            t if t == closure => of_closure(o),
            t if t == object => match edge(o, &[map]) {
                None => NO_NAME,
                Some(m) => *by_map.entry(m).or_insert_with(|| {
                    // Transitioned maps lead back to the root map, which has the constructor.
                    let mut at = m;
                    for _ in 0..64 {
                        match edge(at, &[constructor, constructor_or_back]) {
                            Some(c) if Some(heap.node_type[c as usize]) == closure => return of_closure(c),
                            _ => match edge(at, &[back_pointer, constructor_or_back]) {
                                Some(up) if up != at => at = up,
                                _ => break,
                            },
                        }
                    }
                    NO_NAME
                }),
            },
            _ => NO_NAME,
        })
        .collect()
}
