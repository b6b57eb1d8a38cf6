//! What an index is an index of: the dump's size, modification time and a hash of its first
//! and last MiB (a dump rewritten in place within one mtime tick still differs there), and the
//! layout it was read with (the layout flags change every shallow size).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::layout::Layout;

/// How much of each end of the dump is hashed.
const END: u64 = 1 << 20;

/// An index's key; an index is used only when every field matches the dump's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub size: u64,
    /// Modification time: seconds and nanoseconds since the epoch.
    pub mtime_s: u64,
    pub mtime_ns: u64,
    pub ends_hash: u64,
    /// A hash of the layout the dump is read with.
    pub layout_hash: u64,
}

impl Key {
    /// The fields in the order a file's header holds them.
    pub fn fields(&self) -> [u64; 5] {
        [self.size, self.mtime_s, self.mtime_ns, self.ends_hash, self.layout_hash]
    }

    /// [`Key::fields`] as little-endian bytes.
    pub fn bytes(&self) -> [u8; 40] {
        let mut out = [0u8; 40];
        for (chunk, field) in out.chunks_exact_mut(8).zip(self.fields()) {
            chunk.copy_from_slice(&field.to_le_bytes());
        }
        out
    }

    /// The key of the dump file at `path` (the gzip file itself for a gzipped dump).
    pub fn of(path: &Path, layout: &Layout) -> std::io::Result<Key> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        let since = meta.modified()?.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let size = meta.len();
        let mut hash = Fnv::default();
        let mut buffer = vec![0u8; END.min(size) as usize];
        file.read_exact(&mut buffer)?;
        hash.write(&buffer);
        let tail = size.saturating_sub(END).max(END.min(size));
        file.seek(SeekFrom::Start(tail))?;
        buffer.clear();
        file.take(END).read_to_end(&mut buffer)?;
        hash.write(&buffer);
        Ok(Key {
            size,
            mtime_s: since.as_secs(),
            mtime_ns: u64::from(since.subsec_nanos()),
            ends_hash: hash.0,
            layout_hash: layout_hash(layout),
        })
    }
}

/// The layout's fields, in the order the key hashes them and the index writes them.
pub(crate) fn layout_fields(layout: &Layout) -> [u64; 7] {
    [
        layout.header,
        layout.array_header,
        layout.reference,
        layout.align,
        layout.class_mirror,
        layout.pointer,
        u64::from(layout.detect),
    ]
}

/// The layout's fields, hashed.
fn layout_hash(layout: &Layout) -> u64 {
    let mut hash = Fnv::default();
    layout_fields(layout).iter().for_each(|f| hash.write(&f.to_le_bytes()));
    hash.0
}

/// The index's file name for the dump at `path` read with `layout`: a hash of the dump's full
/// path, the layout and the formats' versions, so each dump has one index that a rebuild
/// replaces, and a memcity of another format version keeps its own beside it (neither rebuilds
/// the other's; the older is evicted in time).
pub fn file_name(path: &Path, layout: &Layout) -> String {
    let full = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut hash = Fnv::default();
    hash.write(full.as_os_str().as_encoded_bytes());
    hash.write(&layout_hash(layout).to_le_bytes());
    for kind in [super::format::INDEX, super::format::TREE] {
        hash.write(&kind.version.to_le_bytes());
    }
    format!("{:016x}.hprof-index", hash.0)
}

/// FNV-1a, 64 bits: stable across builds and platforms, unlike std's hashers.
pub(crate) struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
