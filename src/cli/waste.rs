//! `memcity waste`: what one snapshot wastes (docs/objects.md, "Waste") — strings held many
//! times over with one text, empty and sparse collections, boxed primitives in collections —
//! with the bytes of each, as MAT and HeapLens report them. Exit 2 with one line on bad input, as `memcity objects`.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, bail};
use memcity_structures::waste::{SPARSE_PERCENT, Waste, waste};

#[derive(clap::Args, Debug)]
pub struct WasteArgs {
    /// HPROF heap dumps (files or folders), V8 heap snapshots, heap files, a trace or
    /// scenario:NAME.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The snapshot (0-based; default the last).
    #[arg(long, value_name = "I")]
    pub time: Option<usize>,
    /// How many of each kind to show.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// More data-structure descriptions: a .ds file or a folder of them; repeatable.
    #[arg(long = "structures", value_name = "FILE|DIR")]
    pub structures: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The longest text shown of a string in the terminal.
const TEXT_SHOWN: usize = 60;

pub fn run(args: WasteArgs) -> Result<()> {
    if args.top == 0 {
        bail!("--top 0: show at least one (the default is 20)");
    }
    let loaded = crate::cli::structures::descriptions(&args.structures)?;
    let valued = crate::input::valued_snapshot(&args.inputs, args.time)?;
    let found = valued.with_values(|values| waste(&valued.snapshot.heap, values, &loaded.all, args.top));
    if args.json {
        say!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"time": valued.snapshot.index, "waste": found})
            )?
        );
    } else {
        say_raw!("{}", text(&found, valued.snapshot.index, &valued.snapshot.label));
    }
    Ok(())
}

fn text(found: &Waste, time: usize, label: &str) -> String {
    let mut out = format!("snapshot {time} ({label})\n");
    let _ = writeln!(out, "duplicate strings ({} shown):", found.duplicate_strings.len());
    for d in &found.duplicate_strings {
        let shown: String = d.text.chars().take(TEXT_SHOWN).collect();
        let cut = if shown.len() < d.text.len() { "…" } else { "" };
        // Debug quotes and escapes control characters.
        let _ = writeln!(out, "  {:>10} B wasted  {} copies  {shown:?}{cut}", d.wasted_bytes, d.count);
    }
    let _ = writeln!(out, "empty collections ({} types shown):", found.empty_collections.len());
    for e in &found.empty_collections {
        let _ = writeln!(out, "  {:>10} B wasted  {} empty  {}", e.wasted_bytes, e.count, e.type_name);
    }
    let _ = writeln!(
        out,
        "sparse collections, arrays at most {SPARSE_PERCENT}% full ({} types shown):",
        found.sparse_collections.len()
    );
    for s in &found.sparse_collections {
        let _ = writeln!(
            out,
            "  {:>10} B wasted  {} sparse  {}  ({} entries in {} slots)",
            s.wasted_bytes, s.count, s.type_name, s.entries, s.slots
        );
    }
    let _ = writeln!(out, "boxed primitives in collections ({} shown):", found.boxed_primitives.len());
    for b in &found.boxed_primitives {
        let _ = writeln!(
            out,
            "  {:>10} B wasted  {} {} in {}  ({} distinct boxes)",
            b.wasted_bytes, b.count, &b.box_type, &b.collection_type, b.boxes
        );
    }
    out
}
