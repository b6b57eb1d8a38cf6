//! Drawing one tree view with egui's painter: rectangles for the icicle, the sunburst's ring
//! sectors as one mesh, labels cut to fit (radial in the sunburst), outlines for the selected,
//! the hovered and the other view's hovered node.

use std::sync::Arc;

use bevy_egui::egui;
use egui::epaint::{Galley, TextShape};
use memcity_layout::partition::{Part, PartNode, icicle_rect, sunburst_sector};

use super::Shape;
use std::f64::consts::TAU;

use super::geometry::{NodeKey, icicle_hit, polar, runs, sector_outline, sunburst_hit};
use super::look::Look;
use crate::app::ui::style::{HIGHLIGHT, one_line};

/// Opacity of the global view's parts outside the drill-down branch.
const FADED: f32 = 0.25;
const TEXT: egui::Color32 = egui::Color32::from_gray(15);
/// Parts thinner than this many pixels are drawn merged with their neighbours (`runs`).
const MIN_PX: f64 = 1.0;

/// How one view is drawn: which shape with how many levels below its root, which parts are on
/// the highlighted branch (the rest faded; `None`: all), and a node to outline (hovered in the
/// other view).
pub struct View<'a> {
    pub shape: Shape,
    pub levels: u32,
    pub faded: Option<&'a dyn Fn(&Part) -> bool>,
    pub also: Option<NodeKey>,
}

/// Draws `parts` into `rect`; returns the response and the part under the pointer.
pub fn draw(
    ui: &mut egui::Ui,
    rect: egui::Rect,
    parts: &[Part],
    view: &View,
    look: &Look,
    id: &str,
) -> (egui::Response, Option<usize>) {
    let response = ui.interact(rect, egui::Id::new(id), egui::Sense::click());
    let painter = ui.painter_at(rect);
    let alpha = |p: &Part| if view.faded.is_none_or(|on| on(p)) { 1.0 } else { FADED };
    let (w, h) = (f64::from(rect.width()), f64::from(rect.height()));
    let center = [f64::from(rect.center().x), f64::from(rect.center().y)];
    let radius = (w.min(h) / 2.0 - 2.0).max(1.0);
    let pos = |p: [f64; 2]| egui::pos2(p[0] as f32, p[1] as f32);
    let hovered = response.hover_pos().and_then(|at| {
        let (x, y) = (f64::from(at.x), f64::from(at.y));
        match view.shape {
            Shape::Icicle => {
                icicle_hit(parts, view.levels, w, h, [x - f64::from(rect.min.x), y - f64::from(rect.min.y)])
            }
            Shape::Sunburst => sunburst_hit(parts, view.levels, radius, [x - center[0], y - center[1]]),
        }
    });
    let outline = |p: &Part| -> Vec<egui::Pos2> {
        match view.shape {
            Shape::Icicle => {
                let r = screen_rect(rect, icicle_rect(p, view.levels, w, h));
                vec![r.left_top(), r.right_top(), r.right_bottom(), r.left_bottom()]
            }
            Shape::Sunburst => sector_outline(center, sunburst_sector(p, view.levels, radius), 0.05)
                .into_iter()
                .map(pos)
                .collect(),
        }
    };
    match view.shape {
        Shape::Icicle => {
            // One mesh without anti-aliased edges: thousands of parts tessellate and rasterise
            // in a fraction of the time of a shape each.
            let mut mesh = egui::Mesh::default();
            for run in runs(parts, h, MIN_PX) {
                let p = &parts[run.part];
                let r = screen_rect(
                    rect,
                    icicle_rect(&Part { start: run.start, end: run.end, ..p.clone() }, view.levels, w, h),
                );
                let r = egui::Rect::from_min_max(
                    r.min + egui::vec2(0.5, 0.0),
                    r.max - egui::vec2(0.5, 0.5 * r.height().min(1.0)),
                );
                mesh.add_colored_rect(r, look.fill(p).gamma_multiply(alpha(p)));
            }
            painter.add(egui::Shape::mesh(mesh));
            for p in parts {
                let r = screen_rect(rect, icicle_rect(p, view.levels, w, h));
                if r.height() >= 13.0 {
                    let galley = label(ui, look.label(p), r.width() - 6.0, alpha(p));
                    if let Some(g) = galley {
                        painter.galley(egui::pos2(r.min.x + 3.0, r.center().y - g.size().y / 2.0), g, TEXT);
                    }
                }
            }
        }
        Shape::Sunburst => {
            let mut mesh = egui::Mesh::default();
            for run in runs(parts, TAU * radius, MIN_PX) {
                let p = &parts[run.part];
                let sector = sunburst_sector(
                    &Part { start: run.start, end: run.end, ..p.clone() },
                    view.levels,
                    radius,
                );
                sector_mesh(&mut mesh, center, sector, look.fill(p).gamma_multiply(alpha(p)));
            }
            painter.add(egui::Shape::mesh(mesh));
            for p in parts {
                sector_label(
                    &painter,
                    ui,
                    look,
                    p,
                    center,
                    sunburst_sector(p, view.levels, radius),
                    alpha(p),
                );
            }
        }
    }
    let ring = |p: &Part, color: egui::Color32, width: f32| {
        painter.add(egui::Shape::closed_line(outline(p), egui::Stroke::new(width, color)));
    };
    for p in parts {
        if view.also == Some(NodeKey::of(&p.node)) {
            ring(p, egui::Color32::WHITE, 2.5);
        }
        if matches!(p.node, PartNode::Group(g) if Some(g) == look.selected) {
            ring(p, HIGHLIGHT, 2.0);
        }
    }
    if let Some(i) = hovered {
        ring(&parts[i], egui::Color32::WHITE, 1.5);
    }
    (response, hovered)
}

fn screen_rect(rect: egui::Rect, [x0, y0, x1, y1]: [f64; 4]) -> egui::Rect {
    egui::Rect::from_min_max(
        rect.min + egui::vec2(x0 as f32, y0 as f32),
        rect.min + egui::vec2(x1 as f32, y1 as f32),
    )
}

/// A ring sector as triangles between its outer and inner arcs, a little inset so neighbours
/// stay apart.
fn sector_mesh(mesh: &mut egui::Mesh, center: [f64; 2], [r0, r1, a0, a1]: [f64; 4], color: egui::Color32) {
    let (r0, r1) = (if r0 > 0.0 { r0 + 0.5 } else { 0.0 }, r1 - 0.5);
    let inset = (0.5 / r1.max(1.0)).min((a1 - a0) / 4.0);
    let (a0, a1) = (a0 + inset, a1 - inset);
    if r1 <= r0 || a1 <= a0 {
        return;
    }
    let n = ((a1 - a0) / 0.05).ceil().max(1.0) as u32;
    let base = mesh.vertices.len() as u32;
    for i in 0..=n {
        let a = a0 + (a1 - a0) * f64::from(i) / f64::from(n);
        let [ox, oy] = polar(center, r1, a);
        let [ix, iy] = polar(center, r0, a);
        mesh.colored_vertex(egui::pos2(ox as f32, oy as f32), color);
        mesh.colored_vertex(egui::pos2(ix as f32, iy as f32), color);
    }
    for i in 0..n {
        let k = base + 2 * i;
        mesh.add_triangle(k, k + 1, k + 2);
        mesh.add_triangle(k + 1, k + 3, k + 2);
    }
}

/// A sector's name along its radius (across the middle for the root's disc), where its ring is
/// thick enough and its arc wide enough for a line of text.
fn sector_label(
    painter: &egui::Painter,
    ui: &egui::Ui,
    look: &Look,
    part: &Part,
    center: [f64; 2],
    [r0, r1, a0, a1]: [f64; 4],
    alpha: f32,
) {
    let mid = (a0 + a1) / 2.0;
    if r0 <= 0.0 {
        if let Some(g) = label(ui, look.label(part), (2.0 * r1 - 8.0) as f32, alpha) {
            let at = egui::pos2(center[0] as f32, center[1] as f32) - g.size() / 2.0;
            painter.galley(at, g, TEXT);
        }
        return;
    }
    if (a1 - a0) * (r0 + r1) / 2.0 < 13.0 {
        return;
    }
    let Some(g) = label(ui, look.label(part), (r1 - r0 - 6.0) as f32, alpha) else { return };
    // Text runs outwards on the right half, inwards on the left, never upside down.
    let mut angle = (mid - std::f64::consts::FRAC_PI_2) as f32;
    if mid > std::f64::consts::PI {
        angle -= std::f32::consts::PI;
    }
    let at = polar(center, (r0 + r1) / 2.0, mid);
    let pos = egui::pos2(at[0] as f32, at[1] as f32) - g.size() / 2.0;
    painter.add(TextShape::new(pos, g, TEXT).with_angle_and_anchor(angle, egui::Align2::CENTER_CENTER));
}

/// `text` on one line cut to `width` in the tree's label colour, faded by `alpha`.
fn label(ui: &egui::Ui, text: String, width: f32, alpha: f32) -> Option<Arc<Galley>> {
    one_line(ui, text, width, TEXT.gamma_multiply(alpha))
}
