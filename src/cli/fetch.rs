//! `memcity fetch`: ask an AntTracks-style server for its trees and pointer maps and write them
//! as a memcity/1 history.

use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct FetchArgs {
    /// The AntTracks server, e.g. ws://localhost:8887
    pub url: String,
    /// The tab to fetch; without it, the first tab of the server's tab list.
    #[arg(long, value_name = "N")]
    pub tab: Option<i64>,
    /// Where to write the history (memcity/1 JSON).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Seconds to wait for connecting and for each answer.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub timeout_s: u64,
}

pub fn run(args: FetchArgs) -> anyhow::Result<()> {
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    let history = memcity_wire::fetch_anttracks(&args.url, args.tab, Duration::from_secs(args.timeout_s))?;
    memcity_model::save_history(&history, &args.out).map_err(anyhow::Error::msg)?;
    say!("{} snapshots written to {}", history.snapshots.len(), args.out.display());
    Ok(())
}
