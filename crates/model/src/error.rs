//! Load errors that say what is wrong and where: file, snapshot, JSON path.

use std::fmt;

/// Why an input was rejected. Nothing of a rejected input is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file (or folder, or message source) the problem is in.
    pub file: String,
    /// Index of the snapshot in the loaded history, where the problem belongs to one.
    pub snapshot: Option<usize>,
    /// JSON path inside the file, e.g. `snapshots[2].tree.children[0].objects`.
    pub path: String,
    pub message: String,
}

impl LoadError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> LoadError {
        LoadError { file: file.into(), snapshot: None, path: String::new(), message: message.into() }
    }

    pub fn at(mut self, path: impl Into<String>) -> LoadError {
        self.path = path.into();
        self
    }

    pub fn in_snapshot(mut self, index: usize) -> LoadError {
        self.snapshot = Some(index);
        self
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(i) = self.snapshot {
            write!(f, ": snapshot {i}")?;
        }
        if !self.path.is_empty() {
            write!(f, ": at {}", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// Parses JSON into `T`, turning syntax and type errors into a [`LoadError`] with the JSON path
/// (from serde_path_to_error) and line/column (from serde_json). Nesting is not limited (deep
/// trees are valid), so the parser grows its stack as it descends.
pub fn parse_json<T: serde::de::DeserializeOwned>(bytes: &[u8], file: &str) -> Result<T, LoadError> {
    // Fast path without path tracking; errors are rare, so only they pay for a second parse.
    if let Ok(value) = from_slice_deep(bytes) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = serde_path_to_error::deserialize(serde_stacker::Deserializer::new(&mut de)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let what = match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "malformed JSON",
            _ => "invalid value",
        };
        let error = LoadError::new(file, format!("{what}: {inner}"));
        if path == "." { error } else { error.at(path) }
    })?;
    de.end().map_err(|e| LoadError::new(file, format!("malformed JSON: {e}")))?;
    Ok(value)
}

/// `serde_json::from_slice` without its nesting limit of 128, growing the stack instead.
pub fn from_slice_deep<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = T::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(value)
}
