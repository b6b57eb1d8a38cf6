//! `memcity analyze`: replays a trace or a scenario with the embedded analysis core and writes
//! the history (memcity/1 with pointer maps, heap metrics and retained sizes).

use std::path::PathBuf;

use anyhow::Result;
use memcity_analysis::{Grouping, default_grouping};

use super::retained::RetainedArgs;
use super::structure_city::{self, StructureArgs};
use super::trace::TraceInput;
use crate::input::Snapshots;

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub input: TraceInput,
    /// Classifiers in grouping order: type, package, allocation-site[:DEPTH],
    /// domain-call-site:PREFIX, thread, age, object-kind, root-kind, containing-structure, leaf
    /// [default: type,allocation-site].
    #[arg(long)]
    pub classifiers: Option<String>,
    #[command(flatten)]
    pub retained: RetainedArgs,
    #[command(flatten)]
    pub structure: StructureArgs,
    /// Where to write the history (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let classifiers = args.classifiers.as_deref().map(crate::cli::import::parse_classifiers).transpose()?;
    if let Some(out) = &args.out {
        crate::cli::paths::check_output_file(out, "--out")?;
    }
    let analysis = args.retained.analysis();
    let history = if args.structure.wanted(classifiers.as_deref())? {
        structure_city::build(classifiers, &args.structure, analysis, |visit| {
            match &args.input.source.trace {
                Some(path) => crate::input::trace_file_heaps(path, visit),
                None => {
                    let (trace, source) = args.input.load()?;
                    crate::input::trace_heaps(trace, &source, Snapshots::All, visit)
                }
            }
        })?
    } else {
        let classifiers = match classifiers {
            Some(classifiers) => classifiers,
            None => default_grouping().classifiers,
        };
        args.input.history(Grouping { classifiers, analysis })?
    };
    match &args.out {
        Some(path) => memcity_model::save_history(&history, path).map_err(anyhow::Error::msg)?,
        None => memcity_model::write_history(&history, std::io::stdout().lock())?,
    }
    Ok(())
}
