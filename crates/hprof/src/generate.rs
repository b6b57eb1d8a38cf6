//! A JVM-shaped heap dump of any size, streamed with no JVM, for benchmarks and tests. Its heap
//! is the one `benches/structures/BigHeap.java` builds: a `HashMap<Integer, ArrayList<Item>>`
//! of `entries` lists of four items (each with a `String` name over a `byte[]`), an
//! `ArrayList` of small `HashMap<String, Integer>`s, and, for collision chains, a
//! `HashMap<String, Item>` over every eighth entry's first item, keyed by its name. The layout
//! is 64-bit HotSpot's with compressed oops (JDK 17 field packing): ids are addresses, 8-byte
//! aligned and increasing in the order the objects are written, each object starting where the
//! one before it ends, as after a compacting GC. Forward references are computed from that
//! arithmetic, so memory stays small whatever the size (one `u32` per bucket of the named map).

mod heap;
mod records;

use std::collections::BTreeMap;
use std::io::{self, Write};

pub use heap::Plan;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Entries of the big map: 16 objects each, and a named-map node for every eighth.
    pub entries: u64,
    /// Small maps in the list: 5 objects each.
    pub small_maps: u64,
    /// The most bytes of one HEAP DUMP SEGMENT, gathered in memory before it is written (64 MiB
    /// by default; smaller ones give tests several segments).
    pub segment_bytes: usize,
    pub timestamp_ms: u64,
}

/// The most entries: item names are `item-NNNNNNNNN-K`, nine digits, so every entry has the
/// same size and addresses can be computed.
pub const MAX_ENTRIES: u64 = 999_999_999;

impl Spec {
    /// About `objects` objects in all: BigHeap's 20,000 small maps (fewer below 2 M objects),
    /// the rest in entries.
    pub fn for_objects(objects: u64) -> Spec {
        let small_maps = (objects / 100).clamp(1, 20_000);
        let rest = objects.saturating_sub(small_maps * 5 + 20);
        Spec {
            entries: (rest * 8 / 129).clamp(1, MAX_ENTRIES),
            small_maps,
            segment_bytes: 64 << 20,
            timestamp_ms: 1_700_000_000_000,
        }
    }
}

/// What was written: enough for tests to check an import against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Heap objects (instances and arrays; the class objects not included).
    pub objects: u64,
    /// Non-null references in objects and static fields.
    pub references: u64,
    /// The file's size.
    pub bytes: u64,
    pub segments: u64,
    /// Objects and shallow bytes per class name, as the JVM's class histogram shows them
    /// (`java.lang.Class` counts the class objects).
    pub histogram: BTreeMap<String, (u64, u64)>,
}

/// Writes the dump `spec` describes to `out` (buffer it: records are written piecewise).
pub fn write(out: impl Write, spec: &Spec) -> io::Result<Summary> {
    if spec.entries == 0 || spec.entries > MAX_ENTRIES || spec.small_maps == 0 || spec.small_maps >= 1 << 28 {
        let msg = format!(
            "generator: entries must be 1 to {MAX_ENTRIES} and small maps 1 to 2^28 (got {} and {})",
            spec.entries, spec.small_maps
        );
        return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
    }
    heap::Generator::new(out, spec)?.run()
}

/// Writes a dump of about `objects` objects to the file `path`.
pub fn write_file(path: &std::path::Path, spec: &Spec) -> io::Result<Summary> {
    let file = std::fs::File::create(path)?;
    write(io::BufWriter::with_capacity(1 << 20, file), spec)
}

#[cfg(test)]
mod tests;
