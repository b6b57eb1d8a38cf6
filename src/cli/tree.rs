//! `memcity tree`: the icicle or sunburst of a history at some of its times, without a window,
//! as JSON (every node's place), one standalone SVG picture (the times side by side) or one
//! self-contained HTML page to explore (tree_html.rs). The layout is the app's Tree tab's
//! (`memcity_layout::partition`), the colour the city's growth colour.

use std::path::PathBuf;

use anyhow::{Result, bail};
use memcity_layout::frame::growth_color;
use memcity_layout::partition::{
    Part, PartNode, Pruning, SortBy, TreeView, icicle_rect, levels_below, partition, sort_order,
    sunburst_sector, window_scale,
};
use memcity_model::{Metric, Timeline};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct TreeArgs {
    /// Any input memcity reads (history, dumps, snapshots, heap files, trace, scenario:NAME).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t = Kind::Icicle)]
    pub kind: Kind,
    /// One snapshot (default: the last; for HTML, all).
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
    /// Where to write: FILE.json, FILE.svg or FILE.html.
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
pub struct Frame {
    pub time: usize,
    pub heap: u64,
    pub parts: Vec<Part>,
}

/// The frames of one export and what placing and colouring their parts needs.
pub struct Trees {
    pub timeline: Timeline,
    pub metric: Metric,
    pub kind: Kind,
    pub levels: u32,
    pub root: u32,
    pub frames: Vec<Frame>,
    /// Growth that the city draws full red (its growth colour scale).
    pub full_red: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Svg,
    Html,
}

pub fn run(args: TreeArgs) -> Result<()> {
    let format = match args.out.extension().and_then(|e| e.to_str()) {
        Some("json") => Format::Json,
        Some("svg") => Format::Svg,
        Some("html") => Format::Html,
        _ => bail!("--out {}: give a .json, .svg or .html file", args.out.display()),
    };
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    if args.children == 0 {
        bail!("--children 0: keep at least one child per branch");
    }
    let history = crate::input::load_all(&args.inputs, &memcity_heapgraph::Silent)?;
    if history.snapshots.is_empty() {
        bail!("{}: the input has no snapshot", args.inputs.join(" "));
    }
    let timeline = Timeline::new(&history);
    let last = history.snapshots.len() - 1;
    // A page to explore gets every time for its slider unless told otherwise.
    let all = (format == Format::Html && args.time.is_none() && args.times.is_none()).then_some("all");
    let times = times(args.time, args.times.as_deref().or(all), last)?;
    let root = match &args.drill {
        Some(key) => {
            timeline.group(key).ok_or_else(|| anyhow::anyhow!("--drill {key}: no group has this key"))?
        }
        None => 0,
    };
    let trees = lay_out(&args, timeline, root, &times);
    let text = match format {
        Format::Svg => crate::cli::tree_svg::picture(&trees),
        Format::Json => {
            let json = json!({"kind": kind_name(args.kind), "metric": metric_name(args.metric),
                              "sort": format!("{:?}", args.sort).to_lowercase(), "scaled": args.scaled,
                              "frames": trees.frames.iter().map(|f| frame_json(&trees, f, false)).collect::<Vec<_>>()});
            serde_json::to_string_pretty(&json)? + "\n"
        }
        Format::Html => crate::cli::tree_html::page(&trees, &history, &args)?,
    };
    std::fs::write(&args.out, text).map_err(|e| anyhow::anyhow!("--out {}: {e}", args.out.display()))?;
    say!("wrote {} frame(s) to {}", trees.frames.len(), args.out.display());
    Ok(())
}

/// Every asked-for time's partition below `root`, in one sort order for the whole history.
fn lay_out(args: &TreeArgs, timeline: Timeline, root: u32, times: &[usize]) -> Trees {
    let metric = match args.metric {
        MetricArg::Objects => Metric::Objects,
        MetricArg::Bytes => Metric::Bytes,
    };
    let by = match args.sort {
        Sort::Growth => SortBy::Growth,
        Sort::Start => SortBy::StartSize,
        Sort::End => SortBy::EndSize,
    };
    let last = timeline.values.len() - 1;
    let order = sort_order(&timeline, metric, by, 0, last);
    let levels = levels_below(&timeline, root);
    let largest = window_scale(&timeline, metric, root, 0, last);
    let pruning = Pruning { max_children: args.children, ..Pruning::default() };
    let frames = times
        .iter()
        .map(|&time| {
            let value = timeline.values[time].get(metric)[root as usize];
            let scale = if args.scaled { largest } else { value };
            let view = TreeView { metric, order: &order, pruning, root, levels, scale };
            Frame { time, heap: value, parts: partition(&timeline, &view, time) }
        })
        .collect();
    let city = memcity_layout::layout(&timeline, &memcity_layout::Settings { metric, ..Default::default() });
    Trees { timeline, metric, kind: args.kind, levels, root, frames, full_red: city.full_red }
}

pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Icicle => "icicle",
        Kind::Sunburst => "sunburst",
    }
}

pub fn metric_name(metric: MetricArg) -> &'static str {
    match metric {
        MetricArg::Objects => "objects",
        MetricArg::Bytes => "bytes",
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

/// The groups a part stands for.
fn groups_of(part: &Part) -> Vec<u32> {
    match &part.node {
        PartNode::Group(g) => vec![*g],
        PartNode::Other { groups, .. } => groups.clone(),
    }
}

impl Trees {
    /// A part's key, parent key (none for the shown root), name and whether it is "Other".
    pub fn identity(&self, part: &Part) -> (String, Option<String>, String, bool) {
        let groups = &self.timeline.groups;
        let key = |g: u32| groups[g as usize].key.clone();
        match &part.node {
            PartNode::Group(g) => {
                let parent = groups[*g as usize].parent.filter(|_| *g != self.root).map(key);
                (key(*g), parent, groups[*g as usize].name.clone(), false)
            }
            PartNode::Other { parent, groups } => (
                format!("{}#(other)", key(*parent)),
                Some(key(*parent)),
                format!("Other ({})", groups.len()),
                true,
            ),
        }
    }

    /// The sum of `metric` over a part's groups at `time`.
    pub fn value_at(&self, part: &Part, metric: Metric, time: usize) -> u64 {
        let values = self.timeline.values[time].get(metric);
        groups_of(part).iter().map(|&g| values[g as usize]).sum()
    }

    /// Growth since the first snapshot, in the export's metric.
    pub fn growth(&self, part: &Part) -> i64 {
        part.value as i64 - self.value_at(part, self.metric, 0) as i64
    }

    /// The city's growth colour (gray → orange → red), "Other" in dark gray, as `#rrggbb`.
    pub fn fill(&self, part: &Part) -> String {
        if matches!(part.node, PartNode::Other { .. }) {
            return "#696969".into();
        }
        let [r, g, b] = growth_color((self.growth(part) as f64 / self.full_red.max(1e-9)) as f32);
        let byte = |c: f32| (c * 255.0).round() as u8;
        format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
    }
}

/// A frame as JSON (docs/design.md, "Tree views"); `rich` adds what a page shows on hover
/// (objects, bytes) and its colour.
pub fn frame_json(trees: &Trees, frame: &Frame, rich: bool) -> Value {
    let nodes: Vec<Value> = frame
        .parts
        .iter()
        .map(|part| {
            let (key, parent, name, other) = trees.identity(part);
            let mut node = json!({"key": key, "parent": parent, "name": name, "depth": part.depth,
                                  "value": part.value, "growth": trees.growth(part), "other": other});
            match trees.kind {
                Kind::Icicle => {
                    let [x0, y0, x1, y1] = icicle_rect(part, trees.levels, 1.0, 1.0);
                    node["x0"] = json!(x0);
                    node["x1"] = json!(x1);
                    node["y0"] = json!(y0);
                    node["y1"] = json!(y1);
                }
                Kind::Sunburst => {
                    let [r0, r1, a0, a1] = sunburst_sector(part, trees.levels, 1.0);
                    node["a0"] = json!(a0);
                    node["a1"] = json!(a1);
                    node["r0"] = json!(r0);
                    node["r1"] = json!(r1);
                }
            }
            if rich {
                node["objects"] = json!(trees.value_at(part, Metric::Objects, frame.time));
                node["bytes"] = json!(trees.value_at(part, Metric::Bytes, frame.time));
                node["fill"] = json!(trees.fill(part));
            }
            node
        })
        .collect();
    json!({"time": frame.time, "heap": frame.heap, "nodes": nodes})
}
