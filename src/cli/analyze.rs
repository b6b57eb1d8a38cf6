//! `memcity analyze`: replays a trace or a scenario with the embedded analysis core and writes
//! the history (memcity/1 with pointer maps, heap metrics and retained sizes).

use std::path::PathBuf;

use anyhow::Result;
use memcity_analysis::Grouping;

use super::retained::RetainedArgs;
use super::trace::TraceInput;

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub input: TraceInput,
    /// Classifiers in grouping order: type, package, allocation-site[:DEPTH],
    /// domain-call-site:PREFIX, thread, age, object-kind, root-kind.
    #[arg(long, default_value = "type,allocation-site")]
    pub classifiers: String,
    #[command(flatten)]
    pub retained: RetainedArgs,
    /// Where to write the history (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let classifiers = memcity_heapgraph::parse_list(&args.classifiers)
        .map_err(|e| anyhow::anyhow!("--classifiers: {e}"))?;
    let options = Grouping { classifiers, analysis: args.retained.analysis() };
    if let Some(out) = &args.out {
        crate::cli::paths::check_output_file(out, "--out")?;
    }
    let history = args.input.history(options)?;
    match &args.out {
        Some(path) => memcity_model::save_history(&history, path).map_err(anyhow::Error::msg)?,
        None => memcity_model::write_history(&history, std::io::stdout().lock())?,
    }
    Ok(())
}
