//! The Tree tab's body: the kind and settings on top, the drill-down path, then the local view
//! beside the global one, drawn with egui's painter (rectangles for the icicle, ring sectors as
//! one mesh for the sunburst), labels where they fit, tooltips, clicks as [`TreeClicked`].

use std::sync::Arc;

use bevy::prelude::*;
use bevy_egui::egui;
use egui::epaint::{Galley, TextShape};
use egui::text::{LayoutJob, TextFormat, TextWrapping};
use memcity_layout::frame::growth_color;
use memcity_layout::partition::{Part, PartNode, SortBy, icicle_rect, sunburst_sector};

use super::geometry::{NodeKey, icicle_hit, polar, sector_outline, sunburst_hit};
use super::{DrillDown, TreeClicked, TreeKind, TreeParts, TreeSettings};
use crate::app::inspect::Selection;
use crate::app::model::{CityModel, ViewOptions};
use crate::app::names::{GroupNames, short};
use crate::app::ui::selection::HIGHLIGHT;
use crate::app::why_pane::bytes;

/// The global view's share of the width (the local view takes the rest).
const GLOBAL_SHARE: f32 = 0.4;
/// Opacity of the global view's parts outside the drill-down branch.
const FADED: f32 = 0.25;
const OTHER: egui::Color32 = egui::Color32::from_gray(105);
const TEXT: egui::Color32 = egui::Color32::from_gray(15);

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
pub fn tree_pane(
    InMut(ui): InMut<egui::Ui>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    parts: Res<TreeParts>,
    (mut kind, mut settings): (ResMut<TreeKind>, ResMut<TreeSettings>),
    (selection, options, drill): (Res<Selection>, Res<ViewOptions>, Res<DrillDown>),
    time: Res<Time<Real>>,
    mut clicks: MessageWriter<TreeClicked>,
) {
    controls(ui, &mut kind, &mut settings);
    let look = Look {
        model: &model,
        names: &names,
        snapshot: parts.snapshot,
        selected: selection.selected.as_deref().and_then(|k| model.timeline.group(k)),
        growth_color: options.growth_color,
    };
    breadcrumb(ui, &look, parts.root, &mut clicks);
    if drill.root.is_some() && parts.root == 0 {
        ui.label("The drilled-into group is not in this city: showing the heap.");
    }
    let (area, _) =
        ui.allocate_exact_size(ui.available_size().max(egui::vec2(80.0, 80.0)), egui::Sense::hover());
    let gap = 10.0;
    let local_width = (area.width() - gap) * (1.0 - GLOBAL_SHARE);
    let local_rect = egui::Rect::from_min_size(area.min, egui::vec2(local_width, area.height()));
    let global_rect = egui::Rect::from_min_max(egui::pos2(local_rect.max.x + gap, area.min.y), area.max);
    let now = time.elapsed_secs_f64();
    let (local, global) = (parts.local.at(now), parts.global.at(now));
    let root = parts.root;
    let caption = |ui: &mut egui::Ui, rect: egui::Rect, text: &str| {
        ui.painter().text(
            rect.left_top(),
            egui::Align2::LEFT_TOP,
            text,
            egui::FontId::proportional(11.0),
            ui.visuals().weak_text_color(),
        );
        egui::Rect::from_min_max(rect.min + egui::vec2(0.0, 16.0), rect.max)
    };
    let local_rect = caption(ui, local_rect, "drill-down: click a branch to open it, its root to step up");
    let scaled = if settings.scaled { "scaled to the largest heap" } else { "unscaled" };
    let global_rect = caption(ui, global_rect, &format!("the whole heap, {scaled}"));
    let view = View { kind: *kind, levels: parts.local.levels, faded: None, also: None };
    let (response, hovered) = draw(ui, local_rect, &local, &view, &look, "memcity_tree_local");
    let branch = |p: &Part| in_branch(&model, root, p);
    let also = hovered.map(|i| NodeKey::of(&local[i].node));
    let view = View { kind: *kind, levels: parts.global.levels, faded: Some(&branch), also };
    let (global_response, global_hovered) =
        draw(ui, global_rect, &global, &view, &look, "memcity_tree_global");
    for (response, hovered, parts) in
        [(response, hovered, &local), (global_response, global_hovered, &global)]
    {
        let Some(part) = hovered.map(|i| &parts[i]) else { continue };
        let response = response.on_hover_ui_at_pointer(|ui| tooltip(ui, &look, part));
        if response.clicked() {
            let select = ui.input(|i| i.modifiers.command);
            clicks.write(TreeClicked { node: part.node.clone(), select });
        }
    }
}

fn controls(ui: &mut egui::Ui, kind: &mut TreeKind, settings: &mut TreeSettings) {
    let mut s = *settings;
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(kind, TreeKind::Icicle, "Icicle");
        ui.selectable_value(kind, TreeKind::Sunburst, "Sunburst");
        ui.label("(V)").on_hover_text("V switches City → Icicle → Sunburst");
        ui.separator();
        let name = |by: SortBy| match by {
            SortBy::Growth => "growth",
            SortBy::StartSize => "size at the start",
            SortBy::EndSize => "size at the end",
        };
        egui::ComboBox::from_id_salt("memcity_tree_sort")
            .selected_text(format!("order: {}", name(s.sort)))
            .show_ui(ui, |ui| {
                for by in [SortBy::Growth, SortBy::StartSize, SortBy::EndSize] {
                    ui.selectable_value(&mut s.sort, by, name(by));
                }
            });
        ui.label("keep");
        ui.add(egui::DragValue::new(&mut s.pruning.max_children).range(1..=50).suffix(" children"))
            .on_hover_text("at most this many children per branch; the rest become \"Other\"");
        let mut share = (s.pruning.share * 100.0).round();
        ui.add(egui::DragValue::new(&mut share).range(10.0..=100.0).suffix(" %"))
            .on_hover_text("children in order until they hold this share of their branch");
        s.pruning.share = share / 100.0;
        ui.checkbox(&mut s.scaled, "global view scaled")
            .on_hover_text("the whole view stands for the largest heap of the history, so growth shows");
    });
    if s != *settings {
        *settings = s;
    }
}

/// The local view's root and its ancestors; a click on an ancestor drills up to it.
fn breadcrumb(ui: &mut egui::Ui, look: &Look, root: u32, clicks: &mut MessageWriter<TreeClicked>) {
    let groups = &look.model.timeline.groups;
    let mut path = vec![root];
    while let Some(parent) = groups[*path.last().unwrap() as usize].parent {
        path.push(parent);
    }
    path.reverse();
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("snapshot {}:", look.snapshot));
        for (i, &g) in path.iter().enumerate() {
            if i > 0 {
                ui.label("›");
            }
            if g == root {
                ui.strong(look.name(g));
            } else if ui.link(look.name(g)).clicked() {
                clicks.write(TreeClicked { node: PartNode::Group(g), select: false });
            }
        }
    });
}

/// Whether `part` is on the drill-down branch: the root's ancestors and everything under it.
fn in_branch(model: &CityModel, root: u32, part: &Part) -> bool {
    let groups = &model.timeline.groups;
    let under = |mut g: u32, of: u32| loop {
        if g == of {
            return true;
        }
        match groups[g as usize].parent {
            Some(p) => g = p,
            None => return false,
        }
    };
    match &part.node {
        PartNode::Group(g) => under(*g, root) || under(root, *g),
        PartNode::Other { parent, .. } => under(*parent, root),
    }
}

/// What colours and names parts.
struct Look<'a> {
    model: &'a CityModel,
    names: &'a GroupNames,
    snapshot: usize,
    selected: Option<u32>,
    growth_color: bool,
}

impl Look<'_> {
    fn name(&self, g: u32) -> String {
        let name = self.names.get(g);
        if name.is_empty() {
            short(&self.model.timeline.groups[g as usize].name).to_string()
        } else {
            name.into()
        }
    }

    fn label(&self, part: &Part) -> String {
        match &part.node {
            PartNode::Group(g) => self.name(*g),
            PartNode::Other { groups, .. } => format!("Other ({})", groups.len()),
        }
    }

    /// `metric` values of `groups` at the first and the current snapshot.
    fn values(&self, groups: &[u32], metric: memcity_model::Metric) -> (u64, u64) {
        let values = &self.model.timeline.values;
        let sum =
            |s: usize| values.get(s).map_or(0, |v| groups.iter().map(|&g| v.get(metric)[g as usize]).sum());
        (sum(0), sum(self.snapshot))
    }

    /// The city's growth colour: growth since the first snapshot against what the city draws red.
    fn fill(&self, part: &Part) -> egui::Color32 {
        let PartNode::Group(g) = part.node else { return OTHER };
        let (first, now) = self.values(&[g], self.model.layout.settings.metric);
        let growth = (now as f64 - first as f64) / self.model.layout.full_red.max(1e-9);
        let [r, g, b] = growth_color(if self.growth_color { growth as f32 } else { 0.0 });
        egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8)
    }
}

fn groups_of(part: &Part) -> Vec<u32> {
    match &part.node {
        PartNode::Group(g) => vec![*g],
        PartNode::Other { groups, .. } => groups.clone(),
    }
}

fn tooltip(ui: &mut egui::Ui, look: &Look, part: &Part) {
    use memcity_model::Metric::{Bytes, Objects};
    let model = look.model;
    let groups = groups_of(part);
    ui.strong(look.label(part));
    match &part.node {
        PartNode::Group(g) => {
            ui.label(format!(
                "{} · {}",
                model.timeline.groups[*g as usize].role,
                model.timeline.path_label(*g)
            ));
        }
        PartNode::Other { groups, .. } => {
            let listed: Vec<String> = groups.iter().take(12).map(|&g| look.name(g)).collect();
            ui.label(format!("pruned away, merged: {}", listed.join(", ")));
            if groups.len() > 12 {
                ui.label(format!("… and {} more", groups.len() - 12));
            }
        }
    }
    let ((o0, o), (b0, b)) = (look.values(&groups, Objects), look.values(&groups, Bytes));
    ui.label(format!("{o} objects, {}", bytes(b)));
    let signed = |now: u64, first: u64| {
        if now >= first { format!("+{}", now - first) } else { format!("−{}", first - now) }
    };
    let signed_bytes = |now: u64, first: u64| {
        if now >= first { format!("+{}", bytes(now - first)) } else { format!("−{}", bytes(first - now)) }
    };
    ui.label(format!("growth since snapshot 0: {} objects, {}", signed(o, o0), signed_bytes(b, b0)));
    let metric = model.layout.settings.metric;
    let heap = model.timeline.values.get(look.snapshot).map_or(0, |v| v.get(metric)[0]);
    if heap > 0 {
        ui.label(format!("{:.1} % of the heap", 100.0 * part.value as f64 / heap as f64));
    }
    let hint = match &part.node {
        PartNode::Other { .. } => "not drillable: its groups are too small to show",
        PartNode::Group(g) if model.timeline.groups[*g as usize].is_leaf() => "click: select it in the city",
        PartNode::Group(_) => "click: open it (its root: step up) · Ctrl+click: select it in the city",
    };
    ui.small(hint);
}

/// How one view is drawn: which kind with how many levels below its root, which parts are on
/// the highlighted branch (the rest faded; `None`: all), and a node to outline (hovered in the
/// other view).
struct View<'a> {
    kind: TreeKind,
    levels: u32,
    faded: Option<&'a dyn Fn(&Part) -> bool>,
    also: Option<NodeKey>,
}

/// Draws `parts` into `rect`; returns the response and the part under the pointer.
fn draw(
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
        match view.kind {
            TreeKind::Icicle => {
                icicle_hit(parts, view.levels, w, h, [x - f64::from(rect.min.x), y - f64::from(rect.min.y)])
            }
            TreeKind::Sunburst => sunburst_hit(parts, view.levels, radius, [x - center[0], y - center[1]]),
        }
    });
    let outline = |p: &Part| -> Vec<egui::Pos2> {
        match view.kind {
            TreeKind::Icicle => {
                let r = screen_rect(rect, icicle_rect(p, view.levels, w, h));
                vec![r.left_top(), r.right_top(), r.right_bottom(), r.left_bottom()]
            }
            TreeKind::Sunburst => sector_outline(center, sunburst_sector(p, view.levels, radius), 0.05)
                .into_iter()
                .map(pos)
                .collect(),
        }
    };
    match view.kind {
        TreeKind::Icicle => {
            for p in parts {
                let r = screen_rect(rect, icicle_rect(p, view.levels, w, h));
                let fill = look.fill(p).gamma_multiply(alpha(p));
                painter.rect_filled(r.shrink(0.5), 0.0, fill);
                if r.height() >= 13.0 {
                    let galley = label(ui, look.label(p), r.width() - 6.0, alpha(p));
                    if let Some(g) = galley {
                        painter.galley(egui::pos2(r.min.x + 3.0, r.center().y - g.size().y / 2.0), g, TEXT);
                    }
                }
            }
        }
        TreeKind::Sunburst => {
            let mut mesh = egui::Mesh::default();
            for p in parts {
                sector_mesh(
                    &mut mesh,
                    center,
                    sunburst_sector(p, view.levels, radius),
                    look.fill(p).gamma_multiply(alpha(p)),
                );
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

/// `text` on one line cut to `width`, or nothing where not even a few letters fit.
fn label(ui: &egui::Ui, text: String, width: f32, alpha: f32) -> Option<Arc<Galley>> {
    if width < 20.0 {
        return None;
    }
    let format = TextFormat::simple(egui::FontId::proportional(11.0), TEXT.gamma_multiply(alpha));
    let mut job = LayoutJob::single_section(text, format);
    job.wrap = TextWrapping::truncate_at_width(width);
    Some(ui.painter().layout_job(job))
}
