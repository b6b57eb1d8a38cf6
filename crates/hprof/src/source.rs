//! Getting a dump's bytes: memory-mapped as it is, or decompressed into memory when it is gzip
//! (`jcmd GC.heap_dump -gz=N` writes multi-member gzip).

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use memmap2::Mmap;

use crate::error::HprofError;
use crate::inflate::{Inflated, Inflation};

/// A dump's bytes.
pub enum DumpBytes {
    Mapped(Mmap),
    /// A gzipped dump, inflated (in memory or in a temporary file).
    Inflated(Inflated),
}

impl Deref for DumpBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            DumpBytes::Mapped(map) => map,
            DumpBytes::Inflated(Inflated::Memory(bytes)) => bytes,
            DumpBytes::Inflated(Inflated::Spilled(map, _)) => map,
        }
    }
}

/// How much is inflated before the HPROF header is checked.
const HEADER_PEEK: u64 = 64;

/// [`open_within`] the default budget.
pub fn open(path: &Path) -> Result<DumpBytes, HprofError> {
    open_within(path, &Inflation::default())
}

/// Opens a dump, inflating it if it starts with the gzip magic bytes. Refuses what is not a
/// regular file (a FIFO would block), gzip data that does not start like a heap dump (checked
/// on its first bytes) or whose records stop making sense, and gzip data that inflates beyond
/// the budget ([`crate::inflate`]).
pub fn open_within(path: &Path, budget: &Inflation) -> Result<DumpBytes, HprofError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| HprofError::new(&name, format!("cannot read: {e}"));
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(HprofError::new(
            &name,
            "not a regular file (a FIFO, socket or device); save the dump to a file first",
        ));
    }
    let file = File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.len() == 0 {
        return Err(HprofError { offset: Some(0), ..HprofError::new(&name, "empty file: not a heap dump") });
    }
    // SAFETY: the map is read-only and private to this import; like every tool that maps a dump,
    // we rely on nobody truncating the file while it is read (a truncation would fault, not
    // corrupt memory safety of other data).
    let map = unsafe { Mmap::map(&file) }.map_err(io)?;
    if map.starts_with(&[0x1f, 0x8b]) {
        let header_len = gzip_header_len(&map, &name)?;
        return crate::inflate::inflate(&map, header_len, budget, &name).map(DumpBytes::Inflated);
    }
    Ok(DumpBytes::Mapped(map))
}

/// The length of the header of the dump inside gzip data, read from its first bytes; gzip data
/// that does not start like a heap dump is refused before anything more is inflated.
fn gzip_header_len(gz: &[u8], name: &str) -> Result<usize, HprofError> {
    let mut head = Vec::new();
    let read = MultiGzDecoder::new(gz).take(HEADER_PEEK).read_to_end(&mut head);
    read.map_err(|e| HprofError {
        offset: Some(0),
        ..HprofError::new(name, format!("broken gzip data after 0 decompressed bytes: {e}"))
    })?;
    let nul = head.iter().position(|&b| b == 0).filter(|_| head.starts_with(b"JAVA PROFILE "));
    match nul {
        // The format name, its NUL, the identifier size and the time stamp.
        Some(nul) => Ok(nul + 1 + 4 + 8),
        None => Err(HprofError {
            offset: Some(0),
            ..HprofError::new(name, "not a heap dump: the gzip data does not start with \"JAVA PROFILE \"")
        }),
    }
}

/// Whether a file is a heap dump: by its first bytes (`JAVA PROFILE 1.0.`, plain or gzip),
/// whatever its name (`jmap -dump:format=b,file=heap.bin`), else by its name
/// ([`memcity_formats`] decides). Reads at most a few hundred bytes (inflated) of regular files only.
pub fn is_dump(path: &Path) -> bool {
    path.is_file()
        && memcity_formats::recognize_file(path).is_ok_and(|i| i.kind == memcity_formats::Kind::HprofDump)
}

/// The dumps a user named: files as given, folders expanded to their `.hprof`/`.hprof.gz` files
/// (sorted by name; the history is ordered by the dumps' own timestamps later).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, HprofError> {
    let mut files = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        if path.is_dir() {
            let found = memcity_formats::files_of_kind(path, memcity_formats::Kind::HprofDump)
                .map_err(|e| HprofError::new(&name, format!("cannot list: {e}")))?;
            if found.is_empty() {
                return Err(HprofError::new(
                    &name,
                    "the folder has no heap dumps (.hprof, .hprof.gz, or files that start as one)",
                ));
            }
            files.extend(found);
        } else if path.is_file() {
            files.push(path.clone());
        } else if path.exists() {
            return Err(HprofError::new(&name, "not a regular file (a FIFO, socket or device)"));
        } else {
            return Err(HprofError::new(&name, "no such file or folder"));
        }
    }
    if files.is_empty() {
        return Err(HprofError::new("(command line)", "no heap dumps given"));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("memcity-source-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn folders_expand_to_their_dumps_in_name_order() {
        let dir = temp("expand");
        for name in ["b.hprof.gz", "a.HPROF", "notes.txt"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let files = expand(std::slice::from_ref(&dir)).unwrap();
        let names: Vec<_> =
            files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.HPROF", "b.hprof.gz"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn gzip_bombs_are_refused_without_inflating_them() {
        let dir = temp("bomb");
        // 512 MiB of zeros: not a dump, refused after the first bytes.
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..512 {
            std::io::Write::write_all(&mut encoder, &zeros).unwrap();
        }
        std::fs::write(dir.join("zeros.hprof.gz"), encoder.finish().unwrap()).unwrap();
        let e = open(&dir.join("zeros.hprof.gz")).err().unwrap();
        assert!(e.message.contains("does not start with \"JAVA PROFILE \""), "{e}");
        // A header, then zeros: no record has tag 0, refused at the first one.
        let header = b"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0";
        let mut dump = header.to_vec();
        dump.resize(80 << 20, 0);
        std::fs::write(dir.join("bomb.hprof.gz"), gzip(&dump)).unwrap();
        let e = open(&dir.join("bomb.hprof.gz")).err().unwrap();
        assert_eq!(e.offset, Some(header.len() as u64));
        assert!(e.message.contains("unknown record tag 0x00"), "{e}");
        // A string record as long as a record can be, of zeros: refused by the size budget.
        let mut dump = header.to_vec();
        dump.extend([0x01, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        dump.resize(80 << 20, 0);
        std::fs::write(dir.join("long.hprof.gz"), gzip(&dump)).unwrap();
        let small = Inflation { memory: 1 << 20, max: 16 << 20, dir: None };
        let e = open_within(&dir.join("long.hprof.gz"), &small).err().unwrap();
        assert!(
            e.message.contains("more than 0.015625 GiB") && e.message.contains("--max-inflated-gib"),
            "{e}"
        );
        // Cut short, it is refused once inflated, before it is parsed.
        let big = Inflation { memory: 1 << 20, max: 1 << 30, dir: None };
        let e = open_within(&dir.join("long.hprof.gz"), &big).err().unwrap();
        assert!(e.message.contains("truncated dump: the last record needs"), "{e}");
        assert_eq!(e.offset, Some(80 << 20));
        // Whole, it inflates within the budget, past the memory budget into a temporary file.
        let mut dump = header.to_vec();
        dump.extend([0x01, 0, 0, 0, 0]);
        dump.extend((80u32 << 20).to_be_bytes());
        dump.resize(dump.len() + (80 << 20), 0);
        std::fs::write(dir.join("whole.hprof.gz"), gzip(&dump)).unwrap();
        let bytes = open_within(&dir.join("whole.hprof.gz"), &big).unwrap();
        assert!(matches!(bytes, DumpBytes::Inflated(Inflated::Spilled(..))));
        assert_eq!(&bytes[..], &dump[..]);
        // Into the work folder when one is given, and gone from it at once.
        let work = dir.join("work");
        std::fs::create_dir_all(&work).unwrap();
        let into_work = Inflation { dir: Some(work.clone()), ..big };
        let bytes = open_within(&dir.join("whole.hprof.gz"), &into_work).unwrap();
        assert!(matches!(bytes, DumpBytes::Inflated(Inflated::Spilled(..))) && bytes[..] == dump[..]);
        assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
        let missing = Inflation { dir: Some(dir.join("missing")), ..into_work };
        let e = open_within(&dir.join("whole.hprof.gz"), &missing).err().unwrap();
        assert!(e.message.contains("give --work-dir or set TMPDIR") && !e.message.contains('\n'), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_instead_of_read() {
        let dir = temp("fifo");
        let fifo = dir.join("pipe.hprof");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let e = open(&fifo).err().unwrap();
        assert!(e.message.contains("not a regular file"), "{e}");
        let e = expand(std::slice::from_ref(&fifo)).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_paths_and_empty_folders_are_errors() {
        let dir = temp("empty");
        let e = expand(std::slice::from_ref(&dir)).unwrap_err();
        assert!(e.message.contains("the folder has no heap dumps"), "{e}");
        let e = expand(&[dir.join("nope.hprof")]).unwrap_err();
        assert!(e.file.ends_with("nope.hprof") && e.message.contains("no such file"), "{e}");
        assert!(expand(&[]).is_err());
        std::fs::write(dir.join("empty.hprof"), b"").unwrap();
        let e = open(&dir.join("empty.hprof")).err().unwrap();
        assert_eq!(e.offset, Some(0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
