//! The index file's layout (docs/hprof.md, "Reopening: the index"): little-endian; a 72-byte
//! header — magic, format version, the dump's [`Key`], the length of the body and its checksum
//! — then the body, a sequence of blocks, each a `u64` byte length followed by its bytes padded
//! to 8. Every length is checked against the bytes that are left before anything is allocated.

use memcity_heapgraph::table::Plain;

use super::key::Key;

/// A kind of file in this format: the dump's index, or the dominator tree kept beside it.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub magic: [u8; 8],
    /// Bumped whenever the body's blocks change.
    pub version: u32,
    /// What a file of another magic is said not to be.
    pub what: &'static str,
}

pub const INDEX: Kind = Kind { magic: *b"MCIDXHP\0", version: 5, what: "memcity index" };
pub const TREE: Kind = Kind { magic: *b"MCIDXDT\0", version: 4, what: "memcity dominator tree" };
pub const HEADER: usize = 72;

/// The header's fields.
pub fn header(kind: Kind, key: &Key, body: u64, checksum: u64) -> [u8; HEADER] {
    let mut out = [0u8; HEADER];
    out[..8].copy_from_slice(&kind.magic);
    out[8..12].copy_from_slice(&kind.version.to_le_bytes());
    let mut fields = key.fields().to_vec();
    fields.extend([body, checksum]);
    for (i, f) in fields.iter().enumerate() {
        out[16 + 8 * i..24 + 8 * i].copy_from_slice(&f.to_le_bytes());
    }
    out
}

/// Why an index cannot be used: stale (another dump, or another layout) or unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    Stale,
    Corrupt(String),
}

/// The key an index's header names, if it has a header: for reading an index whatever dump
/// it is of (the fuzz target).
pub fn key_in(file: &[u8]) -> Option<Key> {
    let u64_at = |i: usize| Some(u64::from_le_bytes(file.get(16 + 8 * i..24 + 8 * i)?.try_into().ok()?));
    Some(Key {
        size: u64_at(0)?,
        mtime_s: u64_at(1)?,
        mtime_ns: u64_at(2)?,
        ends_hash: u64_at(3)?,
        layout_hash: u64_at(4)?,
    })
}

/// Checks the header against `kind`, `key` and the file's length; returns the body.
pub fn body<'a>(file: &'a [u8], kind: Kind, key: &Key) -> Result<&'a [u8], Unusable> {
    if file.len() < HEADER || file[..8] != kind.magic {
        return Err(Unusable::Corrupt(format!("not a {}", kind.what)));
    }
    let u64_at = |i: usize| u64::from_le_bytes(file[16 + 8 * i..24 + 8 * i].try_into().expect("8 bytes"));
    let version = u32::from_le_bytes(file[8..12].try_into().expect("4 bytes"));
    if version != kind.version {
        return Err(Unusable::Corrupt(format!(
            "format version {version}, this memcity reads {}",
            kind.version
        )));
    }
    let found = Key {
        size: u64_at(0),
        mtime_s: u64_at(1),
        mtime_ns: u64_at(2),
        ends_hash: u64_at(3),
        layout_hash: u64_at(4),
    };
    if found != *key {
        return Err(Unusable::Stale);
    }
    let body = &file[HEADER..];
    if u64_at(5) != body.len() as u64 {
        return Err(Unusable::Corrupt(format!(
            "its header says {} bytes follow, the file has {}",
            u64_at(5),
            body.len()
        )));
    }
    Ok(body)
}

/// A file of this format, mapped, whose header was found good; its body is read with
/// [`Checked::read`], beside the check of its checksum.
pub struct Checked {
    file: std::fs::File,
    map: memmap2::Mmap,
    path: std::path::PathBuf,
    /// The file's identity when it was opened, and the time then, for its stamp
    /// ([`super::stamp`]).
    identity: Option<super::stamp::Identity>,
    opened: std::time::SystemTime,
}

impl Checked {
    /// The file at `path` if there is one, of `kind`, for the dump `key` describes.
    pub fn open(path: &std::path::Path, kind: Kind, key: &Key) -> Result<Option<Checked>, Unusable> {
        let file = match super::open_regular(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Unusable::Corrupt(format!("cannot read it: {e}"))),
        };
        // SAFETY: these files are replaced by rename, never written in place, so the mapped
        // file does not change while it is read (a user truncating one by hand is not guarded
        // against).
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|e| Unusable::Corrupt(format!("cannot map it: {e}")))?;
        body(&map, kind, key)?;
        let (identity, opened) = (super::stamp::Identity::of(&file), std::time::SystemTime::now());
        Ok(Some(Checked { file, map, path: path.to_path_buf(), identity, opened }))
    }

    /// The body read by `read` from its blocks (tables read in place from the file), if it is
    /// whole. The checksum is summed on one worker while `read` runs on the other: `read`
    /// bounds and checks whatever it reads (any bytes, as the fuzz targets give it), so it
    /// need not wait for the sum, and its result is used only once the sum is found good.
    pub fn read<T: Send>(
        &self,
        read: impl FnOnce(Blocks<'_>) -> Result<T, String> + Send,
    ) -> Result<T, Unusable> {
        let blocks = Blocks::in_file(&self.map[HEADER..], &self.file, HEADER as u64);
        let (summed, read) = rayon::join(|| check_sum(&self.map, &self.map[HEADER..]), || read(blocks));
        summed?;
        read.map_err(Unusable::Corrupt)
    }

    /// The body read by `read` without its checksum, where it ends in `seal`'s seal of the
    /// dump's `key` and the blocks before it ([`is_sealed_body`]), or a stamp says it did when
    /// the file was as it is now ([`super::stamp`]); None where there is no key, no such seal,
    /// or `read` refuses it. The seal covers every byte but its own, so the tables read are the
    /// ones sealed.
    pub fn read_sealed<T>(
        &self,
        seal: Option<&super::seal::SealKey>,
        key: &Key,
        read: impl FnOnce(Blocks<'_>) -> Option<T>,
    ) -> Option<T> {
        let body = &self.map[HEADER..];
        let preface = key.bytes();
        let sealed = seal.is_some_and(|seal| {
            self.is_stamped(seal, &preface) || self.is_sealed_then_stamped(seal, &preface)
        });
        sealed.then(|| read(Blocks::in_file(body, &self.file, HEADER as u64))).flatten()
    }

    /// Whether a stamp says the file's seal was found good when it was as it is now.
    fn is_stamped(&self, seal: &super::seal::SealKey, preface: &[u8]) -> bool {
        let holds = |identity| super::stamp::holds(&self.path, seal, preface, identity);
        self.identity.as_ref().is_some_and(holds)
    }

    /// Whether the body is sealed; if it is, the file is stamped so (where it has settled).
    fn is_sealed_then_stamped(&self, seal: &super::seal::SealKey, preface: &[u8]) -> bool {
        let sealed = is_sealed_body(seal, preface, &self.map[HEADER..]);
        if let (true, Some(identity)) = (sealed, &self.identity) {
            super::stamp::make(&self.path, seal, preface, identity, self.opened);
        }
        sealed
    }
}

/// Checks the body against the checksum in the header: an index the disk lost part of (a power
/// cut before it was written back) or anyone changed is not read.
pub fn check_sum(file: &[u8], body: &[u8]) -> Result<(), Unusable> {
    let expected = u64::from_le_bytes(file[64..72].try_into().expect("8 bytes"));
    let mut sum = Checksum::default();
    sum.words(body);
    match sum.value() == expected {
        true => Ok(()),
        false => Err(Unusable::Corrupt("its contents do not match its checksum".into())),
    }
}

/// A checksum over 64-bit words, at about the speed memory is read: one multiply a word, on
/// four lanes (word `i` goes to lane `i % 4`), so four multiplies are in flight where one
/// chain would wait for each (version 1 had one lane: a third of a reopening's checks).
#[derive(Default)]
pub struct Checksum {
    lanes: [u64; LANES],
    /// Words added so far: which lane the next one goes to, across calls.
    words: u64,
}

const LANES: usize = 4;
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

impl Checksum {
    /// Adds `bytes`, the last word padded with zeros.
    pub fn words(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
        // One at a time up to lane 0, then four at once.
        while !self.words.is_multiple_of(LANES as u64) {
            match words.next() {
                Some(w) => self.word(w),
                None => break,
            }
        }
        let whole = bytes.len() / 8;
        let done = whole - words.len();
        let mut quads = bytes[done * 8..whole * 8].chunks_exact(8 * LANES);
        for quad in &mut quads {
            for (lane, w) in self.lanes.iter_mut().zip(quad.chunks_exact(8)) {
                *lane = mix(*lane, u64::from_le_bytes(w.try_into().expect("8 bytes")));
            }
            self.words += LANES as u64;
        }
        for w in quads.remainder().chunks_exact(8) {
            self.word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = &bytes[whole * 8..];
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
    }

    fn word(&mut self, w: u64) {
        let lane = &mut self.lanes[(self.words % LANES as u64) as usize];
        *lane = mix(*lane, w);
        self.words += 1;
    }

    /// The checksum of the words added so far: the lanes folded, and their count.
    pub fn value(&self) -> u64 {
        self.lanes.iter().fold(self.words, |sum, &lane| mix(sum, lane))
    }
}

fn mix(sum: u64, w: u64) -> u64 {
    (sum ^ w).wrapping_mul(MIX).rotate_left(31)
}

/// Reads the body's blocks in order, every read bounded by what is left.
pub struct Blocks<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The file the body was mapped from and where it starts in it: tables are then read in
    /// place ([`Table::map_private`]) instead of copied.
    file: Option<(&'a std::fs::File, u64)>,
    /// Where the last block read starts (its bytes, after its length).
    last: usize,
}

impl<'a> Blocks<'a> {
    pub fn new(bytes: &'a [u8]) -> Blocks<'a> {
        Blocks { bytes, at: 0, file: None, last: 0 }
    }

    /// The blocks of `bytes`, which are `file`'s from byte `start` on.
    pub fn in_file(bytes: &'a [u8], file: &'a std::fs::File, start: u64) -> Blocks<'a> {
        Blocks { bytes, at: 0, file: Some((file, start)), last: 0 }
    }

    /// The next block's bytes; `what` names it in the error.
    pub fn next(&mut self, what: &str) -> Result<&'a [u8], String> {
        let rest = &self.bytes[self.at..];
        let short = || format!("the {what} block is cut off at body byte {}", self.at);
        let len = rest.get(..8).ok_or_else(short)?;
        let len = u64::from_le_bytes(len.try_into().expect("8 bytes"));
        let len = usize::try_from(len).ok().filter(|&l| l <= rest.len() - 8).ok_or_else(short)?;
        let block = &rest[8..8 + len];
        self.last = self.at + 8;
        self.at = (self.at + 8 + len.next_multiple_of(8)).min(self.bytes.len());
        Ok(block)
    }

    /// The next block as `T`s; its length must be a whole number of them and, where `count`
    /// is given, exactly `count` of them.
    pub fn values<T: Plain>(&mut self, what: &str, count: Option<usize>) -> Result<Vec<T>, String> {
        let block = self.next(what)?;
        let n = checked_count::<T>(block, what, count)?;
        let Some(first) = first(block) else { return Ok(Vec::new()) };
        let mut out = vec![first; n];
        bytes_of_mut(&mut out).copy_from_slice(block);
        Ok(out)
    }

    /// The next block as a table of `T`s: read in place from the file where there is one, else
    /// copied (to a work file past the memory budget).
    pub fn table<T: Plain>(
        &mut self,
        what: &str,
        count: usize,
    ) -> Result<memcity_heapgraph::Table<T>, String> {
        let block = self.next(what)?;
        let n = checked_count::<T>(block, what, Some(count))?;
        if let Some((file, start)) = self.file {
            let offset = start + self.last as u64;
            let mapped = memcity_heapgraph::Table::map_private(file, offset, n);
            return mapped.map_err(|e| format!("cannot map the {what} block: {e}"));
        }
        copied(block, n)
    }

    /// The next two blocks as a list of strings: `count + 1` end offsets, then the bytes.
    pub fn strings(&mut self, what: &str, count: usize) -> Result<Vec<String>, String> {
        let ends: Vec<u64> = self.values(what, Some(count.saturating_add(1)))?;
        let text = self.next(what)?;
        let mut out = Vec::with_capacity(count);
        for pair in ends.windows(2) {
            let piece = usize::try_from(pair[0])
                .ok()
                .zip(usize::try_from(pair[1]).ok())
                .and_then(|(from, to)| text.get(from..to))
                .ok_or_else(|| format!("a string of the {what} lies outside its block"))?;
            let s = std::str::from_utf8(piece).map_err(|_| format!("a string of the {what} is not UTF-8"))?;
            out.push(s.to_string());
        }
        Ok(out)
    }

    /// The body's length in bytes.
    pub fn body_len(&self) -> usize {
        self.bytes.len()
    }

    /// Where the next block starts in the body.
    pub fn position(&self) -> usize {
        self.at
    }

    /// Whether every block was read.
    pub fn finished(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// A block's `n` values copied into a table (a work file past the budget), by all workers at
/// once: a table of zeros is faulted in by all of them, then each copies its share.
fn copied<T: Plain>(block: &[u8], n: usize) -> Result<memcity_heapgraph::Table<T>, String> {
    use rayon::prelude::*;
    // SAFETY: `Plain` types take any bit pattern, zeros included.
    let zero: T = unsafe { std::mem::zeroed() };
    let mut out = memcity_heapgraph::Table::filled(n, zero);
    let share = 8 << 20;
    bytes_of_mut(&mut out).par_chunks_mut(share).zip(block.par_chunks(share)).for_each(|(to, from)| {
        to.copy_from_slice(from);
    });
    Ok(out)
}

/// The block's first value, if it holds one.
fn first<T: Plain>(block: &[u8]) -> Option<T> {
    // SAFETY: `Plain` types take any bit pattern; the read is bounded and unaligned.
    (block.len() >= size_of::<T>()).then(|| unsafe { block.as_ptr().cast::<T>().read_unaligned() })
}

/// How many `T`s the block holds.
fn checked_count<T>(block: &[u8], what: &str, count: Option<usize>) -> Result<usize, String> {
    let size = size_of::<T>();
    if !block.len().is_multiple_of(size) {
        return Err(format!("the {what} block is {} bytes, not a multiple of {size}", block.len()));
    }
    let n = block.len() / size;
    match count {
        Some(c) if c != n => Err(format!("the {what} block holds {n} values, not {c}")),
        _ => Ok(n),
    }
}

/// Whether a file's `body` ends in a block holding `key`'s seal of `preface` and of every
/// block before it (what a [`Writer`] with a [`super::seal::Sealing`] writes last).
fn is_sealed_body(key: &super::seal::SealKey, preface: &[u8], body: &[u8]) -> bool {
    let mut blocks = Blocks::new(body);
    let (mut at, mut last) = (0, None);
    while !blocks.finished() {
        at = blocks.position();
        match blocks.next("block") {
            Ok(block) => last = Some(block),
            Err(_) => return false,
        }
    }
    last.is_some_and(|seal| super::seal::is_sealed(key, preface, &body[..at], seal))
}

/// Writes blocks.
pub struct Writer<W: std::io::Write> {
    pub out: W,
    pub written: u64,
    pub sum: Checksum,
    /// The seal of the bytes written, where the file is sealed ([`super::seal`]).
    pub sealing: Option<super::seal::Sealing>,
}

impl<W: std::io::Write> Writer<W> {
    pub fn block(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(&(bytes.len() as u64).to_le_bytes())?;
        self.out.write_all(bytes)?;
        let pad = bytes.len().next_multiple_of(8) - bytes.len();
        self.out.write_all(&[0u8; 8][..pad])?;
        self.sum.words(&(bytes.len() as u64).to_le_bytes());
        self.sum.words(bytes);
        if let Some(sealing) = &mut self.sealing {
            sealing.add(&(bytes.len() as u64).to_le_bytes());
            sealing.add(bytes);
            sealing.add(&[0u8; 8][..pad]);
        }
        self.written += 8 + (bytes.len() + pad) as u64;
        Ok(())
    }

    pub fn values<T: Plain>(&mut self, values: &[T]) -> std::io::Result<()> {
        self.block(bytes_of(values))
    }

    pub fn strings<'s>(&mut self, strings: impl Iterator<Item = &'s str>) -> std::io::Result<()> {
        let mut ends = vec![0u64];
        let mut text = Vec::new();
        for s in strings {
            text.extend_from_slice(s.as_bytes());
            ends.push(text.len() as u64);
        }
        self.values(&ends)?;
        self.block(&text)
    }
}

/// A slice's bytes.
pub fn bytes_of<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have no padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
}

/// A slice's bytes, to fill.
fn bytes_of_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: `Plain` types take any bit pattern and have no padding.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), size_of_val(values)) }
}
