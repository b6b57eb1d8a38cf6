//! Pass 2: turns pass 1's record offsets into the object graph, in parallel. Nodes are the heap
//! objects in ascending id order followed by the class objects (one per CLASS_DUMP); a node's
//! group is its class index.

use rayon::prelude::*;

use crate::classes::ClassTable;
use crate::cursor::{Cursor, read_id};
use crate::error::Fault;
use crate::ids::IdLookup;
use crate::layout::Layout;
use crate::parse::{INSTANCE_DUMP, OBJ_ARRAY_DUMP, OBJECT, RawDump, value_size};
use memcity_heapgraph::Table;
use memcity_heapgraph::{EdgeLabels, HeapGraph, KeyTotal, Label, RootKind, count_keys};
use rustc_hash::FxHashMap;

/// One parsed dump, ready to be grouped.
#[derive(Debug, Clone)]
pub struct Dump {
    /// When the dump was taken (ms since the epoch, from the file header).
    pub timestamp_ms: u64,
    pub classes: ClassTable,
    /// `group[node]` is the node's class index; `roots` are the nodes of GC roots.
    pub graph: HeapGraph,
    /// Each GC root record resolved to its node.
    pub root_kinds: Vec<(u32, RootKind)>,
    /// The class objects are the nodes from this one on, one per class dump.
    pub first_class_node: u32,
    /// The class index each class object stands for.
    pub class_of_class_node: Vec<u32>,
    /// The object layout the sizes were computed with (detected, or as given).
    pub layout: Layout,
}

impl Dump {
    /// A name for a node where the dump has one: the class a class object stands for.
    pub fn holder_name(&self, node: u32) -> Option<String> {
        let class = *self.class_of_class_node.get(node.checked_sub(self.first_class_node)? as usize)?;
        Some(format!("class {}", self.classes.names[class as usize]))
    }
}

/// The most an id lookup takes per id: a dense one's bitmap and ranks (12 bytes per 64 slots,
/// at most 32 slots per id), more than a sorted one's bucket starts (4 bytes per two ids).
const LOOKUP_BYTES_PER_ID: usize = 6;

/// Objects per parallel work item.
const CHUNK: usize = 1 << 14;
/// Objects per batch of work items whose references are in memory at once.
const BATCH: usize = CHUNK * 64;

pub fn resolve(data: &[u8], raw: RawDump<'_>, layout: &Layout) -> Result<Dump, Fault> {
    Ok(resolve_labelled(data, raw, layout, false)?.0)
}

/// [`resolve`], also naming every reference (`labelled`): instance fields by their names along
/// the superclass chain, array elements by index, a class's statics by name.
pub fn resolve_labelled(
    data: &[u8],
    raw: RawDump<'_>,
    layout: &Layout,
    labelled: bool,
) -> Result<(Dump, Option<EdgeLabels>), Fault> {
    let layout = &if layout.detect { crate::detect::detect(data, &raw).layout } else { *layout };
    let classes = ClassTable::build(&raw, layout)?;
    let mut names = FieldNames::default();
    let reference_labels: Vec<Vec<Label>> = if labelled {
        let labels = |i: &crate::classes::InstanceLayout| {
            i.reference_names.iter().map(|&id| names.label(&raw.strings, id)).collect()
        };
        classes.instances.iter().map(labels).collect()
    } else {
        Vec::new()
    };
    let ids_size = raw.id_size;
    let (offsets, ids) = sorted_objects(data, raw.objects, raw.object_ids)?;
    let objects = offsets.len();
    let nodes = objects + raw.classes.len();
    if nodes > crate::parse::MAX_OBJECTS {
        return Err(crate::parse::too_many_objects(data.len()));
    }
    // Where the graph's tables (a group, a size, an edge end and room for a reference per
    // node) and the lookup (at most 6 bytes per id) fit in memory beside the ids, the lookup is
    // made first: the ids a dense lookup lets go are then the pages of those tables, taken
    // again rather than fresh, and the import's peak is lower by the ids (a 96 M-object dump:
    // 7.35 GB → 6.64 GB, in the same time). Otherwise the order stays as below, placing the
    // tables in memory and in work files as before.
    let per_node = (size_of::<u32>() * 3 + size_of::<u64>() + LOOKUP_BYTES_PER_ID) as u64;
    let (early, ids) = match memcity_heapgraph::table::fits_in_memory((nodes as u64).saturating_mul(per_node))
    {
        true => (Some(IdLookup::new(ids)), Table::default()),
        false => (None, ids),
    };
    // Every node's table at its final size from the start; class objects follow the objects.
    let mut graph = HeapGraph {
        group: Table::filled(nodes, 0).into(),
        shallow: Table::filled(nodes, 0),
        edge_start: Table::filled(nodes + 1, 0),
        edges: Table::default(),
        roots: Vec::new(),
    };
    // The references' table, with room for one a node to start with (it grows like a Vec).
    let mut edges = Table::with_capacity(nodes);
    // Otherwise the lookup is made once the graph's tables are: past the budget, they go to
    // work files while the ids still hold their room, as they did when the ids were looked up
    // themselves (written once here, in order), and the room a dense lookup frees is left to
    // the tables made later — the depth-first search's numbers, read at random, above all:
    // with the references in memory instead, the search's numbers went to a work file and the
    // first import of a 96 M-object dump in a 2 GiB cgroup took 62-65 s instead of 47-49 s.
    let ids = early.unwrap_or_else(|| IdLookup::new(ids));
    let index = NodeIndex { ids: &ids, classes: &classes };
    // The references go straight into their table, a batch of work items at a time: each item
    // fills its objects' group, size and edge end (relative to its own edges) and returns its
    // edges, which are appended in order and dropped. Collecting every item's edges first would
    // hold all references in memory outside the budget at once.
    let mut labels: Table<Label> = Table::default();
    let mut totals = vec![KeyTotal::default(); classes.names.len()];
    for batch in (0..objects).step_by(BATCH) {
        let range = batch..(batch + BATCH).min(objects);
        let chunk_edges: Vec<(Vec<u32>, Vec<Label>)> = offsets[range.clone()]
            .par_chunks(CHUNK)
            .zip(graph.group.as_mut_slice()[range.clone()].par_chunks_mut(CHUNK))
            .zip(graph.shallow[range.clone()].par_chunks_mut(CHUNK))
            .zip(graph.edge_start[range.start + 1..=range.end].par_chunks_mut(CHUNK))
            .map(|(((offsets, group), shallow), edge_end)| {
                let mut out = Out {
                    edges: Vec::new(),
                    labels: Vec::new(),
                    names: labelled.then_some(&reference_labels[..]),
                };
                for (i, &offset) in offsets.iter().enumerate() {
                    (group[i], shallow[i]) = read_object(data, offset, ids_size, &index, layout, &mut out)?;
                    // Within the chunk; the whole count is checked before the chunk's base is added.
                    edge_end[i] = u32::try_from(out.edges.len())
                        .map_err(|_| too_many_references(out.edges.len(), nodes, offset))?;
                }
                Ok((out.edges, out.labels))
            })
            .collect::<Result<_, Fault>>()?;
        // The batch before is final and not read again while the others are resolved: its pages
        // go, as a table filled in order lets its chunks go (see `Table::let_go`).
        let before = range.start.saturating_sub(BATCH)..range.start;
        offsets.let_go(before.clone());
        graph.group.keys().let_go(before.clone());
        graph.shallow.let_go(before.clone());
        graph.edge_start.let_go(before);
        // The batch's objects are counted by class while their keys and sizes are at hand,
        // beside the appending of its references.
        let (keys, sizes) = (&graph.group.keys()[range.clone()], &graph.shallow[range.clone()]);
        let edge_start = &mut graph.edge_start;
        let append = || {
            let mut first = range.start + 1;
            for (chunk_edges, chunk_labels) in chunk_edges {
                check_references(edges.len() + chunk_edges.len(), nodes, data.len())?;
                let base = edges.len() as u32;
                let last = (first + CHUNK).min(range.end + 1);
                edge_start[first..last].iter_mut().for_each(|end| *end += base);
                first = last;
                edges.extend_from_slice(&chunk_edges);
                labels.extend_from_slice(&chunk_labels);
            }
            Ok::<_, Fault>(())
        };
        rayon::join(|| count_keys(&mut totals, range.start, keys, sizes), append).1?;
    }
    // The offsets are read; their room goes before the class objects' references are added.
    drop(offsets);
    let total = edges.len();
    let mut class_edges = Vec::new();
    let mut class_labels = Vec::new();
    for (k, class) in raw.classes.iter().enumerate() {
        graph.group.as_mut_slice()[objects + k] = classes.class_class;
        // HotSpot adds pseudo-statics such as `<resolved_references>`: references the class
        // holds, but not part of its static block.
        let pseudo = |name: u64| raw.strings.get(&name).is_some_and(|n| n.starts_with(b"<"));
        let statics = class.statics.iter().filter(|&&(name, _, _)| !pseudo(name));
        graph.shallow[objects + k] = layout.class_object(statics.map(|&(_, ty, _)| ty));
        let statics =
            class.statics.iter().filter(|&&(_, ty, _)| ty == OBJECT).map(|&(name, _, id)| (Some(name), id));
        for (name, id) in statics.chain([(None, class.loader_id)]) {
            let Some(node) = index.node(id) else { continue };
            class_edges.push(node);
            if labelled {
                class_labels.push(match name {
                    Some(name) => names.label(&raw.strings, name),
                    None => names.named("<class loader>"),
                });
            }
        }
        check_references(total + class_edges.len(), nodes, data.len())?;
        graph.edge_start[objects + k + 1] = (total + class_edges.len()) as u32;
    }
    edges.extend_from_slice(&class_edges);
    labels.extend_from_slice(&class_labels);
    count_keys(&mut totals, objects, &graph.group.keys()[objects..], &graph.shallow[objects..]);
    graph.group = std::mem::take(&mut graph.group).with_totals(totals);
    // What a table in memory grew by doubling beyond its length is given back.
    edges.shrink_to_fit();
    labels.shrink_to_fit();
    graph.edges = edges;

    let root_kinds: Vec<(u32, RootKind)> =
        raw.roots.iter().filter_map(|&(id, kind)| Some((index.node(id)?, kind))).collect();
    graph.roots = root_kinds.iter().map(|&(node, _)| node).collect();
    graph.roots.sort_unstable();
    graph.roots.dedup();
    let class_of_class_node = raw
        .classes
        .iter()
        .map(|c| classes.by_id.get(&c.id).copied().unwrap_or(classes.class_class))
        .collect();
    let dump = Dump {
        timestamp_ms: raw.timestamp_ms,
        classes,
        graph,
        root_kinds,
        first_class_node: objects as u32,
        class_of_class_node,
        layout: *layout,
    };
    Ok((dump, labelled.then_some(EdgeLabels { names: names.names, of_edge: labels })))
}

/// References are counted in `u32`s too (the reversed references' starts), with every object
/// possibly a root besides.
fn check_references(references: usize, nodes: usize, offset: usize) -> Result<(), Fault> {
    if references <= memcity_heapgraph::most_references(nodes) {
        return Ok(());
    }
    Err(too_many_references(references, nodes, offset))
}

fn too_many_references(references: usize, nodes: usize, offset: usize) -> Fault {
    let most = memcity_heapgraph::most_references(nodes);
    Fault::new(
        offset,
        format!(
            "{references} references among {nodes} objects: memcity counts references with 32 bits and reads at most {most} in all"
        ),
    )
}

/// The dump's strings by id.
type Strings<'a> = std::collections::HashMap<u64, &'a [u8]>;

/// Field names as labels, each name stored once.
#[derive(Default)]
struct FieldNames {
    by_id: FxHashMap<u64, Label>,
    names: Vec<String>,
    /// Where each name is in `names` (a dump has thousands of names, each looked up per class).
    at: FxHashMap<String, u32>,
}

impl FieldNames {
    fn label(&mut self, strings: &Strings<'_>, id: u64) -> Label {
        if let Some(&label) = self.by_id.get(&id) {
            return label;
        }
        let name = strings
            .get(&id)
            .map_or_else(|| format!("(field 0x{id:x})"), |b| String::from_utf8_lossy(b).into_owned());
        let label = self.named(&name);
        self.by_id.insert(id, label);
        label
    }

    fn named(&mut self, name: &str) -> Label {
        let at = match self.at.get(name) {
            Some(&at) => at,
            None => {
                self.names.push(name.to_string());
                let at = self.names.len() as u32 - 1;
                self.at.insert(name.to_string(), at);
                at
            }
        };
        Label::field(at)
    }
}

/// What reading objects produces: references, and their names when asked for.
struct Out<'a> {
    edges: Vec<u32>,
    labels: Vec<Label>,
    /// Per class, the names of its reference fields; `None` when no names are wanted.
    names: Option<&'a [Vec<Label>]>,
}

/// Object id -> node.
struct NodeIndex<'a> {
    ids: &'a IdLookup,
    classes: &'a ClassTable,
}

impl NodeIndex<'_> {
    fn node(&self, id: u64) -> Option<u32> {
        if id == 0 {
            return None;
        }
        match self.ids.find(id) {
            Some(i) => Some(i),
            None => self.classes.by_id.get(&id).map(|&c| (self.ids.len() + c as usize) as u32),
        }
    }
}

/// Object sub-record offsets ordered by object id, and those ids. HotSpot writes objects in
/// ascending id order, so the sort is only a fallback. The old HPROF agent writes most objects
/// twice, in later segments, as the program runs: of records of one id and one kind the last
/// is kept (the later state); records of one id and different kinds are refused.
pub(crate) fn sorted_objects(
    data: &[u8],
    offsets: Table<usize>,
    ids: Table<u64>,
) -> Result<(Table<usize>, Table<u64>), Fault> {
    let (mut offsets, mut ids) = (offsets, ids);
    if !ids.is_sorted() {
        // Sorted as (id, offset) pairs in one table, the two tables gone meanwhile: every table
        // here is within the budget (a heap of 100 M objects has 3 GB of these).
        let mut pairs = Table::filled(ids.len(), [0u64; 2]);
        pairs.par_iter_mut().zip(ids.par_iter().zip(offsets.par_iter())).for_each(
            |(pair, (&id, &offset))| {
                *pair = [id, offset as u64];
            },
        );
        drop((ids, offsets));
        pairs.par_sort_unstable();
        ids = Table::from_fn(pairs.len(), |i| pairs[i][0]);
        offsets = Table::from_fn(pairs.len(), |i| pairs[i][1] as usize);
    }
    if !ids.windows(2).any(|w| w[0] == w[1]) {
        return Ok((offsets, ids));
    }
    let (mut kept_offsets, mut kept_ids) =
        (Table::with_capacity(offsets.len()), Table::with_capacity(ids.len()));
    for i in 0..ids.len() {
        if i + 1 < ids.len() && ids[i + 1] == ids[i] {
            if data[offsets[i + 1]] != data[offsets[i]] {
                return Err(Fault::new(
                    offsets[i + 1],
                    format!(
                        "duplicate object id 0x{:x}: records of different kinds at bytes {} and {}",
                        ids[i],
                        offsets[i],
                        offsets[i + 1]
                    ),
                ));
            }
            continue;
        }
        kept_offsets.push(offsets[i]);
        kept_ids.push(ids[i]);
    }
    Ok((kept_offsets, kept_ids))
}

fn read_object(
    data: &[u8],
    offset: usize,
    ids: usize,
    index: &NodeIndex<'_>,
    layout: &Layout,
    out: &mut Out<'_>,
) -> Result<(u32, u64), Fault> {
    let mut c = Cursor::new(data, offset);
    let tag = c.u1("sub-record tag")?;
    c.bytes(ids + 4, "object id")?;
    let (class, size) = if tag == INSTANCE_DUMP {
        let class_pos = c.pos;
        let class_id = c.id(ids, "class id")?;
        let class = *index.classes.by_id.get(&class_id).ok_or_else(|| {
            Fault::new(
                class_pos,
                format!("instance of class 0x{class_id:x}, which the dump does not contain"),
            )
        })?;
        let length = c.u4("field bytes length")? as usize;
        let fields = c.bytes(length, "instance field values")?;
        let instance = &index.classes.instances[class as usize];
        if length != instance.dump_bytes {
            return Err(Fault::new(
                offset,
                format!(
                    "instance of {} has {length} bytes of fields but its class declares {}",
                    index.classes.names[class as usize], instance.dump_bytes
                ),
            ));
        }
        for (k, &at) in instance.references.iter().enumerate() {
            let at = at as usize;
            let Some(node) = index.node(read_id(&fields[at..at + ids])) else { continue };
            out.edges.push(node);
            if let Some(names) = out.names {
                out.labels.push(names[class as usize].get(k).copied().unwrap_or(Label::NONE));
            }
        }
        // Primitive types' mirrors (int.class, …) are instances of java.lang.Class.
        let size = if class == index.classes.class_class {
            layout.class_object([].into_iter())
        } else {
            instance.size
        };
        (class, size)
    } else if tag == OBJ_ARRAY_DUMP {
        let length = c.u4("array length")? as u64;
        let class_pos = c.pos;
        let class_id = c.id(ids, "array class id")?;
        let class = *index.classes.by_id.get(&class_id).ok_or_else(|| {
            Fault::new(class_pos, format!("array of class 0x{class_id:x}, which the dump does not contain"))
        })?;
        let elements = c.bytes(length as usize * ids, "array elements")?;
        for (i, e) in elements.chunks_exact(ids).enumerate() {
            let Some(node) = index.node(read_id(e)) else { continue };
            out.edges.push(node);
            if out.names.is_some() {
                out.labels.push(Label::index(i as u64));
            }
        }
        (class, layout.array(OBJECT, length))
    } else {
        let length = c.u4("array length")? as u64;
        let ty = c.u1("element type")?;
        value_size(ty, ids).ok_or_else(|| Fault::new(c.pos - 1, format!("invalid element type {ty}")))?;
        (index.classes.primitive_arrays[ty as usize], layout.array(ty, length))
    };
    Ok((class, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_out_of_id_order_are_sorted_keeping_the_last_record_of_an_id() {
        let data = [0x21u8, 0x21, 0x22, 0x21, 0x23];
        let table = |v: Vec<u64>| Table::from(v);
        let offsets = Table::from(vec![0usize, 1, 2, 3]);
        let (offsets, ids) = sorted_objects(&data, offsets, table(vec![30, 10, 20, 10])).unwrap();
        assert_eq!(ids, vec![10, 20, 30]);
        assert_eq!(offsets, vec![3, 2, 0], "the later record of id 10 is kept");
        let offsets = Table::from(vec![4usize, 1, 0]);
        let fault = sorted_objects(&data, offsets, table(vec![10, 5, 10])).unwrap_err();
        assert!(
            fault.message.starts_with("duplicate object id 0xa: records of different kinds"),
            "{}",
            fault.message
        );
    }

    #[test]
    fn counts_beyond_u32_are_one_line_refusals() {
        let most = memcity_heapgraph::VIRTUAL_ROOT as usize - 1;
        assert!(check_references(most - 10, 10, 0).is_ok());
        let fault = check_references(most - 9, 10, 77).unwrap_err();
        assert_eq!(fault.offset, 77);
        assert!(
            fault.message.contains("references among 10 objects: memcity counts references with 32 bits")
        );
        assert!(check_references(usize::MAX, 5, 0).is_err(), "no overflow");
        let fault = crate::parse::too_many_objects(5);
        assert!(fault.message.starts_with("more than 4278190077 objects"), "{}", fault.message);
        for message in [fault.message, check_references(most, 1, 0).unwrap_err().message] {
            assert!(!message.contains('\n'));
        }
    }
}
