//! Getting a dump's bytes: memory-mapped as it is, or decompressed into memory when it is gzip
//! (`jcmd GC.heap_dump -gz=N` writes multi-member gzip).

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use memmap2::Mmap;

use crate::error::HprofError;

/// A dump's bytes.
pub enum DumpBytes {
    Mapped(Mmap),
    Decompressed(Vec<u8>),
}

impl Deref for DumpBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            DumpBytes::Mapped(map) => map,
            DumpBytes::Decompressed(bytes) => bytes,
        }
    }
}

/// Opens a dump, decompressing it if it starts with the gzip magic bytes.
pub fn open(path: &Path) -> Result<DumpBytes, HprofError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| HprofError::new(&name, format!("cannot read: {e}"));
    let file = File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.len() == 0 {
        return Err(HprofError { offset: Some(0), ..HprofError::new(&name, "empty file: not a heap dump") });
    }
    // SAFETY: the map is read-only and private to this import; like every tool that maps a dump,
    // we rely on nobody truncating the file while it is read (a truncation would fault, not
    // corrupt memory safety of other data).
    let map = unsafe { Mmap::map(&file) }.map_err(io)?;
    if map.starts_with(&[0x1f, 0x8b]) {
        let mut bytes = Vec::new();
        MultiGzDecoder::new(&map[..]).read_to_end(&mut bytes).map_err(|e| HprofError {
            offset: Some(bytes.len() as u64),
            ..HprofError::new(
                &name,
                format!("broken gzip data after {} decompressed bytes: {e}", bytes.len()),
            )
        })?;
        return Ok(DumpBytes::Decompressed(bytes));
    }
    Ok(DumpBytes::Mapped(map))
}

/// Whether a file name looks like a heap dump.
pub fn is_dump_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    name.ends_with(".hprof") || name.ends_with(".hprof.gz")
}

/// The dumps a user named: files as given, folders expanded to their `.hprof`/`.hprof.gz` files
/// (sorted by name; the history is ordered by the dumps' own timestamps later).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, HprofError> {
    let mut files = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        if path.is_dir() {
            let entries =
                std::fs::read_dir(path).map_err(|e| HprofError::new(&name, format!("cannot list: {e}")))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_dump_name(p))
                .collect();
            if found.is_empty() {
                return Err(HprofError::new(&name, "the folder has no .hprof or .hprof.gz files"));
            }
            found.sort();
            files.extend(found);
        } else if path.is_file() {
            files.push(path.clone());
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

    #[test]
    fn missing_paths_and_empty_folders_are_errors() {
        let dir = temp("empty");
        let e = expand(std::slice::from_ref(&dir)).unwrap_err();
        assert!(e.message.contains("no .hprof or .hprof.gz files"), "{e}");
        let e = expand(&[dir.join("nope.hprof")]).unwrap_err();
        assert!(e.file.ends_with("nope.hprof") && e.message.contains("no such file"), "{e}");
        assert!(expand(&[]).is_err());
        std::fs::write(dir.join("empty.hprof"), b"").unwrap();
        let e = open(&dir.join("empty.hprof")).err().unwrap();
        assert_eq!(e.offset, Some(0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
