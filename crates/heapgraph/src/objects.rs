//! What a source knows of each object beyond its group: its type, allocation site and identity,
//! and the name of each reference. The grouping pipeline needs none of it; the analyses of single
//! objects do (data structures, ownership, field names on retainer paths), so a source hands it
//! out beside its [`HeapGraph`] as a [`TypedHeap`].

use std::borrow::Cow;

use memcity_model::HeapMetrics;

use crate::HeapGraph;
use crate::dominators::DominatorTree;
use crate::roots::RootKind;

/// How a type's instances hold references, which decides how a data-structure description
/// applies to them (reference arrays point to `*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TypeKind {
    /// An object with fields (or properties).
    #[default]
    Instance,
    /// An array of references: `Object[]`, V8's elements backing stores, a Python list's items.
    ReferenceArray,
    /// An array of primitives: `byte[]`, strings' characters.
    PrimitiveArray,
    /// Anything else the engine has (code, strings, native objects).
    Other,
}

/// One type of a heap.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectType {
    /// As the source names it: `java.util.HashMap$Node`, `Map`, `dict`.
    pub name: String,
    pub kind: TypeKind,
}

/// A reference's name, packed in a `u32`: a field (an index into [`EdgeLabels::names`]), a key
/// of a hash table (also a name's index), an element index, or nothing known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Label(u32);

// SAFETY: one `u32`, and every `u32` is a label (names beyond a table read as unknown).
unsafe impl crate::table::Plain for Label {}

impl Label {
    const INDEX: u32 = 1 << 31;
    const KEY: u32 = 1 << 30;
    /// The names a label can point to (`0..NAMES`).
    pub const NAMES: u32 = Self::KEY;
    /// A reference the source names nothing for.
    pub const NONE: Label = Label(u32::MAX);

    /// The field, property or attribute named `names[name]` (`name` below [`Label::NAMES`]).
    pub fn field(name: u32) -> Label {
        debug_assert!(name < Self::NAMES);
        Label(name & (Self::NAMES - 1))
    }

    /// The value of a hash table (a Python dict) under the key written `names[name]`, as the
    /// source writes keys (`'sessions'`, `42`); `name` below [`Label::NAMES`].
    pub fn key(name: u32) -> Label {
        debug_assert!(name < Self::NAMES);
        Label(Self::KEY | (name & (Self::NAMES - 1)))
    }

    /// Element `index` of an array (larger indices saturate at 2³¹ − 2).
    pub fn index(index: u64) -> Label {
        Label(Self::INDEX | index.min(u64::from(Self::INDEX - 2)) as u32)
    }

    pub fn get(self) -> Option<LabelKind> {
        match self {
            Label::NONE => None,
            Label(i) if i & Self::INDEX != 0 => Some(LabelKind::Index(i & !Self::INDEX)),
            Label(k) if k & Self::KEY != 0 => Some(LabelKind::Key(k & !Self::KEY)),
            Label(name) => Some(LabelKind::Field(name)),
        }
    }
}

/// What a [`Label`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelKind {
    Field(u32),
    Key(u32),
    Index(u32),
}

/// The name of every reference, parallel to [`HeapGraph::edges`]. Empty when the source names
/// none. A table like the references (in a work file past the memory budget).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EdgeLabels {
    pub names: Vec<String>,
    pub of_edge: crate::Table<Label>,
}

impl EdgeLabels {
    /// How edge `edge` is written on a path: `.next`, `['key']`, `[3]`, or `None` when unknown.
    /// A field with an empty name is a reference a path does not show (`Some("")`): a Python
    /// object's reference to its own attribute dict, whose entries are its attributes.
    pub fn text(&self, edge: usize) -> Option<String> {
        match self.of_edge.get(edge)?.get()? {
            LabelKind::Field(name) => match self.names.get(name as usize)?.as_str() {
                "" => Some(String::new()),
                name => Some(format!(".{name}")),
            },
            LabelKind::Key(name) => Some(format!("[{}]", self.names.get(name as usize)?)),
            LabelKind::Index(i) => Some(format!("[{i}]")),
        }
    }
}

/// The per-object facts of a heap, each table indexed by object (`0..n` as in the graph).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectTable {
    pub types: Vec<ObjectType>,
    /// Each object's type, an index into `types` (a table: past the budget, a work file).
    pub type_of: crate::Table<u32>,
    /// Allocation sites as the source writes them (`Registry.register`, `app.js:12`); empty when
    /// the source has none.
    pub sites: Vec<String>,
    /// Per object an index into `sites`, or [`NO_SITE`]; empty when the source has no sites.
    pub site_of: crate::Table<u32>,
    /// The source's own id of each object: a trace's object id, a V8 node id, the probe's id;
    /// empty where the source has none that outlives one heap (HPROF: addresses move).
    pub identity: crate::Table<u64>,
    /// Whether `identity` names the same object in every heap of one program (trace, V8 and
    /// probe ids do; HPROF addresses move when the GC compacts).
    pub identity_stable: bool,
    pub labels: EdgeLabels,
    /// What the source calls the roots it can name (`static app.Registry.people`), by object,
    /// sorted by object.
    pub root_names: Vec<(u32, String)>,
    /// Why each GC root is one: `(object, kind)`, an object held by several kinds listed once
    /// per kind (what [`crate::root_sets`] takes).
    pub root_kinds: Vec<(u32, RootKind)>,
}

/// `site_of` for an object whose allocation site is unknown.
pub const NO_SITE: u32 = u32::MAX;

impl ObjectTable {
    pub fn type_name(&self, o: u32) -> &str {
        &self.types[self.type_of[o as usize] as usize].name
    }

    pub fn root_name(&self, o: u32) -> Option<&str> {
        let at = self.root_names.binary_search_by_key(&o, |(r, _)| *r).ok()?;
        Some(&self.root_names[at].1)
    }

    pub fn site(&self, o: u32) -> Option<&str> {
        let site = *self.site_of.get(o as usize)?;
        self.sites.get(site as usize).map(String::as_str)
    }
}

/// A heap with everything known of its objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TypedHeap {
    pub graph: HeapGraph,
    pub objects: ObjectTable,
    /// The graph's dominator tree where the source kept one from an earlier opening (an HPROF
    /// index keeps it beside the dump); [`TypedHeap::dominators`] builds it otherwise.
    pub tree: Option<DominatorTree>,
}

impl TypedHeap {
    /// The graph's dominator tree: the one kept, else built now.
    pub fn dominators(&self) -> Cow<'_, DominatorTree> {
        match &self.tree {
            Some(tree) => Cow::Borrowed(tree),
            None => Cow::Owned(crate::dominators(&self.graph)),
        }
    }
}

/// The typed heap of one snapshot of a series (a GC of a trace, one dump of a series).
#[derive(Debug, Clone)]
pub struct TypedSnapshot {
    /// Its index in the series' history.
    pub index: usize,
    pub time_ms: u64,
    /// The bytes reachable from the GC roots.
    pub reachable_bytes: u64,
    /// What the source's import calls the snapshot (`GC #3`, the dump's file name), so a
    /// history built from typed heaps reads like the import's.
    pub label: String,
    /// What the source measured besides the reachable bytes (a trace's GC times).
    pub metrics: HeapMetrics,
    pub heap: TypedHeap,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_pack_fields_and_indices_apart() {
        let labels = EdgeLabels {
            names: vec!["next".into(), "item".into(), "'sessions'".into(), String::new()],
            of_edge: vec![
                Label::field(0),
                Label::index(3),
                Label::NONE,
                Label::field(1),
                Label::index(u64::MAX),
                Label::key(2),
                Label::field(3),
                Label::key(9),
            ]
            .into(),
        };
        assert_eq!(labels.text(0).as_deref(), Some(".next"));
        assert_eq!(labels.text(1).as_deref(), Some("[3]"));
        assert_eq!(labels.text(2), None);
        assert_eq!(labels.text(3).as_deref(), Some(".item"));
        assert_eq!(labels.text(4).as_deref(), Some("[2147483646]"));
        assert_eq!(labels.text(5).as_deref(), Some("['sessions']"));
        assert_eq!(labels.text(6).as_deref(), Some(""), "an empty name is a step paths do not show");
        assert_eq!(labels.text(7), None, "a key beyond the names has no name");
        assert_eq!(labels.text(9), None, "edges beyond the table have no name");
        assert_eq!(Label::key(7).get(), Some(LabelKind::Key(7)));
        assert_eq!(Label::index(7).get(), Some(LabelKind::Index(7)));
        assert_eq!(Label::field(7).get(), Some(LabelKind::Field(7)));
    }
}
