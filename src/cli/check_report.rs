//! `memcity check --report FILE.html`: one self-contained page (no script, no network) with the
//! verdict, the findings and their retainer paths, the heap over time with its leak windows,
//! and a map of the city seen from above at the last snapshot with the findings outlined.
//! Every name comes from someone else's program and is escaped.

use std::fmt::Write;

use memcity_analysis::check::Grew;
use memcity_analysis::windows::{Window, WindowKind};
use memcity_layout::frame::{footprint, frame, growth_color};
use memcity_layout::{CityLayout, Settings, layout};
use memcity_model::escape::html;
use memcity_model::{History, Timeline};

/// What the page shows of one finding.
pub struct Row<'a> {
    /// The group (building) where the finding is one; a data structure has none.
    pub group: Option<u32>,
    /// A data structure's: the buildings of its type (the objects of its type, wherever they
    /// were made), marked as where it lives.
    pub type_buildings: Vec<u32>,
    pub name: String,
    pub grew: Grew,
    pub path: &'a [String],
}

const CHART: (f64, f64) = (720.0, 180.0);
const MAP: f64 = 480.0;

pub fn page(input: &str, history: &History, timeline: &Timeline, rows: &[Row]) -> String {
    let verdict = if rows.is_empty() { "pass" } else { "leak" };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>memcity check: {verdict}</title>\
         <style>body{{font:14px sans-serif;margin:2em;max-width:60em}}\
         .leak{{color:#c00}}.pass{{color:#080}}td,th{{padding:.2em .6em;text-align:left;vertical-align:top}}\
         code{{font-size:12px}}</style></head><body>\n\
         <h1 class=\"{verdict}\">memcity check: {verdict}</h1>\n<p>input: <code>{}</code>, {} snapshots</p>\n",
        html(input),
        history.snapshots.len()
    );
    if rows.is_empty() {
        out.push_str("<p>No group or data structure grew past the limits.</p>\n");
    } else {
        out.push_str(
            "<table><tr><th>group or data structure</th><th>growth per step</th><th>retains</th><th>kept alive by</th></tr>\n",
        );
        for r in rows {
            let path: Vec<String> = r.path.iter().map(|p| html(p).into_owned()).collect();
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td>{:+.0} B</td><td>{} B</td><td><code>{}</code></td></tr>",
                html(&r.name),
                r.grew.growth_per_step,
                r.grew.retained_bytes,
                path.join(" ← ")
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("<h2>The heap over time</h2>\n");
    out.push_str(&heap_chart(history, &memcity_analysis::windows::detect(history)));
    out.push_str("<h2>The city at the last snapshot, from above</h2>\n");
    let findings: Vec<u32> = rows.iter().filter_map(|r| r.group).collect();
    let structures: Vec<u32> = rows.iter().flat_map(|r| r.type_buildings.iter().copied()).collect();
    let city = layout(timeline, &Settings::default());
    out.push_str(&city_map(&city, history.snapshots.len() - 1, &findings, &structures));
    out.push_str(
        "<p>Red outlines: the groups that failed the check; orange: the buildings of a failing data \
         structure's type. Colour: growth since the first snapshot.</p>\n</body></html>\n",
    );
    out
}

/// The reachable heap per snapshot as a line, leak windows shaded red.
fn heap_chart(history: &History, windows: &[Window]) -> String {
    let (w, h) = CHART;
    let heap: Vec<f64> = (0..history.snapshots.len())
        .map(|s| memcity_analysis::suspects::heap_bytes(history, s) as f64)
        .collect();
    let top = heap.iter().copied().fold(1.0, f64::max);
    let n = heap.len().max(2) as f64 - 1.0;
    let x = |i: usize| i as f64 / n * w;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n"
    );
    for win in windows.iter().filter(|win| win.kind == WindowKind::Leak) {
        let _ = writeln!(
            svg,
            "<rect x=\"{:.1}\" y=\"0\" width=\"{:.1}\" height=\"{h}\" fill=\"#f4c7c3\"/>",
            x(win.first),
            x(win.last) - x(win.first)
        );
    }
    let points: Vec<String> = heap
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{:.1},{:.1}", x(i), h - v / top * (h - 10.0)))
        .collect();
    let _ = writeln!(
        svg,
        "<polyline fill=\"none\" stroke=\"#333\" stroke-width=\"2\" points=\"{}\"/>",
        points.join(" ")
    );
    let _ =
        writeln!(svg, "<text x=\"4\" y=\"14\" font-size=\"12\">{} bytes at most</text>\n</svg>", top as u64);
    svg
}

/// The city's footprints at `snapshot`, seen from above, the groups in `findings` outlined red
/// and those in `structures` orange.
fn city_map(city: &CityLayout, snapshot: usize, findings: &[u32], structures: &[u32]) -> String {
    let scale = MAP / memcity_layout::city::CITY_SIZE;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{MAP}\" height=\"{MAP}\" viewBox=\"0 0 {MAP} {MAP}\">\n\
         <rect width=\"{MAP}\" height=\"{MAP}\" fill=\"#2a2c33\"/>\n"
    );
    let rgb = |c: [f32; 3]| {
        format!("rgb({},{},{})", (c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8)
    };
    for d in &city.districts {
        let r = d.rect;
        let _ = writeln!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"0.35\"/>",
            r.x * scale,
            r.z * scale,
            r.w * scale,
            r.d * scale,
            rgb(d.color)
        );
    }
    let states = frame(city, snapshot).states;
    for (b, state) in city.buildings.iter().zip(states) {
        let r = footprint(b, state);
        let stroke = match (findings.contains(&b.group), structures.contains(&b.group)) {
            (true, _) => " stroke=\"#ff2020\" stroke-width=\"3\"",
            (false, true) => " stroke=\"#ff9a00\" stroke-width=\"3\"",
            (false, false) => "",
        };
        let _ = writeln!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"{stroke}/>",
            r.x * scale,
            r.z * scale,
            r.w * scale,
            r.d * scale,
            rgb(growth_color(state.growth))
        );
    }
    svg.push_str("</svg>\n");
    svg
}
