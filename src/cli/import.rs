//! `memcity import`: a series of JVM heap dumps (HPROF, plain or gzipped), or of heap snapshot
//! files a language probe wrote (`.mcheap`, e.g. the Python probe's), becomes a history file.

use std::path::PathBuf;

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use memcity_heapgraph::AnalysisOptions;
use memcity_hprof::{ImportOptions, Layout, SnapshotOptions};

use super::retained::RetainedArgs;

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Heap dumps (.hprof or .hprof.gz, e.g. from `jcmd PID GC.heap_dump`), heap snapshot
    /// files (.mcheap, from probes/python/memcity_probe.py), or folders of either. One snapshot
    /// per file, ordered by the time each was taken.
    #[arg(required = true)]
    pub dumps: Vec<PathBuf>,
    /// How objects are grouped, outermost first: e.g. `package,type`, `type`, `type,root-kind`.
    /// Default: `package,type` for heap dumps, `package,type,allocation-site` for snapshot files.
    #[arg(long)]
    pub classifiers: Option<String>,
    /// Where the history is written (memcity/1 JSON).
    #[arg(long, short, default_value = "history.json")]
    pub out: PathBuf,
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub retained: RetainedArgs,
}

/// The JVM object layout sizes are computed with. The defaults are 64-bit HotSpot with
/// compressed oops (heaps under 32 GB).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LayoutArgs {
    /// The heap has no compressed oops/class pointers (`-XX:-UseCompressedOops`, heaps ≥ 32 GB).
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
}

impl LayoutArgs {
    pub fn layout(&self) -> Result<Layout> {
        let mut layout = if self.uncompressed_oops { Layout::uncompressed() } else { Layout::default() };
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
    let classifiers =
        memcity_heapgraph::parse_list(classifiers).map_err(|e| anyhow::anyhow!("--classifiers: {e}"))?;
    Ok(ImportOptions { layout: layout.layout()?, snapshot: SnapshotOptions { classifiers, analysis } })
}

pub fn run(args: ImportArgs) -> Result<()> {
    let heap_files = args.dumps.iter().all(|p| memcity_heapfile::is_heap_input(p));
    let default = if heap_files { "package,type,allocation-site" } else { "package,type" };
    let classifiers = args.classifiers.as_deref().unwrap_or(default);
    let options = options(classifiers, &args.layout, args.retained.analysis())?;
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    let history = if heap_files {
        let snapshot = options.snapshot;
        let options = memcity_heapfile::ImportOptions {
            classifiers: snapshot.classifiers,
            analysis: snapshot.analysis,
        };
        memcity_heapfile::import(&args.dumps, &options)?
    } else {
        import_with_progress(&args.dumps, &options)?
    };
    memcity_model::save_history(&history, &args.out).map_err(anyhow::Error::msg)?;
    println!("wrote {} snapshots to {}", history.snapshots.len(), args.out.display());
    Ok(())
}

/// Imports with a progress bar on the terminal (hidden when stderr is not one).
pub fn import_with_progress(dumps: &[PathBuf], options: &ImportOptions) -> Result<memcity_model::History> {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{spinner} reading heap dumps [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let history = memcity_hprof::import(dumps, options, &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    Ok(history?)
}
