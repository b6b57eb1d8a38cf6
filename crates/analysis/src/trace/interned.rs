//! A trace with its strings interned: every event becomes a small `Op` of integers, so replay
//! neither hashes nor compares strings. Reading a trace builds this form once.

use rustc_hash::FxHashMap as HashMap;

use super::{Event, RootKind};

/// Values seen in the trace, each stored once and numbered in order of first sight.
#[derive(Debug, Clone)]
pub struct Interner<T> {
    // FxHash, not SipHash: every event of a trace is hashed here once.
    ids: HashMap<T, u32>,
    pub values: Vec<T>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner { ids: HashMap::default(), values: Vec::new() }
    }
}

impl<T: std::hash::Hash + Eq + Clone> Interner<T> {
    pub fn intern(&mut self, value: &T) -> u32 {
        if let Some(&id) = self.ids.get(value) {
            return id;
        }
        let id = self.values.len() as u32;
        self.ids.insert(value.clone(), id);
        self.values.push(value.clone());
        id
    }

    pub fn get(&self, id: u32) -> &T {
        &self.values[id as usize]
    }
}

/// The string tables of a trace.
#[derive(Debug, Clone, Default)]
pub struct Strings {
    pub types: Interner<String>,
    pub sites: Interner<Vec<String>>,
    pub threads: Interner<String>,
    pub fields: Interner<String>,
    pub root_names: Interner<String>,
}

/// An event with its strings replaced by their ids in `Strings`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Alloc { id: u64, size: u64, len: Option<u64>, type_id: u32, site: u32, thread: u32 },
    Ptr { from: u64, to: Option<u64>, field: u32 },
    Root { id: u64, kind: RootKind, name: u32 },
    Unroot { id: u64, name: u32 },
    Gc { id: u64, start: u64, end: u64 },
}

impl Strings {
    pub fn intern(&mut self, event: &Event) -> Op {
        match event {
            Event::Alloc { id, type_name, size, len, site, thread } => Op::Alloc {
                id: *id,
                size: *size,
                len: *len,
                type_id: self.types.intern(type_name),
                site: self.sites.intern(site),
                thread: self.threads.intern(thread),
            },
            Event::Ptr { from, field, to } => {
                Op::Ptr { from: *from, to: *to, field: self.fields.intern(field) }
            }
            Event::Root { id, kind, name } => {
                Op::Root { id: *id, kind: *kind, name: self.root_names.intern(name) }
            }
            Event::Unroot { id, name } => Op::Unroot { id: *id, name: self.root_names.intern(name) },
            Event::Gc { id, start, end } => Op::Gc { id: *id, start: *start, end: *end },
        }
    }
}

/// A whole trace, interned, with the line (or record number) each op came from.
#[derive(Debug, Clone)]
pub struct Trace {
    pub strings: Strings,
    pub ops: Vec<Op>,
    pub lines: Vec<usize>,
    /// What `lines` count, for error messages: "line" (JSON Lines) or "record" (binary).
    pub unit: &'static str,
}

impl Default for Trace {
    fn default() -> Self {
        Trace { strings: Strings::default(), ops: Vec::new(), lines: Vec::new(), unit: "line" }
    }
}

impl Trace {
    pub fn push(&mut self, line: usize, event: &Event) {
        let op = self.strings.intern(event);
        self.ops.push(op);
        self.lines.push(line);
    }

    /// Op `i` as an event again, with its strings.
    pub fn event(&self, i: usize) -> Event {
        let s = &self.strings;
        match self.ops[i] {
            Op::Alloc { id, size, len, type_id, site, thread } => Event::Alloc {
                id,
                type_name: s.types.get(type_id).clone(),
                size,
                len,
                site: s.sites.get(site).clone(),
                thread: s.threads.get(thread).clone(),
            },
            Op::Ptr { from, to, field } => Event::Ptr { from, field: s.fields.get(field).clone(), to },
            Op::Root { id, kind, name } => Event::Root { id, kind, name: s.root_names.get(name).clone() },
            Op::Unroot { id, name } => Event::Unroot { id, name: s.root_names.get(name).clone() },
            Op::Gc { id, start, end } => Event::Gc { id, start, end },
        }
    }

    /// Events numbered from line 1, as generated traces are.
    pub fn from_events(events: impl IntoIterator<Item = impl std::borrow::Borrow<Event>>) -> Trace {
        let mut trace = Trace::default();
        for (i, e) in events.into_iter().enumerate() {
            trace.push(i + 1, e.borrow());
        }
        trace
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_get_one_id_and_ops_keep_their_lines() {
        let alloc = |id, t: &str| Event::Alloc {
            id,
            type_name: t.into(),
            size: 8,
            len: None,
            site: vec!["m".into()],
            thread: "main".into(),
        };
        let events = [
            alloc(1, "A"),
            alloc(2, "B"),
            alloc(3, "A"),
            Event::Ptr { from: 1, field: "f".into(), to: None },
        ];
        let trace = Trace::from_events(&events);
        assert_eq!(trace.strings.types.values, ["A", "B"]);
        assert_eq!(trace.lines, [1, 2, 3, 4]);
        assert!(matches!(trace.ops[2], Op::Alloc { id: 3, type_id: 0, site: 0, thread: 0, .. }));
        assert_eq!(trace.ops[3], Op::Ptr { from: 1, to: None, field: 0 });
    }
}
