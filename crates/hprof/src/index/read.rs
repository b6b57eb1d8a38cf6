//! Reading an index back into the dump it was written from. An index is input like a dump:
//! every block's length is checked against the file before it is copied, and every number
//! that indexes something (a node, a class, a name) is checked against what it indexes, so a
//! corrupt or hostile index is refused in one line, never a panic.

use memcity_heapgraph::{EdgeLabels, HeapGraph, KeyTotal, Label, LabelKind, RootKind, count_keys};
use rayon::prelude::*;

use super::format::Blocks;
use super::seal::SEAL;
use crate::classes::{ClassTable, InstanceLayout};
use crate::layout::Layout;
use crate::resolve::Dump;

/// The meta block: 16 numbers, then the 12 primitive array classes.
const META: usize = 16 + 12;

/// The dump and reference names in an index's body, checked in full.
pub fn read(body: &[u8]) -> Result<(Dump, EdgeLabels), String> {
    read_blocks(Blocks::new(body), Trust::Checked)
}

/// How much of an index is checked as it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Every block's sizes and every number that indexes something.
    Checked,
    /// Sealed with this user's key ([`super::seal`]): written by this user's memcity from a
    /// dump it parsed, so the sweeps over the graph's tables (its classes, references, reference
    /// starts, sizes and reference names) are skipped; the small blocks are still checked.
    Sealed,
}

/// [`read`] from blocks that may be read in place from their file, checked as `trust` says.
pub fn read_blocks(mut blocks: Blocks<'_>, trust: Trust) -> Result<(Dump, EdgeLabels), String> {
    let body_len = blocks.body_len();
    let meta: Vec<u64> = blocks.values("meta", Some(META))?;
    let count = |i: usize, what: &str| {
        usize::try_from(meta[i])
            .ok()
            .filter(|&n| n <= body_len)
            .ok_or_else(|| format!("{} {what}, more than the index could hold", meta[i]))
    };
    let (nodes, edges, classes) = (count(1, "objects")?, count(2, "references")?, count(4, "classes")?);
    let (roots, root_kinds, label_names) =
        (count(6, "roots")?, count(7, "root records")?, count(8, "names")?);
    let first_class_node = u32::try_from(meta[3]).ok().filter(|&f| f as usize <= nodes);
    let first_class_node = first_class_node.ok_or("the first class object is beyond the objects")?;
    let class_index = |v: u64| u32::try_from(v).ok().filter(|&c| (c as usize) < classes);
    // Read in place: most groupings group by class alone, and their groups come through the
    // classes ([`memcity_heapgraph::ObjectGroups::through`]) without a table of their own.
    let group = blocks.table("class of each object", nodes)?.into();
    let shallow = blocks.table("shallow sizes", nodes)?;
    let edge_start = blocks.table("reference starts", nodes + 1)?;
    let edges_table = blocks.table("references", edges)?;
    let of_edge: memcity_heapgraph::Table<Label> = blocks.table("reference names", edges)?;
    let labels = EdgeLabels { names: blocks.strings("names of references", label_names)?, of_edge };
    let mut graph = HeapGraph {
        group,
        shallow,
        edge_start,
        edges: edges_table,
        roots: blocks.values("roots", Some(roots))?,
    };
    let kinds: Vec<[u32; 2]> = blocks.values("root records", Some(root_kinds))?;
    let class_of_class_node: Vec<u32> =
        blocks.values("classes of class objects", Some(nodes - first_class_node as usize))?;
    let names = blocks.strings("class names", classes)?;
    let instances = instances(&mut blocks, classes)?;
    let by_id: Vec<[u64; 2]> = blocks.values("class ids", None)?;
    let totals: Vec<u64> = blocks.values("class totals", Some(classes.saturating_mul(3)))?;
    let seal = blocks.next("seal")?;
    if !seal.is_empty() && seal.len() != SEAL {
        return Err(format!("a seal of {} bytes", seal.len()));
    }
    if !blocks.finished() {
        return Err("bytes after the last block".into());
    }
    let totals: Vec<KeyTotal> =
        totals.chunks_exact(3).map(|t| KeyTotal { objects: t[0], bytes: t[1], first: t[2] }).collect();
    if trust == Trust::Checked {
        check_graph(&graph, classes)?;
        check_labels(&labels)?;
        check_totals(&graph, &totals)?;
    }
    graph.group = std::mem::take(&mut graph.group).with_totals(totals);
    let mut primitive_arrays = [0u32; 12];
    for (slot, &v) in primitive_arrays.iter_mut().zip(&meta[16..]) {
        *slot = class_index(v).ok_or("a primitive array class is beyond the classes")?;
    }
    let root_kinds = kinds
        .iter()
        .map(|&[node, code]| {
            let kind = RootKind::ALL.get(code as usize).copied().ok_or("an unknown root kind")?;
            ((node as usize) < nodes).then_some((node, kind)).ok_or("a root record beyond the objects")
        })
        .collect::<Result<_, _>>()?;
    if class_of_class_node.iter().any(|&c| class_index(c.into()).is_none()) {
        return Err("a class object of a class beyond the classes".into());
    }
    let by_id = by_id
        .iter()
        .map(|&[id, class]| Ok((id, class_index(class).ok_or("a class id of a class beyond the classes")?)))
        .collect::<Result<_, String>>()?;
    let classes = ClassTable {
        names,
        instances,
        by_id,
        class_class: class_index(meta[5]).ok_or("java.lang.Class is beyond the classes")?,
        primitive_arrays,
    };
    let layout = Layout {
        header: meta[9],
        array_header: meta[10],
        reference: meta[11],
        align: meta[12],
        class_mirror: meta[13],
        pointer: meta[14],
        detect: meta[15] != 0,
    };
    let dump = Dump {
        timestamp_ms: meta[0],
        classes,
        graph,
        root_kinds,
        first_class_node,
        class_of_class_node,
        layout,
    };
    Ok((dump, labels))
}

/// Each class's instance layout: four numbers a class, then the reference offsets and the
/// reference names of all classes.
fn instances(blocks: &mut Blocks<'_>, classes: usize) -> Result<Vec<InstanceLayout>, String> {
    let shapes: Vec<u64> = blocks.values("class shapes", Some(classes.saturating_mul(4)))?;
    let references: Vec<u32> = blocks.values("reference fields", None)?;
    let names: Vec<u64> = blocks.values("reference field names", None)?;
    let (mut at_reference, mut at_name) = (0usize, 0usize);
    let mut out = Vec::with_capacity(classes);
    for shape in shapes.chunks_exact(4) {
        let take = |from: usize, n: u64, len: usize| {
            usize::try_from(n).ok().and_then(|n| Some(from..from.checked_add(n).filter(|&to| to <= len)?))
        };
        let refs =
            take(at_reference, shape[2], references.len()).ok_or("class shapes beyond their fields")?;
        let named = take(at_name, shape[3], names.len()).ok_or("class shapes beyond their field names")?;
        (at_reference, at_name) = (refs.end, named.end);
        out.push(InstanceLayout {
            references: references[refs].to_vec(),
            reference_names: names[named].to_vec(),
            dump_bytes: usize::try_from(shape[0]).map_err(|_| "a class's field bytes overflow")?,
            size: shape[1],
        });
    }
    Ok(out)
}

/// Every class a class, every reference's target an object, the reference starts in order.
/// Each is a sweep over a table of the graph, split among the workers.
fn check_graph(graph: &HeapGraph, classes: usize) -> Result<(), String> {
    let nodes = graph.group.len();
    if nodes > crate::parse::MAX_OBJECTS {
        return Err(format!("{nodes} objects, more than memcity reads"));
    }
    if graph.group.keys().par_iter().any(|&c| c as usize >= classes) {
        return Err("an object of a class beyond the classes".into());
    }
    let starts = &graph.edge_start;
    let ordered = || starts.par_windows(2).all(|w| w[0] <= w[1]);
    if graph.edges.len() > memcity_heapgraph::most_references(nodes) {
        return Err(format!(
            "{} references among {nodes} objects, more than memcity reads",
            graph.edges.len()
        ));
    }
    if starts[0] != 0 || starts[nodes] as usize != graph.edges.len() || !ordered() {
        return Err("the reference starts are out of order".into());
    }
    let beyond = |&t: &u32| t as usize >= nodes;
    if graph.edges.par_iter().any(beyond) || graph.roots.par_iter().any(beyond) {
        return Err("a reference or root beyond the objects".into());
    }
    // Sums of sizes (a group's, a retained set's) cannot overflow.
    let sum = graph.shallow.par_iter().try_fold(|| 0u64, |sum, &s| sum.checked_add(s));
    if sum.try_reduce(|| 0, u64::checked_add).is_none() {
        return Err("the shallow sizes add up to more than 2^64 bytes".into());
    }
    Ok(())
}

/// The class totals are what a sweep of the classes and sizes counts (the classes are checked
/// to be below the class count first).
fn check_totals(graph: &HeapGraph, totals: &[KeyTotal]) -> Result<(), String> {
    let mut swept = vec![KeyTotal::default(); totals.len()];
    count_keys(&mut swept, 0, graph.group.keys(), &graph.shallow);
    match swept == totals {
        true => Ok(()),
        false => Err("class totals that are not the objects' own".into()),
    }
}

/// Every named reference's name is in the names.
fn check_labels(labels: &EdgeLabels) -> Result<(), String> {
    let known = |name: u32| (name as usize) < labels.names.len();
    let named = |l: &Label| match l.get() {
        Some(LabelKind::Field(name) | LabelKind::Key(name)) => known(name),
        _ => true,
    };
    match labels.of_edge.par_iter().all(named) {
        true => Ok(()),
        false => Err("a reference named beyond the names".into()),
    }
}
