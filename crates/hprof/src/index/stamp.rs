//! Stamps: a seal found good, remembered for the file as it is now, so that the next opening
//! need not hash it again (the 96 M-object dump's index and tree are 4.6 GB: 0.6 s a
//! reopening on two cores).
//!
//! A stamp is a small file beside the sealed one holding the keyed hash of that file's
//! identity: its device, inode, size, modification and status-change times, with the dump's
//! key. Any change to the file — a write, a truncation, a rename over it, even a write whose
//! modification time is then set back — gives it another inode or a later status-change time,
//! which no process can set back short of changing the system clock; the stamp then no longer
//! holds and the file is hashed (and, if still sealed, stamped anew). A stamp is made only
//! for a file last changed [`SETTLED`] before its hashing began, so that a change racing the
//! hash within the clock's last tick still moves that time.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::seal::{SEAL, SealKey, Sealing};

/// How long ago a file must have last changed for its seal to be stamped: more than the
/// coarsest status-change clock of a file system (FAT's 2 s).
pub const SETTLED: Duration = Duration::from_secs(2);

/// What tells a file apart from any other and from itself changed, as `fstat` gives it on
/// the open file that is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// Device, inode, size, modification and status-change times (seconds, nanoseconds).
    fields: [u64; 7],
}

impl Identity {
    /// The identity of the open `file`; None where the system has no inodes or status-change
    /// times (nothing is stamped there).
    #[cfg(unix)]
    pub fn of(file: &std::fs::File) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt as _;
        let meta = file.metadata().ok()?;
        let fields = [
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.mtime() as u64,
            meta.mtime_nsec() as u64,
            meta.ctime() as u64,
            meta.ctime_nsec() as u64,
        ];
        Some(Identity { fields })
    }

    #[cfg(not(unix))]
    pub fn of(_: &std::fs::File) -> Option<Identity> {
        None
    }

    /// When the file last changed (its status-change time); None where that is out of range.
    fn changed(&self) -> Option<SystemTime> {
        let [.., seconds, nanoseconds] = self.fields;
        // Before 1970 (a negative time, stored as its bits): not stamped.
        i64::try_from(seconds).ok()?;
        SystemTime::UNIX_EPOCH.checked_add(Duration::new(seconds, u32::try_from(nanoseconds).ok()?))
    }

    /// The keyed hash a stamp holds: of this identity, beside the dump whose key is `preface`.
    fn stamp(&self, key: &SealKey, preface: &[u8]) -> [u8; SEAL] {
        let mut sealing = Sealing::new(key, b"memcity stamp 1\0");
        sealing.add(preface);
        self.fields.iter().for_each(|field| sealing.add(&field.to_le_bytes()));
        sealing.seal()
    }
}

/// The stamp file of `sealed`: its name with `-stamp` after its extension.
pub fn path_of(sealed: &Path) -> PathBuf {
    let extension = sealed.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
    sealed.with_extension(format!("{extension}-stamp"))
}

/// Whether the stamp beside `sealed` is `key`'s for the file of identity `identity` beside the
/// dump whose key is `preface`.
pub fn holds(sealed: &Path, key: &SealKey, preface: &[u8], identity: &Identity) -> bool {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    // A stamp is 32 bytes; more is not read.
    let read =
        super::open_regular(&path_of(sealed)).and_then(|f| f.take(SEAL as u64 + 1).read_to_end(&mut bytes));
    let Ok(stamp) = <[u8; SEAL]>::try_from(bytes) else { return false };
    // Compared in constant time.
    read.is_ok() && blake3::Hash::from(stamp) == blake3::Hash::from(identity.stamp(key, preface))
}

/// Stamps `sealed`, of identity `identity` taken at `checked` (before its seal was hashed and
/// found good), unless it changed less than [`SETTLED`] before that. A stamp that cannot be
/// written is no loss: the next opening hashes the file again.
pub fn make(sealed: &Path, key: &SealKey, preface: &[u8], identity: &Identity, checked: SystemTime) {
    let settled = identity.changed().and_then(|changed| changed.checked_add(SETTLED));
    if settled.is_none_or(|settled| settled > checked) {
        return;
    }
    let stamp = identity.stamp(key, preface);
    let _ = super::replace::replace(&path_of(sealed), None, |temporary| std::fs::write(temporary, stamp));
}

#[cfg(test)]
mod tests;
