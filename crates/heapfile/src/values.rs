//! The short values of a heap file's atoms (the VALS section, version 3, docs/heapfile.md):
//! the text of str and bytes objects (their first characters or bytes, with the whole length),
//! ints, floats, bools and None, each as the probe read it. A reader hands them out through the
//! pipeline's [`Values`], beside each object's references by name.

use memcity_heapgraph::{Contents, References, Table, TypedHeap, Value, Values};

use crate::error::Fault;
use crate::read::Section;

/// The most bytes one value's data may have (the probe writes at most 200 characters).
pub const MAX_VALUE_BYTES: usize = 4096;
/// A kind byte with this bit: the data is the value's beginning, not all of it (str, bytes).
pub const CUT: u8 = 0x80;

/// What an atom is; its code in VALS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `None`: data `None`.
    None = 0,
    /// `True` or `False`.
    Bool = 1,
    /// An int in decimal: `-12`.
    Int = 2,
    /// A float as Python's `repr` writes it: `0.1`, `1e+300`, `inf`, `nan`.
    Float = 3,
    /// A str: its first characters in UTF-8.
    Str = 4,
    /// A bytes object: its first bytes.
    Bytes = 5,
}

impl ValueKind {
    /// What a value of the kind looks like, for errors.
    fn written(self) -> &'static str {
        match self {
            ValueKind::None => "None",
            ValueKind::Bool => "True or False",
            ValueKind::Int => "an int in decimal",
            ValueKind::Float => "a float",
            ValueKind::Str => "a str",
            ValueKind::Bytes => "bytes",
        }
    }
}

const KINDS: [ValueKind; 6] =
    [ValueKind::None, ValueKind::Bool, ValueKind::Int, ValueKind::Float, ValueKind::Str, ValueKind::Bytes];

/// One object's value as the file holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeValue<'a> {
    pub kind: ValueKind,
    /// Whether `data` is only the beginning of the value.
    pub cut: bool,
    /// The whole value's length: a str's characters, a bytes object's bytes; for the other
    /// kinds, the data's bytes.
    pub length: u64,
    pub data: &'a [u8],
}

/// The values of a file's atoms, as columns sorted by object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueTable {
    /// The objects that have a value, ascending.
    pub objects: Table<u32>,
    /// Per value: its [`ValueKind`] code, with [`CUT`] where cut.
    pub kinds: Table<u8>,
    pub lengths: Table<u64>,
    /// Value `i`'s data is `data[ends[i - 1]..ends[i]]` (from 0 for the first).
    pub ends: Table<usize>,
    pub data: Table<u8>,
}

impl ValueTable {
    /// Adds the value of `o`, which must come after every object added before (tests, writers).
    pub fn push(&mut self, o: u32, kind: ValueKind, cut: bool, length: u64, data: &[u8]) {
        debug_assert!(self.objects.last().is_none_or(|&last| last < o), "objects ascend");
        self.objects.push(o);
        self.kinds.push(kind as u8 | if cut { CUT } else { 0 });
        self.lengths.push(length);
        self.data.extend_from_slice(data);
        self.ends.push(self.data.len());
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The value of object `o`, if the file has one (a table whose columns disagree has none).
    pub fn get(&self, o: u32) -> Option<ProbeValue<'_>> {
        let i = self.objects.binary_search(&o).ok()?;
        let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? };
        let code = *self.kinds.get(i)?;
        Some(ProbeValue {
            kind: *KINDS.get((code & !CUT) as usize)?,
            cut: code & CUT != 0,
            length: *self.lengths.get(i)?,
            data: self.data.get(start..*self.ends.get(i)?)?,
        })
    }

    /// The VALS payload: count, objects, kinds, lengths, data lengths, data.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = (self.len() as u32).to_le_bytes().to_vec();
        self.objects.iter().for_each(|o| out.extend_from_slice(&o.to_le_bytes()));
        out.extend_from_slice(&self.kinds);
        self.lengths.iter().for_each(|l| out.extend_from_slice(&l.to_le_bytes()));
        let mut start = 0;
        for &end in &self.ends {
            out.extend_from_slice(&((end - start) as u32).to_le_bytes());
            start = end;
        }
        out.extend_from_slice(&self.data);
        out
    }
}

/// Reads VALS for a file of `n` objects: every object in range and ascending, every kind known,
/// every value's data well-formed for its kind and at most [`MAX_VALUE_BYTES`].
pub(crate) fn read(mut s: Section, n: usize) -> Result<ValueTable, Fault> {
    let count = s.count32("the value count")?;
    let (at, objects) = s.u32s(count, "the valued objects")?;
    let mut previous = None;
    for (i, &o) in objects.iter().enumerate() {
        if o as usize >= n || previous.is_some_and(|p| p >= o) {
            return Err(Fault::new(
                at + 4 * i,
                format!("valued object {o} is out of order or out of range (there are {n} objects)"),
            ));
        }
        previous = Some(o);
    }
    let kinds_at = s.at();
    let kinds = Table::from_slice(s.take(Some(count), "the value kinds")?);
    let lengths = s.u64s(count, "the value lengths")?;
    let (sizes_at, sizes) = s.u32s(count, "the value data lengths")?;
    let mut table =
        ValueTable { objects, kinds, lengths, ends: Table::with_capacity(count), data: Table::default() };
    for (i, &size) in sizes.iter().enumerate() {
        if size as usize > MAX_VALUE_BYTES {
            let message = format!("a value has {size} bytes of data, at most {MAX_VALUE_BYTES} are allowed");
            return Err(Fault::new(sizes_at + 4 * i, message));
        }
        let at = s.at();
        let data = s.take(Some(size as usize), "a value's data")?;
        let (code, length) = (table.kinds[i], table.lengths[i]);
        let kind = KINDS
            .get((code & !CUT) as usize)
            .ok_or_else(|| Fault::new(kinds_at + i, format!("unknown value kind {}", code & !CUT)))?;
        check(*kind, code & CUT != 0, length, data).map_err(|problem| {
            Fault::new(at, format!("the value of object {} is malformed: {problem}", table.objects[i]))
        })?;
        table.data.extend_from_slice(data);
        table.ends.push(table.data.len());
    }
    s.finish("VALS")?;
    Ok(table)
}

/// Why `data` is not a well-formed value of `kind`, if it is not.
fn check(kind: ValueKind, cut: bool, length: u64, data: &[u8]) -> Result<(), String> {
    let text = || std::str::from_utf8(data).map_err(|e| format!("not UTF-8 at its byte {}", e.valid_up_to()));
    let whole = |has: u64| match (cut, has.cmp(&length)) {
        (false, std::cmp::Ordering::Equal) | (true, std::cmp::Ordering::Less) => Ok(()),
        (false, _) => Err(format!("{has} long, but its length says {length}")),
        (true, _) => Err(format!("cut, but {has} long of a length of {length}")),
    };
    match kind {
        ValueKind::Str => whole(text()?.chars().count() as u64),
        ValueKind::Bytes => whole(data.len() as u64),
        _ if cut => Err("only a str or bytes value can be cut".into()),
        _ if data.len() as u64 != length => {
            Err(format!("{} bytes, but its length says {length}", data.len()))
        }
        ValueKind::None if data == b"None" => Ok(()),
        ValueKind::Bool if data == b"True" || data == b"False" => Ok(()),
        ValueKind::Int if is_decimal(data) => Ok(()),
        ValueKind::Float if text()?.parse::<f64>().is_ok() => Ok(()),
        _ => Err(format!("{:?} is not {}", String::from_utf8_lossy(data), kind.written())),
    }
}

fn is_decimal(data: &[u8]) -> bool {
    let digits = data.strip_prefix(b"-").unwrap_or(data);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// A heap file's values through the pipeline's interface: an object's references by name (a
/// Python object's attributes), and the values of its atoms.
pub struct FileValues<'h> {
    pub heap: &'h TypedHeap,
    pub values: &'h ValueTable,
}

impl FileValues<'_> {
    fn references(&self) -> References<'_> {
        References { heap: self.heap, primitives: None }
    }
}

impl Values for FileValues<'_> {
    fn contents(&self, o: u32, elements: usize) -> Option<Contents> {
        self.references().contents(o, elements)
    }

    /// A str's text, a bytes object as a Python literal (`b'\x00ab'`), an int too large for
    /// 64 bits in decimal; a cut one ends with `…`.
    fn text(&self, o: u32) -> Option<String> {
        let v = self.values.get(o)?;
        let mut text = match v.kind {
            ValueKind::Str => String::from_utf8_lossy(v.data).into_owned(),
            ValueKind::Bytes => bytes_repr(v.data),
            ValueKind::Int if int(v.data).is_none() => String::from_utf8_lossy(v.data).into_owned(),
            _ => return None,
        };
        if v.cut {
            text.push('…');
        }
        Some(text)
    }

    fn boxed(&self, o: u32) -> Option<Value> {
        let v = self.values.get(o)?;
        match v.kind {
            ValueKind::None => Some(Value::Null),
            ValueKind::Bool => Some(Value::Bool(v.data == b"True")),
            ValueKind::Int => int(v.data).map(Value::Int),
            ValueKind::Float => std::str::from_utf8(v.data).ok()?.parse().ok().map(Value::Float),
            ValueKind::Str | ValueKind::Bytes => None,
        }
    }

    fn cut(&self, o: u32) -> Option<u64> {
        self.values.get(o).filter(|v| v.cut).map(|v| v.length)
    }

    fn id(&self, o: u32) -> String {
        self.references().id(o)
    }

    fn find(&self, id: &str) -> Option<u32> {
        self.references().find(id)
    }
}

fn int(data: &[u8]) -> Option<i64> {
    std::str::from_utf8(data).ok()?.parse().ok()
}

/// Bytes as a Python literal, `b'…'`: printable ASCII as is, the rest escaped (a quote always
/// with a backslash, where `repr` would switch quotes).
pub fn bytes_repr(data: &[u8]) -> String {
    let mut out = String::from("b'");
    for &b in data {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests;
