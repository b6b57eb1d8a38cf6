//! The command line: `memcity [INPUT]` opens the city; subcommands work headless.
//! Each subcommand lives in its own file with its `Args` struct and a `run` function.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod analyze;
mod check;
mod check_baseline;
mod check_report;
mod check_structures;
mod diff;
mod fetch;
mod generate;
pub mod import;
pub mod inspect;
pub mod layout;
pub mod objects;
pub mod open;
mod ownership;
mod ownership_svg;
pub mod paths;
mod push;
pub mod record;
mod retained;
mod scenarios;
pub mod serve;
pub mod structure_city;
mod structures;
mod trace;
mod tree;
mod tree_html;
mod tree_svg;
mod waste;
mod why;
mod windows;

#[derive(Parser, Debug)]
#[command(name = "memcity", version, about = "A program's heap over time as a 3D city you can fly through")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub open: open::OpenArgs,
    #[command(flatten)]
    pub index: crate::input::IndexArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Lay out a history as a city and write every snapshot's frame to JSON (headless).
    Layout(layout::LayoutArgs),
    /// Collect histories pushed over WebSocket, without a window (docs/websocket.md).
    Serve(serve::ServeArgs),
    /// Send a history to a memcity server, whole or snapshot by snapshot (--live).
    Push(push::PushArgs),
    /// Fetch trees and pointer maps from an AntTracks server into a memcity/1 file.
    Fetch(fetch::FetchArgs),
    /// List the built-in teaching scenarios.
    Scenarios(scenarios::ScenariosArgs),
    /// Replay a trace or a scenario with the embedded analysis core and write the history.
    Analyze(analyze::AnalyzeArgs),
    /// Write a scenario's trace, or convert a trace between JSON Lines and binary.
    Trace(trace::TraceArgs),
    /// Print a history's suspicious time windows (leak, fastest growth, GC overhead, churn).
    Windows(windows::WindowsArgs),
    /// Write a JVM-shaped heap dump of about N objects, with no JVM (benchmarks, tests).
    GenerateDump(generate::GenerateArgs),
    /// Import a series of JVM heap dumps (HPROF, .hprof or .hprof.gz) as a history file.
    Import(import::ImportArgs),
    /// Take a series of heap dumps (and class histograms) from a running JVM with jcmd, or V8
    /// heap snapshots from a Node or Chromium inspector (--inspect HOST:PORT).
    Record(record::RecordArgs),
    /// The data structures of a heap and how each grew over a time window (docs/structures.md).
    Structures(structures::StructuresArgs),
    /// Why is a group alive? Its retainer path: the groups that keep its objects alive, up to
    /// the GC roots.
    Why(why::WhyArgs),
    /// Compare two runs (or two moments of one) group by group, the largest change first.
    Diff(diff::DiffArgs),
    /// The leak gate for a build: exit 0 when no group or data structure grew past the limits,
    /// 1 when one did, 2 on bad input (docs/ci.md).
    Check(check::CheckArgs),
    /// The icicle or sunburst of a history at some of its times, as JSON or SVG (no window).
    Tree(tree::TreeArgs),
    /// Which classes own the heap: the ownership tree of a snapshot, as JSON or SVG
    /// (docs/ownership.md).
    Ownership(ownership::OwnershipArgs),
    /// Inside one snapshot: a group's objects, a data structure's entries or one object, with
    /// fields and values (docs/objects.md). Exit 2 on bad input.
    Objects(objects::ObjectsArgs),
    /// What one snapshot wastes: duplicate strings and empty collections, with their bytes
    /// (docs/objects.md). Exit 2 on bad input.
    Waste(waste::WasteArgs),
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `objects` and `waste` answer a malformed flag in one line, exit 2, as their other
        // errors.
        Err(e)
            if matches!(std::env::args().nth(1).as_deref(), Some("objects" | "waste")) && e.use_stderr() =>
        {
            let (first, command) = (e.to_string(), std::env::args().nth(1).unwrap_or_default());
            shout!(
                "memcity {command}: {}",
                first.lines().next().unwrap_or_default().trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    // Every command's tables may go to work files past the default budget; `import` and the
    // app's import apply --memory and --work-dir over this.
    let budget = memcity_heapgraph::budget::default_budget().bytes;
    memcity_heapgraph::table::spill_to(budget, import::default_work_dir().ok());
    keep_freed_blocks(budget);
    crate::input::use_index(cli.index.dir());
    let result = match cli.command {
        Some(Command::Layout(args)) => layout::run(args),
        Some(Command::Serve(args)) => serve::run(args),
        Some(Command::Push(args)) => push::run(args),
        Some(Command::Fetch(args)) => fetch::run(args),
        Some(Command::Scenarios(args)) => scenarios::run(args),
        Some(Command::Analyze(args)) => analyze::run(args),
        Some(Command::Trace(args)) => trace::run(args),
        Some(Command::Windows(args)) => windows::run(args),
        Some(Command::Import(args)) => import::run(args),
        Some(Command::GenerateDump(args)) => generate::run(args),
        Some(Command::Record(args)) => record::run(args),
        Some(Command::Why(args)) => why::run(args),
        Some(Command::Structures(args)) => structures::run(args),
        Some(Command::Diff(args)) => diff::run(args),
        Some(Command::Tree(args)) => tree::run(args),
        Some(Command::Ownership(args)) => ownership::run(args),
        Some(Command::Waste(args)) => match waste::run(args) {
            Ok(()) => return ExitCode::SUCCESS,
            Err(e) => {
                shout!("memcity: {e:#}");
                return ExitCode::from(2);
            }
        },
        Some(Command::Objects(args)) => match objects::run(args) {
            Ok(()) => return ExitCode::SUCCESS,
            Err(e) => {
                shout!("memcity: {e:#}");
                return ExitCode::from(2);
            }
        },
        Some(Command::Check(args)) => match check::run(args) {
            Ok(true) => return ExitCode::SUCCESS,
            Ok(false) => return ExitCode::from(1),
            Err(e) => {
                shout!("memcity: {e:#}");
                return ExitCode::from(2);
            }
        },
        None => open::run(cli.open),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            shout!("memcity: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Freed big blocks are kept for reuse up to a quarter of the memory budget: beside the tables
/// the budget holds, so a process inside a memory limit keeps room for the pages it reads.
pub fn keep_freed_blocks(budget: u64) {
    #[cfg(target_os = "linux")]
    crate::big_blocks::keep_at_most(budget / 4);
    #[cfg(not(target_os = "linux"))]
    let _ = budget;
}

/// Gives the freed big blocks kept during an import back to the system (the app lives on
/// after its imports; the next one keeps blocks again).
pub fn release_freed_blocks() {
    #[cfg(target_os = "linux")]
    crate::big_blocks::release_kept();
}
