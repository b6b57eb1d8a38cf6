//! What is inside single objects: field values, array elements and the text of strings, as a
//! source reads them on demand ([`Values`]). A heap keeps no values (a dump's would double its
//! size); a source that can read them again from its input hands out a reader beside its
//! [`crate::TypedHeap`], and callers ask for the few objects they show or compare.

use serde::Serialize;

/// One value: a primitive, or a reference to an object of the heap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Value {
    /// A null reference.
    Null,
    Bool(bool),
    /// `byte`, `short`, `int`, `long`.
    Int(i64),
    /// A UTF-16 code unit (Java's `char`).
    Char(u16),
    /// `float` (widened exactly) and `double`.
    Float(f64),
    /// An object of the heap, by its index.
    Ref(u32),
}

/// One named field (or array element) and its value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldValue {
    pub name: String,
    /// The declared primitive type (`int`), or for references the referent's type (a dump does
    /// not record declared types); `None` for a null reference.
    pub type_name: Option<String>,
    pub value: Value,
}

/// What a source read of one object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Contents {
    /// An instance: its fields along the superclass chain, subclass fields first.
    Fields(Vec<FieldValue>),
    /// An array: its length and its first elements (as many as asked for).
    Array { element_type: String, length: u64, elements: Vec<Value> },
}

/// Reads the values of a heap's objects from the source they were read from.
pub trait Values {
    /// The contents of object `o`, arrays cut to their first `elements`; `None` where the
    /// source has no values for it.
    fn contents(&self, o: u32, elements: usize) -> Option<Contents>;

    /// The text of `o` where it is a string (`java.lang.String`), else `None`.
    fn text(&self, o: u32) -> Option<String>;

    /// The primitive a boxed value holds (`java.lang.Integer`), else `None`.
    fn boxed(&self, o: u32) -> Option<Value>;

    /// Where the text of `o` is only its beginning (a probe's short value of a long string),
    /// the whole value's length; `None` where it is whole. A cut text equals only itself.
    fn cut(&self, _o: u32) -> Option<u64> {
        None
    }

    /// The source's own id of `o`, as its tools write it (an HPROF address in hex).
    fn id(&self, o: u32) -> String;

    /// The object an id names (what [`Self::id`] writes), if the heap has it.
    fn find(&self, id: &str) -> Option<u32>;

    /// Whether [`Self::contents`] shows every field of `o`: not so in a V8 snapshot taken
    /// without numeric values, where a property holding a small integer is absent.
    fn fields_known(&self, _o: u32) -> bool {
        true
    }
}

/// A field's value as value equality sees it: primitives by value (floats by their bits, so
/// NaN equals NaN as `Double.equals` has it), strings by text, boxed values by value, other
/// references by identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EqualBy {
    Null,
    Bits(u64),
    Text(String),
    Object(u32),
}

/// The value of object `o` for equality by value: its type and every field, compared one level
/// deep (see [`EqualBy`]). `None` where a field's value is unknown: such an object equals only
/// itself, so an unknown value never makes two keys look alike.
pub fn value_identity(values: &dyn Values, type_of: u32, o: u32) -> Option<(u32, Vec<EqualBy>)> {
    if let Some(text) = values.text(o) {
        return values.cut(o).is_none().then(|| (type_of, vec![EqualBy::Text(text)]));
    }
    if !values.fields_known(o) {
        return None;
    }
    let Contents::Fields(fields) = values.contents(o, 0)? else { return None };
    let equal_by = fields.iter().map(|f| equal_by(values, &f.value)).collect();
    Some((type_of, equal_by))
}

fn equal_by(values: &dyn Values, value: &Value) -> EqualBy {
    match *value {
        Value::Null => EqualBy::Null,
        Value::Bool(b) => EqualBy::Bits(u64::from(b)),
        Value::Int(i) => EqualBy::Bits(i as u64),
        Value::Char(c) => EqualBy::Bits(u64::from(c)),
        Value::Float(f) => EqualBy::Bits(f.to_bits()),
        Value::Ref(r) => match (values.text(r), values.boxed(r)) {
            (Some(_), _) if values.cut(r).is_some() => EqualBy::Object(r),
            (Some(text), _) => EqualBy::Text(text),
            (None, Some(inner)) => equal_by(values, &inner),
            (None, None) => EqualBy::Object(r),
        },
    }
}

/// What a source whose objects are all references knows of some of them: the text of its
/// string objects, the value of its number objects (V8's heap numbers, where the snapshot
/// exposes them).
pub trait Primitives {
    fn text(&self, o: u32) -> Option<String>;
    fn number(&self, o: u32) -> Option<f64>;

    /// Whether every primitive an object holds is an object of the heap (see
    /// [`Values::fields_known`]).
    fn fields_known(&self) -> bool {
        true
    }
}

/// The values every typed heap has: each reference under its name (`.next`, `[3]`,
/// `['key']`; `?` where unnamed) and the source's own id; strings' text and numbers where the
/// source's `primitives` know them, else none.
pub struct References<'h> {
    pub heap: &'h crate::TypedHeap,
    pub primitives: Option<&'h dyn Primitives>,
}

impl References<'_> {
    /// Reference `e` as a field: its name (`next`, `[3]`, `['key']`, `?` where unnamed).
    fn field(&self, e: usize) -> FieldValue {
        let objects = &self.heap.objects;
        let name = objects.labels.text(e).map_or_else(
            || "?".to_string(),
            |t| t.strip_prefix('.').map_or_else(|| t.clone(), str::to_string),
        );
        let r = self.heap.graph.edges[e];
        FieldValue { name, type_name: Some(objects.type_name(r).to_string()), value: Value::Ref(r) }
    }
}

impl Values for References<'_> {
    /// An object's references by name; a reference with the empty name (a Python object's own
    /// attribute dict, which paths do not show) gives its referent's references as the
    /// object's own, so an instance's fields are its attributes.
    fn contents(&self, o: u32, _: usize) -> Option<Contents> {
        let g = &self.heap.graph;
        let objects = &self.heap.objects;
        let edges = |o: u32| {
            Some(*g.edge_start.get(o as usize)? as usize..*g.edge_start.get(o as usize + 1)? as usize)
        };
        let mut fields = Vec::new();
        for e in edges(o)? {
            let r = g.edges[e];
            match objects.labels.text(e) {
                Some(t) if t.is_empty() => {
                    fields.extend(edges(r).into_iter().flatten().map(|e| self.field(e)));
                }
                _ => fields.push(self.field(e)),
            }
        }
        Some(Contents::Fields(fields))
    }

    fn text(&self, o: u32) -> Option<String> {
        self.primitives?.text(o)
    }

    /// A number object's value: an integer where it is one JSON holds exactly.
    fn boxed(&self, o: u32) -> Option<Value> {
        let n = self.primitives?.number(o)?;
        let exact = n.fract() == 0.0 && n.abs() <= (1u64 << 53) as f64;
        Some(if exact { Value::Int(n as i64) } else { Value::Float(n) })
    }

    fn fields_known(&self, _o: u32) -> bool {
        self.primitives.is_none_or(|p| p.fields_known())
    }

    fn id(&self, o: u32) -> String {
        match self.heap.objects.identity.get(o as usize) {
            Some(id) => id.to_string(),
            None => format!("@{o}"),
        }
    }

    fn find(&self, id: &str) -> Option<u32> {
        let n = self.heap.graph.object_count();
        match id.strip_prefix('@') {
            Some(index) if self.heap.objects.identity.is_empty() => {
                index.parse().ok().filter(|&o: &u32| (o as usize) < n)
            }
            Some(_) => None,
            None => {
                let id: u64 = id.parse().ok()?;
                self.heap.objects.identity.iter().position(|&i| i == id).map(|o| o as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Objects 0–3 are keys `(String, int)`, 4–6 strings, 7 a boxed 3.
    struct Fixed;

    impl Values for Fixed {
        fn contents(&self, o: u32, _: usize) -> Option<Contents> {
            let (city, day) = match o {
                0 | 1 => (Value::Ref(4), Value::Int(3)),
                2 => (Value::Ref(5), Value::Int(3)),
                3 => (Value::Ref(6), Value::Ref(7)),
                _ => return None,
            };
            let field = |name: &str, value| FieldValue { name: name.into(), type_name: None, value };
            Some(Contents::Fields(vec![field("city", city), field("day", day)]))
        }
        fn text(&self, o: u32) -> Option<String> {
            match o {
                4 | 5 => Some("Linz".into()),
                6 => Some("Graz".into()),
                _ => None,
            }
        }
        fn boxed(&self, o: u32) -> Option<Value> {
            (o == 7).then_some(Value::Int(3))
        }
        fn cut(&self, o: u32) -> Option<u64> {
            (o == 6).then_some(500)
        }
        fn id(&self, o: u32) -> String {
            o.to_string()
        }
        fn find(&self, id: &str) -> Option<u32> {
            id.parse().ok()
        }
    }

    #[test]
    fn keys_are_equal_by_text_and_value_not_by_identity() {
        let key = |o| value_identity(&Fixed, 9, o).unwrap();
        assert_eq!(key(0), key(1), "the same fields");
        assert_eq!(key(0), key(2), "two strings of one text are equal");
        assert_ne!(key(0), key(3));
        assert_eq!(key(3).1[1], EqualBy::Bits(3), "a boxed int by its value");
        assert_ne!(value_identity(&Fixed, 9, 0), value_identity(&Fixed, 8, 1), "another type differs");
        assert_eq!(value_identity(&Fixed, 9, 8), None, "unknown values compare by nothing");
        assert_eq!(value_identity(&Fixed, 1, 4).unwrap().1, [EqualBy::Text("Linz".into())]);
        assert_eq!(value_identity(&Fixed, 1, 6), None, "a cut text is no whole value");
        assert_eq!(key(3).1[0], EqualBy::Object(6), "a cut text compares by identity");
    }

    #[test]
    fn without_values_a_heap_shows_its_references_by_name() {
        use crate::{EdgeLabels, HeapGraph, Label, ObjectTable, ObjectType, TypedHeap};
        let graph = HeapGraph {
            group: vec![0; 3].into(),
            shallow: vec![8; 3].into(),
            edge_start: vec![0, 2, 2, 2].into(),
            edges: vec![1, 2].into(),
            roots: vec![0],
        };
        let types = vec![ObjectType { name: "Map".into(), kind: Default::default() }];
        let labels =
            EdgeLabels { names: vec!["next".into()], of_edge: vec![Label::field(0), Label::index(4)].into() };
        let objects = ObjectTable {
            types,
            type_of: vec![0; 3].into(),
            identity: vec![11, 13, 17].into(),
            labels,
            ..ObjectTable::default()
        };
        let heap = TypedHeap { graph, objects, tree: None };
        let values = References { heap: &heap, primitives: None };
        let Some(Contents::Fields(fields)) = values.contents(0, 0) else { panic!() };
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["next", "[4]"]);
        assert_eq!(fields[1].value, Value::Ref(2));
        assert_eq!(
            (values.id(2), values.find("17"), values.find("12"), values.find("@1")),
            ("17".into(), Some(2), None, None)
        );
        assert_eq!(values.contents(9, 0), None);
    }
}
