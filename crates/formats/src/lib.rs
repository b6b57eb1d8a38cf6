//! What an input is, by its content: the first bytes of a file (inflated when it is gzip), and
//! for a folder the files in it. One home for the question "which reader gets this path", shared
//! by the CLI and the app, so any file name works (`jmap … file=heap.bin`).
//!
//! The file name is only a fallback: a file whose first bytes are not recognised but whose name
//! says what it should be (`x.hprof`, `t.jsonl`) goes to that reader, so the reader can say what
//! is wrong with it in its own words.

mod head;
mod unknown;

use std::path::{Path, PathBuf};

pub use head::{HEAD_LEN, kind_of_head, read_head};
pub use unknown::describe_bytes;

/// The inputs memcity reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A JVM heap dump (HPROF: `JAVA PROFILE 1.0.x`), plain or gzip.
    HprofDump,
    /// A V8 heap snapshot (`{"snapshot": …`), plain or gzip.
    V8Snapshot,
    /// A heap file of memcity's probes (`MEMCITYH`, `.mcheap`).
    HeapFile,
    /// A memcity/1 history, one snapshot, or AntTracks trees (JSON).
    History,
    /// A trace of memory events, JSON Lines.
    JsonLinesTrace,
    /// A trace of memory events, memcity's binary format (`MCTRACE\x01`).
    BinaryTrace,
}

impl Kind {
    /// The kind in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::HprofDump => "a JVM heap dump (HPROF)",
            Kind::V8Snapshot => "a V8 heap snapshot",
            Kind::HeapFile => "a heap file (.mcheap)",
            Kind::History => "a history (memcity/1 JSON, snapshot or AntTracks trees)",
            Kind::JsonLinesTrace => "a JSON Lines trace",
            Kind::BinaryTrace => "a binary trace",
        }
    }

    /// Kinds that come as series (one snapshot per file, folders of them).
    pub fn is_heap_series(self) -> bool {
        matches!(self, Kind::HprofDump | Kind::V8Snapshot | Kind::HeapFile)
    }
}

/// What a path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Input {
    pub kind: Kind,
    /// The file (or a file of the folder) is gzip.
    pub gzip: bool,
    /// The path is a folder of such files.
    pub folder: bool,
}

/// Why a path is not a known input: one line, naming the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct Unrecognized {
    pub path: String,
    pub reason: String,
}

impl Unrecognized {
    fn new(path: &Path, reason: impl Into<String>) -> Unrecognized {
        Unrecognized { path: path.display().to_string(), reason: reason.into() }
    }
}

/// What the inputs memcity reads are, in words, for messages.
const KNOWN: &str = "a heap dump, V8 heap snapshot, heap file, history, trace or folder of them";

/// Recognises a file or folder. Only regular files are read (a FIFO would block), at most
/// [`HEAD_LEN`] bytes each (inflated for gzip).
pub fn recognize(path: &Path) -> Result<Input, Unrecognized> {
    let meta = std::fs::metadata(path).map_err(|e| Unrecognized::new(path, format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return recognize_folder(path);
    }
    if !meta.is_file() {
        return Err(Unrecognized::new(
            path,
            "not a regular file (a FIFO, socket or device); save it to a file first",
        ));
    }
    recognize_file(path)
}

/// Recognises one regular file by its first bytes, else by its name.
pub fn recognize_file(path: &Path) -> Result<Input, Unrecognized> {
    let head = read_head(path).map_err(|e| Unrecognized::new(path, format!("cannot read: {e}")))?;
    if let Some(kind) = kind_of_head(&head.bytes) {
        return Ok(Input { kind, gzip: head.gzip, folder: false });
    }
    if let Some(kind) = kind_by_name(path) {
        return Ok(Input { kind, gzip: head.gzip, folder: false });
    }
    Err(Unrecognized::new(path, unknown::reason(&head, KNOWN)))
}

/// The kind a file's name suggests: the fallback for files whose content is not recognised.
pub fn kind_by_name(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let ext = name.rsplit_once('.')?.1;
    Some(match ext {
        "hprof" => Kind::HprofDump,
        "heapsnapshot" => Kind::V8Snapshot,
        "mcheap" => Kind::HeapFile,
        "jsonl" => Kind::JsonLinesTrace,
        "mctrace" => Kind::BinaryTrace,
        "json" => Kind::History,
        _ => return None,
    })
}

/// Whether a folder entry counts: not hidden (a probe writes `.name.part` while it works).
fn is_listed(path: &Path) -> bool {
    !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

/// The files of a folder that are inputs of `kind`, in name order. Files of other kinds and
/// unreadable ones are left out.
pub fn files_of_kind(dir: &Path, kind: Kind) -> std::io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_listed(p) && p.is_file())
        .filter(|p| recognize_file(p).is_ok_and(|i| i.kind == kind))
        .collect();
    found.sort();
    Ok(found)
}

/// A folder is what its files are: heap dumps, V8 snapshots or heap files (one snapshot per
/// file), else JSON snapshot files (the original tool's folder layout, with its pointer-map
/// subfolders). A folder mixing heap kinds is refused, naming two files.
fn recognize_folder(dir: &Path) -> Result<Input, Unrecognized> {
    let entries = std::fs::read_dir(dir).map_err(|e| Unrecognized::new(dir, format!("cannot list: {e}")))?;
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_listed(p) && p.is_file()).collect();
    files.sort();
    let mut heap: Option<(Input, PathBuf)> = None;
    let mut history = false;
    for file in &files {
        let Ok(input) = recognize_file(file) else { continue };
        if input.kind.is_heap_series() {
            match &heap {
                Some((first, at)) if first.kind != input.kind => {
                    return Err(Unrecognized::new(
                        dir,
                        format!(
                            "the folder mixes {} ({}) and {} ({}): one kind per series",
                            first.kind.describe(),
                            name_of(at),
                            input.kind.describe(),
                            name_of(file)
                        ),
                    ));
                }
                Some(_) => {}
                None => heap = Some((input, file.clone())),
            }
        } else if input.kind == Kind::History {
            history = true;
        }
    }
    if let Some((input, _)) = heap {
        return Ok(Input { folder: true, ..input });
    }
    if history {
        return Ok(Input { kind: Kind::History, gzip: false, folder: true });
    }
    Err(Unrecognized::new(
        dir,
        format!("the folder holds no input memcity reads ({KNOWN}; {} files looked at)", files.len()),
    ))
}

fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests;
