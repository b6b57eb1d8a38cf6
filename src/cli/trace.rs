//! `memcity trace`: writes a scenario's trace, or converts a trace between JSON Lines and the
//! compact binary format. `TraceInput` is also how `memcity analyze` gets its trace.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use memcity_analysis::scenarios::{self, Params};
use memcity_analysis::trace::{write_binary_trace, write_trace};
use memcity_analysis::{Grouping, Trace};
use memcity_model::History;

use crate::input::read_trace_file;

/// Where a trace comes from: a built-in scenario, a trace file or a generated trace.
#[derive(clap::Args, Debug)]
pub struct TraceInput {
    #[command(flatten)]
    pub source: Source,
    /// The scenario's seed.
    #[arg(long, default_value_t = scenarios::DEFAULT_SEED)]
    pub seed: u64,
    /// The scenario's number of GCs (snapshots).
    #[arg(long, default_value_t = 30, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub gcs: usize,
    /// Multiplies the scenario's objects per cycle.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
}

/// Exactly one of these.
#[derive(clap::Args, Debug)]
#[group(required = true, multiple = false)]
pub struct Source {
    /// A built-in scenario (see `memcity scenarios`).
    #[arg(long)]
    pub scenario: Option<String>,
    /// A trace file: JSON Lines or the binary format, told apart by its first bytes
    /// (see docs/trace-format.md).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// A generated trace of N objects, each stored into a random earlier one, then one GC
    /// (the analysis benchmark's trace). At most 50 million (about 100 bytes each in memory).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=50_000_000))]
    pub synthetic: Option<u64>,
}

impl TraceInput {
    /// The trace replayed into a history; a trace file is replayed while it is read.
    pub fn history(&self, options: Grouping) -> Result<History> {
        if let Some(path) = &self.source.trace {
            return crate::input::replay_trace_file(path, options);
        }
        let (trace, source) = self.load()?;
        Ok(memcity_analysis::replay(trace, options, &source)?)
    }

    /// The trace, interned, and its name for error messages.
    pub fn load(&self) -> Result<(Trace, String)> {
        let source = &self.source;
        if let Some(n) = source.synthetic {
            let trace = Trace::from_events(memcity_analysis::synthetic::events(n));
            return Ok((trace, format!("synthetic trace of {n} objects")));
        }
        match (&source.scenario, &source.trace) {
            (Some(name), _) => {
                if !(self.scale > 0.0 && self.scale <= 1000.0) {
                    bail!("--scale {}: give a number above 0 and at most 1000", self.scale);
                }
                let params = Params { seed: self.seed, gcs: self.gcs, scale: self.scale };
                let events = scenario(name)?.trace(&params);
                Ok((Trace::from_events(&events), name.clone()))
            }
            (None, Some(path)) => Ok((read_trace_file(path)?, path.display().to_string())),
            (None, None) => bail!("give --scenario NAME, --trace FILE or --synthetic N"),
        }
    }
}

fn scenario(name: &str) -> Result<&'static scenarios::Scenario> {
    scenarios::find(name)
        .with_context(|| format!("unknown scenario `{name}` (known: {})", scenarios::names()))
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Jsonl,
    Binary,
}

#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    #[command(flatten)]
    pub input: TraceInput,
    /// Where to write the trace.
    #[arg(long)]
    pub out: PathBuf,
    /// The output format (default: binary if OUT ends in .mctrace, else JSON Lines).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

pub fn run(args: TraceArgs) -> Result<()> {
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    let (trace, _) = args.input.load()?;
    let format = args.format.unwrap_or(match args.out.extension() {
        Some(e) if e == "mctrace" => Format::Binary,
        _ => Format::Jsonl,
    });
    let out = &args.out;
    let file = std::fs::File::create(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
    let written = match format {
        Format::Binary => write_binary_trace(&trace, &mut file),
        Format::Jsonl => {
            let events: Vec<_> = (0..trace.ops.len()).map(|i| trace.event(i)).collect();
            write_trace(&events, &mut file)
        }
    };
    written.and_then(|()| file.flush()).with_context(|| format!("cannot write {}", out.display()))
}
