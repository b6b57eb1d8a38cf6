//! Gzipped dumps inflated in a stream, bounded by resources rather than by a compression ratio:
//! real dumps compress up to several hundred times (a 523 MB dump to 935 KB), so a ratio
//! refuses them. The inflated bytes stay in memory up to a memory budget, then go to a
//! temporary file that is memory-mapped; past a size budget the dump is refused, naming the
//! budget and how to raise it. The top-level records are checked as they stream by, so gzip
//! data that is not a heap dump past its header (a file of zeros) is refused at once.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use flate2::read::MultiGzDecoder;
use memmap2::Mmap;

use crate::error::HprofError;
use crate::parse::is_record_tag;

/// How far a gzipped dump may inflate, and how much of it may be held in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inflation {
    /// Inflated bytes held in memory; beyond, they go to a temporary file.
    pub memory: u64,
    /// Inflated bytes at most (memory and file together); beyond, the dump is refused.
    pub max: u64,
    /// Where the file goes: the run's work folder (`--work-dir`); `None` is `$TMPDIR`.
    pub dir: Option<PathBuf>,
}

/// The default of `--max-inflated-gib`.
pub const DEFAULT_MAX_INFLATED_GIB: u64 = 64;

impl Default for Inflation {
    fn default() -> Inflation {
        Inflation { memory: 1 << 30, max: DEFAULT_MAX_INFLATED_GIB << 30, dir: None }
    }
}

/// An inflated dump: in memory, or in a temporary file (deleted when dropped).
pub enum Inflated {
    Memory(Vec<u8>),
    Spilled(Mmap, TempFile),
}

/// A temporary file, removed when dropped (on Unix at once: the open handle keeps it).
pub struct TempFile {
    path: PathBuf,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Bytes read from the decoder at a time.
const CHUNK: usize = 1 << 20;

/// Inflates `gz` (the whole gzip file) within `budget`; `header_len` is the length of the dump's
/// header (the records follow it); `name` names the file in errors.
pub fn inflate(gz: &[u8], header_len: usize, budget: &Inflation, name: &str) -> Result<Inflated, HprofError> {
    let mut decoder = MultiGzDecoder::new(gz);
    let mut memory: Vec<u8> = Vec::new();
    let mut spill: Option<(BufWriter<File>, TempFile, PathBuf)> = None;
    let mut records = RecordCheck { skip: header_len as u64, pending: Vec::with_capacity(9), at: 0 };
    let mut chunk = vec![0u8; CHUNK];
    let mut total: u64 = 0;
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(HprofError {
                    offset: Some(total),
                    ..HprofError::new(name, format!("broken gzip data after {total} decompressed bytes: {e}"))
                });
            }
        };
        let data = &chunk[..n];
        records.feed(data).map_err(|(offset, message)| HprofError {
            offset: Some(offset),
            ..HprofError::new(name, message)
        })?;
        total += n as u64;
        if total > budget.max {
            return Err(HprofError::new(name, over_budget(budget.max)));
        }
        if spill.is_none() && total > budget.memory {
            spill = Some(start_spill(&mut memory, budget.dir.as_deref(), name)?);
        }
        match &mut spill {
            Some((file, _, path)) => file.write_all(data).map_err(|e| spill_error(path, e, name))?,
            None => memory.extend_from_slice(data),
        }
    }
    records
        .finish()
        .map_err(|(offset, message)| HprofError { offset: Some(offset), ..HprofError::new(name, message) })?;
    let Some((file, temp, path)) = spill else { return Ok(Inflated::Memory(memory)) };
    let file = file.into_inner().map_err(|e| spill_error(&path, e.into_error(), name))?;
    // SAFETY: the file is this import's own, unlinked (Unix) or removed when the map is dropped;
    // nobody else writes it.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| spill_error(&path, e, name))?;
    Ok(Inflated::Spilled(map, temp))
}

/// The one line for a dump past the size budget.
pub fn over_budget(max: u64) -> String {
    let gib = max as f64 / (1u64 << 30) as f64;
    format!(
        "the gzip data inflates to more than {gib} GiB, the budget for one dump: refused (raise it with \
         --max-inflated-gib N if the dump is real and the disk has room)"
    )
}

/// Moves what was inflated so far into a new temporary file.
fn start_spill(
    memory: &mut Vec<u8>,
    dir: Option<&std::path::Path>,
    name: &str,
) -> Result<(BufWriter<File>, TempFile, PathBuf), HprofError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = dir.map_or_else(std::env::temp_dir, std::path::Path::to_path_buf).join(format!(
        "memcity-inflated-{}-{}.hprof",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| spill_error(&path, e, name))?;
    let temp = TempFile { path: path.clone() };
    #[cfg(unix)]
    let _ = std::fs::remove_file(&path);
    let mut writer = BufWriter::with_capacity(CHUNK, file);
    writer.write_all(memory).map_err(|e| spill_error(&path, e, name))?;
    *memory = Vec::new();
    Ok((writer, temp, path))
}

fn spill_error(path: &std::path::Path, e: std::io::Error, name: &str) -> HprofError {
    HprofError::new(
        name,
        format!(
            "cannot write the inflated dump to the temporary file {}: {e} (give --work-dir or set TMPDIR to a folder with more room, or gunzip the dump first)",
            path.display()
        ),
    )
}

/// Follows the top-level records through the stream: each starts with a tag, a time and a body
/// length, and the body is skipped.
struct RecordCheck {
    /// Bytes of the header or of the current record's body still to pass.
    skip: u64,
    /// The bytes of a record header read so far.
    pending: Vec<u8>,
    /// Offset of the next byte fed.
    at: u64,
}

impl RecordCheck {
    /// At the end of the data: the last record must be whole.
    fn finish(&self) -> Result<(), (u64, String)> {
        if self.skip == 0 && self.pending.is_empty() {
            return Ok(());
        }
        let missing = if self.pending.is_empty() { self.skip } else { 9 - self.pending.len() as u64 };
        Err((self.at, format!("truncated dump: the last record needs {missing} more bytes")))
    }

    fn feed(&mut self, mut data: &[u8]) -> Result<(), (u64, String)> {
        while !data.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(data.len() as u64) as usize;
                self.skip -= n as u64;
                self.at += n as u64;
                data = &data[n..];
                continue;
            }
            self.pending.push(data[0]);
            data = &data[1..];
            self.at += 1;
            if self.pending.len() == 9 {
                let tag = self.pending[0];
                if !is_record_tag(tag) {
                    return Err((
                        self.at - 9,
                        format!("not a heap dump past its header: unknown record tag 0x{tag:02X}"),
                    ));
                }
                self.skip = u64::from(u32::from_be_bytes(self.pending[5..9].try_into().expect("4 bytes")));
                self.pending.clear();
            }
        }
        Ok(())
    }
}
