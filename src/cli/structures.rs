//! `memcity structures`: the data structures of a heap and how each one grew over a time window
//! (docs/structures.md): detected at the window's two ends, paired by identity, ranked by the
//! growth of the chosen metric, each read as one of five growth patterns.

use std::path::PathBuf;

use anyhow::Result;
use memcity_structures::{
    Cause, Descriptions, InstanceMeasure, Report, Sizes, Status, listed_causes, may_have_causes,
};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct StructuresArgs {
    /// HPROF heap dumps (files or folders; one snapshot per dump), a trace (.jsonl, .mctrace)
    /// or scenario:NAME.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The window's first GC (default: the first).
    #[arg(long, value_name = "I")]
    pub from: Option<usize>,
    /// The window's last GC (default: the last).
    #[arg(long, value_name = "J")]
    pub to: Option<usize>,
    /// More data-structure descriptions: a .ds file or a folder of them; repeatable. They
    /// replace built-in descriptions of the same types.
    #[arg(long = "structures", value_name = "FILE|DIR")]
    pub structures: Vec<PathBuf>,
    /// The growth to rank by.
    #[arg(long, value_enum, default_value_t = SortBy::Retained)]
    pub sort: SortBy,
    /// How many instances to show (0: all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Retained,
    Deep,
    Structure,
    DeepStructure,
}

impl From<SortBy> for memcity_structures::SortBy {
    fn from(by: SortBy) -> Self {
        match by {
            SortBy::Retained => Self::Retained,
            SortBy::Deep => Self::Deep,
            SortBy::Structure => Self::Structure,
            SortBy::DeepStructure => Self::DeepStructure,
        }
    }
}

/// Leaf types listed per instance.
const LEAF_TYPES: usize = 10;

/// The descriptions in use: the built-in ones and the user's, which are also checked against
/// the heap (a pattern of the user's that matches no type is most often a typo).
pub(crate) struct Loaded {
    pub all: Descriptions,
    pub users: Descriptions,
}

/// The built-in descriptions and the user's `--structures` files; a broken file is one line.
pub(crate) fn descriptions(paths: &[PathBuf]) -> Result<Loaded> {
    let mut all = memcity_structures::builtin();
    let mut users = Descriptions::default();
    for path in paths {
        let more = memcity_structures::load_path(path).map_err(|e| anyhow::anyhow!("--structures: {e}"))?;
        users.extend(more.clone());
        all.extend(more);
    }
    Ok(Loaded { all, users })
}

/// Warns of the user's patterns that match no type of `heap`.
pub(crate) fn warn_unmatched(heap: &memcity_heapgraph::TypedHeap, users: &Descriptions) {
    for warning in memcity_structures::unmatched(heap, users) {
        shout!("{warning}");
    }
}

pub fn run(args: StructuresArgs) -> Result<()> {
    let loaded = descriptions(&args.structures)?;
    let report = {
        let heaps = crate::input::typed_heaps(&args.inputs, args.from, args.to)?;
        let mut heaps = heaps.into_iter();
        let first = heaps.next().ok_or_else(|| anyhow::anyhow!("no heap in the window"))?;
        let last = heaps.next();
        warn_unmatched(last.as_ref().map_or(&first.heap, |l| &l.heap), &loaded.users);
        let top = if args.top == 0 { usize::MAX } else { args.top };
        memcity_structures::report(&first, last.as_ref(), &loaded.all, args.sort.into(), top)
    };
    let causes = causes(&args.inputs, &report, &loaded.all)?;
    if args.json {
        say!("{}", serde_json::to_string_pretty(&json(&report, &causes))?);
    } else {
        say_raw!("{}", text(&report, &causes));
    }
    Ok(())
}

/// The causes of the listed instances: where one grew, the window's end is read again with its
/// values (a dump's fields, a V8 snapshot's strings, a heap file's atoms, elsewhere references
/// alone), once the window's two heaps are gone.
fn causes(specs: &[String], report: &Report, descriptions: &Descriptions) -> Result<Vec<Vec<Cause>>> {
    if !may_have_causes(report) {
        return Ok(vec![Vec::new(); report.listed().len()]);
    }
    let end = crate::input::valued_snapshot(specs, Some(report.to))?;
    Ok(end.with_values(|values| listed_causes(report, &end.snapshot.heap, descriptions, values)))
}

/// A cause as `--json` and `check --json` write it.
pub(crate) fn cause_json(c: &Cause) -> Value {
    json!({"kind": c.kind, "type": c.type_name, "keys": c.keys, "distinct": c.distinct, "message": c.message})
}

fn json(report: &Report, causes: &[Vec<Cause>]) -> Value {
    let hgp = |h: Option<f64>| h.map_or(Value::Null, |h| json!((h * 10.0).round() / 10.0));
    let sizes =
        |m: Option<&InstanceMeasure>, pick: fn(&InstanceMeasure) -> Sizes| m.map_or(Sizes::default(), pick);
    let instances: Vec<Value> = report
        .listed()
        .into_iter()
        .zip(causes)
        .map(|(i, causes)| {
            let (a, b, shown) = (report.at_start(i), report.at_end(i), report.instance(i));
            let leaves: Vec<Value> = i
                .leaves
                .iter()
                .take(LEAF_TYPES)
                .map(|l| {
                    json!({"type": l.key.type_name, "allocation_site": l.key.site.as_deref().unwrap_or(""),
                           "objects_start": l.start.objects, "objects_end": l.end.objects,
                           "bytes_start": l.start.bytes, "bytes_end": l.end.bytes})
                })
                .collect();
            let g = i.growth.as_ref();
            json!({
                "type": shown.type_name,
                "identity": shown.path,
                "allocation_site": shown.site.as_deref().unwrap_or(""),
                "status": i.status.name(),
                "objects_start": sizes(a, |m| m.measure.deep_structure).objects,
                "objects_end": sizes(b, |m| m.measure.deep_structure).objects,
                "retained_bytes_start": sizes(a, |m| m.measure.retained).bytes,
                "retained_bytes_end": sizes(b, |m| m.measure.retained).bytes,
                "deep_bytes_start": sizes(a, |m| m.measure.deep).bytes,
                "deep_bytes_end": sizes(b, |m| m.measure.deep).bytes,
                "structure_bytes_start": sizes(a, |m| m.measure.structure).bytes,
                "structure_bytes_end": sizes(b, |m| m.measure.structure).bytes,
                "deep_structure_bytes_start": sizes(a, |m| m.measure.deep_structure).bytes,
                "deep_structure_bytes_end": sizes(b, |m| m.measure.deep_structure).bytes,
                "hgp": {"retained": hgp(g.and_then(|g| g.hgp[0])), "deep": hgp(g.and_then(|g| g.hgp[1])),
                        "structure": hgp(g.and_then(|g| g.hgp[2])),
                        "deep_structure": hgp(g.and_then(|g| g.hgp[3]))},
                "pattern": g.map(|g| g.pattern.name()),
                "leaves": leaves,
                "causes": causes.iter().map(cause_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"window": {"from": report.from, "to": report.to}, "heap_growth_bytes": report.window.heap_growth,
           "instances": instances})
}

fn text(report: &Report, causes: &[Vec<Cause>]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let (survived, appeared, died) =
        (report.count(Status::Survived), report.count(Status::Appeared), report.count(Status::Died));
    let _ = writeln!(
        out,
        "GC {} → {}: the heap grew by {} bytes; {survived} structures survived, {appeared} appeared, {died} died",
        report.from, report.to, report.window.heap_growth
    );
    let percent = |h: Option<f64>| h.map_or("–".to_string(), |h| format!("{h:.1}%"));
    let mut status = Status::Survived;
    for (rank, (i, causes)) in report.listed().into_iter().zip(causes).enumerate() {
        let m = report.instance(i);
        if i.status != status {
            status = i.status;
            let _ = writeln!(out, "\n{}:", if status == Status::Appeared { "Appeared" } else { "Died" });
        }
        let Some(g) = &i.growth else {
            let _ = writeln!(
                out,
                "     {} {}: {} objects, retains {} B{}",
                m.type_name,
                m.path,
                m.measure.deep_structure.objects,
                m.measure.retained.bytes,
                m.site.as_ref().map_or(String::new(), |s| format!(", allocated at {s}"))
            );
            continue;
        };
        let (a, b) = (report.at_start(i).expect("a survivor"), report.at_end(i).expect("a survivor"));
        let _ = writeln!(out, "\n{:>3}. {} {}", rank + 1, m.type_name, m.path);
        if let Some(site) = &m.site {
            let _ = writeln!(out, "     allocated at {site}");
        }
        let _ = writeln!(
            out,
            "     HGP retained {} ({:+} B), deep {} ({:+} B), structure {} ({:+} B), deep structure {} ({:+} B)",
            percent(g.hgp[0]),
            g.retained.bytes,
            percent(g.hgp[1]),
            g.deep.bytes,
            percent(g.hgp[2]),
            g.structure.bytes,
            percent(g.hgp[3]),
            g.deep_structure.bytes
        );
        let _ = writeln!(
            out,
            "     {} objects → {}; {}",
            a.measure.deep_structure.objects,
            b.measure.deep_structure.objects,
            g.pattern.name()
        );
        for c in causes {
            let _ = writeln!(out, "     cause {}: {}", c.kind, c.message);
        }
        if rank < 3 {
            for l in i.leaves.iter().take(5) {
                let site = l.key.site.as_ref().map_or(String::new(), |s| format!(" ‹ {s}"));
                let _ = writeln!(
                    out,
                    "       leaves {}{site}: {} → {} objects, {} → {} B",
                    l.key.type_name, l.start.objects, l.end.objects, l.start.bytes, l.end.bytes
                );
            }
        }
    }
    out
}
