//! `memcity import`: a series of JVM heap dumps (HPROF, plain or gzipped), of V8 heap snapshots
//! (Node, Chromium), or of heap snapshot files a language probe wrote (`.mcheap`, e.g. the
//! Python probe's) becomes a history file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use memcity_heapgraph::budget::{Budget, bytes_text};
use memcity_heapgraph::{AnalysisOptions, Phase, Progress};
use memcity_hprof::{Grouping, ImportOptions, Layout};

use super::retained::RetainedArgs;
use super::structure_city::StructureArgs;
use crate::progress::PhaseClock;

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Heap dumps (HPROF, plain or gzip, e.g. from `jcmd PID GC.heap_dump`), V8 heap snapshots
    /// (from Node or Chromium), heap snapshot files (.mcheap, from probes/python/memcity_probe.py),
    /// or folders of them, recognised by content whatever their names. One snapshot per file, ordered by the
    /// time each was taken (V8 snapshots: by Node's file names, else as given). Grouped by data
    /// structures, also a trace (.jsonl, .mctrace) or scenario:NAME.
    #[arg(required = true)]
    pub dumps: Vec<PathBuf>,
    /// How objects are grouped, outermost first: e.g. `package,type`, `type`, `type,root-kind`,
    /// `containing-structure,leaf,type` [default: package,type for dumps, node-type,type for V8
    /// snapshots, package,type,allocation-site for .mcheap files].
    #[arg(long)]
    pub classifiers: Option<String>,
    /// Where the history is written (memcity/1 JSON).
    #[arg(long, short, default_value = "history.json")]
    pub out: PathBuf,
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub retained: RetainedArgs,
    #[command(flatten)]
    pub structure: StructureArgs,
    /// Say on stderr, once the import is done, how long each of its phases took (reading,
    /// resolving references, dominators, …): where a big dump's time goes.
    #[arg(long)]
    pub timings: bool,
}

/// The JVM object layout sizes are computed with: read from each dump unless one of these
/// flags gives it.
#[derive(clap::Args, Debug, Clone)]
pub struct LayoutArgs {
    /// Override: the heap has no compressed oops/class pointers (16-byte headers, 8-byte
    /// references); without layout flags the layout is read from each dump.
    #[arg(long)]
    pub uncompressed_oops: bool,
    /// Instance header bytes (default 12, or 16 without compressed oops).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(4..=64))]
    pub object_header: Option<u64>,
    /// Array header bytes, length included (default 16, or 24 without compressed oops).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(8..=64))]
    pub array_header: Option<u64>,
    /// Reference size in bytes (default 4, or 8 without compressed oops).
    #[arg(long, value_name = "BYTES")]
    pub reference_size: Option<u64>,
    /// How far one gzipped dump may inflate (to memory up to 1 GiB, beyond into a temporary
    /// file in $TMPDIR); a dump past it is refused.
    #[arg(long, value_name = "GIB", default_value_t = memcity_hprof::inflate::DEFAULT_MAX_INFLATED_GIB,
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub max_inflated_gib: u64,
    /// The memory budget, e.g. 8G or 512M [default: half of the physical memory, or of the
    /// lowest memory limit of this process's cgroups where that is lower]. A series of dumps
    /// is read two at a time only when both fit.
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Where tables that do not fit the budget are kept, in memory-mapped work files (removed
    /// as soon as they are made, so none outlive the run) [default: the user's cache folder,
    /// $XDG_CACHE_HOME/memcity or ~/.cache/memcity].
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

impl Default for LayoutArgs {
    fn default() -> LayoutArgs {
        LayoutArgs {
            uncompressed_oops: false,
            object_header: None,
            array_header: None,
            reference_size: None,
            max_inflated_gib: memcity_hprof::inflate::DEFAULT_MAX_INFLATED_GIB,
            memory: None,
            work_dir: None,
        }
    }
}

impl LayoutArgs {
    /// `--work-dir`, made if missing, or the user's cache folder.
    pub fn work_dir(&self) -> Result<PathBuf> {
        let dir = match &self.work_dir {
            Some(dir) => dir.clone(),
            None => default_work_dir()?,
        };
        if let Err(e) = std::fs::create_dir_all(&dir) {
            bail!("--work-dir {}: cannot make the folder ({e})", dir.display());
        }
        if !dir.is_dir() {
            bail!("--work-dir {}: not a folder", dir.display());
        }
        Ok(dir)
    }

    /// `--memory`, or this process's default.
    pub fn budget(&self) -> Result<Budget> {
        Budget::from_flag(self.memory.as_deref()).map_err(anyhow::Error::msg)
    }

    /// The layout the flags give; without any, each dump's own ([`memcity_hprof::detect`]).
    pub fn layout(&self) -> Result<Layout> {
        let given = self.uncompressed_oops
            || self.object_header.is_some()
            || self.array_header.is_some()
            || self.reference_size.is_some();
        if !given {
            return Ok(Layout::default());
        }
        let mut layout = if self.uncompressed_oops { Layout::uncompressed() } else { Layout::compressed() };
        layout.header = self.object_header.unwrap_or(layout.header);
        layout.array_header = self.array_header.unwrap_or(layout.array_header);
        layout.reference = self.reference_size.unwrap_or(layout.reference);
        if layout.reference != 4 && layout.reference != 8 {
            bail!("--reference-size must be 4 or 8, not {}", layout.reference);
        }
        Ok(layout)
    }
}

pub fn options(classifiers: &str, layout: &LayoutArgs, analysis: AnalysisOptions) -> Result<ImportOptions> {
    let memory = layout.budget()?.bytes;
    // Gzipped dumps inflate into the work folder (disk) past a quarter of the budget (at most
    // 1 GiB in memory).
    let inflation = memcity_hprof::Inflation {
        max: layout.max_inflated_gib << 30,
        memory: (memory / 4).min(1 << 30),
        dir: Some(layout.work_dir()?),
    };
    Ok(ImportOptions {
        layout: layout.layout()?,
        grouping: grouping(classifiers, analysis)?,
        inflation,
        memory,
        index: crate::input::index_dir(),
        keep_grouped: true,
    })
}

/// `--classifiers` and the retained-size flags as a source's grouping.
fn grouping(classifiers: &str, analysis: AnalysisOptions) -> Result<Grouping> {
    Ok(Grouping { classifiers: parse_classifiers(classifiers)?, analysis })
}

/// `--classifiers`, parsed.
pub fn parse_classifiers(classifiers: &str) -> Result<Vec<memcity_heapgraph::Classifier>> {
    memcity_heapgraph::parse_list(classifiers).map_err(|e| anyhow::anyhow!("--classifiers: {e}"))
}

pub fn run(args: ImportArgs) -> Result<()> {
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    let classifiers = args.classifiers.as_deref().map(parse_classifiers).transpose()?;
    let history = if args.structure.wanted(classifiers.as_deref())? {
        let specs: Vec<String> = args.dumps.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let (analysis, layout) = (args.retained.analysis(), args.layout.layout()?);
        crate::cli::structure_city::history(&specs, classifiers, &args.structure, analysis, &layout)?
    } else if args.dumps.iter().all(|p| crate::input::is_heap_files(p)) {
        let classifiers = args.classifiers.as_deref().unwrap_or("package,type,allocation-site");
        let options = grouping(classifiers, args.retained.analysis())?;
        let files = memcity_heapfile::snapshot_files(&args.dumps).unwrap_or_default();
        let needs = files.iter().map(|f| (f.as_path(), memcity_heapfile::import::estimated_memory(f)));
        within_budget(&args.layout, needs, || Ok(memcity_heapfile::import(&args.dumps, &options)?))?
    } else {
        import_series_with_progress(
            &args.dumps,
            args.classifiers.as_deref(),
            &args.layout,
            args.retained.analysis(),
            args.timings,
        )?
    };
    memcity_model::save_history(&history, &args.out).map_err(anyhow::Error::msg)?;
    if memcity_hprof::index::regrouped() {
        shout!(
            "memcity: read the history kept by an earlier import of these dumps with this grouping, not the dumps"
        );
    }
    match memcity_hprof::index::kept_analyses() {
        0 => {}
        1 => {
            shout!("memcity: read the analysis an earlier import kept (its grouping parts the objects alike)")
        }
        n => {
            shout!("memcity: read {n} analyses earlier imports kept (their groupings part the objects alike)")
        }
    }
    match memcity_hprof::index::reopened() {
        0 => {}
        1 => shout!("memcity: read 1 dump from its index, not from the dump"),
        n => shout!("memcity: read {n} dumps from their indexes, not from the dumps"),
    }
    say!("wrote {} snapshots to {}", history.snapshots.len(), args.out.display());
    Ok(())
}

/// Imports a series of dumps or of V8 snapshots (told apart by [`crate::input::series`]) with a
/// progress bar; `classifiers` default by kind. With `timings`, each phase's time is said at
/// the end.
pub fn import_series_with_progress(
    paths: &[PathBuf],
    classifiers: Option<&str>,
    layout: &LayoutArgs,
    analysis: AnalysisOptions,
    timings: bool,
) -> Result<memcity_model::History> {
    match crate::input::series(paths)? {
        crate::input::Series::Dumps(dumps) => {
            let options = options(classifiers.unwrap_or("package,type"), layout, analysis)?;
            let files = memcity_hprof::source::expand(&dumps).unwrap_or_default();
            let needs = files.iter().map(|f| (f.as_path(), memcity_hprof::import::estimated_memory(f)));
            within_budget(layout, needs, || {
                with_progress("heap dumps", timings, |report| {
                    Ok(memcity_hprof::import(&dumps, &options, report)?)
                })
            })
        }
        crate::input::Series::Snapshots(snapshots) => {
            let options = grouping(classifiers.unwrap_or(memcity_v8::DEFAULT_CLASSIFIERS), analysis)?;
            let files = memcity_v8::source::expand(&snapshots).unwrap_or_default();
            let needs = files.iter().map(|f| (f.as_path(), memcity_v8::import::estimated_memory(f)));
            within_budget(layout, needs, || {
                with_progress("heap snapshots", timings, |report| {
                    Ok(memcity_v8::import(&snapshots, &options, report)?)
                })
            })
        }
    }
}

/// Runs an import with its tables held to `--memory` (work files in `--work-dir` past it),
/// saying so first where a file may need more; `needs` are the files' estimates.
pub fn within_budget<'a, T>(
    layout: &LayoutArgs,
    needs: impl Iterator<Item = (&'a Path, Option<u64>)>,
    import: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let budget = layout.budget()?;
    memcity_heapgraph::table::spill_to(budget.bytes, Some(layout.work_dir()?));
    super::keep_freed_blocks(budget.bytes);
    announce_budget(&budget, needs);
    let result = import();
    if let Some(note) = memcity_heapgraph::table::spill_note() {
        shout!("memcity: {note}; the tables were kept in memory");
    }
    result
}

/// `$XDG_CACHE_HOME/memcity`, else `~/.cache/memcity`.
pub fn default_work_dir() -> Result<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(cache) = std::env::var_os("XDG_CACHE_HOME").and_then(absolute) {
        return Ok(cache.join("memcity"));
    }
    match std::env::var_os("HOME").and_then(absolute) {
        Some(home) => Ok(home.join(".cache").join("memcity")),
        None => {
            bail!("no cache folder for work files (neither XDG_CACHE_HOME nor HOME is set): give --work-dir")
        }
    }
}

/// Says the budget at the start (on a terminal, like the progress bar: scripts and tests read
/// errors as one line), and of each dump that may need more than it, whatever stderr is.
fn announce_budget<'a>(budget: &Budget, needs: impl Iterator<Item = (&'a Path, Option<u64>)>) {
    use std::io::IsTerminal as _;
    if std::io::stderr().is_terminal() {
        shout!("memcity: {}", budget.describe());
    }
    for (file, need) in needs.filter_map(|(f, need)| Some((f, need?))) {
        if need > budget.bytes {
            shout!(
                "memcity: {} may need about {}, more than the {}; what does not fit goes to work files",
                file.display(),
                bytes_text(need),
                budget.describe()
            );
        }
    }
}

/// Runs an import with a progress bar on the terminal (hidden when stderr is not one): bytes,
/// rate and time left while the input is read, then a spinner naming each phase that follows.
/// With `timings`, the time of each phase is said on stderr at the end.
fn with_progress<T>(what: &str, timings: bool, import: impl FnOnce(&dyn Progress) -> Result<T>) -> Result<T> {
    let bar = Bar {
        what: what.to_string(),
        bar: ProgressBar::new(0),
        spinning: AtomicBool::new(true),
        clock: Mutex::new(PhaseClock::new()),
    };
    bar.reading();
    let result = import(&bar);
    bar.bar.finish_and_clear();
    if timings {
        let clock = bar.clock.into_inner().unwrap_or_else(|e| e.into_inner());
        shout!("memcity: {what}: {}", clock.finish().describe());
    }
    result
}

/// The terminal's progress bar of an import.
struct Bar {
    what: String,
    bar: ProgressBar,
    /// Whether it shows a phase (a spinner) rather than bytes.
    spinning: AtomicBool,
    /// When each phase began, for `--timings`.
    clock: Mutex<PhaseClock>,
}

impl Bar {
    /// Bytes again (the next dump of a series is read after the phases of the one before).
    fn reading(&self) {
        if self.spinning.swap(false, Ordering::Relaxed) {
            let template = "{spinner} {msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})";
            let style = ProgressStyle::with_template(template).expect("valid template").progress_chars("=> ");
            self.bar.set_style(style);
            self.bar.set_message(format!("reading {}", self.what));
            self.bar.disable_steady_tick();
        }
    }

    fn spin(&self, doing: &str) {
        if !self.spinning.swap(true, Ordering::Relaxed) {
            self.bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
            );
            self.bar.enable_steady_tick(std::time::Duration::from_millis(200));
        }
        self.bar.set_message(format!("{}: {doing}", self.what));
    }
}

impl Bar {
    fn enter(&self, what: &'static str) {
        self.clock.lock().unwrap_or_else(|e| e.into_inner()).enter(what);
    }
}

impl Progress for Bar {
    fn read(&self, done: u64, total: u64) {
        if total > 0 && done >= total {
            self.enter(crate::progress::after_reading(None));
            self.spin(crate::progress::after_reading(None));
            return;
        }
        self.enter("reading");
        self.reading();
        self.bar.set_length(total);
        self.bar.set_position(done);
    }

    fn phase(&self, phase: Phase) {
        self.enter(phase.describe());
        self.spin(phase.describe());
    }
}
