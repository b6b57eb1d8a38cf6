//! The description language (docs/structures.md): which types make up a data structure.
//!
//! ```text
//! namespace java.util;            // bare names below mean java.util.NAME
//! DS LinkedList { *; }            // a head: where a structure starts
//! LinkedList$Node {               // an internal part
//!     LinkedList$Node;            // points to more of the structure
//!     (*);                        // and to leaves of any type
//! }
//! ```
//!
//! Names may hold `*` wildcards; a name in parentheses is a leaf; names with spaces or
//! parentheses (V8's `(object elements)`) are written in double quotes. Comments run from `//`
//! or `#` to the end of the line.

use std::path::Path;

use thiserror::Error;

mod lex;
mod parse;

pub use parse::parse;

/// The largest description file read (a user's own, given with `--structures`).
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// The longest type name.
pub(crate) const MAX_NAME: usize = 1024;

/// A type a part points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointedTo {
    /// A type name, possibly with `*` wildcards.
    pub pattern: String,
    /// Whether objects of this type are leaves: they belong to the structure but the descent
    /// stops there.
    pub leaf: bool,
}

/// What a part of a structure holds for its reader (docs/structures.md, "Entries").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleKind {
    /// `key PATH;`: each such part is one entry of a map, its key at PATH; where PATH and the
    /// `value` path reach several objects (a Python dict's keys and values), they are paired
    /// in order, one entry each.
    Key,
    /// `value PATH;`: the value of that entry.
    Value,
    /// `element PATH;`: each object at PATH is an element of a list, in order.
    Element,
    /// `keys PATH;`: the elements are the keys of the structure at PATH (a set over a map).
    Keys,
    /// `walk PATH;`: the walk over the structure goes to PATH first, so a linked list reads
    /// first to last whatever order a dump writes its fields in.
    Walk,
    /// `entries PATH;`: the entries of the structure at PATH are this one's, as they are (a
    /// JDK 9+ Properties keeps its own in a ConcurrentHashMap).
    Entries,
    /// `keyset PATH;`: every object at PATH is a key of the structure, with no value paired
    /// (a Python set's elements).
    Keyset,
    /// `pairs PATH;`, PATH ending in `[*]`: the elements alternate key and value by index
    /// (element 2k is entry k's key, 2k+1 its value), an index without a reference a side the
    /// source does not show (V8 numbers a Map's table so, docs/structures.md).
    Pairs,
    /// `requires PATH;` on a head: an object of the type is a structure only where PATH leads
    /// to an object (a JavaScript object is a dictionary only with a properties store).
    Requires,
}

/// One step of a role's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `.name`: the reference named so.
    Field(String),
    /// `[*]`: every element of an array, in index order.
    Each,
    /// `?`: every reference the source names nothing for.
    Unnamed,
    /// `['*']`: every reference named by a dict key (a Python dict's values), in order.
    Keyed,
}

/// A role of a described type: what is found at a path of references from its objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    pub kind: RoleKind,
    pub path: Vec<Step>,
}

/// One described type: a head or an internal part, and the types it may point to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub pattern: String,
    pub head: bool,
    pub pointed_to: Vec<PointedTo>,
    /// What its objects hold as entries of the structure (keys, values, elements).
    pub roles: Vec<Role>,
    /// Where it was written, for warnings: `file:line`.
    pub origin: String,
}

/// Descriptions from one or more files, in the order read: a later description of the same
/// pattern replaces an earlier one, so a user's file overrides the built-in ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Descriptions {
    pub list: Vec<Description>,
}

impl Descriptions {
    /// Adds `more` after these; its descriptions replace those of the same pattern here.
    pub fn extend(&mut self, more: Descriptions) {
        self.list.extend(more.list);
        self.list = keep_last(std::mem::take(&mut self.list));
    }
}

/// The list without the descriptions that a later one of the same pattern replaces, in the
/// order of the ones kept. Linear: a file of many tiny descriptions must not take quadratic
/// time.
pub(crate) fn keep_last(list: Vec<Description>) -> Vec<Description> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut kept: Vec<Description> =
        list.into_iter().rev().filter(|d| seen.insert(d.pattern.clone())).collect();
    kept.reverse();
    kept
}

/// A description file that cannot be read: one line, `FILE:LINE:COLUMN: message`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The built-in descriptions: the JDK's collections, JavaScript's and Python's.
pub fn builtin() -> Descriptions {
    let mut all = Descriptions::default();
    for (name, text) in BUILTIN {
        all.extend(parse(name, text).expect("the built-in descriptions parse"));
    }
    all
}

/// The built-in description files, by name.
pub const BUILTIN: [(&str, &str); 3] = [
    ("data/structures/java.ds", include_str!("../../../data/structures/java.ds")),
    ("data/structures/javascript.ds", include_str!("../../../data/structures/javascript.ds")),
    ("data/structures/python.ds", include_str!("../../../data/structures/python.ds")),
];

/// Reads a description file, or every `*.ds` file of a folder in name order.
pub fn load_path(path: &Path) -> Result<Descriptions, ParseError> {
    let fail = |message: String| ParseError { file: path.display().to_string(), line: 0, column: 0, message };
    let files = if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| fail(format!("cannot read the folder: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "ds") && p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(fail("no .ds description files in this folder".into()));
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut all = Descriptions::default();
    for file in files {
        let fail =
            |message: String| ParseError { file: file.display().to_string(), line: 0, column: 0, message };
        let size = std::fs::metadata(&file).map_err(|e| fail(format!("cannot read: {e}")))?.len();
        if size > MAX_FILE_BYTES {
            return Err(fail(format!(
                "{size} bytes: larger than the {MAX_FILE_BYTES} bytes a description file may have"
            )));
        }
        let bytes = std::fs::read(&file).map_err(|e| fail(format!("cannot read: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| fail(format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to())))?;
        all.extend(parse(&file.display().to_string(), &text)?);
    }
    Ok(all)
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
pub fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests;
