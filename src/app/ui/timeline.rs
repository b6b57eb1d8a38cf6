//! The timeline tab: stepping and playback, the snapshot slider, and the heap over time with
//! the detected windows (leak, fastest growth, GC overhead, churn).

use bevy::prelude::*;
use bevy_egui::egui;
use memcity_analysis::windows::{Window, WindowKind};

use super::style::HIGHLIGHT;
use super::tour_target::TourTarget;
use super::workspace::AddTab;
use super::workspace::layouts::tabs::TIMELINE;
use crate::app::model::{CityModel, LayoutSettings};
use crate::app::time::{TimeCommand, TimeCursor};
use crate::app::tour::{Step, Tour};

pub struct TimelinePlugin;

impl Plugin for TimelinePlugin {
    fn build(&self, app: &mut App) {
        app.add_tab(TIMELINE, "Timeline", timeline);
    }
}

fn timeline(
    InMut(ui): InMut<egui::Ui>,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    settings: Res<LayoutSettings>,
    tour: Option<Res<Tour>>,
    mut target: ResMut<TourTarget>,
    mut commands: MessageWriter<TimeCommand>,
) {
    let count = model.snapshot_count();
    let Some(snapshot) = model.history.snapshots.get(cursor.current) else {
        ui.label("No snapshot yet.");
        return;
    };
    // Play, and after the fixed program opened, play again.
    let point_at_play =
        tour.is_some_and(|t| matches!(t.step, Step::Play | Step::Fixed) && t.waiting.is_none());
    ui.horizontal(|ui| {
        if ui.button("◀ P").clicked() {
            commands.write(TimeCommand::Step(-1));
        }
        let play = ui.button(if cursor.playing { "⏸ Space" } else { "▶ Space" });
        if point_at_play {
            ui.painter().rect_stroke(play.rect.expand(3.0), 3.0, (2.0, HIGHLIGHT), egui::StrokeKind::Outside);
            // Space plays from anywhere: the button is shown, not given the keyboard.
            target.drawn(TIMELINE, &play, false);
        }
        if play.clicked() {
            commands.write(TimeCommand::TogglePlay);
        }
        if ui.button("N ▶").clicked() {
            commands.write(TimeCommand::Step(1));
        }
        let mut index = cursor.current;
        if ui.add(egui::Slider::new(&mut index, 0..=count.saturating_sub(1)).text("snapshot")).changed() {
            commands.write(TimeCommand::GoTo(index));
        }
        ui.label(format!("{}  ·  {} ms", snapshot.display_label(), snapshot.time_ms));
    });
    // Total heap per snapshot in the chosen metric, with the current time and detected windows.
    let totals = model.timeline.values.iter().map(|v| v.get(settings.metric)[0] as f32).collect::<Vec<_>>();
    let max = totals.iter().copied().fold(1.0, f32::max);
    ui.horizontal(|ui| {
        ui.small(format!(
            "heap {} over time, up to {}",
            model.history.metric_names.get(settings.metric),
            max
        ));
        for w in model.windows.iter() {
            ui.small(egui::RichText::new(format!("■ {}", w.kind.label())).color(window_color(w.kind)));
        }
    });
    // The chart takes the tab's width and what height is left (the tab's split sets it).
    let size = egui::vec2(ui.available_width().max(200.0), ui.available_height().max(40.0));
    let (response, painter) = ui.allocate_painter(size, egui::Sense::click());
    let r = response.rect;
    painter.rect_filled(r, 2.0, egui::Color32::from_gray(25));
    let x = |i: usize| r.left() + r.width() * i as f32 / (count.max(2) - 1) as f32;
    let hover = response.hover_pos();
    let mut tip = None;
    // One band per window so overlapping ones stay legible.
    for (i, w) in model.windows.iter().enumerate() {
        let band = r.height() / model.windows.len().max(1) as f32;
        let top = r.top() + band * i as f32;
        let span =
            egui::Rect::from_x_y_ranges(x(w.first)..=x(w.last).max(x(w.first) + 2.0), top..=top + band);
        painter.rect_filled(span, 0.0, window_color(w.kind).gamma_multiply(0.35));
        if hover.is_some_and(|p| span.contains(p)) {
            tip = Some(window_text(&model, w));
        }
    }
    if let Some(tip) = tip {
        response.clone().on_hover_text(tip);
    }
    let points: Vec<egui::Pos2> = totals
        .iter()
        .enumerate()
        .map(|(i, v)| egui::pos2(x(i), r.bottom() - 4.0 - (r.height() - 8.0) * v / max))
        .collect();
    painter.add(egui::Shape::line(points, egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 150, 40))));
    painter.line_segment(
        [egui::pos2(x(cursor.current), r.top()), egui::pos2(x(cursor.current), r.bottom())],
        egui::Stroke::new(1.5, egui::Color32::WHITE),
    );
    if response.clicked()
        && let Some(p) = response.interact_pointer_pos()
    {
        let i = ((p.x - r.left()) / r.width() * (count.max(2) - 1) as f32).round().max(0.0) as usize;
        commands.write(TimeCommand::GoTo(i));
    }
}

/// A detected window in words, its score in its own unit.
pub fn window_text(model: &CityModel, w: &Window) -> String {
    let label = |i: usize| model.history.snapshots.get(i).map(|s| s.display_label()).unwrap_or_default();
    let score = match w.kind {
        WindowKind::GcOverhead => format!("{:.0}% of the time in GC", 100.0 * w.score),
        WindowKind::Churn => format!("frees {}/s", bytes(w.score)),
        _ => format!("grows {}/s", bytes(w.score)),
    };
    format!(
        "{}: snapshots {}..{} ({} .. {}), {score}",
        w.kind.label(),
        w.first,
        w.last,
        label(w.first),
        label(w.last)
    )
}

/// Bytes with a binary unit, one decimal.
fn bytes(n: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{value:.0} {}", units[0]) } else { format!("{value:.1} {}", units[unit]) }
}

fn window_color(kind: WindowKind) -> egui::Color32 {
    match kind {
        WindowKind::Leak | WindowKind::LeakRegression => egui::Color32::from_rgb(235, 70, 50),
        WindowKind::FastestGrowth => egui::Color32::from_rgb(255, 160, 40),
        WindowKind::GcOverhead => egui::Color32::from_rgb(120, 170, 255),
        WindowKind::Churn => egui::Color32::from_rgb(190, 120, 255),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_scores_read_in_their_units_without_stray_decimals() {
        let model = CityModel::new(crate::input::load("scenario:churn").unwrap(), &Default::default());
        let texts: Vec<String> = model.windows.iter().map(|w| window_text(&model, w)).collect();
        assert!(!texts.is_empty());
        for t in &texts {
            assert!(t.contains("/s") || t.contains("% of the time in GC"), "{t}");
            assert!(!t.contains("score"), "{t}");
        }
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.5 KiB");
    }
}
