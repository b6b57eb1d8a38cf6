//! Import errors that name the dump file and the byte offset of the problem.

use std::fmt;

/// Why a dump was rejected. A series with one bad dump imports nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HprofError {
    /// The dump file (or folder) the problem is in.
    pub file: String,
    /// Byte offset in the (decompressed) dump where the problem was found, if it is in the data.
    pub offset: Option<u64>,
    pub message: String,
}

impl HprofError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> HprofError {
        HprofError { file: file.into(), offset: None, message: message.into() }
    }
}

impl fmt::Display for HprofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(offset) = self.offset {
            write!(f, ": at byte {offset}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for HprofError {}

/// A problem at a byte offset, before the file name is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub offset: u64,
    pub message: String,
}

impl Fault {
    pub fn new(offset: usize, message: impl Into<String>) -> Fault {
        Fault { offset: offset as u64, message: message.into() }
    }

    pub fn in_file(self, file: &str) -> HprofError {
        HprofError { file: file.to_string(), offset: Some(self.offset), message: self.message }
    }
}
