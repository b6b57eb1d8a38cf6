//! Seals on the indexes and dominator trees this user's memcity keeps, so that reopening a dump
//! need not check them again: the kept tree's shape (a walk down the whole preorder, at random
//! in five tables: a quarter of a reopening's time), the index's checksum and its sweeps over
//! the graph's tables (a tenth).
//!
//! A seal is the keyed BLAKE3 hash of the file's body, with a key of 32 random bytes that
//! only this user can read (`seal-key` in the user's cache folder, mode 0600, made at the first
//! run). A file whose seal this key makes was written by this user's memcity (a tree from a tree
//! it built, an index from a dump it parsed); any other — unsealed, sealed by another user's
//! key (an index folder shared with `--index-dir`), or changed since — is checked in full as
//! before, and the plain checksum still finds damage. Whoever can read the key can already
//! write anything the user can, memcity itself included. A seal found good is remembered for
//! the file as it is ([`super::stamp`]), so it is hashed once, not at every opening.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A user's key for sealing kept trees.
#[derive(Clone, PartialEq, Eq)]
pub struct SealKey([u8; SEAL]);

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(…)")
    }
}

/// The bytes a seal takes in a tree file.
pub const SEAL: usize = 32;

/// The file the key is kept in, in the user's cache folder.
const KEY_FILE: &str = "seal-key";

/// The folder of the run's key; unset (library use, the crate's tests): nothing is sealed,
/// every kept tree is checked.
static FOLDER: OnceLock<PathBuf> = OnceLock::new();
/// The run's key, read (or made) when an index or tree is first written or read.
static KEY: OnceLock<Option<SealKey>> = OnceLock::new();

/// Seals and trusts kept trees with the key in `folder` (the user's cache folder), made there
/// if there is none; once per run, before any dump is opened (later calls change nothing).
pub fn use_seal_key(folder: &Path) {
    let _ = FOLDER.set(folder.to_path_buf());
}

/// The run's key, if there is one. A key that cannot be read or made, or that others could
/// read, is said in one line (once), and kept indexes and trees are then checked in full.
pub fn run_key() -> Option<&'static SealKey> {
    let key = KEY.get_or_init(|| {
        let folder = FOLDER.get()?;
        key_in(folder)
            .map_err(|why| eprintln!("memcity: {why}; kept indexes and dominator trees are checked in full"))
            .ok()
    });
    key.as_ref()
}

/// The key in `folder`, made (with the folder) where there is none.
pub fn key_in(folder: &Path) -> Result<SealKey, String> {
    let path = folder.join(KEY_FILE);
    match read_key(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => make_key(folder, &path),
        Err(e) => Err(format!("cannot read the key {} ({e})", path.display())),
        Ok(bytes) => checked_key(&path, bytes),
    }
}

/// A key file's bytes, and its owner and mode where the system has them.
struct KeyFile {
    bytes: Vec<u8>,
    owner: Option<(u32, u32)>,
}

#[cfg(unix)]
fn read_key(path: &Path) -> std::io::Result<KeyFile> {
    use std::io::Read as _;
    use std::os::unix::fs::MetadataExt as _;
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let mut bytes = Vec::new();
    // A key file is 32 bytes; more is not read.
    file.by_ref().take(SEAL as u64 + 1).read_to_end(&mut bytes)?;
    Ok(KeyFile { bytes, owner: Some((meta.uid(), meta.mode())) })
}

#[cfg(not(unix))]
fn read_key(path: &Path) -> std::io::Result<KeyFile> {
    Ok(KeyFile { bytes: std::fs::read(path)?, owner: None })
}

/// The key read from `path`, if it is this user's alone and whole.
fn checked_key(path: &Path, KeyFile { bytes, owner }: KeyFile) -> Result<SealKey, String> {
    let shown = path.display();
    match owner {
        #[cfg(unix)]
        Some((uid, _)) if uid != current_user() => return Err(format!("the key {shown} is another user's")),
        Some((_, mode)) if mode & 0o077 != 0 => {
            return Err(format!(
                "the key {shown} can be read or written by others (mode {:o})",
                mode & 0o777
            ));
        }
        None => return Err("keys are kept on Unix only".into()),
        _ => {}
    }
    let bytes: [u8; SEAL] = bytes
        .try_into()
        .map_err(|b: Vec<u8>| format!("the key {shown} has {} bytes, not {SEAL}", b.len()))?;
    Ok(SealKey(bytes))
}

#[cfg(unix)]
fn current_user() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// A new key at `path`, written with mode 0600 where no file is: of two runs making one at
/// once, the second reads the first's.
#[cfg(unix)]
fn make_key(folder: &Path, path: &Path) -> Result<SealKey, String> {
    use std::io::Write as _;
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let cannot = |e: std::io::Error| format!("cannot make the key {} ({e})", path.display());
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(folder).map_err(cannot)?;
    let mut key = [0u8; SEAL];
    getrandom::fill(&mut key).map_err(|e| format!("no random bytes for a key ({e})"))?;
    // Written in full under a temporary name, then linked to the key's name, which fails if
    // another run made it meanwhile: nobody reads half a key.
    let temporary = folder.join(format!("{KEY_FILE}.{}.tmp", std::process::id()));
    // One left by a killed run that had this process's id is no live run's.
    let _ = std::fs::remove_file(&temporary);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .and_then(|mut file| file.write_all(&key));
    let linked = written.and_then(|()| std::fs::hard_link(&temporary, path));
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok(SealKey(key)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            checked_key(path, read_key(path).map_err(cannot)?)
        }
        Err(e) => Err(cannot(e)),
    }
}

#[cfg(not(unix))]
fn make_key(_: &Path, _: &Path) -> Result<SealKey, String> {
    Err("keys are kept on Unix only".into())
}

/// A running seal over bytes as they are written.
pub struct Sealing(blake3::Hasher);

impl Sealing {
    /// A seal with `key` over `preface` (what the file says outside the sealed bytes and the
    /// reader trusts too: the dump's key in its header), then the bytes added.
    pub fn new(key: &SealKey, preface: &[u8]) -> Sealing {
        let mut hasher = blake3::Hasher::new_keyed(&key.0);
        hasher.update(preface);
        Sealing(hasher)
    }

    pub fn add(&mut self, bytes: &[u8]) {
        // A table is hashed on every worker (the same hash: BLAKE3 is a tree).
        match bytes.len() >= 1 << 20 {
            true => self.0.update_rayon(bytes),
            false => self.0.update(bytes),
        };
    }

    pub fn seal(&self) -> [u8; SEAL] {
        *self.0.finalize().as_bytes()
    }
}

/// Whether `seal` is `key`'s seal of `preface` and `bytes` ([`Sealing`]).
pub fn is_sealed(key: &SealKey, preface: &[u8], bytes: &[u8], seal: &[u8]) -> bool {
    let mut sealing = Sealing::new(key, preface);
    sealing.add(bytes);
    // Compared in constant time.
    <[u8; SEAL]>::try_from(seal).is_ok_and(|seal| sealing.0.finalize() == blake3::Hash::from(seal))
}

#[cfg(test)]
mod tests;
