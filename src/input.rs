//! Turns what the user names on the command line into a history: a file or folder in any
//! format the model reads, a built-in scenario (`scenario:NAME`), or a series of heap dumps.

use std::path::Path;

use anyhow::Result;
use memcity_model::History;

/// What the app opens when no input is given.
pub const DEFAULT_INPUT: &str = "data/sample-leak.json";

/// Loads `spec` completely or not at all.
pub fn load(spec: &str) -> Result<History> {
    let path = Path::new(spec);
    if is_heap_dumps(path) {
        return Ok(memcity_hprof::import(&[path.to_path_buf()], &Default::default(), &|_, _| {})?);
    }
    Ok(memcity_model::load_path(path)?)
}

/// A `.hprof`/`.hprof.gz` file, or a folder that holds such files.
pub fn is_heap_dumps(path: &Path) -> bool {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).into_iter().flatten().flatten();
        return entries.into_iter().any(|e| memcity_hprof::source::is_dump_name(&e.path()));
    }
    memcity_hprof::source::is_dump_name(path)
}
