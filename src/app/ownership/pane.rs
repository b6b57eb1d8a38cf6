//! The tab's body: Back, the focused path and the share below which nodes hide; then the tree
//! of the current snapshot drawn as in `memcity ownership --out FILE.svg` (geometry and colours
//! from `memcity_ownership::layout`), tooltips, clicks that focus a subtree, and the heap's
//! history bar, whose click moves in time.

use bevy::prelude::*;
use bevy_egui::egui;
use memcity_ownership::layout::{self, Block};
use memcity_ownership::text::{details, short_name};
use memcity_ownership::{Ownership, Series, Snapshot, visible};

use super::{OwnershipAnalysis, OwnershipClicked, OwnershipView, ReadOwnership, source_of};
use crate::app::live::LiveServer;
use crate::app::model::CityModel;
use crate::app::time::{TimeCommand, TimeCursor};
use crate::app::ui::style::{bytes, one_line};
use crate::app::why::CitySource;

const TEXT: egui::Color32 = egui::Color32::from_gray(15);
/// The history bar's width and the room around it.
const BAR: f32 = 18.0;
const BAR_ROOM: f32 = 34.0;

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
pub fn ownership_pane(
    InMut(ui): InMut<egui::Ui>,
    model: Res<CityModel>,
    analysis: Res<OwnershipAnalysis>,
    mut view: ResMut<OwnershipView>,
    cursor: Res<TimeCursor>,
    (city_source, live): (Res<CitySource>, Option<Res<LiveServer>>),
    (mut read, mut clicks, mut time): (
        MessageWriter<ReadOwnership>,
        MessageWriter<OwnershipClicked>,
        MessageWriter<TimeCommand>,
    ),
) {
    if source_of(&city_source, live.as_deref()).is_empty() {
        ui.label(
            "Ownership is found in the objects of an input (heap dumps, V8 heap snapshots, heap files, \
             traces, scenarios, or a live city memcity reads itself); this city carries groups only.",
        );
        return;
    }
    read.write(ReadOwnership);
    let Some(series) = analysis.series(model.city).filter(|s| !s.snapshots().is_empty()) else {
        match &analysis.failed {
            Some(e) => {
                ui.colored_label(egui::Color32::LIGHT_RED, e);
            }
            None => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("reading the heap's objects and their owners…");
                });
            }
        }
        return;
    };
    let at = cursor.current.min(series.snapshots().len() - 1);
    let snapshot = &series.snapshots()[at];
    let own = &snapshot.ownership;
    let focus = view.focus.and_then(|p| snapshot.node_at(p)).unwrap_or(0);
    controls(ui, &mut view, series, at, focus, &analysis, &mut clicks);
    let (area, _) =
        ui.allocate_exact_size(ui.available_size().max(egui::vec2(120.0, 80.0)), egui::Sense::hover());
    let tree = egui::Rect::from_min_max(area.min, egui::pos2(area.max.x - BAR_ROOM, area.max.y));
    let shown = visible(own, view.min_share);
    let blocks = layout::blocks(own, &shown, focus, f64::from(tree.width()), f64::from(tree.height()));
    if let Some(path) = draw_tree(ui, tree, series, snapshot, &blocks) {
        // The heap itself is the unfocused view: no focus on it.
        if path != 0 || view.focus.is_some() {
            clicks.write(OwnershipClicked(Some(path)));
        }
    }
    let bar = egui::Rect::from_min_max(
        egui::pos2(area.max.x - BAR_ROOM + (BAR_ROOM - BAR) / 2.0, area.min.y + 14.0),
        egui::pos2(area.max.x - (BAR_ROOM - BAR) / 2.0, area.max.y),
    );
    if let Some(to) = history_bar(ui, bar, series, at) {
        time.write(TimeCommand::GoTo(to));
    }
}

fn controls(
    ui: &mut egui::Ui,
    view: &mut OwnershipView,
    series: &Series,
    at: usize,
    focus: u32,
    analysis: &OwnershipAnalysis,
    clicks: &mut MessageWriter<OwnershipClicked>,
) {
    let own = &series.snapshots()[at].ownership;
    ui.horizontal_wrapped(|ui| {
        if ui.add_enabled(view.focus.is_some(), egui::Button::new("⏴ Back")).clicked() {
            clicks.write(OwnershipClicked(None));
        }
        let mut chain = vec![focus];
        while let Some(p) = own.tree[*chain.last().unwrap_or(&0) as usize].parent {
            chain.push(p);
        }
        let names: Vec<String> =
            chain.iter().rev().map(|&t| short_name(&own.class_of(t).full_name())).collect();
        ui.label(format!(
            "snapshot {at}: {} · {}",
            names.join(" › "),
            bytes(own.tree[focus as usize].owned_bytes)
        ));
        ui.separator();
        let mut percent = view.min_share * 100.0;
        ui.add(
            egui::DragValue::new(&mut percent)
                .range(0.0..=20.0)
                .speed(0.01)
                .suffix(" %")
                .prefix("hide under "),
        )
        .on_hover_text("nodes owning less than this share of the heap are hidden");
        if (percent / 100.0 - view.min_share).abs() > 1e-12 {
            view.min_share = percent / 100.0;
        }
        if analysis.is_reading() {
            ui.spinner();
            ui.small("reading new snapshots…");
        }
    });
    if view.focus.is_some() && focus == 0 {
        ui.small("The focused node is not in this snapshot: showing the heap.");
    }
}

/// Draws the blocks into `rect`; returns the path of the block clicked.
fn draw_tree(
    ui: &mut egui::Ui,
    rect: egui::Rect,
    series: &Series,
    snapshot: &Snapshot,
    blocks: &[Block],
) -> Option<u32> {
    let own = &snapshot.ownership;
    let response = ui.interact(rect, egui::Id::new("memcity_ownership_tree"), egui::Sense::click());
    let painter = ui.painter_at(rect);
    let reddest = layout::reddest(own, blocks);
    let screen = |[x0, y0, x1, y1]: [f64; 4]| {
        egui::Rect::from_min_max(
            rect.min + egui::vec2(x0 as f32 + 1.0, y0 as f32),
            rect.min + egui::vec2(x1 as f32 - 1.0, y1 as f32),
        )
    };
    for block in blocks {
        draw_block(ui, &painter, series, own, block, screen(block.rect), reddest);
    }
    let hovered = response.hover_pos().and_then(|at| {
        let (x, y) = (f64::from(at.x - rect.min.x), f64::from(at.y - rect.min.y));
        layout::hit(blocks, x, y).copied()
    })?;
    painter.rect_stroke(
        screen(hovered.rect),
        0.0,
        egui::Stroke::new(1.5, egui::Color32::WHITE),
        egui::StrokeKind::Inside,
    );
    let response = response.on_hover_ui_at_pointer(|ui| tooltip(ui, own, hovered.node, hovered.depth));
    response.clicked().then(|| own.tree[hovered.node as usize].path)
}

fn draw_block(
    ui: &egui::Ui,
    painter: &egui::Painter,
    series: &Series,
    own: &Ownership,
    block: &Block,
    r: egui::Rect,
    reddest: u64,
) {
    if r.height() < 0.05 || r.width() <= 0.0 {
        return;
    }
    let node = &own.tree[block.node as usize];
    let [red, green, blue] = layout::color(node, reddest);
    painter.rect_filled(r, 0.0, egui::Color32::from_rgb(red, green, blue));
    painter.rect_stroke(r, 0.0, egui::Stroke::new(0.5, egui::Color32::WHITE), egui::StrokeKind::Inside);
    let (new, growth) = layout::hatches(node);
    if new > 0.0 {
        let top = egui::Rect::from_min_size(r.min, egui::vec2(r.width(), r.height() * new as f32));
        hatch(painter, top, egui::Color32::from_rgb(31, 95, 191));
    }
    if growth > 0.0 {
        let h = r.height() * growth as f32;
        let bottom = egui::Rect::from_min_max(egui::pos2(r.min.x, r.max.y - h), r.max);
        hatch(painter, bottom, egui::Color32::WHITE);
    }
    if r.height() >= 13.0
        && let Some(g) =
            one_line(ui, short_name(&own.class_of(block.node).full_name()), r.width() - 4.0, TEXT)
    {
        painter.galley(r.min + egui::vec2(2.0, 1.0), g, TEXT);
    }
    let rect = [f64::from(r.min.x), f64::from(r.min.y), f64::from(r.max.x), f64::from(r.max.y)];
    if layout::fits_sparkline(rect) {
        let area = [rect[0] + 4.0, rect[1] + 16.0, rect[2] - 4.0, (rect[1] + 46.0).min(rect[3] - 4.0)];
        let points: Vec<egui::Pos2> = layout::sparkline(&series.history(node.path), area)
            .iter()
            .map(|[x, y]| egui::pos2(*x as f32, *y as f32))
            .collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(1.0, egui::Color32::from_gray(30))));
    }
}

/// Diagonal lines over `rect`, 5 points apart.
fn hatch(painter: &egui::Painter, rect: egui::Rect, color: egui::Color32) {
    let clipped = painter.with_clip_rect(rect.intersect(painter.clip_rect()));
    let stroke = egui::Stroke::new(1.2, color);
    let mut x = rect.min.x - rect.height();
    while x < rect.max.x {
        clipped.line_segment([egui::pos2(x, rect.max.y), egui::pos2(x + rect.height(), rect.min.y)], stroke);
        x += 5.0;
    }
}

fn tooltip(ui: &mut egui::Ui, own: &Ownership, node: u32, depth: u32) {
    let lines = details(own, node);
    if let Some((name, rest)) = lines.split_first() {
        ui.strong(name);
        for line in rest {
            ui.label(line);
        }
    }
    ui.small(if depth == 0 {
        "click: back to what was shown before"
    } else {
        "click: focus on what it owns"
    });
}

/// The heap over time, top to bottom, darker where larger, a magenta line per snapshot and the
/// shown one in yellow; returns the snapshot a click picked.
fn history_bar(ui: &mut egui::Ui, rect: egui::Rect, series: &Series, at: usize) -> Option<usize> {
    let response = ui.interact(rect, egui::Id::new("memcity_ownership_history"), egui::Sense::click());
    let painter = ui.painter();
    painter.text(
        rect.center_top() - egui::vec2(0.0, 2.0),
        egui::Align2::CENTER_BOTTOM,
        "time",
        egui::FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
    let heaps = series.heap_history();
    let times: Vec<u64> = series.snapshots().iter().map(|s| s.time_ms).collect();
    let marks = layout::time_marks(&times);
    let largest = heaps.iter().copied().max().unwrap_or(0);
    let y = |m: f64| rect.min.y + rect.height() * m as f32;
    for (i, (top, bottom)) in layout::bands(&marks).into_iter().enumerate() {
        let (top, bottom) = (y(top), y(bottom));
        let [r, g, b] = layout::heap_shade(heaps[i], largest);
        let band = egui::Rect::from_min_max(egui::pos2(rect.min.x, top), egui::pos2(rect.max.x, bottom));
        painter.rect_filled(band, 0.0, egui::Color32::from_rgb(r, g, b));
    }
    for (i, &mark) in marks.iter().enumerate() {
        let (color, width) = if i == at {
            (egui::Color32::from_rgb(245, 208, 0), 3.0)
        } else {
            (egui::Color32::from_rgb(208, 48, 154), 1.0)
        };
        painter.line_segment(
            [egui::pos2(rect.min.x - 3.0, y(mark)), egui::pos2(rect.max.x + 3.0, y(mark))],
            egui::Stroke::new(width, color),
        );
    }
    let pointer = response.hover_pos()?;
    let picked = layout::nearest_mark(&marks, f64::from((pointer.y - rect.min.y) / rect.height().max(1.0)))?;
    let snapshot = &series.snapshots()[picked];
    let response = response.on_hover_text_at_pointer(format!(
        "snapshot {picked} ({}): heap {} · click to show it",
        snapshot.label,
        bytes(heaps[picked])
    ));
    response.clicked().then_some(picked)
}
