//! `memcity ownership`: which classes own the heap (docs/ownership.md) — the ownership tree of
//! one snapshot of any input with objects, paired with the snapshot before it, as JSON or as
//! the paper's picture (SVG, `ownership_svg`).

use std::path::PathBuf;

use anyhow::{Result, bail};
use memcity_ownership::{Options, Ownership, Series, visible};
use serde_json::{Value, json};

use super::ownership_svg;

#[derive(clap::Args, Debug)]
pub struct OwnershipArgs {
    /// Heap dumps, V8 heap snapshots, heap files (files or folders), a trace or scenario:NAME.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The snapshot shown (default: the last).
    #[arg(long, value_name = "I")]
    pub time: Option<usize>,
    /// Hide nodes owning less than this share of the heap (0.001: 0.1 %; 0 shows all).
    #[arg(long, default_value = "0.001", value_name = "F", allow_hyphen_values = true)]
    pub min_share: String,
    /// Arrays of at least this many bytes, and strings holding that many, are pseudo classes.
    #[arg(long, default_value_t = memcity_ownership::LARGE_BYTES, value_name = "BYTES")]
    pub large: u64,
    /// More data-structure descriptions (what counts as a collection): a .ds file or a folder
    /// of them; repeatable.
    #[arg(long = "structures", value_name = "FILE|DIR")]
    pub structures: Vec<PathBuf>,
    /// Where to write: FILE.json or FILE.svg.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

pub fn run(args: OwnershipArgs) -> Result<()> {
    let svg = match args.out.extension().and_then(|e| e.to_str()) {
        Some("json") => false,
        Some("svg") => true,
        _ => bail!("--out {}: give a .json or .svg file", args.out.display()),
    };
    let min_share = match args.min_share.parse::<f64>() {
        Ok(f) if (0.0..1.0).contains(&f) => f,
        _ => bail!(
            "--min-share {}: no share of the heap; give a number from 0 to below 1 (0.001 is 0.1 %)",
            memcity_model::escape::terminal(&args.min_share)
        ),
    };
    if args.large == 0 {
        bail!("--large 0: give the size in bytes from which arrays and strings count as large");
    }
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    let descriptions = crate::cli::structures::descriptions(&args.structures)?.all;
    let mut series = Series::new(Options { large_bytes: args.large });
    crate::input::extend_series(&args.inputs, &mut series, &descriptions)?;
    let count = series.snapshots().len();
    if count == 0 {
        bail!("{}: the input has no snapshot", args.inputs.join(" "));
    }
    let time = args.time.unwrap_or(count - 1);
    if time >= count {
        bail!("--time {time}: the input has {count} snapshot(s) (0..{})", count - 1);
    }
    let text = if svg {
        ownership_svg::picture(&series, time, min_share)
    } else {
        let own = &series.snapshots()[time].ownership;
        let json = json!({"time": time, "heap_bytes": own.heap_bytes,
                          "root": node_json(own, &visible(own, min_share), 0)});
        serde_json::to_string_pretty(&json)? + "\n"
    };
    std::fs::write(&args.out, text).map_err(|e| anyhow::anyhow!("--out {}: {e}", args.out.display()))?;
    let own = &series.snapshots()[time].ownership;
    say!(
        "wrote the ownership of snapshot {time} ({} bytes, {} class nodes) to {}",
        own.heap_bytes,
        own.classes.len() - 1,
        args.out.display()
    );
    Ok(())
}

/// A tree node and its shown children, as docs/ownership.md writes them.
fn node_json(own: &Ownership, shown: &[bool], t: u32) -> Value {
    let node = &own.tree[t as usize];
    let class = &own.classes[node.class as usize];
    let children: Vec<Value> =
        node.children.iter().filter(|&&c| shown[c as usize]).map(|&c| node_json(own, shown, c)).collect();
    let mut out = json!({"name": class.name, "kind": class.kind.name()});
    if let Some(referrer) = &class.referrer {
        out["referrer"] = json!(referrer);
    }
    if class.kind == memcity_ownership::Kind::Cycle {
        out["members"] = json!(class.members);
    }
    for (field, value) in [
        ("objects", json!(node.objects)),
        ("self_bytes", json!(node.self_bytes)),
        ("owned_bytes", json!(node.owned_bytes)),
        ("new_objects", json!(node.new_objects)),
        ("growth_bytes", json!(node.growth_bytes)),
        ("fraction", json!(node.fraction)),
        ("children", json!(children)),
    ] {
        out[field] = value;
    }
    out
}
