//! The tab's body: the window and metric, the bar chart of the strongest instances (four heap
//! growth portions each, as in the paper) and the leaf table of the picked one.

use bevy::prelude::*;
use bevy_egui::egui;
use memcity_structures::SortBy;

use super::held::PickStructure;
use super::measured::{Measured, Row};
use super::waste::{MeasureWaste, WasteView, waste_ui};
use super::{Analysis, MeasureStructures, PickedStructure, StructureAnalysis};
use crate::app::model::CityModel;
use crate::app::objects::LookInside;
use crate::app::time::TimeCursor;
use crate::app::ui::style::bytes;
use crate::app::why::CitySource;

/// The four growths, in the order of `Row::hgp`, with their bar colors.
const METRICS: [(&str, SortBy, egui::Color32); 4] = [
    ("retained", SortBy::Retained, egui::Color32::from_rgb(235, 180, 60)),
    ("deep", SortBy::Deep, egui::Color32::from_rgb(230, 110, 70)),
    ("structure", SortBy::Structure, egui::Color32::from_rgb(80, 150, 235)),
    ("deep structure", SortBy::DeepStructure, egui::Color32::from_rgb(140, 200, 245)),
];

const BAR: f32 = 6.0;

#[allow(clippy::too_many_arguments)]
pub fn structures_pane(
    InMut(ui): InMut<egui::Ui>,
    model: Res<CityModel>,
    source: Res<CitySource>,
    mut analysis: ResMut<StructureAnalysis>,
    mut picked: ResMut<PickedStructure>,
    mut measure: MessageWriter<MeasureStructures>,
    (mut pick, mut look): (MessageWriter<PickStructure>, MessageWriter<LookInside>),
    (waste, mut measure_waste, cursor): (Res<WasteView>, MessageWriter<MeasureWaste>, Res<TimeCursor>),
) {
    if source.0.is_empty() {
        ui.label(
            "Data structures are found in the objects of an input file (heap dumps, V8 heap snapshots, \
             heap files, traces, scenarios); this city has none to read again.",
        );
        return;
    }
    controls(ui, &mut analysis, model.history.snapshots.len());
    if !analysis.is_current(model.city) && !analysis.is_measuring() {
        measure.write(MeasureStructures(analysis.request));
    }
    let measured = match &analysis.state {
        Analysis::Done(_, measured) => measured.clone(),
        Analysis::Measuring(..) | Analysis::None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("detecting the data structures at both ends of the window…");
            });
            return;
        }
        Analysis::Failed(_, e) => {
            ui.colored_label(egui::Color32::LIGHT_RED, e);
            return;
        }
    };
    ui.label(format!(
        "snapshot {} → {}: the heap grew by {}; {} structures survived, {} appeared, {} died",
        measured.from,
        measured.to,
        signed_bytes(measured.heap_growth),
        measured.survived,
        measured.appeared,
        measured.died
    ));
    waste_ui(ui, &waste, cursor.current, &mut measure_waste);
    if measured.rows.is_empty() {
        ui.label("No data structure lives through the whole window.");
        return;
    }
    legend(ui);
    let chosen = picked.picked.as_ref().filter(|p| p.city == model.city).map(|p| p.row);
    if let Some(row) = chosen.and_then(|r| measured.rows.get(r)) {
        // One action to its entries, keys and values.
        let text = format!("Look inside {} (its entries) ▸", row.path);
        if ui.button(text).on_hover_text("the Objects tab: its entries, fields and values").clicked() {
            look.write(LookInside(memcity_structures::Target::Structure(row.path.clone())));
            ui.ctx().request_repaint();
        }
    }
    egui::ScrollArea::vertical().auto_shrink([false, true]).show(ui, |ui| {
        let clicked = chart(ui, &measured, chosen);
        if clicked.is_some() && clicked == chosen {
            // A second click on the picked instance takes its marks away.
            picked.picked = None;
        } else if let Some(row) = clicked {
            pick.write(PickStructure(row));
            // The pick is applied next frame: ask for one now.
            ui.ctx().request_repaint();
        }
        if let Some(row) = chosen.and_then(|r| measured.rows.get(r)) {
            ui.separator();
            leaf_table(ui, row);
        }
    });
}

/// The metric to rank by and the window; a change asks for a new measurement.
fn controls(ui: &mut egui::Ui, analysis: &mut StructureAnalysis, snapshots: usize) {
    let last = snapshots.saturating_sub(1);
    let mut request = analysis.request;
    ui.horizontal_wrapped(|ui| {
        ui.label("rank by");
        let name = METRICS.iter().find(|m| m.1 == request.by).map_or("", |m| m.0);
        egui::ComboBox::from_id_salt("structures-sort").selected_text(name).show_ui(ui, |ui| {
            for (name, by, _) in METRICS {
                ui.selectable_value(&mut request.by, by, name);
            }
        });
        ui.label("growth from snapshot");
        let mut from = request.from.unwrap_or(0);
        let mut to = request.to.unwrap_or(last);
        let from_changed = ui.add(egui::DragValue::new(&mut from).range(0..=last)).changed();
        ui.label("to");
        let to_changed = ui.add(egui::DragValue::new(&mut to).range(0..=last)).changed();
        if from_changed || to_changed {
            // The window keeps its order whichever end moved.
            if from > to {
                if from_changed { to = from } else { from = to }
            }
            request.from = Some(from);
            request.to = Some(to);
        }
    });
    analysis.request = request;
}

fn legend(ui: &mut egui::Ui) {
    ui.label("growth, as % of the heap's growth (HGP):");
    ui.horizontal(|ui| {
        for (name, _, color) in METRICS {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 1.0, color);
            ui.label(egui::RichText::new(name).small());
        }
    });
}

/// One entry per instance: its name, then its four bars. Returns the row clicked.
fn chart(ui: &mut egui::Ui, measured: &Measured, chosen: Option<usize>) -> Option<usize> {
    // Bars share one scale: 100 % of the heap's growth, or the largest portion if above.
    let largest = measured.rows.iter().flat_map(|r| r.hgp.iter().flatten().copied()).fold(100.0, f64::max);
    let mut clicked = None;
    for (i, row) in measured.rows.iter().enumerate() {
        let response = ui
            .scope(|ui| {
                let title = format!("{}. {}  {}", i + 1, short_type(&row.type_name), row.path);
                let text = egui::RichText::new(title).strong();
                let text =
                    if chosen == Some(i) { text.color(crate::app::ui::style::HIGHLIGHT) } else { text };
                ui.add(egui::Label::new(text).truncate());
                for (m, (_, _, color)) in METRICS.iter().enumerate() {
                    bar(ui, row.hgp[m], row.growth[m], largest, *color);
                }
                ui.label(
                    egui::RichText::new(format!(
                        "{} → {} objects; {}",
                        row.objects.0, row.objects.1, row.pattern
                    ))
                    .small(),
                );
                causes_ui(ui, &row.causes);
            })
            .response;
        let response = ui.interact(response.rect, ui.id().with(("structure", i)), egui::Sense::click());
        let hover = format!(
            "{}\n{}{}\nretains {} → {}\nclick: mark what it holds in the city (again: unmark)",
            row.type_name,
            row.path,
            row.site.as_ref().map_or(String::new(), |s| format!("\nallocated at {s}")),
            bytes(row.retained.0),
            bytes(row.retained.1)
        );
        if response.on_hover_text(hover).clicked() {
            clicked = Some(i);
        }
        ui.add_space(4.0);
    }
    clicked
}

/// Why an instance grows, where memcity can tell: one line per cause, in the colour of a leak.
pub fn causes_ui(ui: &mut egui::Ui, causes: &[memcity_structures::Cause]) {
    for c in causes {
        let text = egui::RichText::new(format!("cause {}: {}", c.kind, c.message)).color(CAUSE);
        ui.add(egui::Label::new(text).wrap());
    }
}

/// The colour a cause is written in.
pub const CAUSE: egui::Color32 = egui::Color32::from_rgb(240, 110, 90);

/// One horizontal bar: the portion on the shared scale, its value written after it.
fn bar(ui: &mut egui::Ui, hgp: Option<f64>, growth: i64, largest: f64, color: egui::Color32) {
    let width = ui.available_width().max(40.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, BAR + 4.0), egui::Sense::hover());
    let share = hgp.unwrap_or(0.0).max(0.0) / largest;
    let text_room = 100.0f32.min(width / 2.0);
    let length = (rect.width() - text_room) * share as f32;
    let bar =
        egui::Rect::from_min_size(rect.left_center() - egui::vec2(0.0, BAR / 2.0), egui::vec2(length, BAR));
    ui.painter().rect_filled(bar, 1.0, color);
    let value = hgp.map_or("–".into(), |h| format!("{h:.1}% ({})", signed_bytes(growth)));
    ui.painter().text(
        bar.right_center() + egui::vec2(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        value,
        egui::FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
}

/// The picked instance's leaves by type (and site) at the window's start and end.
fn leaf_table(ui: &mut egui::Ui, row: &Row) {
    ui.label(egui::RichText::new(format!("leaves of {} {}", short_type(&row.type_name), row.path)).strong());
    if row.leaves.is_empty() {
        ui.label("It holds no leaves.");
        return;
    }
    egui::Grid::new("structure-leaves").striped(true).num_columns(3).show(ui, |ui| {
        ui.label("leaf type");
        ui.label("objects start → end");
        ui.label("bytes start → end");
        ui.end_row();
        for leaf in &row.leaves {
            let site = leaf.key.site.as_ref().map_or(String::new(), |s| format!(" ‹ {s}"));
            ui.add(egui::Label::new(format!("{}{site}", leaf.key.type_name)).truncate());
            ui.label(format!("{} → {}", leaf.start.objects, leaf.end.objects));
            ui.label(format!("{} → {}", bytes(leaf.start.bytes), bytes(leaf.end.bytes)));
            ui.end_row();
        }
    });
}

/// The type without its package: the path names the instance.
fn short_type(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn signed_bytes(n: i64) -> String {
    if n < 0 { format!("−{}", bytes(n.unsigned_abs())) } else { format!("+{}", bytes(n as u64)) }
}
