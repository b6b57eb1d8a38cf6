//! Looking inside one snapshot (docs/objects.md): the objects of a group, the entries of a data
//! structure, or one object by its id, each with its fields and values, its shallow and
//! retained size. A pure function from a typed heap, a reader of its values and a target to a
//! plain, serializable result, for the command line (`memcity objects`) and the app alike.

use memcity_heapgraph::{
    Classifier, Contents, FieldValue, Grouper, InStructure, TypedHeap, Value, Values, root_sets,
};
use serde::Serialize;
use thiserror::Error;

use crate::city::{Unsupported, check, facts};
use crate::detect::detect;
use crate::entries::{Entry, Roles, Slot, entries};
use crate::lang::Descriptions;
use crate::measure::{Options, measure_detected};

pub mod around;

/// Array elements shown per array.
pub const ELEMENTS: usize = 10;

/// What to look inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A leaf group's key in the input's default grouping.
    Group(String),
    /// A data structure by its field path (`static CacheLeak.SERVICE .cache`).
    Structure(String),
    /// An object by the source's own id.
    Object(String),
}

/// Why a target cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LookError {
    #[error("no object has the id \"{0}\" in this snapshot{1}")]
    NoObject(String, &'static str),
    #[error("no data structure has the path \"{0}\" in this snapshot{1}")]
    NoStructure(String, String),
    #[error("no group has the key \"{0}\" in this snapshot{1}")]
    NoGroup(String, String),
    #[error("--group: {0}")]
    Grouping(String),
}

/// A value as JSON carries it exactly: integers beyond 2^53, NaN and the infinities as text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Shown {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

/// A field or an array element.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldShown {
    /// The field's name, or `[i]` for an element.
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// A primitive's value, a string's text, a boxed value; `null` for a null reference;
    /// absent for other references.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Shown>,
    /// A reference's object id, `null` for a null one; absent for primitives.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<Option<String>>,
}

/// One object with its contents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectShown {
    pub id: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub shallow_bytes: u64,
    pub retained_bytes: u64,
    /// A string's text or a boxed value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Shown>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<FieldShown>>,
    /// An array's length; where `value` is only the beginning of a text (a heap file's short
    /// values), the whole text's length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// An array's first [`ELEMENTS`] elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<Vec<FieldShown>>,
    /// Its path from a GC root in field names (the objects looked at, not an entry's sides).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How many references lead to it, and the first [`around::REFERRERS`] of their holders
    /// (the objects looked at).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub referrer_count: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub referrers: Vec<around::Referrer>,
}

/// One entry: a map's key and value, a set's key, a list's value at its index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryShown {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<Option<ObjectShown>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Option<ObjectShown>>,
    /// The sides (`key`, `value`) the snapshot does not show: V8 writes no node for a small
    /// integer, `undefined`, `null` or a boolean in a Map's table.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<&'static str>,
}

/// What the target is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetShown {
    /// `group`, `structure` or `object`.
    pub kind: &'static str,
    /// The key, path or id as asked for.
    pub name: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// A group's objects, or 1.
    pub objects: u64,
    /// A structure's entries (all of them, not only those shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
}

/// Inside one target at one time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspection {
    pub time: usize,
    pub target: TargetShown,
    pub entries: Vec<EntryShown>,
    pub objects: Vec<ObjectShown>,
}

/// One snapshot and what is needed to look inside it.
pub struct Snapshot<'a> {
    pub time: usize,
    pub heap: &'a TypedHeap,
    pub values: &'a dyn Values,
    pub descriptions: &'a Descriptions,
    /// The input's default grouping, for group keys.
    pub classifiers: &'a [Classifier],
    /// How a source writes its ids, for errors (` (HPROF ids are addresses: 0x…)`).
    pub id_hint: &'static str,
}

/// Looks inside `target`: a group's objects (the largest retained first), a structure's head
/// and its entries, or one object (and its entries where it is a structure's head); `limit`
/// objects or entries at most.
pub fn look(s: &Snapshot<'_>, target: &Target, limit: usize) -> Result<Inspection, LookError> {
    let tree = s.heap.dominators();
    let retained = &tree.retained;
    let show = |o: u32| object(s, retained, o);
    let (target_shown, heads, entries_of) = match target {
        Target::Object(id) => {
            let o = s.values.find(id).ok_or_else(|| LookError::NoObject(id.clone(), s.id_hint))?;
            let target = TargetShown {
                kind: "object",
                name: id.clone(),
                type_name: Some(s.heap.objects.type_name(o).to_string()),
                objects: 1,
                entries: None,
            };
            (target, vec![o], Some(o))
        }
        Target::Structure(path) => {
            let head = structure(s, path)?;
            let target = TargetShown {
                kind: "structure",
                name: path.clone(),
                type_name: Some(s.heap.objects.type_name(head).to_string()),
                objects: 1,
                entries: None,
            };
            (target, vec![head], Some(head))
        }
        Target::Group(key) => {
            let mut members = group(s, key)?;
            let count = members.len() as u64;
            members.sort_by_key(|&o| (std::cmp::Reverse(retained[o as usize]), o));
            members.truncate(limit);
            let target = TargetShown {
                kind: "group",
                name: key.clone(),
                type_name: None,
                objects: count,
                entries: None,
            };
            (target, members, None)
        }
    };
    let mut inspection = Inspection {
        time: s.time,
        target: target_shown,
        entries: Vec::new(),
        objects: heads.iter().map(|&o| show(o)).collect(),
    };
    around::fill(s.heap, s.values, &heads, &mut inspection.objects);
    if let Some(head) = entries_of {
        let found = detect(s.heap, s.descriptions);
        if let Some(i) = found.instance_of(head) {
            let roles = Roles::new(s.heap, s.descriptions);
            let all = entries(s.heap, &found, &roles, i, usize::MAX);
            inspection.target.entries = Some(all.len() as u64);
            inspection.entries =
                all.iter().take(limit).enumerate().map(|(k, e)| entry(k, e, &show)).collect();
        }
    }
    Ok(inspection)
}

fn entry(k: usize, e: &Entry, show: &dyn Fn(u32) -> ObjectShown) -> EntryShown {
    let side = |slot: Slot| match slot {
        Slot::Absent | Slot::Unknown => None,
        Slot::Null => Some(None),
        Slot::Object(o) => Some(Some(show(o))),
    };
    let index = (e.key == Slot::Absent).then_some(k);
    let unknown = [("key", e.key), ("value", e.value)].into_iter().filter(|s| s.1 == Slot::Unknown);
    EntryShown { index, key: side(e.key), value: side(e.value), unknown: unknown.map(|s| s.0).collect() }
}

/// The head of the structure at `path` (as `memcity structures` names it, in full or shown).
fn structure(s: &Snapshot<'_>, path: &str) -> Result<u32, LookError> {
    let options = Options { deep: false, leaves: false };
    let (measured, _) = measure_detected(s.heap, s.descriptions, options);
    let found = measured.instances.iter().find(|m| m.path == path || m.key.to_string() == path);
    found.map(|m| m.head).ok_or_else(|| {
        let mut largest: Vec<_> = measured.top_level().collect();
        largest.sort_by_key(|m| std::cmp::Reverse(m.measure.retained.bytes));
        let names: Vec<String> = largest.iter().take(3).map(|m| format!("\"{}\"", m.path)).collect();
        let hint =
            if names.is_empty() { String::new() } else { format!("; the largest: {}", names.join(", ")) };
        LookError::NoStructure(path.to_string(), hint)
    })
}

/// The objects of the leaf group `key` in the default grouping.
fn group(s: &Snapshot<'_>, key: &str) -> Result<Vec<u32>, LookError> {
    let (grouper, leaves) = match leaf_groups(s.heap, s.classifiers) {
        Ok(grouped) => grouped,
        // A grouping typed heaps cannot reproduce (V8's node types) whose keys end with the
        // type: the group's objects are those of that type.
        Err(e) if s.classifiers.last() == Some(&Classifier::Type) => {
            let Some((_, name)) = key.rsplit_once("#Type:") else {
                return Err(LookError::NoGroup(key.to_string(), " (keys end with #Type:NAME)".into()));
            };
            let objects = &s.heap.objects;
            let found: Vec<u32> =
                (0..objects.type_of.len() as u32).filter(|&o| objects.type_name(o) == name).collect();
            return match found.is_empty() {
                true => Err(LookError::NoGroup(
                    key.to_string(),
                    format!(" (no object has the type {name:?}; {e})"),
                )),
                false => Ok(found),
            };
        }
        Err(e) => return Err(LookError::Grouping(e.to_string())),
    };
    let Some(wanted) = grouper.group_of_key(key) else {
        let example = leaves.first().map(|&g| format!(" (keys read like \"{}\")", grouper.leaf_key(g)));
        return Err(LookError::NoGroup(key.to_string(), example.unwrap_or_default()));
    };
    Ok((0..leaves.len() as u32).filter(|&o| leaves[o as usize] == wanted).collect())
}

/// Every object's leaf group under `classifiers` (what a source's import with that grouping
/// gives it, for the facts a typed heap has), and the grouper that names them.
pub fn leaf_groups(heap: &TypedHeap, classifiers: &[Classifier]) -> Result<(Grouper, Vec<u32>), Unsupported> {
    check(classifiers)?;
    let objects = &heap.objects;
    let n = heap.graph.object_count();
    let roots = root_sets(n, objects.root_kinds.iter().copied());
    let mut grouper = Grouper::new(classifiers.to_vec());
    // An object's leaf follows from its type, site and root kinds: each combination once.
    let at = |table: &[u32], o: u32| table.get(o as usize).copied().unwrap_or(u32::MAX);
    let mut memo = rustc_hash::FxHashMap::default();
    let leaves = (0..n as u32)
        .map(|o| {
            let key = (at(&objects.type_of, o), at(&objects.site_of, o), roots[o as usize]);
            *memo
                .entry(key)
                .or_insert_with(|| grouper.leaf(&facts(objects, &roots, o, InStructure::NotDetected)))
        })
        .collect();
    Ok((grouper, leaves))
}

/// One object with its fields or elements.
fn object(s: &Snapshot<'_>, retained: &[u64], o: u32) -> ObjectShown {
    let values = s.values;
    let mut shown = ObjectShown {
        id: values.id(o),
        type_name: s.heap.objects.type_name(o).to_string(),
        shallow_bytes: s.heap.graph.shallow[o as usize],
        retained_bytes: retained.get(o as usize).copied().unwrap_or(0),
        value: referent_value(values, o),
        fields: None,
        length: values.cut(o),
        elements: None,
        path: None,
        referrer_count: None,
        referrers: Vec::new(),
    };
    match values.contents(o, ELEMENTS) {
        Some(Contents::Fields(fields)) => {
            shown.fields = Some(fields.iter().map(|f| field(values, f)).collect())
        }
        Some(Contents::Array { element_type, length, elements }) => {
            shown.length = Some(length);
            let element = |(i, value): (usize, &Value)| {
                let type_name = match value {
                    Value::Ref(r) => Some(s.heap.objects.type_name(*r).to_string()),
                    _ => Some(element_type.clone()),
                };
                field(values, &FieldValue { name: format!("[{i}]"), type_name, value: value.clone() })
            };
            shown.elements = Some(elements.iter().enumerate().map(element).collect());
        }
        None => {}
    }
    shown
}

fn field(values: &dyn Values, f: &FieldValue) -> FieldShown {
    let (value, reference) = match f.value {
        Value::Null => (Some(Shown::Null), Some(None)),
        Value::Ref(r) => (referent_value(values, r), Some(Some(values.id(r)))),
        ref primitive => (Some(json_value(primitive)), None),
    };
    let type_name = if f.value == Value::Null { None } else { f.type_name.clone() };
    FieldShown { name: f.name.clone(), type_name, value, reference }
}

/// What a reference shows as its value: a string's text, a boxed primitive.
fn referent_value(values: &dyn Values, o: u32) -> Option<Shown> {
    values.text(o).map(Shown::Text).or_else(|| values.boxed(o).map(|v| json_value(&v)))
}

/// The largest integer JSON readers hold exactly (2^53).
const EXACT: i64 = 1 << 53;

/// A primitive as JSON carries it exactly.
pub fn json_value(value: &Value) -> Shown {
    match *value {
        Value::Null | Value::Ref(_) => Shown::Null,
        Value::Bool(b) => Shown::Bool(b),
        Value::Int(i) if (-EXACT..=EXACT).contains(&i) => Shown::Int(i),
        Value::Int(i) => Shown::Text(i.to_string()),
        Value::Char(c) => {
            Shown::Text(char::from_u32(u32::from(c)).map_or_else(|| format!("\\u{c:04x}"), String::from))
        }
        Value::Float(f) if f.is_nan() => Shown::Text("NaN".into()),
        Value::Float(f) if f.is_infinite() => {
            Shown::Text(if f > 0.0 { "Infinity" } else { "-Infinity" }.into())
        }
        Value::Float(f) => Shown::Float(f),
    }
}

#[cfg(test)]
mod tests;
