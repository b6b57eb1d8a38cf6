//! One dump with everything known of its objects (memcity_heapgraph's `TypedHeap`): class names
//! as Java writes them (`java.lang.Object[]`), and every reference named — instance fields
//! along the superclass chain, array elements by index, statics by name on the class object —
//! for the analyses of single objects (data structures). Object addresses move between dumps,
//! so identity is left to field paths (`static CacheLeak.SERVICE .cache`).

use std::path::Path;

use memcity_heapgraph::{
    EdgeLabels, ObjectTable, ObjectType, RootSet, TreeSource, TypeKind, TypedHeap, dominators, root_sets,
};

use crate::error::HprofError;
use crate::index::{KeptTree, Opening};
use crate::layout::Layout;
use crate::resolve::Dump;
use crate::snapshot::hold_with_tree;

/// A dump's typed heap and when it was taken.
pub struct TypedDump {
    pub timestamp_ms: u64,
    /// Every object of a dump is alive: the JVM wrote only those.
    pub reachable_bytes: u64,
    pub heap: TypedHeap,
}

/// Reads one dump file into a typed heap, from its index in `index` where there is a good one
/// (see [`crate::index`]; `None`: always from the dump, writing no index). The dominator tree
/// kept beside the index comes with it; where the index has none yet, it is built now and
/// kept, since every analysis of a typed heap (data structures, ownership) reads it.
pub fn typed_heap(path: &Path, layout: &Layout, index: Option<&Path>) -> Result<TypedDump, HprofError> {
    let opening = Opening { layout: *layout, index: index.map(Path::to_path_buf), ..Opening::default() };
    let opened = crate::index::open_dump(path, &opening, true, &memcity_heapgraph::Silent)?;
    let (mut typed, held_by_vm) = typed_and_held(opened.dump, opened.labels.unwrap_or_default(), opened.tree);
    if let Some(place) = opened.keep_tree {
        let kept = KeptTree { tree: dominators(&typed.heap.graph), held_by_vm };
        crate::index::keep_tree(&place, &kept);
        typed.heap.tree = Some(kept.tree);
    }
    Ok(typed)
}

/// A dump and its references' names as a typed heap, with the dominator tree `kept` from an
/// earlier opening where there is one.
pub(crate) fn typed_of_dump(dump: Dump, labels: EdgeLabels, kept: Option<KeptTree>) -> TypedDump {
    typed_and_held(dump, labels, kept).0
}

/// [`typed_of_dump`], and the objects no root record reaches, which the VM holds.
fn typed_and_held(mut dump: Dump, labels: EdgeLabels, kept: Option<KeptTree>) -> (TypedDump, Vec<u32>) {
    let mut roots = root_sets(dump.graph.object_count(), dump.root_kinds.iter().copied());
    let (held_by_vm, tree) = hold_with_tree(&mut dump, &mut roots, kept, false);
    let tree = match tree {
        TreeSource::Known(tree) => Some(tree),
        TreeSource::Build | TreeSource::BuildAndKeep => None,
    };
    let objects = object_table(&dump, dump.graph.group.keys().clone(), labels, &roots);
    let reachable_bytes = dump.graph.shallow.iter().sum();
    let heap = TypedHeap { graph: dump.graph, objects, tree };
    (TypedDump { timestamp_ms: dump.timestamp_ms, reachable_bytes, heap }, held_by_vm)
}

/// What is known of a dump's objects besides the graph: `type_of` is each object's class
/// (the graph's groups before grouping), `roots` its root kinds with the VM's own for objects
/// no root record reaches ([`hold_unreached`]).
pub(crate) fn object_table(
    dump: &Dump,
    type_of: memcity_heapgraph::Table<u32>,
    labels: EdgeLabels,
    roots: &[RootSet],
) -> ObjectTable {
    let primitive = |class: usize| dump.classes.primitive_arrays.contains(&(class as u32));
    let types = dump
        .classes
        .names
        .iter()
        .enumerate()
        .map(|(class, name)| {
            let kind = match name.starts_with('[') {
                true if primitive(class) => TypeKind::PrimitiveArray,
                true => TypeKind::ReferenceArray,
                false => TypeKind::Instance,
            };
            ObjectType { name: source_name(name), kind }
        })
        .collect();
    let root_names = (dump.first_class_node..dump.graph.object_count() as u32)
        .filter_map(|node| Some((node, dump.holder_name(node)?)))
        .collect();
    ObjectTable {
        types,
        type_of,
        // Addresses move between dumps: no id worth a table (26 M objects: 200 MB).
        identity: Default::default(),
        identity_stable: false,
        labels,
        root_names,
        // With the objects no root record reaches, which the VM holds itself.
        root_kinds: roots
            .iter()
            .enumerate()
            .flat_map(|(o, set)| set.kinds().map(move |kind| (o as u32, kind)))
            .collect(),
        ..ObjectTable::default()
    }
}

/// When a dump was taken (ms since the epoch), from its header alone: a series is put in
/// order without reading whole dumps.
pub fn dump_time(path: &Path) -> Result<u64, HprofError> {
    use std::io::Read;
    let fail = |what: &str| HprofError::new(path.display().to_string(), what.to_string());
    let mut file = std::fs::File::open(path).map_err(|e| fail(&format!("cannot read: {e}")))?;
    let mut head = [0u8; 2];
    file.read_exact(&mut head).map_err(|_| fail("not an HPROF heap dump: too short"))?;
    let file = std::fs::File::open(path).map_err(|e| fail(&format!("cannot read: {e}")))?;
    let mut reader: Box<dyn Read> =
        if head == [0x1f, 0x8b] { Box::new(flate2::read::MultiGzDecoder::new(file)) } else { Box::new(file) };
    let mut header = Vec::with_capacity(64);
    (&mut reader).take(64).read_to_end(&mut header).map_err(|e| fail(&format!("cannot read: {e}")))?;
    let end = header.iter().position(|&b| b == 0).filter(|_| header.starts_with(b"JAVA PROFILE 1.0."));
    let at = end
        .ok_or_else(|| fail("not an HPROF heap dump: the file does not start with \"JAVA PROFILE 1.0.\""))?
        + 5;
    let time = header.get(at..at + 8).ok_or_else(|| fail("truncated dump header"))?;
    Ok(u64::from_be_bytes(time.try_into().expect("8 bytes")))
}

pub use memcity_model::names::source_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_dump_names_its_references() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof");
        let file = std::fs::read_dir(&path)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| crate::source::is_dump(p))
            .min()
            .expect("a sample dump");
        let typed = typed_heap(&file, &Layout::default(), None).unwrap();
        let heap = &typed.heap;
        let o = &heap.objects;
        assert_eq!(heap.graph.edges.len(), o.labels.of_edge.len(), "a name per reference");
        // The static field holding the cache, named on the class object.
        let leak_app = o.root_names.iter().find(|(_, n)| n == "class LeakApp").expect("LeakApp's class").0;
        let statics: Vec<String> = heap.graph.edge_range(leak_app).filter_map(|e| o.labels.text(e)).collect();
        assert!(statics.contains(&".CACHE".to_string()), "{statics:?}");
        // Linked list nodes point to their items by field name, arrays by index.
        let node =
            o.type_of.iter().position(|&t| o.types[t as usize].name == "java.util.LinkedList$Node").unwrap();
        let names: Vec<String> =
            heap.graph.edge_range(node as u32).filter_map(|e| o.labels.text(e)).collect();
        assert!(names.contains(&".item".to_string()), "{names:?}");
        assert!(o.types.iter().any(|t| t.name == "java.lang.Object[]" && t.kind == TypeKind::ReferenceArray));
        assert!(o.types.iter().any(|t| t.name == "byte[]" && t.kind == TypeKind::PrimitiveArray));
        assert!(
            o.labels.of_edge.iter().any(|l| matches!(l.get(), Some(memcity_heapgraph::LabelKind::Index(_))))
        );
        assert_eq!(typed.reachable_bytes, heap.graph.shallow.iter().sum::<u64>());
        assert_eq!(dump_time(&file).unwrap(), typed.timestamp_ms);
        let not_a_dump = std::env::temp_dir().join(format!("memcity-not-a-dump-{}", std::process::id()));
        std::fs::write(&not_a_dump, b"PK\x03\x04 a zip file").unwrap();
        assert!(dump_time(&not_a_dump).unwrap_err().to_string().contains("not an HPROF heap dump"));
        let _ = std::fs::remove_file(&not_a_dump);
    }
}
