//! The Tree tab's timeline: the small multiples side by side, each captioned with its time,
//! above the heap's chart with the detected windows and a point per snapshot to pin a tree.
//! Hovering a node outlines it in every multiple; clicks on nodes act as in the other views.

use bevy::prelude::*;
use bevy_egui::egui;

use super::draw::{View, draw};
use super::geometry::NodeKey;
use super::look::Look;
use super::pane::tooltip;
use super::timeline::{Multiples, Pinned, TogglePin};
use super::{Shape, TreeClicked};
use crate::app::time::TimeCommand;
use crate::app::ui::heap_chart::{HeapChart, draw_heap_chart, heap_totals, window_legend, window_text};
use crate::app::ui::style::{HIGHLIGHT, bytes};

/// The chart's share of the tab's height, and its least height.
const CHART_SHARE: f32 = 0.3;
const CHART_MIN: f32 = 90.0;
const POINT: f32 = 4.0;

/// What the timeline writes: clicks on nodes, pins, moves in time.
pub struct Writers<'a, 'c, 'p, 't> {
    pub clicks: &'a mut MessageWriter<'c, TreeClicked>,
    pub pins: &'a mut MessageWriter<'p, TogglePin>,
    pub time: &'a mut MessageWriter<'t, TimeCommand>,
}

pub fn timeline_body(
    ui: &mut egui::Ui,
    look: &Look,
    shape: Shape,
    multiples: &Multiples,
    pinned: &Pinned,
    now: f64,
    out: Writers,
) {
    let area = ui.available_rect_before_wrap();
    let chart_height = (area.height() * CHART_SHARE).max(CHART_MIN).min(area.height() - 40.0).max(40.0);
    let trees = egui::Rect::from_min_max(area.min, egui::pos2(area.max.x, area.max.y - chart_height - 24.0));
    let chart = egui::Rect::from_min_max(egui::pos2(area.min.x, area.max.y - chart_height), area.max);
    ui.allocate_rect(area, egui::Sense::hover());
    row_of_trees(ui, trees, look, shape, multiples, now, &mut *out.clicks, &mut *out.time);
    let legend = egui::Rect::from_min_max(
        egui::pos2(area.min.x, chart.min.y - 22.0),
        egui::pos2(area.max.x, chart.min.y),
    );
    ui.scope_builder(egui::UiBuilder::new().max_rect(legend), |ui| {
        ui.horizontal(|ui| {
            ui.small("heap over time: click a point to show or hide its tree");
            window_legend(ui, &look.model.windows);
        });
    });
    heap_points(ui, chart, look, multiples, pinned, out.pins);
}

/// The multiples side by side, each under its caption; the node hovered in one is outlined in
/// all (known from the last frame).
#[allow(clippy::too_many_arguments)]
fn row_of_trees(
    ui: &mut egui::Ui,
    area: egui::Rect,
    look: &Look,
    shape: Shape,
    multiples: &Multiples,
    now: f64,
    clicks: &mut MessageWriter<TreeClicked>,
    time: &mut MessageWriter<TimeCommand>,
) {
    let n = multiples.snapshots.len().max(1);
    let gap = 10.0;
    let width = ((area.width() - gap * (n - 1) as f32) / n as f32).max(40.0);
    let hovered_id = egui::Id::new("memcity_tree_multiples_hovered");
    let also: Option<NodeKey> = ui.data(|d| d.get_temp(hovered_id)).flatten();
    let mut hovered_now = None;
    let sides = multiples.roots.len().max(1);
    for (i, &snapshot) in multiples.snapshots.iter().enumerate() {
        let left = area.min.x + i as f32 * (width + gap);
        let rect = egui::Rect::from_min_size(egui::pos2(left, area.min.y), egui::vec2(width, area.height()));
        let look = Look { snapshot, ..*look };
        let current = snapshot == multiples.snapshot;
        let values = look.model.timeline.values[snapshot].get(look.model.layout.settings.metric);
        let heaps: Vec<String> =
            multiples.roots.iter().map(|&r| heap_value(&look, values[r as usize])).collect();
        let caption = egui::Rect::from_min_size(rect.min, egui::vec2(width, 18.0));
        ui.scope_builder(egui::UiBuilder::new().max_rect(caption), |ui| {
            ui.horizontal(|ui| {
                let label = format!("snapshot {snapshot} · {}", heaps.join(" | "));
                if current {
                    ui.label(egui::RichText::new(format!("{label} (now)")).strong().color(HIGHLIGHT));
                } else if ui.link(label).on_hover_text("go to this time").clicked() {
                    time.write(TimeCommand::GoTo(snapshot));
                }
            });
        });
        // A pair of runs: before and after side by side in the cell, each under its run's name.
        let side_gap = if sides > 1 { 4.0 } else { 0.0 };
        let side_width = (width - side_gap * (sides - 1) as f32) / sides as f32;
        let side_caption = if sides > 1 { 16.0 } else { 0.0 };
        for side in 0..sides {
            let x = rect.min.x + side as f32 * (side_width + side_gap);
            let top = rect.min.y + 20.0;
            if sides > 1 {
                let name = &look.model.timeline.groups[multiples.roots[side] as usize].name;
                let at = egui::Rect::from_min_size(egui::pos2(x, top), egui::vec2(side_width, side_caption));
                ui.scope_builder(egui::UiBuilder::new().max_rect(at), |ui| {
                    ui.add(egui::Label::new(egui::RichText::new(name).small()).truncate());
                });
            }
            let body = egui::Rect::from_min_max(
                egui::pos2(x, top + side_caption),
                egui::pos2(x + side_width, rect.max.y),
            );
            let parts = multiples.parts(i, side, now);
            let view = View { shape, levels: multiples.levels, faded: None, also };
            let id = format!("memcity_tree_multiple_{i}_{side}");
            let (response, hovered) = draw(ui, body, &parts, &view, &look, &id);
            let Some(part) = hovered.map(|h| &parts[h]) else { continue };
            hovered_now = Some(NodeKey::of(&part.node));
            let response = response.on_hover_ui_at_pointer(|ui| tooltip(ui, &look, part));
            if response.clicked() {
                let select = ui.input(|i| i.modifiers.command);
                clicks.write(TreeClicked { node: part.node.clone(), select });
            }
        }
    }
    ui.data_mut(|d| d.insert_temp(hovered_id, hovered_now));
}

/// The heap chart with a point per snapshot: filled where its tree is shown, ringed at the
/// current time; a click pins or unpins the nearest snapshot's tree.
fn heap_points(
    ui: &mut egui::Ui,
    rect: egui::Rect,
    look: &Look,
    multiples: &Multiples,
    pinned: &Pinned,
    pins: &mut MessageWriter<TogglePin>,
) {
    let model = look.model;
    let totals = heap_totals(model, model.layout.settings.metric);
    let response = ui.interact(rect, egui::Id::new("memcity_tree_timeline_chart"), egui::Sense::click());
    let painter = ui.painter_at(rect);
    let chart = HeapChart::new(rect.shrink2(egui::vec2(POINT + 2.0, 0.0)), &totals);
    let window =
        draw_heap_chart(&painter, &chart, &totals, &model.windows, multiples.snapshot, response.hover_pos());
    for (i, &v) in totals.iter().enumerate() {
        let at = egui::pos2(chart.x(i), chart.y(v));
        let shown = multiples.snapshots.contains(&i);
        if shown {
            painter.circle_filled(at, POINT, egui::Color32::from_rgb(255, 150, 40));
        } else {
            painter.circle_stroke(at, POINT - 1.0, egui::Stroke::new(1.0, egui::Color32::from_gray(200)));
        }
        if i == multiples.snapshot {
            painter.circle_stroke(at, POINT + 2.5, egui::Stroke::new(1.5, egui::Color32::WHITE));
        }
    }
    let Some(at) = response.hover_pos() else { return };
    let snapshot = chart.snapshot_at(at.x);
    let pinned_now = pinned.times.contains(&snapshot);
    let verb = if pinned_now { "hide" } else { "show" };
    let heap = totals.get(snapshot).copied().unwrap_or(0.0) as u64;
    let mut tip = format!("snapshot {snapshot}: heap {}\nclick: {verb} its tree", heap_value(look, heap));
    if snapshot == multiples.snapshot && !pinned_now {
        tip.push_str(" (the current time's is always shown; a pin keeps it)");
    }
    if let Some(w) = window {
        tip = format!("{tip}\n{}", window_text(model, w));
    }
    let response = response.on_hover_text_at_pointer(tip);
    if response.clicked() {
        pins.write(TogglePin(snapshot));
    }
}

/// A value in the city's metric, in words.
fn heap_value(look: &Look, value: u64) -> String {
    match look.model.layout.settings.metric {
        memcity_model::Metric::Bytes => bytes(value),
        memcity_model::Metric::Objects => format!("{value} objects"),
    }
}
