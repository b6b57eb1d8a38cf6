//! memcity's heap file format (`.mcheap`, docs/heapfile.md): one heap snapshot as a compact,
//! language-neutral graph — objects with type, size, allocation site and address, their
//! references, the GC roots with their kinds, and the snapshot's own cost. Language probes write
//! it (probes/python/memcity_probe.py); this crate reads it and sends a series of snapshots
//! through the one heap pipeline (memcity-heapgraph), live or after the fact.

mod error;
pub mod follow;
pub mod format;
pub mod fuzzing;
pub mod import;
mod read;
pub mod typed;
pub mod values;

pub use error::HeapFileError;
pub use follow::Follower;
pub use format::{EXTENSION, HeapFile, MAGIC, Meta, OLDEST_VERSION, VERSION};
pub use import::{
    closure_of, default_grouping, import, is_heap_input, label, labels_file, read_file, read_meta,
    snapshot_files, snapshot_label, snapshot_metrics,
};
pub use memcity_heapgraph::Grouping;
pub use read::has_magic;
pub use typed::{TypedFile, typed_heap};
pub use values::{FileValues, ValueKind, ValueTable};

/// Parses a heap file's bytes; `name` is what errors call the file.
pub fn parse(bytes: &[u8], name: &str) -> Result<HeapFile, HeapFileError> {
    read::parse(bytes).map_err(|fault| fault.in_file(name))
}

#[cfg(test)]
mod tests;
