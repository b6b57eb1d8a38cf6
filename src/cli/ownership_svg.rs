//! The ownership display as one SVG picture (docs/ownership.md, "The display"): the tree of
//! one snapshot after the paper's Figure 1 — geometry and colours from
//! `memcity_ownership::layout`, as the app draws them — and the heap's history bar on the
//! right. Every name is escaped.

use std::fmt::Write as _;

use memcity_model::escape::xml;
use memcity_model::units::bytes;
use memcity_ownership::layout::{self, Block};
use memcity_ownership::text::{details, short_name};
use memcity_ownership::{Series, visible};

const WIDTH: f64 = 1200.0;
const HEIGHT: f64 = 720.0;
/// Above the tree: the title and the legend.
const HEADER: f64 = 44.0;
/// The history bar's width and the room beside it.
const BAR: f64 = 26.0;
const BAR_ROOM: f64 = 70.0;

/// Snapshot `time` of `series`, nodes under `min_share` of the heap hidden.
pub fn picture(series: &Series, time: usize, min_share: f64) -> String {
    let snapshot = &series.snapshots()[time];
    let own = &snapshot.ownership;
    let shown = visible(own, min_share);
    let (tree_w, tree_h) = (WIDTH - BAR_ROOM, HEIGHT - HEADER - 8.0);
    let blocks = layout::blocks(own, &shown, 0, tree_w, tree_h);
    let reddest = layout::reddest(own, &blocks);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" font-family=\"sans-serif\" font-size=\"10\">\n\
         <defs>{}{}</defs>\n<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#fbfbfb\"/>\n",
        hatch("new", "#1f5fbf"),
        hatch("growth", "#ffffff")
    );
    let _ = writeln!(
        svg,
        "<text x=\"6\" y=\"16\" font-size=\"13\">Ownership of {} — snapshot {time} of {}, heap {}</text>",
        xml(&snapshot.label),
        series.snapshots().len(),
        bytes(own.heap_bytes)
    );
    let _ = writeln!(
        svg,
        "<text x=\"6\" y=\"32\" fill=\"#444\">height: owned bytes · gap right of a node: its own bytes · green → red: \
         own bytes · pale: shared · blue hatching: new objects · white hatching: growth · nodes under {:.2} % hidden</text>",
        min_share * 100.0
    );
    let _ = writeln!(svg, "<g transform=\"translate(0,{HEADER})\">");
    for block in &blocks {
        draw_block(&mut svg, series, time, block, reddest);
    }
    svg.push_str("</g>\n");
    history_bar(
        &mut svg,
        series,
        time,
        [WIDTH - BAR_ROOM + 22.0, HEADER, WIDTH - BAR_ROOM + 22.0 + BAR, HEIGHT - 8.0],
    );
    svg.push_str("</svg>\n");
    svg
}

/// A diagonal hatching pattern of one colour.
fn hatch(id: &str, color: &str) -> String {
    format!(
        "<pattern id=\"{id}\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\
         <rect width=\"1.6\" height=\"5\" fill=\"{color}\"/></pattern>"
    )
}

fn draw_block(svg: &mut String, series: &Series, time: usize, block: &Block, reddest: u64) {
    let own = &series.snapshots()[time].ownership;
    let node = &own.tree[block.node as usize];
    let [x0, y0, x1, y1] = block.rect;
    let (x0, x1) = (x0 + 1.0, x1 - 1.0);
    let (w, h) = (x1 - x0, y1 - y0);
    if h < 0.05 {
        return;
    }
    let [r, g, b] = layout::color(node, reddest);
    let title = xml(&details(own, block.node).join("\n")).into_owned();
    let _ = writeln!(
        svg,
        "<g><title>{title}</title><rect x=\"{x0:.2}\" y=\"{y0:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"rgb({r},{g},{b})\" stroke=\"#fff\" stroke-width=\"0.5\"/>"
    );
    let (new, growth) = layout::hatches(node);
    if new > 0.0 {
        let _ = writeln!(
            svg,
            "<rect x=\"{x0:.2}\" y=\"{y0:.2}\" width=\"{w:.2}\" height=\"{:.2}\" fill=\"url(#new)\"/>",
            h * new
        );
    }
    if growth > 0.0 {
        let _ = writeln!(
            svg,
            "<rect x=\"{x0:.2}\" y=\"{:.2}\" width=\"{w:.2}\" height=\"{:.2}\" fill=\"url(#growth)\"/>",
            y1 - h * growth,
            h * growth
        );
    }
    if h >= 11.0 {
        // About 5.5 px a character at this size: cut to the block, then escape.
        let name = short_name(&own.class_of(block.node).full_name());
        let fits = ((w - 4.0) / 5.5).max(0.0) as usize;
        let label = xml(&name.chars().take(fits).collect::<String>()).into_owned();
        let _ = writeln!(svg, "<text x=\"{:.2}\" y=\"{:.2}\">{label}</text>", x0 + 2.0, y0 + 10.0);
    }
    if layout::fits_sparkline([x0, y0, x1, y1]) {
        let area = [x0 + 4.0, y0 + 16.0, x1 - 4.0, (y0 + 16.0 + 30.0).min(y1 - 4.0)];
        let points: Vec<String> = layout::sparkline(&series.history(node.path), area)
            .iter()
            .map(|[x, y]| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#222\" stroke-width=\"1\"/>",
            points.join(" ")
        );
    }
    svg.push_str("</g>\n");
}

/// The heap over time, top to bottom: darker where it was larger, a magenta line per
/// snapshot, the shown one in yellow.
fn history_bar(svg: &mut String, series: &Series, time: usize, rect: [f64; 4]) {
    let [x0, y0, x1, y1] = rect;
    let heaps = series.heap_history();
    let times: Vec<u64> = series.snapshots().iter().map(|s| s.time_ms).collect();
    let marks = layout::time_marks(&times);
    let largest = heaps.iter().copied().max().unwrap_or(0);
    let y = |m: f64| y0 + (y1 - y0) * m;
    for (i, (top, bottom)) in layout::bands(&marks).into_iter().enumerate() {
        let (top, bottom) = (y(top), y(bottom));
        let [r, g, b] = layout::heap_shade(heaps[i], largest);
        let _ = writeln!(
            svg,
            "<rect x=\"{x0}\" y=\"{top:.2}\" width=\"{}\" height=\"{:.2}\" fill=\"rgb({r},{g},{b})\"><title>snapshot {i}: {}</title></rect>",
            x1 - x0,
            bottom - top,
            bytes(heaps[i])
        );
    }
    for (i, &mark) in marks.iter().enumerate() {
        let (color, width) = if i == time { ("#f5d000", 3.0) } else { ("#d0309a", 1.0) };
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.2}\" y2=\"{:.2}\" stroke=\"{color}\" stroke-width=\"{width}\"/>",
            x0 - 4.0,
            x1 + 4.0,
            y(mark),
            y(mark)
        );
    }
    let _ = writeln!(svg, "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\">time</text>", x0, y0 - 4.0);
}
