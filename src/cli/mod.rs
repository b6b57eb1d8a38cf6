//! The command line: `memcity [INPUT]` opens the city; subcommands work headless.
//! Each subcommand lives in its own file with its `Args` struct and a `run` function.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod import;
mod layout;
mod record;

#[derive(Parser, Debug)]
#[command(name = "memcity", version, about = "A program's heap over time as a 3D city you can fly through")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// Arguments of `memcity [INPUT]` (the app).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OpenArgs {
    /// A history (memcity/1 file, snapshot folder, AntTracks export), a heap dump series (a
    /// .hprof/.hprof.gz file or a folder of them) or `scenario:NAME`.
    pub input: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Lay out a history as a city and write every snapshot's frame to JSON (headless).
    Layout(layout::LayoutArgs),
    /// Import a series of JVM heap dumps (HPROF, .hprof or .hprof.gz) as a history file.
    Import(import::ImportArgs),
    /// Take a series of heap dumps (and class histograms) from a running JVM with jcmd.
    Record(record::RecordArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Layout(args)) => layout::run(args),
        Some(Command::Import(args)) => import::run(args),
        Some(Command::Record(args)) => record::run(args),
        None => open(cli.open),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memcity: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn open(args: OpenArgs) -> anyhow::Result<()> {
    let history = crate::input::load(args.input.as_deref().unwrap_or(crate::input::DEFAULT_INPUT))?;
    println!("loaded {} snapshots", history.snapshots.len());
    Ok(())
}
