//! The values inside a dump's objects, read on demand from the dump's bytes (memory-mapped, or
//! the inflated copy of a gzipped dump): primitive fields, array elements and the text of
//! `java.lang.String`s. Nothing is read ahead: the reader keeps each object's record offset
//! from pass 1 and the field shapes of each class, and decodes an object when asked.

use std::path::Path;

use memcity_heapgraph::{Contents, FieldValue, Value, Values};

use crate::cursor::Cursor;
use crate::error::HprofError;
use crate::ids::{IdIndex, IdMap};
use crate::index::{Lookup, Opening};
use crate::layout::Layout;
use crate::parse::{self, INSTANCE_DUMP, OBJ_ARRAY_DUMP, OBJECT, PRIM_ARRAY_DUMP, RawDump, value_size};
use crate::source::{self, DumpBytes};
use crate::typed::{TypedDump, source_name, typed_of_dump};

/// The longest string whose text is read (in UTF-16 units); a longer one has no text here, so
/// comparing it falls back to identity.
pub const MAX_TEXT: usize = 1 << 20;

/// One field of a class's instances: its name, basic type and offset in the field bytes.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    ty: u8,
    at: usize,
}

/// Values of one dump, read from its bytes when asked for.
pub struct DumpValues {
    bytes: DumpBytes,
    id_size: usize,
    /// Node → record offset, for the heap objects (nodes below `offsets.len()`).
    offsets: Vec<usize>,
    ids: IdIndex,
    /// Per class (in class-dump order, the typed heap's type index): its name as Java writes
    /// it, its instance fields along the superclass chain and its statics.
    names: Vec<String>,
    fields: Vec<Vec<Field>>,
    statics: Vec<Vec<(String, u8, u64)>>,
    class_ids: Vec<u64>,
    by_class_id: IdMap<u32>,
}

/// Reads a dump into a typed heap and a reader of its values (what [`crate::typed_heap`]
/// reads, plus the objects' offsets: 16 bytes an object). The objects come from the dump's
/// index in `index` where there is a good one (pass 1 still finds the values' offsets), and
/// the index is written where there is none.
pub fn typed_heap_with_values(
    path: &Path,
    layout: &Layout,
    index: Option<&Path>,
) -> Result<(TypedDump, DumpValues), HprofError> {
    let opening = Opening { layout: *layout, index: index.map(Path::to_path_buf), ..Opening::default() };
    let found = crate::index::lookup(path, &opening, &memcity_heapgraph::Silent);
    let name = path.display().to_string();
    let bytes = source::open(path)?;
    let raw = parse::scan(&bytes, &|_| {}).map_err(|f| f.in_file(&name))?;
    let (names, fields, statics) = shapes(&raw);
    let class_ids: Vec<u64> = raw.classes.iter().map(|c| c.id).collect();
    let by_class_id = class_ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect();
    let (offsets, ids) = crate::resolve::sorted_objects(&bytes, raw.objects.clone(), raw.object_ids.clone())
        .map_err(|f| f.in_file(&name))?;
    let offsets = offsets.to_vec();
    let id_size = raw.id_size;
    let typed = match found {
        Lookup::Found(dump, labels, _) => typed_of_dump(*dump, labels, None),
        Lookup::Missing(place) => {
            let (dump, labels) =
                crate::resolve::resolve_labelled(&bytes, raw, layout, true).map_err(|f| f.in_file(&name))?;
            let labels = labels.unwrap_or_default();
            if let Some(place) = place {
                crate::index::store(path, &place, &dump, &labels);
            }
            typed_of_dump(dump, labels, None)
        }
    };
    let ids = IdIndex::new(ids);
    let values = DumpValues { bytes, id_size, offsets, ids, names, fields, statics, class_ids, by_class_id };
    Ok((typed, values))
}

type Shapes = (Vec<String>, Vec<Vec<Field>>, Vec<Vec<(String, u8, u64)>>);

/// Every class's name, instance fields (its own first, then its superclass's, as HPROF writes
/// them) and named statics.
fn shapes(raw: &RawDump<'_>) -> Shapes {
    let text = |id: u64| raw.strings.get(&id).map_or_else(String::new, |b| String::from_utf8_lossy(b).into());
    let at: IdMap<usize> = raw.classes.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let mut names = Vec::with_capacity(raw.classes.len());
    let mut fields = Vec::with_capacity(raw.classes.len());
    let mut statics = Vec::with_capacity(raw.classes.len());
    for class in &raw.classes {
        let name = raw.class_names.get(&class.id).map(|&n| text(n)).unwrap_or_default();
        names.push(source_name(&crate::classes::external_name(&name)));
        let mut own = Vec::new();
        let (mut offset, mut next, mut steps) = (0, Some(class), 0);
        // The chain was checked by pass 2 (no cycles, no missing classes); bounded anyway.
        while let Some(c) = next.filter(|_| steps <= raw.classes.len()) {
            for (k, &ty) in c.fields.iter().enumerate() {
                let name = c.field_names.get(k).map_or_else(String::new, |&n| text(n));
                own.push(Field { name, ty, at: offset });
                offset += value_size(ty, raw.id_size).unwrap_or(0);
            }
            next = at.get(&c.super_id).map(|&i| &raw.classes[i]);
            steps += 1;
        }
        fields.push(own);
        statics.push(class.statics.iter().map(|&(n, ty, bits)| (text(n), ty, bits)).collect());
    }
    (names, fields, statics)
}

/// The Java name of a basic type code.
fn type_name(ty: u8) -> &'static str {
    match ty {
        OBJECT => "java.lang.Object",
        4 => "boolean",
        5 => "char",
        6 => "float",
        7 => "double",
        8 => "byte",
        9 => "short",
        10 => "int",
        _ => "long",
    }
}

/// A primitive of basic type `ty` from its big-endian bits.
fn primitive(ty: u8, bits: u64) -> Value {
    match ty {
        4 => Value::Bool(bits != 0),
        5 => Value::Char(bits as u16),
        6 => Value::Float(f64::from(f32::from_bits(bits as u32))),
        7 => Value::Float(f64::from_bits(bits)),
        8 => Value::Int(i64::from(bits as u8 as i8)),
        9 => Value::Int(i64::from(bits as u16 as i16)),
        10 => Value::Int(i64::from(bits as u32 as i32)),
        _ => Value::Int(bits as i64),
    }
}

/// An object's record as read from the dump.
enum Record<'a> {
    Instance {
        class: u32,
        fields: &'a [u8],
    },
    References {
        class: u32,
        length: usize,
        elements: &'a [u8],
    },
    /// Element type and bytes; `None` where the dump wrote no elements (Android).
    Primitives {
        ty: u8,
        length: usize,
        elements: Option<&'a [u8]>,
    },
    Class(u32),
}

impl DumpValues {
    fn record(&self, o: u32) -> Option<Record<'_>> {
        let ids = self.id_size;
        let Some(&offset) = self.offsets.get(o as usize) else {
            let class = (o as usize).checked_sub(self.offsets.len())?;
            return (class < self.class_ids.len()).then_some(Record::Class(class as u32));
        };
        let mut c = Cursor::new(&self.bytes, offset);
        let tag = c.u1("tag").ok()?;
        c.bytes(ids + 4, "id").ok()?;
        match tag {
            INSTANCE_DUMP => {
                let class = *self.by_class_id.get(&c.id(ids, "class").ok()?)?;
                let length = c.u4("length").ok()? as usize;
                Some(Record::Instance { class, fields: c.bytes(length, "fields").ok()? })
            }
            OBJ_ARRAY_DUMP => {
                let length = c.u4("length").ok()? as usize;
                let class = *self.by_class_id.get(&c.id(ids, "class").ok()?)?;
                let elements = c.bytes(length.checked_mul(ids)?, "elements").ok()?;
                Some(Record::References { class, length, elements })
            }
            _ => {
                let length = c.u4("length").ok()? as usize;
                let ty = c.u1("type").ok()?;
                let size = value_size(ty, ids).filter(|_| ty != OBJECT)?;
                let elements = match tag {
                    PRIM_ARRAY_DUMP => Some(c.bytes(length.checked_mul(size)?, "elements").ok()?),
                    _ => None,
                };
                Some(Record::Primitives { ty, length, elements })
            }
        }
    }

    /// The node of a non-null object id.
    fn node(&self, id: u64) -> Option<u32> {
        if id == 0 {
            return None;
        }
        self.ids
            .find(id)
            .or_else(|| self.by_class_id.get(&id).map(|&c| (self.offsets.len() + c as usize) as u32))
    }

    /// A reference's value: `Null`, or the object where the dump has it (a dangling id reads
    /// as null, as pass 2 drops such references).
    fn reference(&self, id: u64) -> Value {
        self.node(id).map_or(Value::Null, Value::Ref)
    }

    fn value(&self, ty: u8, bytes: &[u8]) -> Value {
        let bits = crate::cursor::read_id(bytes);
        if ty == OBJECT { self.reference(bits) } else { primitive(ty, bits) }
    }

    /// A field's value, read from an instance's field bytes.
    fn field_value(&self, f: &Field, fields: &[u8]) -> Option<Value> {
        let size = value_size(f.ty, self.id_size)?;
        Some(self.value(f.ty, fields.get(f.at..f.at + size)?))
    }

    /// The class (type) name of object `o`.
    pub fn type_name(&self, o: u32) -> Option<String> {
        Some(match self.record(o)? {
            Record::Instance { class, .. } | Record::References { class, .. } => {
                self.names[class as usize].clone()
            }
            Record::Primitives { ty, .. } => format!("{}[]", type_name(ty)),
            Record::Class(_) => "java.lang.Class".into(),
        })
    }

    /// The value of the instance field `name` of `o` (the first of that name, subclass first).
    pub fn field(&self, o: u32, name: &str) -> Option<Value> {
        let Record::Instance { class, fields } = self.record(o)? else { return None };
        let f = self.fields[class as usize].iter().find(|f| f.name == name)?;
        self.field_value(f, fields)
    }

    fn named(&self, name: String, ty: u8, value: Value) -> FieldValue {
        let type_name = match value {
            Value::Ref(r) => self.type_name(r),
            Value::Null => None,
            _ => Some(type_name(ty).to_string()),
        };
        FieldValue { name, type_name, value }
    }
}

impl Values for DumpValues {
    fn contents(&self, o: u32, elements: usize) -> Option<Contents> {
        Some(match self.record(o)? {
            Record::Instance { class, fields } => Contents::Fields(
                self.fields[class as usize]
                    .iter()
                    .filter_map(|f| Some(self.named(f.name.clone(), f.ty, self.field_value(f, fields)?)))
                    .collect(),
            ),
            Record::References { class, length, elements: bytes } => Contents::Array {
                element_type: self.names[class as usize].trim_end_matches("[]").to_string(),
                length: length as u64,
                elements: bytes
                    .chunks_exact(self.id_size)
                    .take(elements)
                    .map(|e| self.value(OBJECT, e))
                    .collect(),
            },
            Record::Primitives { ty, length, elements: bytes } => {
                let size = value_size(ty, self.id_size)?;
                let shown = bytes.unwrap_or_default().chunks_exact(size).take(elements);
                Contents::Array {
                    element_type: type_name(ty).into(),
                    length: length as u64,
                    elements: shown.map(|e| self.value(ty, e)).collect(),
                }
            }
            Record::Class(class) => Contents::Fields(
                self.statics[class as usize]
                    .iter()
                    .filter(|(name, _, _)| !name.starts_with('<'))
                    .map(|(name, ty, bits)| {
                        let value = if *ty == OBJECT { self.reference(*bits) } else { primitive(*ty, *bits) };
                        self.named(name.clone(), *ty, value)
                    })
                    .collect(),
            ),
        })
    }

    fn text(&self, o: u32) -> Option<String> {
        let Record::Instance { class, .. } = self.record(o)? else { return None };
        if self.names[class as usize] != "java.lang.String" {
            return None;
        }
        let Value::Ref(array) = self.field(o, "value")? else { return None };
        let Record::Primitives { ty, length, elements: Some(bytes) } = self.record(array)? else {
            return None;
        };
        let int = |name| match self.field(o, name) {
            Some(Value::Int(i)) => usize::try_from(i).ok(),
            _ => None,
        };
        match ty {
            // JDK 9+: bytes, Latin-1 (coder 0) or UTF-16 (coder 1) in the JVM's byte order,
            // little-endian on every platform HotSpot dumps are taken on in practice.
            8 if length > 2 * MAX_TEXT => None,
            8 if int("coder") == Some(1) => {
                let units = bytes.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]]));
                Some(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')).collect())
            }
            8 => Some(bytes.iter().map(|&b| char::from(b)).collect()),
            // JDK 8 and older: a char[] (written big-endian), JDK 6 with an offset and count.
            5 => {
                let (from, count) = (int("offset").unwrap_or(0), int("count").unwrap_or(length));
                let end = from.checked_add(count).filter(|&e| e <= length && count <= MAX_TEXT)?;
                let units =
                    bytes[2 * from..2 * end].chunks_exact(2).map(|p| u16::from_be_bytes([p[0], p[1]]));
                Some(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')).collect())
            }
            _ => None,
        }
    }

    fn boxed(&self, o: u32) -> Option<Value> {
        let Record::Instance { class, .. } = self.record(o)? else { return None };
        let boxes = [
            "java.lang.Integer",
            "java.lang.Long",
            "java.lang.Short",
            "java.lang.Byte",
            "java.lang.Character",
            "java.lang.Boolean",
            "java.lang.Float",
            "java.lang.Double",
        ];
        if !boxes.contains(&self.names[class as usize].as_str()) {
            return None;
        }
        self.field(o, "value").filter(|v| !matches!(v, Value::Ref(_) | Value::Null))
    }

    fn id(&self, o: u32) -> String {
        let id = match (o as usize).checked_sub(self.offsets.len()) {
            None => self.ids.get(o as usize),
            Some(class) => self.class_ids.get(class).copied(),
        };
        id.map_or_else(|| format!("(object {o})"), |id| format!("0x{id:x}"))
    }

    fn find(&self, id: &str) -> Option<u32> {
        let hex = id.strip_prefix("0x").or_else(|| id.strip_prefix("0X"))?;
        self.node(u64::from_str_radix(hex, 16).ok()?)
    }
}

#[cfg(test)]
mod tests;
