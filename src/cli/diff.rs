//! `memcity diff BEFORE AFTER`: two runs (or two moments of one) compared group by group — the
//! leaf groups of each side's snapshot matched by key, the largest change first.

use std::path::PathBuf;

use anyhow::Result;
use memcity_model::diff::{Counts, GroupChange, diff};
use memcity_model::{History, Snapshot};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The first run: any input memcity reads (history, dump or dump folder, V8 snapshot
    /// folder, heap files, trace, scenario:NAME).
    pub before: String,
    /// The second run, as BEFORE.
    pub after: String,
    /// Which snapshot of BEFORE to compare (default: its last).
    #[arg(long, value_name = "I")]
    pub at_before: Option<usize>,
    /// Which snapshot of AFTER to compare (default: its last).
    #[arg(long, value_name = "J")]
    pub at_after: Option<usize>,
    /// How many groups the table shows (0: all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// Also write every group's change as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

pub fn run(args: DiffArgs) -> Result<()> {
    if let Some(path) = &args.json {
        crate::cli::paths::check_output_file(path, "--json")?;
    }
    let before = crate::input::compare::load_run(&args.before)?;
    let after = crate::input::compare::load_run(&args.after)?;
    let (a, b) = (pick(&before, args.at_before, "--at-before")?, pick(&after, args.at_after, "--at-after")?);
    let changes = diff(&a.tree, &b.tree);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&json_of(a, b, &changes))?;
        std::fs::write(path, text + "\n").map_err(|e| anyhow::anyhow!("--json {}: {e}", path.display()))?;
    }
    say!("before: {} ({})   after: {} ({})", args.before, a.display_label(), args.after, b.display_label());
    say!("{:>14} {:>12}  {:>27}  group", "Δ bytes", "Δ objects", "objects before → after");
    let top = if args.top == 0 { usize::MAX } else { args.top };
    for c in changes.iter().filter(|c| c.before != c.after).take(top) {
        say!(
            "{:>+14} {:>+12}  {:>12} → {:<12}  {}",
            c.delta_bytes(),
            c.delta_objects(),
            c.before.objects,
            c.after.objects,
            c.name
        );
    }
    let unchanged = changes.iter().filter(|c| c.before == c.after).count();
    say!("{} groups, {unchanged} unchanged", changes.len());
    Ok(())
}

/// The snapshot `at` of `history`, or its last.
fn pick<'a>(history: &'a History, at: Option<usize>, flag: &str) -> Result<&'a Snapshot> {
    let count = history.snapshots.len();
    let index = at.unwrap_or(count - 1);
    history
        .snapshots
        .get(index)
        .ok_or_else(|| anyhow::anyhow!("{flag} {index}: the input has {count} snapshots (0..{})", count - 1))
}

fn json_of(a: &Snapshot, b: &Snapshot, changes: &[GroupChange]) -> Value {
    let side = |s: &Snapshot| json!({"label": s.display_label(), "time": s.time_ms});
    let counts = |c: Counts| json!({"objects": c.objects, "bytes": c.bytes});
    let groups: Vec<Value> = changes
        .iter()
        .map(|c| {
            json!({"key": c.key, "name": c.name, "before": counts(c.before), "after": counts(c.after),
                   "delta_objects": c.delta_objects(), "delta_bytes": c.delta_bytes()})
        })
        .collect();
    json!({"before": side(a), "after": side(b), "groups": groups})
}
