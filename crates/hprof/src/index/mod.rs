//! An index for reopening a dump: the resolved dump (every object's class, shallow size and
//! references, the roots, the classes) and the names of its references, written once the dump
//! has been read, to the user's cache folder or `--index-dir`, never beside the dump. The next
//! opening of the same dump reads the index instead of the dump: a few large copies instead of
//! two passes over every record. Nothing is grouped in advance, so every grouping,
//! `--classifiers` and `--structures` works from it.
//!
//! [`open_dump`] is the one way a dump is opened: it looks for the index, checks it, and
//! otherwise reads the dump and writes the index. A stale or unusable index is rebuilt with a
//! one-line note on stderr.

pub(crate) mod analysed;
mod direct;
mod evict;
mod format;
pub(crate) mod grouped;
mod key;
mod read;
mod replace;
pub mod seal;
mod stamp;
mod tree;
mod write;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use memcity_heapgraph::{EdgeLabels, Phase, Progress};

use crate::error::HprofError;
use crate::inflate::Inflation;
use crate::layout::Layout;
use crate::resolve::Dump;
use crate::{parse, resolve, source};

pub use format::Unusable;
pub use key::Key;
pub use tree::{KeptTree, TreePlace};

/// How a dump is opened.
#[derive(Debug, Clone, Default)]
pub struct Opening {
    pub layout: Layout,
    pub inflation: Inflation,
    /// The folder of indexes; `None`: neither read nor written (`--no-index`).
    pub index: Option<PathBuf>,
}

/// A dump opened: its objects, and the names of its references where they were asked for.
pub struct Opened {
    pub dump: Dump,
    pub labels: Option<EdgeLabels>,
    /// Whether it came from the index rather than from the dump.
    pub from_index: bool,
    /// The dump's dominator tree, where an earlier analysis kept it beside the index.
    pub tree: Option<KeptTree>,
    /// Where to keep the tree once it is built ([`keep_tree`]): there is an index but no tree.
    pub keep_tree: Option<TreePlace>,
}

/// Opens the dump at `path` from its index when there is a good one; otherwise reads the dump
/// (`progress` hears its position in the uncompressed bytes, then the phases) and, where an
/// index folder is given, writes its index. `labelled`: the references' names are wanted.
pub fn open_dump(
    path: &Path,
    opening: &Opening,
    labelled: bool,
    progress: &dyn Progress,
) -> Result<Opened, HprofError> {
    let (mut opened, pending) = open_dump_pending(path, opening, labelled, progress)?;
    if let Some(pending) = pending {
        (opened.tree, opened.keep_tree) = pending.load(&opened.dump.graph.shallow, progress);
    }
    Ok(opened)
}

/// [`open_dump`], leaving the tree kept beside a good index to be loaded by the caller
/// ([`PendingTree::load`]), so that its checks can run beside other work on the dump (its
/// grouping). The opened dump then has neither a tree nor a place to keep one.
pub fn open_dump_pending(
    path: &Path,
    opening: &Opening,
    labelled: bool,
    progress: &dyn Progress,
) -> Result<(Opened, Option<PendingTree>), HprofError> {
    let place = match lookup(path, opening, progress) {
        Lookup::Found(dump, labels, place) => {
            // Nothing of the dump is read: all of it is done at once.
            progress.read(1, 1);
            let pending = PendingTree { at: tree_place(path, &place), key: place.key };
            let labels = labelled.then_some(labels);
            let opened = Opened { dump: *dump, labels, from_index: true, tree: None, keep_tree: None };
            return Ok((opened, Some(pending)));
        }
        Lookup::Missing(place) => place,
    };
    // The index holds the names, so they are read whether or not this opening wants them.
    let mut opened = read_dump(path, opening, place.is_some() || labelled, progress)?;
    if let Some(place) = place {
        progress.phase(Phase::WritingIndex);
        if store(path, &place, &opened.dump, opened.labels.as_ref().expect("asked for")) {
            opened.keep_tree = Some(tree_place(path, &place));
        }
    }
    if !labelled {
        opened.labels = None;
    }
    Ok((opened, None))
}

/// The tree that may be kept beside a good index, not yet read.
pub struct PendingTree {
    at: TreePlace,
    key: Key,
}

impl PendingTree {
    /// The kept tree over the dump's objects of these shallow sizes, or where to keep one; a
    /// corrupt one is noted. A stale one (of an earlier version of the dump, whose index was
    /// rebuilt by a command that keeps no tree) is replaced quietly.
    pub fn load(self, shallow: &[u64], progress: &dyn Progress) -> (Option<KeptTree>, Option<TreePlace>) {
        let at = self.at;
        if at.path.is_file() {
            progress.phase(Phase::OpeningTree);
        }
        match tree::load(&at.path, &self.key, shallow) {
            Ok(Some(kept)) => (Some(kept), None),
            Ok(None) | Err(Unusable::Stale) => (None, Some(at)),
            Err(Unusable::Corrupt(why)) => {
                note(&format!("the dominator tree {} is unusable ({why}); rebuilding it", at.path.display()));
                (None, Some(at))
            }
        }
    }
}

/// Keeps a dump's dominator tree where [`Opened::keep_tree`] says; a failure is one line (the
/// next opening builds the tree again).
pub fn keep_tree(place: &TreePlace, kept: &KeptTree) {
    keep_tree_parts(place, &kept.held_by_vm, &kept.tree);
}

/// [`keep_tree`] for a tree and the objects the VM holds, as they are.
pub fn keep_tree_parts(place: &TreePlace, held_by_vm: &[u32], tree: &memcity_heapgraph::DominatorTree) {
    if let Err(e) = tree::keep_parts(place, held_by_vm, tree) {
        note(&format!(
            "cannot keep the dominator tree in {} ({e}); the next opening builds it again",
            place.path.display()
        ));
    }
}

fn tree_place(path: &Path, place: &Place) -> TreePlace {
    TreePlace { path: tree::path_beside(&place.index), key: place.key, mode: mode_of(path) }
}

/// Where a dump's index goes, and the key it is written with.
pub(crate) struct Place {
    index: PathBuf,
    key: Key,
}

/// What looking for a dump's index found: the dump, or where its index is to be written
/// (`None`: no index for this dump).
pub(crate) enum Lookup {
    Found(Box<Dump>, EdgeLabels, Place),
    Missing(Option<Place>),
}

/// Whether an import was read from its kept grouped history since [`regrouped`] was asked.
static KEPT_GROUPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether an import was read from the grouped history kept by an earlier one since this was
/// last asked ([`grouped`]), for a command to say once.
pub fn regrouped() -> bool {
    KEPT_GROUPED.swap(false, std::sync::atomic::Ordering::Relaxed)
}

/// How many dumps' analyses were read back as kept ([`analysed`]) since [`kept_analyses`] was
/// last asked.
static KEPT_ANALYSES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many dumps' analyses were read back as an earlier import with a grouping that parts
/// their objects alike kept them, since this was last asked, for a command to say once.
pub fn kept_analyses() -> u64 {
    KEPT_ANALYSES.swap(0, std::sync::atomic::Ordering::Relaxed)
}

/// How many dumps were read from their indexes since [`reopened`] was last asked.
static REOPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many dumps were read from their indexes since this was last asked, for a command to
/// say once (a note per dump would be a second line on every error of a reopened dump).
pub fn reopened() -> u64 {
    REOPENED.swap(0, std::sync::atomic::Ordering::Relaxed)
}

/// Looks for the index of the dump at `path`; a stale or unusable one is noted.
pub(crate) fn lookup(path: &Path, opening: &Opening, progress: &dyn Progress) -> Lookup {
    // Not a regular file (a FIFO would block on the key's read): the dump's own reader says so.
    let usable = |dir: &&Path| supported() && !dir.as_os_str().is_empty() && path.is_file();
    let Some(dir) = opening.index.as_deref().filter(usable) else { return Lookup::Missing(None) };
    let index = dir.join(key::file_name(path, &opening.layout));
    let Ok(key) = Key::of(path, &opening.layout) else { return Lookup::Missing(None) };
    if index.is_file() {
        progress.phase(Phase::OpeningIndex);
    }
    match open_index(&index, &key) {
        Ok(Some((dump, labels))) => {
            REOPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            evict::renew(&index);
            return Lookup::Found(Box::new(dump), labels, Place { index, key });
        }
        Ok(None) => {}
        Err(Unusable::Stale) => note(&format!(
            "the index {} is of another version of {}; rebuilding it",
            index.display(),
            path.display()
        )),
        Err(Unusable::Corrupt(why)) => {
            note(&format!("the index {} is unusable ({why}); rebuilding it", index.display()))
        }
    }
    Lookup::Missing(Some(Place { index, key }))
}

/// The indexes (each with its kept tree) of this many dumps, the most recently opened, are
/// kept in the index folder; older ones are removed when another is written.
const INDEXES_KEPT_AT_MOST: usize = 8;

/// Writes the index of the dump at `path`; a failure is one line (the next opening reads the
/// dump again). Whether it was written.
pub(crate) fn store(path: &Path, place: &Place, dump: &Dump, labels: &EdgeLabels) -> bool {
    let dir = place.index.parent().unwrap_or(Path::new("."));
    replace::remove_stale_temporaries(dir);
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| write::write(&place.index, &place.key, dump, labels, mode_of(path)));
    if let Err(e) = &written {
        note(&format!(
            "cannot write the index of {} to {} ({e}); the next opening reads the dump again",
            path.display(),
            dir.display()
        ));
    }
    let companions = ["hprof-tree", "hprof-index-stamp", "hprof-tree-stamp"];
    evict::evict(dir, &place.index, "hprof-index", &companions, INDEXES_KEPT_AT_MOST);
    written.is_ok()
}

/// The index at `index` if there is one and it is of the dump `key` describes. Sealed with
/// the run's key, it is trusted ([`read::Trust::Sealed`]).
pub fn open_index(index: &Path, key: &Key) -> Result<Option<(Dump, EdgeLabels)>, Unusable> {
    open_index_sealed(index, key, seal::run_key())
}

/// [`open_index`], trusting the indexes `seal` sealed; any other is checked in full (its
/// checksum and every table).
pub fn open_index_sealed(
    index: &Path,
    key: &Key,
    seal: Option<&seal::SealKey>,
) -> Result<Option<(Dump, EdgeLabels)>, Unusable> {
    let Some(checked) = format::Checked::open(index, format::INDEX, key)? else { return Ok(None) };
    if let Some(read) =
        checked.read_sealed(seal, key, |blocks| read::read_blocks(blocks, read::Trust::Sealed).ok())
    {
        return Ok(Some(read));
    }
    checked.read(|blocks| read::read_blocks(blocks, read::Trust::Checked)).map(Some)
}

/// An index's bytes, whatever dump they are of and whatever their checksum (the fuzz target
/// reads any bytes this way, so that it reaches the checks of every block).
pub fn read_index_bytes(file: &[u8]) -> Result<(Dump, EdgeLabels), Unusable> {
    let key = format::key_in(file).ok_or_else(|| Unusable::Corrupt("not a memcity index".into()))?;
    read::read(format::body(file, format::INDEX, &key)?).map_err(Unusable::Corrupt)
}

/// A kept tree's body over objects of the shallow sizes `shallow`, whatever dump it is of
/// (the fuzz target's way in, past the header and checksum).
pub fn read_tree_bytes(body: &[u8], shallow: &[u64]) -> Result<KeptTree, String> {
    tree::read(body, shallow)
}

/// Reads the dump itself: pass 1, then pass 2.
fn read_dump(
    path: &Path,
    opening: &Opening,
    labelled: bool,
    progress: &dyn Progress,
) -> Result<Opened, HprofError> {
    let name = path.display().to_string();
    let bytes = source::open_within(path, &opening.inflation)?;
    let len = bytes.len() as u64;
    let raw = parse::scan(&bytes, &|pos| progress.read(pos, len)).map_err(|f| f.in_file(&name))?;
    progress.phase(Phase::Resolving);
    let (dump, labels) =
        resolve::resolve_labelled(&bytes, raw, &opening.layout, labelled).map_err(|f| f.in_file(&name))?;
    Ok(Opened { dump, labels, from_index: false, tree: None, keep_tree: None })
}

/// The index's tables are the memory's own bytes: little-endian, 64-bit.
fn supported() -> bool {
    cfg!(target_endian = "little") && cfg!(target_pointer_width = "64")
}

/// The dump's permission bits, which its index gets too (it holds the dump's contents).
fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).ok().map(|m| m.permissions().mode())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Opens `path` for reading if it is a regular file: a FIFO (or a device) put in the index
/// folder in its place is refused at once, where opening it would wait for a writer. It is
/// opened without waiting, and its kind read from the open file, so it cannot be swapped
/// between a look and the open.
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    match file.metadata()?.is_file() {
        true => Ok(file),
        false => Err(std::io::Error::other("not a regular file")),
    }
}

/// One line on stderr.
fn note(text: &str) {
    eprintln!("memcity: {text}");
}
