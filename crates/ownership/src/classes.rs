//! The class node of every reachable object (docs/ownership.md, "Class nodes"), decided in the
//! dominator tree's preorder, so an object's owner is placed before it:
//!
//! - a part of a collection (its type is inside the collection's description) owned by that
//!   collection joins a node of its type split by the collection: the table of the HashMap in a
//!   Session apart from the table of the HashMap in the SessionManager;
//! - a collection is split by what refers to it: its immediate dominator's type — the
//!   collection's type where the dominator is a part of one, the class where it is a class
//!   object (a static field) — or the root's name where a root holds it;
//! - an object's own storage (referenced by a field with the empty name: a Python object's
//!   attribute dict) and what a large string dominates (its characters) belong to their
//!   owner's node;
//! - an array of at least [`Options::large_bytes`], or a string retaining that much, is a
//!   pseudo class of its type;
//! - a class object (HPROF's `class LeakApp`, which holds the statics) is its class;
//! - anything else is its type.

use memcity_heapgraph::{DominatorTree, Label, TypeKind, TypedHeap, VIRTUAL_ROOT};
use memcity_structures::CollectionTypes;
use rustc_hash::FxHashMap;

use crate::{Kind, Options};

/// The types whose objects are strings, by language (Java, V8, Python): their large ones are
/// pseudo classes.
pub const STRING_TYPES: [&str; 4] = ["java.lang.String", "(string)", "builtins.str", "builtins.bytes"];

/// A class node before cycles are collapsed.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseNode {
    pub kind: Kind,
    /// The type it is made of.
    pub type_index: u32,
    pub name: String,
    pub referrer: Option<String>,
    pub key: String,
    /// For a collection or one of its parts, the collection's head node (itself for a head).
    pub collection: Option<u32>,
    /// A large string: what it dominates belongs to it.
    pub absorbs: bool,
}

impl BaseNode {
    pub fn full_name(&self) -> String {
        match &self.referrer {
            Some(r) => format!("{} in {r}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Every object's base node.
#[derive(Debug, Clone, Default)]
pub struct BaseNodes {
    pub nodes: Vec<BaseNode>,
    /// Per object its node; `u32::MAX` for unreachable objects.
    pub of_object: Vec<u32>,
}

pub const NO_NODE: u32 = u32::MAX;

/// Places every reachable object of `heap` in its base node.
pub fn base_nodes(
    heap: &TypedHeap,
    tree: &DominatorTree,
    collections: &CollectionTypes,
    options: &Options,
) -> BaseNodes {
    let mut nodes = Nodes::new(heap);
    let storage = own_storage(heap);
    let mut of_object = vec![NO_NODE; heap.graph.object_count()];
    for &o in &tree.preorder {
        let d = tree.idom[o as usize];
        let owner = (d != VIRTUAL_ROOT).then(|| of_object[d as usize]);
        let t = heap.objects.type_of[o as usize];
        let joined = owner.and_then(|b| {
            let owner = &nodes.list[b as usize];
            match owner.collection {
                Some(head) if collections.is_part(nodes.list[head as usize].type_index, t) => {
                    Some(nodes.part(t, head))
                }
                _ if owner.absorbs || storage.get(o as usize).copied().unwrap_or(false) => Some(b),
                _ => None,
            }
        });
        of_object[o as usize] = match joined {
            Some(node) => node,
            None if collections.is_collection(t) => {
                let referrer = match owner {
                    None => Referrer::Root(o),
                    Some(b) => match nodes.list[b as usize].collection {
                        Some(head) => Referrer::Type(nodes.list[head as usize].type_index),
                        None if stands_for_a_class(heap, d) => Referrer::Named(d),
                        // The owner's type: its own storage (an attribute dict) is the owner.
                        None => Referrer::Type(nodes.list[b as usize].type_index),
                    },
                };
                nodes.collection(t, referrer)
            }
            None if stands_for_a_class(heap, o) => nodes.class_object(o),
            None => match large(heap, tree, o, t, options) {
                Some(string) => nodes.pseudo(t, string),
                None => nodes.of_type[t as usize],
            },
        };
    }
    BaseNodes { nodes: nodes.list, of_object }
}

/// The objects that are another's own storage, referenced by a field with the empty name (a
/// Python object's attribute dict holds its fields): they belong to their owner's node.
fn own_storage(heap: &TypedHeap) -> Vec<bool> {
    let labels = &heap.objects.labels;
    let Some(hidden) = labels.names.iter().position(String::is_empty) else { return Vec::new() };
    let hidden = Label::field(hidden as u32);
    let mut storage = vec![false; heap.graph.object_count()];
    for (&target, &label) in heap.graph.edges.iter().zip(&labels.of_edge) {
        if label == hidden {
            storage[target as usize] = true;
        }
    }
    storage
}

/// Whether `o` is a large array (`Some(false)`) or a large string (`Some(true)`).
fn large(heap: &TypedHeap, tree: &DominatorTree, o: u32, t: u32, options: &Options) -> Option<bool> {
    let ty = &heap.objects.types[t as usize];
    let array = matches!(ty.kind, TypeKind::ReferenceArray | TypeKind::PrimitiveArray);
    if array && heap.graph.shallow[o as usize] >= options.large_bytes {
        return Some(false);
    }
    let string = STRING_TYPES.contains(&ty.name.as_str());
    (string && tree.retained[o as usize] >= options.large_bytes).then_some(true)
}

/// Whether `o` is a class object the source names (`class LeakApp`): a collection in a static
/// field is split by its class, not by `java.lang.Class`.
fn stands_for_a_class(heap: &TypedHeap, o: u32) -> bool {
    heap.objects.type_name(o) == "java.lang.Class" && heap.objects.root_name(o).is_some()
}

/// What splits a collection: a type, a named object that dominates it (a class holding it in a
/// static field), or a root (by the root's own name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Referrer {
    Type(u32),
    Named(u32),
    Root(u32),
}

/// The base nodes made so far, each key once.
struct Nodes<'h> {
    heap: &'h TypedHeap,
    list: Vec<BaseNode>,
    by_key: FxHashMap<String, u32>,
    of_type: Vec<u32>,
    collections: FxHashMap<(u32, Referrer), u32>,
    parts: FxHashMap<(u32, u32), u32>,
    pseudo: FxHashMap<u32, u32>,
}

impl<'h> Nodes<'h> {
    /// With a class node per type (types of one name share it).
    fn new(heap: &'h TypedHeap) -> Nodes<'h> {
        let mut nodes = Nodes {
            heap,
            list: Vec::new(),
            by_key: FxHashMap::default(),
            of_type: Vec::new(),
            collections: FxHashMap::default(),
            parts: FxHashMap::default(),
            pseudo: FxHashMap::default(),
        };
        for (t, ty) in heap.objects.types.iter().enumerate() {
            let node = nodes.add(BaseNode {
                kind: Kind::Class,
                type_index: t as u32,
                name: ty.name.clone(),
                referrer: None,
                key: format!("class\u{1f}{}", ty.name),
                collection: None,
                absorbs: false,
            });
            nodes.of_type.push(node);
        }
        nodes
    }

    fn add(&mut self, node: BaseNode) -> u32 {
        let next = self.list.len() as u32;
        let at = *self.by_key.entry(node.key.clone()).or_insert(next);
        if at == next {
            self.list.push(node);
        }
        at
    }

    fn type_name(&self, t: u32) -> &'h str {
        &self.heap.objects.types[t as usize].name
    }

    fn collection(&mut self, t: u32, referrer: Referrer) -> u32 {
        if let Some(&node) = self.collections.get(&(t, referrer)) {
            return node;
        }
        let objects = &self.heap.objects;
        let by = match referrer {
            Referrer::Type(r) => self.type_name(r).to_string(),
            Referrer::Named(o) => objects.root_name(o).unwrap_or_default().to_string(),
            Referrer::Root(o) => objects.root_name(o).unwrap_or("GC roots").to_string(),
        };
        let name = self.type_name(t).to_string();
        let key = format!("collection\u{1f}{name}\u{1f}{by}");
        let next = self.list.len() as u32;
        let node = self.add(BaseNode {
            kind: Kind::Collection,
            type_index: t,
            name,
            referrer: Some(by),
            key,
            collection: Some(next),
            absorbs: false,
        });
        self.collections.insert((t, referrer), node);
        node
    }

    fn part(&mut self, t: u32, head: u32) -> u32 {
        if let Some(&node) = self.parts.get(&(t, head)) {
            return node;
        }
        let collection = &self.list[head as usize];
        let (referrer, head_key) = (collection.full_name(), collection.key.clone());
        let name = self.type_name(t).to_string();
        let key = format!("part\u{1f}{name}\u{1f}{head_key}");
        let node = self.add(BaseNode {
            kind: Kind::Collection,
            type_index: t,
            name,
            referrer: Some(referrer),
            key,
            collection: Some(head),
            absorbs: false,
        });
        self.parts.insert((t, head), node);
        node
    }

    /// A class object is a node of its own, named by its class (`class LeakApp`): its statics
    /// are the class's, and as one node `java.lang.Class` would tie every class that holds
    /// another, through its statics, into one cycle.
    fn class_object(&mut self, o: u32) -> u32 {
        let objects = &self.heap.objects;
        let name = objects.root_name(o).unwrap_or_default().to_string();
        self.add(BaseNode {
            kind: Kind::Class,
            type_index: objects.type_of[o as usize],
            key: format!("class object\u{1f}{name}"),
            name,
            referrer: None,
            collection: None,
            absorbs: false,
        })
    }

    fn pseudo(&mut self, t: u32, string: bool) -> u32 {
        if let Some(&node) = self.pseudo.get(&t) {
            return node;
        }
        let name = format!("large {}", self.type_name(t));
        let key = format!("pseudo\u{1f}{name}");
        let node = self.add(BaseNode {
            kind: Kind::Pseudo,
            type_index: t,
            name,
            referrer: None,
            key,
            collection: None,
            absorbs: string,
        });
        self.pseudo.insert(t, node);
        node
    }
}
