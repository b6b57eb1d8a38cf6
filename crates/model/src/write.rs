//! The `memcity/1` writer.

use std::io::Write;
use std::path::Path;

use crate::history::History;

/// Writes `history` as a `memcity/1` document.
pub fn write_history(history: &History, out: impl Write) -> serde_json::Result<()> {
    serde_json::to_writer(out, history)
}

/// Writes `history` to `path` (buffered), naming the file in the error.
pub fn save_history(history: &History, path: &Path) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: cannot create: {e}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    write_history(history, &mut out).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    out.flush().map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
