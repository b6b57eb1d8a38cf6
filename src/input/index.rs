//! Where heap dumps' indexes for reopening are kept (memcity_hprof's `index`): `--index-dir`,
//! else `$MEMCITY_INDEX_DIR`, else `index` in the user's cache folder; none with `--no-index`.
//! Chosen once per run by the command line, before any input is read, and read by every
//! opening of a dump (the app's, `import`, `why`, `structures`, `ownership`, `check`, `diff`).

use std::path::PathBuf;
use std::sync::OnceLock;

/// The run's index folder; unset (library use, tests of the crate) is no index.
static INDEX: OnceLock<Option<PathBuf>> = OnceLock::new();

/// `--index-dir` and `--no-index`, which every command accepts.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct IndexArgs {
    /// Where heap dumps' indexes are kept, so that a dump opened again is read from its index
    /// instead of in full, and imported again with the same grouping from the history kept
    /// [default: $MEMCITY_INDEX_DIR, else the user's cache folder,
    /// $XDG_CACHE_HOME/memcity/index or ~/.cache/memcity/index]. Never beside the dump.
    #[arg(long, value_name = "DIR", global = true)]
    pub index_dir: Option<PathBuf>,
    /// Read every heap dump in full, and write no index (nor keep a history).
    #[arg(long, global = true, conflicts_with = "index_dir")]
    pub no_index: bool,
}

impl IndexArgs {
    /// The folder the flags choose; None: no index.
    pub fn dir(&self) -> Option<PathBuf> {
        if self.no_index {
            return None;
        }
        // An empty `--index-dir ""` would be the working folder, perhaps the dump's own.
        let given = self.index_dir.clone().filter(|d| !d.as_os_str().is_empty());
        let from_env = || std::env::var_os("MEMCITY_INDEX_DIR").filter(|v| !v.is_empty()).map(PathBuf::from);
        let cache = || crate::cli::import::default_work_dir().ok().map(|d| d.join("index"));
        given.or_else(from_env).or_else(cache)
    }
}

/// Sets the run's index folder (once; later calls change nothing), and the user's cache folder
/// as where the key that seals kept dominator trees is (memcity_hprof's `index::seal`).
pub fn use_index(dir: Option<PathBuf>) {
    if dir.is_some()
        && let Ok(cache) = crate::cli::import::default_work_dir()
    {
        memcity_hprof::index::seal::use_seal_key(&cache);
    }
    let _ = INDEX.set(dir);
}

/// The run's index folder.
pub fn index_dir() -> Option<PathBuf> {
    INDEX.get().cloned().flatten()
}

/// The default import options with the run's index.
pub fn hprof_options() -> memcity_hprof::ImportOptions {
    memcity_hprof::ImportOptions { index: index_dir(), ..Default::default() }
}
