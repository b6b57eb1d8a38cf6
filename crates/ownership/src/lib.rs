//! Which classes own the heap (docs/ownership.md): every reachable object is put into a class
//! node — its class, a collection split by the type that refers to it, a part of such a
//! collection, or a pseudo class for a large array or string ([`classes`]); strongly connected
//! class nodes become cycle nodes ([`cycles`]); the object dominator tree then says which
//! class node owns which bytes, and contracted by class nodes it is the ownership tree, a class
//! node with several owners appearing once under each with exactly what that owner dominates
//! ([`tree`]). A [`Series`] pairs the trees of a program's snapshots: new objects, growth and
//! each node's history.

pub mod classes;
pub mod cycles;
pub mod layout;
pub mod series;
pub mod text;
pub mod tree;

pub use series::{Series, Snapshot};
pub use tree::{ownership, visible};

/// The default size from which an array or a string is a pseudo class of its own.
pub const LARGE_BYTES: u64 = 256 << 10;

/// How the graph is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Arrays of at least this many bytes, and strings holding at least this many, are pseudo
    /// classes (`large byte[]`) apart from the small ones of their type.
    pub large_bytes: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options { large_bytes: LARGE_BYTES }
    }
}

/// What a class node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Above the GC roots: owns the reachable heap.
    Root,
    Class,
    /// A collection split by what refers to it, or a part of one split by its collection.
    Collection,
    /// Strongly connected class nodes (one with a reference to its own kind included).
    Cycle,
    /// Large arrays or large strings of one type.
    Pseudo,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Root => "root",
            Kind::Class => "class",
            Kind::Collection => "collection",
            Kind::Cycle => "cycle",
            Kind::Pseudo => "pseudo",
        }
    }
}

/// A node of the class-level ownership graph.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassNode {
    pub kind: Kind,
    /// A type name, `large T` for a pseudo class, `cycle of …` for a cycle.
    pub name: String,
    /// What a collection is split by: the referring type (or the root holding it); for a part
    /// of a collection, that collection.
    pub referrer: Option<String>,
    /// A cycle's members by their full names, sorted.
    pub members: Vec<String>,
    /// The same class node in another snapshot has the same key.
    pub key: String,
    pub objects: u64,
    pub self_bytes: u64,
    /// Its self bytes and everything its objects own (over all its copies in the tree).
    pub owned_bytes: u64,
    /// The class nodes owning it and the bytes owned through each, largest first (empty for
    /// the root).
    pub parents: Vec<(u32, u64)>,
}

impl ClassNode {
    /// The name with what splits it: `java.util.HashMap in app.Session`.
    pub fn full_name(&self) -> String {
        match &self.referrer {
            Some(r) => format!("{} in {r}", self.name),
            None => self.name.clone(),
        }
    }
}

/// A node of the ownership tree: one class node under one chain of owners.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    /// Its class node.
    pub class: u32,
    pub parent: Option<u32>,
    /// Largest owned first.
    pub children: Vec<u32>,
    pub objects: u64,
    pub self_bytes: u64,
    /// `self_bytes` plus the children's owned bytes.
    pub owned_bytes: u64,
    /// Its share of its class node's owned bytes: 1 unless the class node has several copies.
    pub fraction: f64,
    /// Objects new since the previous snapshot of a series (0 in the first).
    pub new_objects: u64,
    /// Owned bytes since the previous snapshot of a series (negative where it shrank).
    pub growth_bytes: i64,
    /// The same place in another snapshot's tree has the same path (within one [`Series`]).
    pub path: u32,
}

/// One heap's ownership graph and tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Ownership {
    /// The reachable bytes: what the root owns.
    pub heap_bytes: u64,
    /// Class node 0 is the root.
    pub classes: Vec<ClassNode>,
    /// Tree node 0 is the root; a parent comes before its children.
    pub tree: Vec<TreeNode>,
}

impl Ownership {
    pub fn class_of(&self, t: u32) -> &ClassNode {
        &self.classes[self.tree[t as usize].class as usize]
    }
}

#[cfg(test)]
mod tests;
