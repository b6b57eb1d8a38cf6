//! One heap file with everything known of its objects (memcity_heapgraph's `TypedHeap`), for
//! the analyses of single objects (data structures): type names as the probe writes them
//! (`builtins.dict`), every reference's name where the file has names (version 2: attributes
//! `.name`, dict keys `['key']`, list and tuple items `[3]`), what the program calls its roots
//! (`module app`), and addresses as identity — CPython's `id()`, the same object's in every
//! snapshot of one process.

use std::path::Path;

use memcity_heapgraph::{
    EdgeLabels, HeapGraph, Label, ObjectTable, ObjectType, TypeKind, TypedHeap, reachable,
};
use std::collections::HashMap;

use crate::error::HeapFileError;
use crate::format::{HeapFile, LABEL_INDEX, LABEL_KEY, Meta, NO_NAME};
use crate::values::ValueTable;

/// A heap file's typed heap and what its producer says of it.
pub struct TypedFile {
    pub meta: Meta,
    /// The bytes of the objects reachable from the roots.
    pub reachable_bytes: u64,
    pub heap: TypedHeap,
    /// Its atoms' values (version 3; empty before), read through [`crate::FileValues`].
    pub values: ValueTable,
}

/// Reads and checks one heap file into a typed heap.
pub fn typed_heap(path: &Path) -> Result<TypedFile, HeapFileError> {
    Ok(typed_of(crate::read_file(path)?))
}

/// The typed heap of a checked heap file. Identity counts as stable where the file names the
/// process it came from (`pid` in META): a caller comparing files of two processes must clear
/// `identity_stable` (addresses of one process say nothing of another's).
pub fn typed_of(file: HeapFile) -> TypedFile {
    let HeapFile {
        meta,
        strings,
        sites,
        types: type_names,
        site,
        size,
        address,
        edge_start,
        edges,
        roots,
        labels,
        root_names,
        values,
    } = file;
    // Types by name, each once; sites by their innermost frame.
    let mut types: Vec<ObjectType> = Vec::new();
    let mut type_index: HashMap<u32, u32> = HashMap::new();
    let mut type_of: Vec<u32> = type_names
        .iter()
        .map(|&name| {
            *type_index.entry(name).or_insert_with(|| {
                types.push(ObjectType { name: strings[name as usize].clone(), kind: TypeKind::Instance });
                types.len() as u32 - 1
            })
        })
        .collect();
    // An object's own attribute dict (reached by a reference with the empty name) holds its
    // fields, not data of the program's: it is typed apart (`builtins.dict (attributes)`), so
    // descriptions of `builtins.dict` do not take a module's, class's or instance's namespace
    // for a structure, as a Java object's fields are none.
    let hidden = strings.iter().position(|s| s.is_empty()).map(|s| s as u32);
    if let Some(hidden) = hidden {
        let mut attribute_type: HashMap<u32, u32> = HashMap::new();
        for (&target, &l) in edges.iter().zip(&labels) {
            if l != hidden {
                continue;
            }
            let t = type_of[target as usize];
            let apart = *attribute_type.entry(t).or_insert_with(|| {
                let name = format!("{} (attributes)", types[t as usize].name);
                types.push(ObjectType { name, kind: TypeKind::Instance });
                types.len() as u32 - 1
            });
            type_of[target as usize] = apart;
        }
    }
    let frames: Vec<String> =
        sites.iter().map(|f| f.first().map_or_else(String::new, |&s| strings[s as usize].clone())).collect();
    let site_of = if frames.is_empty() { Default::default() } else { site };
    let of_edge: memcity_heapgraph::Table<_> = labels.iter().map(|&l| label(l)).collect();
    let mut named: Vec<(u32, String)> = roots
        .iter()
        .zip(&root_names)
        .filter(|(_, name)| **name != NO_NAME)
        .map(|(&(o, _), &name)| (o, strings[name as usize].clone()))
        .collect();
    // The first name of a root held twice.
    named.sort_by_key(|(o, _)| *o);
    named.dedup_by_key(|(o, _)| *o);
    let graph = HeapGraph {
        group: type_of.clone().into(),
        shallow: size,
        edge_start,
        edges,
        roots: roots.iter().map(|&(o, _)| o).collect(),
    };
    let live = reachable(&graph);
    let reachable_bytes = graph.shallow.iter().zip(&live).filter(|(_, l)| **l).map(|(s, _)| s).sum();
    let objects = ObjectTable {
        types,
        type_of: type_of.into(),
        sites: frames,
        site_of,
        identity: address,
        identity_stable: meta.pid.is_some(),
        labels: EdgeLabels { names: strings, of_edge },
        root_names: named,
        root_kinds: roots,
    };
    TypedFile { meta, reachable_bytes, heap: TypedHeap { graph, objects, tree: None }, values }
}

/// A NAME entry as a label (the reader checked that its string exists).
fn label(packed: u32) -> Label {
    match packed {
        NO_NAME => Label::NONE,
        l if l & LABEL_INDEX != 0 => Label::index(u64::from(l & !LABEL_INDEX)),
        l if l & LABEL_KEY != 0 => Label::key(l & !LABEL_KEY),
        l => Label::field(l),
    }
}
