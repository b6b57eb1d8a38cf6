//! Errors that name the heap file and the byte offset of the problem, in one line.

use thiserror::Error;

/// Why a heap file (or a folder of them) was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HeapFileError {
    /// The bytes are not a well-formed heap file: `offset` is where the problem is.
    #[error("{file}: at byte {offset}: {message}")]
    Malformed { file: String, offset: u64, message: String },
    /// A well-formed file of a format version this reader does not know.
    #[error("{file}: at byte {offset}: format version {version} is not supported (this memcity reads versions {oldest} to {newest})", oldest = crate::format::OLDEST_VERSION, newest = crate::format::VERSION)]
    Version { file: String, offset: u64, version: u32 },
    /// The file or folder cannot be read at all.
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    /// A group asked for by key (for its exact closure) has no objects in the file.
    #[error("{file}: no group has the key \"{key}\" in this heap file")]
    NoGroup { file: String, key: String },
}

impl HeapFileError {
    pub fn io(file: impl Into<String>, error: impl ToString) -> HeapFileError {
        HeapFileError::Io { file: file.into(), message: error.to_string() }
    }
}

/// A problem at a byte offset, before the file name is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    pub offset: usize,
    pub message: String,
    pub version: Option<u32>,
}

impl Fault {
    pub fn new(offset: usize, message: impl Into<String>) -> Fault {
        Fault { offset, message: message.into(), version: None }
    }

    pub fn in_file(self, file: &str) -> HeapFileError {
        let (file, offset) = (file.to_string(), self.offset as u64);
        match self.version {
            Some(version) => HeapFileError::Version { file, offset, version },
            None => HeapFileError::Malformed { file, offset, message: self.message },
        }
    }
}
