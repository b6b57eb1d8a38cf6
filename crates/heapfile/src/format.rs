//! The heap file format, version 3 (docs/heapfile.md): a magic and version, then sections, each
//! `tag (4 bytes), CRC-32 of the payload (u32), payload length (u64), payload`, in this order:
//! STRS, SITE, OBJS, EDGE, NAME, VALS, ROOT, META, `END.`. Integers are little-endian; tables
//! are columns, so a probe writes each with one call and a reader checks each length once.
//! Version 2 (still read) has no VALS section; version 1 no NAME section and no root names
//! either.

use memcity_heapgraph::{RootKind, Table};
use serde::{Deserialize, Serialize};

use crate::values::ValueTable;

/// The first 8 bytes of every heap file.
pub const MAGIC: &[u8; 8] = b"MEMCITYH";
/// The format version this crate writes.
pub const VERSION: u32 = 3;
/// The oldest format version this crate reads: version 1, without reference and root names.
pub const OLDEST_VERSION: u32 = 1;
/// The file name extension probes use.
pub const EXTENSION: &str = "mcheap";
/// Magic, version, reserved flags.
pub const HEADER_LEN: usize = 16;
/// Tag, CRC-32, payload length.
pub const SECTION_HEADER_LEN: usize = 16;
/// The sections, in file order.
pub const SECTIONS: [&[u8; 4]; 9] =
    [b"STRS", b"SITE", b"OBJS", b"EDGE", b"NAME", b"VALS", b"ROOT", b"META", b"END."];
/// The sections of a version 2 file (no values), in file order.
pub const SECTIONS_V2: [&[u8; 4]; 8] =
    [b"STRS", b"SITE", b"OBJS", b"EDGE", b"NAME", b"ROOT", b"META", b"END."];
/// The sections of a version 1 file, in file order.
pub const SECTIONS_V1: [&[u8; 4]; 7] = [b"STRS", b"SITE", b"OBJS", b"EDGE", b"ROOT", b"META", b"END."];
/// A reference's or root's name that is not known (in NAME and in ROOT's names).
pub const NO_NAME: u32 = u32::MAX;
/// A NAME entry with this bit is an element index (the low 31 bits): `[3]`.
pub const LABEL_INDEX: u32 = 1 << 31;
/// A NAME entry with this bit (and not [`LABEL_INDEX`]) is a dict key as the program writes it
/// (a string index in the low 30 bits): `['sessions']`. Without either bit, an entry is an
/// attribute's name (a string index): `.sessions`; the empty name marks an object's reference
/// to its own attribute dict, which paths do not show.
pub const LABEL_KEY: u32 = 1 << 30;
/// The site of an object whose allocation site is not known.
pub const NO_SITE: u32 = u32::MAX;
/// Bytes per object in OBJS: type, site, size, address, edge count.
pub const OBJECT_BYTES: usize = 4 + 4 + 8 + 8 + 4;

/// Root kinds as the format codes them.
pub const ROOT_KINDS: [RootKind; 4] =
    [RootKind::Global, RootKind::StackFrame, RootKind::Internal, RootKind::Other];

/// The code of a root kind in the format (kinds outside the format's four are `Other`).
pub fn root_code(kind: RootKind) -> u8 {
    ROOT_KINDS.iter().position(|&k| k == kind).unwrap_or(3) as u8
}

/// What the producer says about the snapshot (the META section, a JSON object). Fields other
/// than these are allowed and ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// When the snapshot was taken, in ms since the probe started.
    pub time_ms: u64,
    /// What the snapshot cost the program (walking the heap and encoding the file), in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_ms: Option<f64>,
    /// `gc`, `exit` or `manual`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Bytes the runtime's allocator had handed out (Python: tracemalloc's traced memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced_bytes: Option<u64>,
    /// The observed program's process id: addresses name the same object in the snapshots of
    /// one process (CPython's `id()`), so a reader may match objects by address where it is the
    /// same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
}

/// One snapshot's heap as the file holds it; objects are `0..types.len()`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeapFile {
    pub meta: Meta,
    /// Type names and site frames refer to these.
    pub strings: Vec<String>,
    /// Each site's frames (string indices), innermost first.
    pub sites: Vec<Vec<u32>>,
    /// Per object: its type's name (a string index).
    pub types: Table<u32>,
    /// Per object: its site, or [`NO_SITE`].
    pub site: Table<u32>,
    /// Per object: shallow size in bytes.
    pub size: Table<u64>,
    /// Per object: its address (identity) in the program.
    pub address: Table<u64>,
    /// `edges[edge_start[o]..edge_start[o + 1]]` are the objects `o` references.
    pub edge_start: Table<u32>,
    pub edges: Table<u32>,
    /// Objects held directly by GC roots, with the kind of root.
    pub roots: Vec<(u32, RootKind)>,
    /// Per reference (parallel to `edges`): its name, packed as NAME packs it ([`NO_NAME`],
    /// [`LABEL_INDEX`], [`LABEL_KEY`]); empty when the file names none (version 1).
    pub labels: Table<u32>,
    /// Per root (parallel to `roots`): what the program calls it (`module app`), a string
    /// index or [`NO_NAME`]; empty when the file names none (version 1).
    pub root_names: Vec<u32>,
    /// The short values of its str, int, float, bytes, bool and None objects (VALS); empty
    /// before version 3.
    pub values: ValueTable,
}

impl HeapFile {
    pub fn object_count(&self) -> usize {
        self.types.len()
    }

    /// The file's bytes in the current version (what a probe writes; used by tests and
    /// benchmarks). Missing names are written as [`NO_NAME`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.object_count() * 40);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        let mut strs = count32(self.strings.len());
        self.strings.iter().for_each(|s| strs.extend_from_slice(&(s.len() as u32).to_le_bytes()));
        self.strings.iter().for_each(|s| strs.extend_from_slice(s.as_bytes()));
        let mut site = count32(self.sites.len());
        self.sites.iter().for_each(|f| site.extend_from_slice(&(f.len() as u32).to_le_bytes()));
        self.sites.iter().flatten().for_each(|f| site.extend_from_slice(&f.to_le_bytes()));
        let mut objs = count32(self.object_count());
        self.types.iter().for_each(|v| objs.extend_from_slice(&v.to_le_bytes()));
        self.site.iter().for_each(|v| objs.extend_from_slice(&v.to_le_bytes()));
        self.size.iter().for_each(|v| objs.extend_from_slice(&v.to_le_bytes()));
        self.address.iter().for_each(|v| objs.extend_from_slice(&v.to_le_bytes()));
        self.edge_start.windows(2).for_each(|w| objs.extend_from_slice(&(w[1] - w[0]).to_le_bytes()));
        let mut edge = (self.edges.len() as u64).to_le_bytes().to_vec();
        self.edges.iter().for_each(|v| edge.extend_from_slice(&v.to_le_bytes()));
        let mut name = (self.edges.len() as u64).to_le_bytes().to_vec();
        (0..self.edges.len())
            .for_each(|e| name.extend_from_slice(&self.labels.get(e).unwrap_or(&NO_NAME).to_le_bytes()));
        let mut root = count32(self.roots.len());
        self.roots.iter().for_each(|(o, _)| root.extend_from_slice(&o.to_le_bytes()));
        root.extend(self.roots.iter().map(|&(_, k)| root_code(k)));
        (0..self.roots.len())
            .for_each(|r| root.extend_from_slice(&self.root_names.get(r).unwrap_or(&NO_NAME).to_le_bytes()));
        let meta = serde_json::to_vec(&self.meta).expect("meta serializes");
        let vals = self.values.to_bytes();
        for (tag, payload) in
            SECTIONS.iter().zip([strs, site, objs, edge, name, vals, root, meta, Vec::new()])
        {
            section(&mut out, tag, &payload);
        }
        out
    }
}

fn count32(n: usize) -> Vec<u8> {
    (n as u32).to_le_bytes().to_vec()
}

fn section(out: &mut Vec<u8>, tag: &[u8; 4], payload: &[u8]) {
    out.extend_from_slice(tag);
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
}
