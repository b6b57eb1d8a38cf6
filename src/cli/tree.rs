//! `memcity tree`: the icicle or sunburst of a history at some of its times, without a window,
//! as JSON (every node's place) or one standalone SVG picture (the times side by side). The
//! layout is the app's Tree tab's (`memcity_layout::partition`).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, bail};
use memcity_layout::partition::{
    Part, PartNode, Pruning, SortBy, TreeView, icicle_rect, levels_below, partition, sort_order,
    sunburst_sector, window_scale,
};
use memcity_model::escape::xml;
use memcity_model::{Metric, Timeline};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct TreeArgs {
    /// Any input memcity reads (history, dumps, snapshots, heap files, trace, scenario:NAME).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t = Kind::Icicle)]
    pub kind: Kind,
    /// One snapshot (default: the last).
    #[arg(long, value_name = "I", conflicts_with = "times")]
    pub time: Option<usize>,
    /// Several snapshots, `I,J,…`, or `all`.
    #[arg(long, value_name = "I,J,…|all")]
    pub times: Option<String>,
    /// The group to show as the root (a key, as `memcity why --key` takes).
    #[arg(long, value_name = "KEY")]
    pub drill: Option<String>,
    #[arg(long, value_enum, default_value_t = Sort::Growth)]
    pub sort: Sort,
    /// Extents in proportion to the heap at each time ÷ the largest heap of the history.
    #[arg(long)]
    pub scaled: bool,
    #[arg(long, value_enum, default_value_t = MetricArg::Bytes)]
    pub metric: MetricArg,
    /// Children kept per branch before the rest is merged into "Other".
    #[arg(long, default_value_t = 9, value_name = "N")]
    pub children: usize,
    /// Where to write: FILE.json or FILE.svg.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Icicle,
    Sunburst,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Growth,
    Start,
    End,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricArg {
    Objects,
    Bytes,
}

/// One time's partition.
struct Frame {
    time: usize,
    heap: u64,
    parts: Vec<Part>,
}

pub fn run(args: TreeArgs) -> Result<()> {
    let svg = match args.out.extension().and_then(|e| e.to_str()) {
        Some("json") => false,
        Some("svg") => true,
        _ => bail!("--out {}: give a .json or .svg file", args.out.display()),
    };
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    if args.children == 0 {
        bail!("--children 0: keep at least one child per branch");
    }
    let history = crate::input::load_all(&args.inputs, &|_, _| {})?;
    if history.snapshots.is_empty() {
        bail!("{}: the input has no snapshot", args.inputs.join(" "));
    }
    let timeline = Timeline::new(&history);
    let last = history.snapshots.len() - 1;
    let times = times(args.time, args.times.as_deref(), last)?;
    let root = match &args.drill {
        Some(key) => {
            timeline.group(key).ok_or_else(|| anyhow::anyhow!("--drill {key}: no group has this key"))?
        }
        None => 0,
    };
    let metric = match args.metric {
        MetricArg::Objects => Metric::Objects,
        MetricArg::Bytes => Metric::Bytes,
    };
    let by = match args.sort {
        Sort::Growth => SortBy::Growth,
        Sort::Start => SortBy::StartSize,
        Sort::End => SortBy::EndSize,
    };
    let order = sort_order(&timeline, metric, by, 0, last);
    let levels = levels_below(&timeline, root);
    let largest = window_scale(&timeline, metric, root, 0, last);
    let frames: Vec<Frame> = times
        .iter()
        .map(|&time| {
            let value = timeline.values[time].get(metric)[root as usize];
            let scale = if args.scaled { largest } else { value };
            let pruning = Pruning { max_children: args.children, ..Pruning::default() };
            let view = TreeView { metric, order: &order, pruning, root, levels, scale };
            Frame { time, heap: value, parts: partition(&timeline, &view, time) }
        })
        .collect();
    let text = if svg {
        picture(&timeline, args.kind, levels, &frames)
    } else {
        let json = json!({"kind": kind_name(args.kind), "metric": format!("{:?}", args.metric).to_lowercase(),
                          "sort": format!("{:?}", args.sort).to_lowercase(), "scaled": args.scaled,
                          "frames": frames.iter().map(|f| frame_json(&timeline, metric, args.kind, levels, root, f)).collect::<Vec<_>>()});
        serde_json::to_string_pretty(&json)? + "\n"
    };
    std::fs::write(&args.out, text).map_err(|e| anyhow::anyhow!("--out {}: {e}", args.out.display()))?;
    say!("wrote {} frame(s) to {}", frames.len(), args.out.display());
    Ok(())
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Icicle => "icicle",
        Kind::Sunburst => "sunburst",
    }
}

/// The snapshots asked for, checked against the history's `0..=last`.
fn times(time: Option<usize>, times: Option<&str>, last: usize) -> Result<Vec<usize>> {
    let list = match (time, times) {
        (Some(t), _) => vec![t],
        (None, Some("all")) => (0..=last).collect(),
        (None, Some(list)) => list
            .split(',')
            .map(|t| {
                t.trim()
                    .parse::<usize>()
                    .map_err(|_| anyhow::anyhow!("--times {list}: `{t}` is no snapshot number"))
            })
            .collect::<Result<_>>()?,
        (None, None) => vec![last],
    };
    if let Some(t) = list.iter().find(|&&t| t > last) {
        bail!("snapshot {t}: the history has {} snapshots (0..{last})", last + 1);
    }
    Ok(list)
}

/// A part's key, parent key (none for the shown root), name and whether it is "Other".
fn identity(timeline: &Timeline, root: u32, part: &Part) -> (String, Option<String>, String, bool) {
    let key = |g: u32| timeline.groups[g as usize].key.clone();
    match &part.node {
        PartNode::Group(g) => {
            let parent = timeline.groups[*g as usize].parent.filter(|_| *g != root).map(key);
            (key(*g), parent, timeline.groups[*g as usize].name.clone(), false)
        }
        PartNode::Other { parent, groups } => (
            format!("{}#(other)", key(*parent)),
            Some(key(*parent)),
            format!("Other ({})", groups.len()),
            true,
        ),
    }
}

fn frame_json(
    timeline: &Timeline,
    metric: Metric,
    kind: Kind,
    levels: u32,
    root: u32,
    frame: &Frame,
) -> Value {
    let first = timeline.values[0].get(metric);
    let nodes: Vec<Value> = frame
        .parts
        .iter()
        .map(|part| {
            let (key, parent, name, other) = identity(timeline, root, part);
            let growth = match &part.node {
                PartNode::Group(g) => part.value as i64 - first[*g as usize] as i64,
                PartNode::Other { groups, .. } => {
                    part.value as i64 - groups.iter().map(|g| first[*g as usize]).sum::<u64>() as i64
                }
            };
            let mut node = json!({"key": key, "parent": parent, "name": name, "depth": part.depth,
                                  "value": part.value, "growth": growth, "other": other});
            match kind {
                Kind::Icicle => {
                    let [x0, y0, x1, y1] = icicle_rect(part, levels, 1.0, 1.0);
                    node["x0"] = json!(x0);
                    node["x1"] = json!(x1);
                    node["y0"] = json!(y0);
                    node["y1"] = json!(y1);
                }
                Kind::Sunburst => {
                    let [r0, r1, a0, a1] = sunburst_sector(part, levels, 1.0);
                    node["a0"] = json!(a0);
                    node["a1"] = json!(a1);
                    node["r0"] = json!(r0);
                    node["r1"] = json!(r1);
                }
            }
            node
        })
        .collect();
    json!({"time": frame.time, "heap": frame.heap, "nodes": nodes})
}

const SIZE: f64 = 400.0;

/// The frames side by side, each `SIZE` square, labelled with their time and the names that fit.
fn picture(timeline: &Timeline, kind: Kind, levels: u32, frames: &[Frame]) -> String {
    let width = SIZE * frames.len() as f64 + 20.0 * (frames.len() as f64 - 1.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n",
        SIZE + 20.0
    );
    for (i, frame) in frames.iter().enumerate() {
        let left = i as f64 * (SIZE + 20.0);
        let _ = writeln!(
            svg,
            "<g transform=\"translate({left},20)\">\n<text x=\"0\" y=\"-6\" font-size=\"12\">snapshot {}</text>",
            frame.time
        );
        for part in &frame.parts {
            let (_, _, raw, other) = identity(timeline, u32::MAX, part);
            let fill = if other {
                "#999"
            } else {
                ["#c0392b", "#e67e22", "#f1c40f", "#95a5a6"][part.depth as usize % 4]
            };
            let name = xml(&raw);
            match kind {
                Kind::Icicle => {
                    let [x0, y0, x1, y1] = icicle_rect(part, levels, SIZE, SIZE);
                    let _ = writeln!(
                        svg,
                        "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"#fff\"><title>{name}: {}</title></rect>",
                        x1 - x0,
                        y1 - y0,
                        part.value
                    );
                    if y1 - y0 > 12.0 {
                        // About 6 px a character at this size: cut to the column, then escape.
                        let fits = ((x1 - x0 - 6.0) / 6.0).max(0.0) as usize;
                        let label = xml(&raw.chars().take(fits).collect::<String>()).into_owned();
                        let _ = writeln!(
                            svg,
                            "<text x=\"{:.1}\" y=\"{:.1}\">{label}</text>",
                            x0 + 3.0,
                            y0 + 11.0
                        );
                    }
                }
                Kind::Sunburst => {
                    let [r0, r1, a0, a1] = sunburst_sector(part, levels, SIZE / 2.0);
                    let _ = writeln!(
                        svg,
                        "<path d=\"{}\" fill=\"{fill}\" stroke=\"#fff\"><title>{name}: {}</title></path>",
                        sector_path(SIZE / 2.0, r0, r1, a0, a1),
                        part.value
                    );
                }
            }
        }
        svg.push_str("</g>\n");
    }
    svg.push_str("</svg>\n");
    svg
}

/// An SVG path for the ring sector `r0..r1`, `a0..a1` (clockwise from 12 o'clock) around `c, c`.
/// A sector over half a turn is drawn as two halves: an arc whose ends meet (a full ring) draws
/// nothing.
fn sector_path(c: f64, r0: f64, r1: f64, a0: f64, a1: f64) -> String {
    if a1 - a0 > std::f64::consts::PI {
        let mid = (a0 + a1) / 2.0;
        return format!("{} {}", sector_path(c, r0, r1, a0, mid), sector_path(c, r0, r1, mid, a1));
    }
    let point = |r: f64, a: f64| (c + r * a.sin(), c - r * a.cos());
    let ((x0, y0), (x1, y1)) = (point(r1, a0), point(r1, a1));
    let ((x2, y2), (x3, y3)) = (point(r0, a1), point(r0, a0));
    format!(
        "M{x0:.2},{y0:.2} A{r1:.2},{r1:.2} 0 0 1 {x1:.2},{y1:.2} L{x2:.2},{y2:.2} A{r0:.2},{r0:.2} 0 0 0 {x3:.2},{y3:.2} Z"
    )
}
