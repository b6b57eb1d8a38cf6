//! `memcity analyze`: replays a trace or a scenario with the embedded analysis core and writes
//! the history (memcity/1 with pointer maps, heap metrics and retained sizes).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use memcity_analysis::scenarios::{self, Params};
use memcity_analysis::{ReplayOptions, classify};

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// A built-in scenario (see `memcity scenarios`).
    #[arg(long, conflicts_with = "trace", required_unless_present = "trace")]
    pub scenario: Option<String>,
    /// A JSON Lines trace (see docs/trace-format.md).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Classifiers in grouping order: type, package, allocation-site[:DEPTH],
    /// domain-call-site:PREFIX, thread, age, object-kind, root-kind.
    #[arg(long, default_value = "type,allocation-site")]
    pub classifiers: String,
    /// The scenario's seed.
    #[arg(long, default_value_t = scenarios::DEFAULT_SEED)]
    pub seed: u64,
    /// The scenario's number of GCs (snapshots).
    #[arg(long, default_value_t = 30)]
    pub gcs: usize,
    /// Multiplies the scenario's objects per cycle.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Leave out retained sizes (one marking pass per group per GC).
    #[arg(long)]
    pub no_retained: bool,
    /// Where to write the history (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let classifiers =
        classify::parse_list(&args.classifiers).map_err(|e| anyhow::anyhow!("--classifiers: {e}"))?;
    let options = ReplayOptions { classifiers, retained: !args.no_retained, ..Default::default() };
    let history = match (&args.scenario, &args.trace) {
        (Some(name), _) => {
            if args.gcs == 0 || !(args.scale > 0.0 && args.scale.is_finite()) {
                bail!("--gcs must be at least 1 and --scale a positive number");
            }
            let params = Params { seed: args.seed, gcs: args.gcs, scale: args.scale };
            scenario(name)?.history(&params, options)
        }
        (None, Some(path)) => {
            let file =
                std::fs::File::open(path).with_context(|| format!("cannot open trace {}", path.display()))?;
            let source = path.display().to_string();
            let events = memcity_analysis::read_trace(std::io::BufReader::new(file), &source)?;
            memcity_analysis::replay(&events, options, &source)?
        }
        (None, None) => bail!("give --scenario NAME or --trace FILE"),
    };
    match &args.out {
        Some(path) => memcity_model::save_history(&history, path).map_err(anyhow::Error::msg)?,
        None => memcity_model::write_history(&history, std::io::stdout().lock())?,
    }
    Ok(())
}

pub fn scenario(name: &str) -> Result<&'static scenarios::Scenario> {
    scenarios::find(name)
        .with_context(|| format!("unknown scenario `{name}` (known: {})", scenarios::names()))
}
