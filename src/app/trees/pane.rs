//! The Tree tab's body: the kind and settings on top, the drill-down path, then the local view
//! beside the global one, drawn with egui's painter (rectangles for the icicle, ring sectors as
//! one mesh for the sunburst: draw.rs), tooltips, clicks as [`TreeClicked`].

use bevy::prelude::*;
use bevy_egui::egui;
use memcity_layout::partition::{Part, PartNode, SortBy};

use super::draw::{View, draw};
use super::geometry::NodeKey;
use super::look::Look;
use super::timeline::{Multiples, Pinned, TogglePin};
use super::timeline_pane::{Writers, timeline_body};
use super::{DrillDown, Shape, TreeClicked, TreeKind, TreeParts, TreeSettings};
use crate::app::inspect::Selection;
use crate::app::model::{CityModel, ViewOptions};
use crate::app::names::GroupNames;
use crate::app::time::TimeCommand;
use crate::app::ui::style::bytes;

/// The global view's share of the width (the local view takes the rest).
const GLOBAL_SHARE: f32 = 0.4;

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
pub fn tree_pane(
    InMut(ui): InMut<egui::Ui>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    (parts, multiples, pinned): (Res<TreeParts>, Res<Multiples>, Res<Pinned>),
    (mut kind, mut settings): (ResMut<TreeKind>, ResMut<TreeSettings>),
    (selection, options, drill): (Res<Selection>, Res<ViewOptions>, Res<DrillDown>),
    time: Res<Time<Real>>,
    mut clicks: MessageWriter<TreeClicked>,
    (mut pins, mut moves): (MessageWriter<TogglePin>, MessageWriter<TimeCommand>),
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
    let now = time.elapsed_secs_f64();
    if *kind == TreeKind::Timeline {
        let out = Writers { clicks: &mut clicks, pins: &mut pins, time: &mut moves };
        timeline_body(ui, &look, settings.multiples, &multiples, &pinned, now, out);
        return;
    }
    let (area, _) =
        ui.allocate_exact_size(ui.available_size().max(egui::vec2(80.0, 80.0)), egui::Sense::hover());
    let gap = 10.0;
    let local_width = (area.width() - gap) * (1.0 - GLOBAL_SHARE);
    let local_rect = egui::Rect::from_min_size(area.min, egui::vec2(local_width, area.height()));
    let global_rect = egui::Rect::from_min_max(egui::pos2(local_rect.max.x + gap, area.min.y), area.max);
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
    let shape = kind.shape(&settings);
    let view = View { shape, levels: parts.local.levels, faded: None, also: None };
    let (response, hovered) = draw(ui, local_rect, &local, &view, &look, "memcity_tree_local");
    let branch = |p: &Part| in_branch(&model, root, p);
    let also = hovered.map(|i| NodeKey::of(&local[i].node));
    let view = View { shape, levels: parts.global.levels, faded: Some(&branch), also };
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
        ui.selectable_value(kind, TreeKind::Timeline, "Timeline");
        ui.label("(V)").on_hover_text("V switches City → Icicle → Sunburst → Timeline");
        ui.separator();
        if *kind == TreeKind::Timeline {
            egui::ComboBox::from_id_salt("memcity_tree_multiples")
                .selected_text(match s.multiples {
                    Shape::Icicle => "trees: icicles",
                    Shape::Sunburst => "trees: sunbursts",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.multiples, Shape::Icicle, "icicles");
                    ui.selectable_value(&mut s.multiples, Shape::Sunburst, "sunbursts");
                });
        }
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
        ui.checkbox(&mut s.scaled, "scaled").on_hover_text(
            "the global view and the timeline's trees stand for the largest heap of the history, \
                 so growth shows",
        );
    });
    if s != *settings {
        *settings = s;
    }
}

/// The local view's root and its ancestors; a click on an ancestor drills up to it.
fn breadcrumb(ui: &mut egui::Ui, look: &Look, root: u32, clicks: &mut MessageWriter<TreeClicked>) {
    let groups = &look.model.timeline.groups;
    let mut path = vec![root];
    while let Some(parent) = path.last().and_then(|&g| groups.get(g as usize)).and_then(|g| g.parent) {
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

fn groups_of(part: &Part) -> Vec<u32> {
    match &part.node {
        PartNode::Group(g) => vec![*g],
        PartNode::Other { groups, .. } => groups.clone(),
    }
}

pub(super) fn tooltip(ui: &mut egui::Ui, look: &Look, part: &Part) {
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
    let heap =
        model.timeline.values.get(look.snapshot).and_then(|v| v.get(metric).first().copied()).unwrap_or(0);
    if heap > 0 {
        ui.label(format!("{:.1} % of the heap", 100.0 * part.value as f64 / heap as f64));
    }
    let hint = match &part.node {
        PartNode::Other { .. } => "not drillable: its groups are too small to show",
        PartNode::Group(g) if model.timeline.groups.get(*g as usize).is_some_and(|g| g.is_leaf()) => {
            "click: select it in the city"
        }
        PartNode::Group(_) => "click: open it (its root: step up) · Ctrl+click: select it in the city",
    };
    ui.small(hint);
}
