//! `memcity tree --out FILE.svg`: the frames side by side in one standalone picture.

use std::fmt::Write as _;

use memcity_layout::partition::{icicle_rect, sunburst_sector};
use memcity_model::escape::xml;

use crate::cli::tree::{Kind, Trees};

const SIZE: f64 = 400.0;

/// The frames side by side, each `SIZE` square, labelled with their time and the names that fit,
/// coloured as the city colours growth.
pub fn picture(trees: &Trees) -> String {
    let (kind, levels, frames) = (trees.kind, trees.levels, &trees.frames);
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
            let (_, _, raw, _) = trees.identity(part);
            let fill = trees.fill(part);
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
