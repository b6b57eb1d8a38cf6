//! Reading a `.heapsnapshot` in one pass: `snapshot.meta` first, then the flat `nodes` and
//! `edges` integer arrays straight into compact tables, then `strings` (and the allocation
//! traces when present). The text and a JSON tree of it are never held; tables are sized by what
//! the file holds, never by the counts it claims.

use std::io::Read;

use memcity_heapgraph::Table;

use crate::error::Fault;
use crate::json::Lexer;
use crate::meta::Meta;
use crate::strings::Strings;
use crate::trace::{Traces, read_function_infos, read_trace_tree};

/// The `snapshot` object (with its meta) may be at most this long.
const MAX_META: usize = 1 << 20;
/// Longer object keys are refused.
const MAX_KEY: usize = 256;
/// Tables are pre-sized for at most this many entries; bigger ones grow as the file proves them.
const MAX_RESERVE: u64 = 1 << 24;
/// Edge names (string indices) must be below this to be a [`memcity_heapgraph::Label`].
const FIELD_LIMIT: u32 = memcity_heapgraph::Label::NAMES;
/// The edge-name marker for edges whose name is not kept.
pub const NO_NAME: u32 = u32::MAX;

/// What to keep besides the graph (only what the classifiers ask for).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Names of internal edges (to find the script that defined an object).
    pub edge_names: bool,
    /// Allocation traces (`trace_node_id`, `trace_function_infos`, `trace_tree`).
    pub traces: bool,
    /// The text's size when known (a plain file): caps what the claimed counts may reserve.
    pub size_hint: Option<u64>,
    /// Every kept edge's name or index ([`RawHeap::edge_labels`]) and every node's id, for a
    /// typed heap (not kept by an import: a `u32` per edge and a `u64` per node).
    pub labels: bool,
}

/// A snapshot as read: nodes `0..n` in the file's order, edges that keep objects alive.
#[derive(Debug, Default)]
pub struct RawHeap {
    pub node_types: Vec<String>,
    pub node_type: Table<u8>,
    pub name: Table<u32>,
    pub shallow: Table<u64>,
    /// V8's `detachedness` per node (0 unknown, 1 attached, 2 detached); empty when absent.
    pub detachedness: Table<u8>,
    /// `trace_node_id` per node when traces are kept; else empty.
    pub trace_node: Table<u32>,
    /// `edges[edge_start[o]..edge_start[o + 1]]` are the node indices `o` keeps alive.
    pub edge_start: Table<u32>,
    pub edges: Table<u32>,
    /// Parallel to `edges` when kept: the name of an internal edge, else [`NO_NAME`].
    pub edge_names: Table<u32>,
    /// Parallel to `edges` when labels are kept: an element or hidden edge's index
    /// (`Label::index`), else the string of its name (`Label::field`, a string index, checked
    /// against the table after reading).
    pub edge_labels: Table<memcity_heapgraph::Label>,
    /// V8's node ids when labels are kept; else empty.
    pub ids: Table<u64>,
    pub strings: Strings,
    pub traces: Traces,
}

impl RawHeap {
    pub fn node_count(&self) -> usize {
        self.node_type.len()
    }

    /// Where node `o`'s edges lie in [`Self::edges`].
    pub fn edge_range(&self, o: usize) -> std::ops::Range<usize> {
        self.edge_start[o] as usize..self.edge_start[o + 1] as usize
    }
}

/// Reads a whole snapshot; `progress(offset)` is told how far the text is read now and then.
pub fn read(src: impl Read, options: ReadOptions, progress: &dyn Fn(u64)) -> Result<RawHeap, Fault> {
    let mut lx = Lexer::new(src);
    let mut heap = RawHeap::default();
    let mut meta: Option<Meta> = None;
    let mut seen: Vec<String> = Vec::new();
    lx.expect(b'{', "`{` (a heap snapshot is a JSON object)")?;
    let mut first = true;
    while let Some(key) = lx.next_key(first, MAX_KEY)? {
        first = false;
        if seen.contains(&key) {
            return Err(lx.fault(format!("\"{key}\" appears twice")));
        }
        let at = lx.offset();
        let need_meta = |meta: &Option<Meta>| {
            meta.clone().ok_or_else(|| Fault::at(at, format!("\"{key}\" comes before the \"snapshot\" meta")))
        };
        match key.as_str() {
            "snapshot" => {
                lx.peek()?;
                let start = lx.offset();
                let mut text = Vec::new();
                lx.skip(Some((&mut text, MAX_META, "the snapshot object")))?;
                let m = Meta::parse(&text, start)?;
                heap.node_types = m.node_types.clone();
                meta = Some(m);
            }
            "nodes" => read_nodes(&mut lx, &need_meta(&meta)?, options, &mut heap)?,
            "edges" => {
                let m = need_meta(&meta)?;
                if !seen.iter().any(|k| k == "nodes") {
                    return Err(lx.fault("\"edges\" comes before \"nodes\""));
                }
                read_edges(&mut lx, &m, options, &mut heap)?;
            }
            "strings" => heap.strings = Strings::read(&mut lx)?,
            "trace_function_infos" if options.traces => {
                heap.traces.functions = read_function_infos(&mut lx, need_meta(&meta)?.function_info)?
            }
            "trace_tree" if options.traces => {
                heap.traces.nodes = read_trace_tree(&mut lx, need_meta(&meta)?.trace_node)?
            }
            _ => lx.skip(None)?,
        }
        progress(lx.offset());
        seen.push(key);
    }
    lx.finish()?;
    for part in ["snapshot", "nodes", "edges", "strings"] {
        if !seen.iter().any(|k| k == part) {
            return Err(lx.fault(format!("the snapshot has no \"{part}\"")));
        }
    }
    check_names(&heap)?;
    Ok(heap)
}

/// How many entries a table may reserve up front for a claimed count.
fn reserve(claimed: Option<u64>, size_hint: Option<u64>, min_bytes_each: u64) -> usize {
    let by_size = size_hint.map_or(MAX_RESERVE, |s| s / min_bytes_each.max(1));
    claimed.unwrap_or(0).min(by_size).min(MAX_RESERVE) as usize
}

fn read_nodes(
    lx: &mut Lexer<impl Read>,
    m: &Meta,
    options: ReadOptions,
    heap: &mut RawHeap,
) -> Result<(), Fault> {
    let cap = reserve(m.node_count, options.size_hint, 2 * m.node_fields as u64);
    heap.node_type = Table::with_capacity(cap);
    heap.name = Table::with_capacity(cap);
    heap.shallow = Table::with_capacity(cap);
    // Edge counts go into `edge_start` until the edges are read.
    heap.edge_start = Table::with_capacity(cap + 1);
    let trace = m.trace_node_id.filter(|_| options.traces);
    let type_count = m.node_types.len() as u64;
    let mut node = 0u64;
    let mut edge_sum = 0u64;
    let numbers = lx.records(m.node_fields, |batch| {
        for record in batch.chunks_exact(m.node_fields) {
            let (t, name, count) = (record[m.node_type], record[m.node_name], record[m.edge_count]);
            if t >= type_count {
                return Err(format!("node {node}: type {t} is not one of the {type_count} node types"));
            }
            let name = u32::try_from(name).map_err(|_| format!("node {node}: name {name} too large"))?;
            if node >= u32::MAX as u64 - 1 {
                return Err(format!("more than {} nodes", u32::MAX - 1));
            }
            // Refused at once, not after filling tables with what the meta did not announce.
            if let Some(claimed) = m.node_count.filter(|&c| node >= c) {
                return Err(format!("node {node}: more nodes than snapshot.node_count says ({claimed})"));
            }
            heap.node_type.push(t as u8);
            heap.name.push(name);
            heap.shallow.push(record[m.self_size]);
            edge_sum += count;
            // Edge offsets are 32 bits; weak edges, left out later, count here too.
            if edge_sum > memcity_heapgraph::most_references(node as usize + 1) as u64 {
                return Err(format!(
                    "node {node}: more than {} edges: memcity counts edges with 32 bits",
                    memcity_heapgraph::most_references(node as usize + 1)
                ));
            }
            heap.edge_start.push(count as u32);
            if let Some(f) = trace {
                heap.trace_node.push(record[f].min(u32::MAX as u64) as u32);
            }
            if let Some(f) = m.detachedness {
                heap.detachedness.push(record[f].min(255) as u8);
            }
            if options.labels {
                heap.ids.push(record[m.node_id]);
            }
            node += 1;
        }
        Ok(())
    })?;
    if numbers % m.node_fields as u64 != 0 {
        return Err(lx.fault(format!(
            "nodes: {numbers} numbers are not whole nodes of {} fields each",
            m.node_fields
        )));
    }
    if let Some(claimed) = m.node_count.filter(|&c| c != node) {
        return Err(lx.fault(format!("nodes: {node} nodes, but snapshot.node_count says {claimed}")));
    }
    if let Some(claimed) = m.edge_count_total.filter(|&c| c != edge_sum) {
        return Err(lx.fault(format!(
            "nodes: edge counts add up to {edge_sum}, but snapshot.edge_count says {claimed}"
        )));
    }
    Ok(())
}

fn read_edges(
    lx: &mut Lexer<impl Read>,
    m: &Meta,
    options: ReadOptions,
    heap: &mut RawHeap,
) -> Result<(), Fault> {
    let n = heap.node_count();
    // `edge_start[o]` holds node `o`'s edge count until its edges come, then where they start:
    // the edges are in node order, so each count is read just before it is overwritten.
    let total: u64 = heap.edge_start.iter().map(|&c| c as u64).sum();
    let cap = reserve(Some(total), options.size_hint, 2 * m.edge_fields as u64);
    heap.edges = Table::with_capacity(cap);
    if options.edge_names {
        heap.edge_names = Table::with_capacity(cap);
    }
    // Types that are not there match no edge.
    let named = |t: &str| m.edge_type_named(t).map_or(u64::MAX, u64::from);
    let (weak, shortcut, internal) = (named("weak"), named("shortcut"), named("internal"));
    let (element, hidden) = (named("element"), named("hidden"));
    let edge_labels = &mut heap.edge_labels;
    let type_count = m.edge_types.len() as u64;
    let fields = m.node_fields as u64;
    let limit = n as u64 * fields;
    let mut edge = 0u64;
    // `source` is the next node whose edges have not started.
    let (mut source, mut left) = (0usize, 0usize);
    let starts = &mut heap.edge_start;
    let edges = &mut heap.edges;
    let numbers = lx.records(m.edge_fields, |batch| {
        for record in batch.chunks_exact(m.edge_fields) {
            // The edge belongs to the next node that has edges left.
            while left == 0 {
                if source == n {
                    return Err(format!("edge {edge} has no source node: the nodes' edge counts add up to {total}"));
                }
                left = std::mem::replace(&mut starts[source], edges.len() as u32) as usize;
                source += 1;
            }
            let (kind, to) = (record[m.edge_type], record[m.to_node]);
            if kind >= type_count {
                return Err(format!("edge {edge}: type {kind} is not one of the {type_count} edge types"));
            }
            let node = node_of(to, fields);
            if to >= limit || node * fields != to {
                return Err(format!(
                    "edge {edge} (from node {}): to_node {to} is not a node (the nodes array has {limit} numbers, {fields} per node)",
                    source - 1
                ));
            }
            // Weak edges do not keep objects alive; shortcuts only at the root mark user roots
            // (as DevTools computes retained sizes).
            if kind != weak && (kind != shortcut || source == 1) {
                edges.push(node as u32);
                if options.edge_names {
                    let name = record[m.edge_name].min(NO_NAME as u64 - 1) as u32;
                    heap.edge_names.push(if kind == internal { name } else { NO_NAME });
                }
                if options.labels {
                    let name = record[m.edge_name];
                    edge_labels.push(if kind == element || kind == hidden {
                        memcity_heapgraph::Label::index(name)
                    } else if name < u64::from(FIELD_LIMIT) {
                        memcity_heapgraph::Label::field(name as u32)
                    } else {
                        return Err(format!("edge {edge} (from node {}): name {name} is not a string", source - 1));
                    });
                }
            }
            edge += 1;
            left -= 1;
        }
        Ok(())
    })?;
    if numbers % m.edge_fields as u64 != 0 {
        return Err(lx.fault(format!(
            "edges: {numbers} numbers are not whole edges of {} fields each",
            m.edge_fields
        )));
    }
    if edge != total {
        return Err(lx.fault(format!("edges: {edge} edges, but the nodes' edge counts add up to {total}")));
    }
    // Nodes after the last one with edges have none.
    let end = heap.edges.len() as u32;
    for start in &mut heap.edge_start[source..] {
        *start = end;
    }
    heap.edge_start.push(end);
    Ok(())
}

/// `to / fields`, with the divisions V8's field counts need done by constants (fast).
fn node_of(to: u64, fields: u64) -> u64 {
    match fields {
        7 => to / 7,
        6 => to / 6,
        5 => to / 5,
        f => to / f,
    }
}

/// Every node name must be a string of the table.
fn check_names(heap: &RawHeap) -> Result<(), Fault> {
    let count = heap.strings.len();
    if let Some((node, &name)) = heap.name.iter().enumerate().find(|&(_, &s)| s as usize >= count) {
        return Err(Fault::field(format!(
            "nodes[{node}].name: string {name} does not exist (the snapshot has {count} strings)"
        )));
    }
    heap.traces.check(count)
}
