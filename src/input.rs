//! Turns what the user names on the command line into a history: a file or folder in any
//! format the model reads, a built-in scenario (`scenario:NAME`), or a series of heap dumps.

use anyhow::Result;
use memcity_model::History;

/// What the app opens when no input is given.
pub const DEFAULT_INPUT: &str = "data/sample-leak.json";

/// Loads `spec` completely or not at all.
pub fn load(spec: &str) -> Result<History> {
    Ok(memcity_model::load_path(std::path::Path::new(spec))?)
}
