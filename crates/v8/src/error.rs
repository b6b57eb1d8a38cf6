//! Import errors that name the snapshot file and the byte offset or field of the problem.

use std::fmt;

/// Why a snapshot was rejected. A series with one bad snapshot imports nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V8Error {
    /// The snapshot file (or folder) the problem is in.
    pub file: String,
    /// Byte offset in the (decompressed) snapshot where the problem was found, if it is in the text.
    pub offset: Option<u64>,
    pub message: String,
}

impl V8Error {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> V8Error {
        V8Error { file: file.into(), offset: None, message: message.into() }
    }
}

impl fmt::Display for V8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(offset) = self.offset {
            write!(f, ": at byte {offset}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for V8Error {}

/// A problem in a snapshot before the file name is attached: at a byte offset, or in a field
/// named by the message when the text has been read past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub offset: Option<u64>,
    pub message: String,
}

impl Fault {
    pub fn at(offset: u64, message: impl Into<String>) -> Fault {
        Fault { offset: Some(offset), message: message.into() }
    }

    pub fn field(message: impl Into<String>) -> Fault {
        Fault { offset: None, message: message.into() }
    }

    pub fn in_file(self, file: &str) -> V8Error {
        V8Error { file: file.to_string(), offset: self.offset, message: self.message }
    }
}
