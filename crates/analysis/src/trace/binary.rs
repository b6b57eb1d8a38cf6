//! The compact binary trace (docs/trace-format.md): an 8-byte magic, then records of a tag byte
//! and LEB128 varints. Strings are defined once, in a record of their own, and events refer to
//! them by number, so reading needs no JSON parsing and no string hashing per event.

use super::{
    Event, FrameBudget, Interner, MAX_SITE_FRAMES, Op, OpSink, RootKind, Strings, Trace, TraceError,
};

pub const MAGIC: &[u8; 8] = b"MCTRACE\x01";

// Tags. A definition gives the next number of its table (0, 1, …).
const DEF_TYPE: u8 = 0x01;
const DEF_SITE: u8 = 0x02;
const DEF_THREAD: u8 = 0x03;
const DEF_FIELD: u8 = 0x04;
const DEF_ROOT_NAME: u8 = 0x05;
const ALLOC: u8 = 0x10;
const PTR: u8 = 0x11;
const ROOT: u8 = 0x12;
const UNROOT: u8 = 0x13;
const GC: u8 = 0x14;
const ALLOC_ARRAY: u8 = 0x15;
const CLEAR: u8 = 0x16;

/// Root kinds by their code: `RootKind::ALL` (the first four are the format's original ones).
const ROOT_KINDS: [RootKind; RootKind::ALL.len()] = RootKind::ALL;

/// Whether `bytes` start like a binary trace.
pub fn is_binary_trace(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Writes a trace in the binary format; each string is defined just before its first use, as a
/// tracer streaming events would do.
pub fn write_binary_trace(trace: &Trace, mut out: impl std::io::Write) -> std::io::Result<()> {
    let mut w = Writer { buf: Vec::with_capacity(1 << 16), defined: [0; 5] };
    w.buf.extend_from_slice(MAGIC);
    let s = &trace.strings;
    for op in &trace.ops {
        match *op {
            Op::Alloc { id, size, len, type_id, site, thread } => {
                w.define(0, DEF_TYPE, type_id, |i| vec![s.types.get(i).as_str()]);
                w.define(1, DEF_SITE, site, |i| s.sites.get(i).iter().map(String::as_str).collect());
                w.define(2, DEF_THREAD, thread, |i| vec![s.threads.get(i).as_str()]);
                w.buf.push(if len.is_some() { ALLOC_ARRAY } else { ALLOC });
                for v in [id, type_id as u64, size].into_iter().chain(len).chain([site as u64, thread as u64])
                {
                    w.varint(v);
                }
            }
            Op::Ptr { from, to, field } => {
                w.define(3, DEF_FIELD, field, |i| vec![s.fields.get(i).as_str()]);
                w.buf.push(if to.is_some() { PTR } else { CLEAR });
                for v in [from, field as u64].into_iter().chain(to) {
                    w.varint(v);
                }
            }
            Op::Root { id, kind, name } => {
                w.define(4, DEF_ROOT_NAME, name, |i| vec![s.root_names.get(i).as_str()]);
                w.buf.push(ROOT);
                w.varint(id);
                w.buf.push(kind as u8);
                w.varint(name as u64);
            }
            Op::Unroot { id, name } => {
                w.define(4, DEF_ROOT_NAME, name, |i| vec![s.root_names.get(i).as_str()]);
                w.buf.push(UNROOT);
                w.varint(id);
                w.varint(name as u64);
            }
            Op::Gc { id, start, end } => {
                w.buf.push(GC);
                for v in [id, start, end] {
                    w.varint(v);
                }
            }
        }
        if w.buf.len() > 1 << 16 {
            out.write_all(&w.buf)?;
            w.buf.clear();
        }
    }
    out.write_all(&w.buf)
}

struct Writer {
    buf: Vec<u8>,
    /// How many entries of each table are defined in the output so far.
    defined: [u32; 5],
}

impl Writer {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn string(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Defines entries of table `table` up to `id`. A site is a list of frames; other entries
    /// are one string.
    fn define<'a>(&mut self, table: usize, tag: u8, id: u32, entry: impl Fn(u32) -> Vec<&'a str>) {
        while self.defined[table] <= id {
            let strings = entry(self.defined[table]);
            self.buf.push(tag);
            if tag == DEF_SITE {
                self.varint(strings.len() as u64);
            }
            for s in strings {
                self.string(s);
            }
            self.defined[table] += 1;
        }
    }
}

/// Reads a binary trace. Its ops refer to the trace's own string tables (a string defined
/// twice gets one id); `Trace::lines` holds record numbers (1-based, definitions included).
pub fn read_binary_trace(bytes: &[u8], source_name: &str) -> Result<Trace, TraceError> {
    let mut trace = Trace { unit: "record", ..Trace::default() };
    // Events take at least 4 bytes; most generated ones take about 10.
    trace.ops.reserve(bytes.len() / 10);
    trace.lines.reserve(bytes.len() / 10);
    read_binary_into(bytes, source_name, &mut trace)?;
    Ok(trace)
}

/// [`read_binary_trace`] into any sink.
pub fn read_binary_into(bytes: &[u8], source_name: &str, sink: &mut impl OpSink) -> Result<(), TraceError> {
    if !is_binary_trace(bytes) {
        return Err(TraceError {
            source_name: source_name.into(),
            unit: "byte",
            line: 0,
            message: "not a binary memcity trace (it does not start with MCTRACE\\x01)".into(),
        });
    }
    let mut r = Reader { bytes, at: MAGIC.len(), frames: FrameBudget::default() };
    // File number → interned id, per table.
    let mut tables: [Vec<u32>; 5] = Default::default();
    let mut record = 0;
    while r.at < bytes.len() {
        record += 1;
        let start = r.at;
        let error = |message: String| TraceError {
            source_name: source_name.into(),
            unit: "record",
            line: record,
            message: format!("{message} (at byte {start})"),
        };
        if let Some(op) = r.record(sink.strings(), &mut tables).map_err(error)? {
            sink.op(record, op)?;
        }
    }
    Ok(())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    frames: FrameBudget,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.bytes.get(self.at).ok_or("the file ends inside a record")?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                break;
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err("a number does not fit in 64 bits".into())
    }

    fn string(&mut self) -> Result<String, String> {
        let len = self.varint()?;
        let end = self.at.checked_add(len as usize).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("the file ends inside a string")?;
        let s = std::str::from_utf8(&self.bytes[self.at..end]).map_err(|_| "a string is not UTF-8")?;
        self.at = end;
        Ok(s.to_string())
    }

    /// A number into `table`, as its interned id.
    fn id(&mut self, table: &[u32], what: &str) -> Result<u32, String> {
        let n = self.varint()?;
        table
            .get(n as usize)
            .copied()
            .ok_or_else(|| format!("{what} #{n} is not defined (only {} so far)", table.len()))
    }

    /// One record: a string definition (no op) or an event.
    fn record(&mut self, s: &mut Strings, tables: &mut [Vec<u32>; 5]) -> Result<Option<Op>, String> {
        let define = |table: &mut Vec<u32>, interner: &mut Interner<String>, value: String| {
            table.push(interner.intern(&value));
        };
        let tag = self.byte()?;
        Ok(Some(match tag {
            DEF_TYPE => return self.string().map(|v| define(&mut tables[0], &mut s.types, v)).map(|_| None),
            DEF_SITE => {
                // Sized by what the file holds, not by the count it claims.
                let frames = self.varint()?;
                if frames > MAX_SITE_FRAMES as u64 {
                    return Err(format!("a site of {frames} frames (at most {MAX_SITE_FRAMES})"));
                }
                let frames = (0..frames).map(|_| self.string()).collect::<Result<Vec<_>, _>>()?;
                tables[1].push(s.sites.intern(&frames));
                self.frames.check(s)?;
                return Ok(None);
            }
            DEF_THREAD => {
                return self.string().map(|v| define(&mut tables[2], &mut s.threads, v)).map(|_| None);
            }
            DEF_FIELD => {
                return self.string().map(|v| define(&mut tables[3], &mut s.fields, v)).map(|_| None);
            }
            DEF_ROOT_NAME => {
                return self.string().map(|v| define(&mut tables[4], &mut s.root_names, v)).map(|_| None);
            }
            ALLOC | ALLOC_ARRAY => Op::Alloc {
                id: self.varint()?,
                type_id: self.id(&tables[0], "type")?,
                size: self.varint()?,
                len: if tag == ALLOC_ARRAY { Some(self.varint()?) } else { None },
                site: self.id(&tables[1], "site")?,
                thread: self.id(&tables[2], "thread")?,
            },
            PTR | CLEAR => Op::Ptr {
                from: self.varint()?,
                field: self.id(&tables[3], "field")?,
                to: if tag == PTR { Some(self.varint()?) } else { None },
            },
            ROOT => {
                let id = self.varint()?;
                let kind = self.byte()?;
                let kind = *ROOT_KINDS.get(kind as usize).ok_or(format!("unknown root kind {kind}"))?;
                Op::Root { id, kind, name: self.id(&tables[4], "root name")? }
            }
            UNROOT => Op::Unroot { id: self.varint()?, name: self.id(&tables[4], "root name")? },
            GC => Op::Gc { id: self.varint()?, start: self.varint()?, end: self.varint()? },
            other => return Err(format!("unknown record tag 0x{other:02x}")),
        }))
    }
}

/// An event list in the binary format (for tests).
pub fn events_to_binary(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::new();
    write_binary_trace(&Trace::from_events(events), &mut out).expect("writing to memory cannot fail");
    out
}

#[cfg(test)]
mod tests;
