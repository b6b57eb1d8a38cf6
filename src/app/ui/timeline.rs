//! The timeline tab: stepping and playback, the snapshot slider, and the heap over time with
//! the detected windows (leak, fastest growth, GC overhead, churn; heap_chart.rs).

use bevy::prelude::*;
use bevy_egui::egui;

use super::heap_chart::{HeapChart, draw_heap_chart, heap_totals, window_legend, window_text};
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
        ui.label(format!(
            "{}  ·  {}",
            snapshot.display_label(),
            crate::clock::when(&model.history, snapshot)
        ));
    });
    // Total heap per snapshot in the chosen metric, with the current time and detected windows.
    let totals = heap_totals(&model, settings.metric);
    let max = totals.iter().copied().fold(1.0, f32::max);
    ui.horizontal(|ui| {
        ui.small(format!(
            "heap {} over time, up to {}",
            model.history.metric_names.get(settings.metric),
            max
        ));
        window_legend(ui, &model.windows);
    });
    // The chart takes the tab's width and what height is left (the tab's split sets it).
    let size = egui::vec2(ui.available_width().max(200.0), ui.available_height().max(40.0));
    let (response, painter) = ui.allocate_painter(size, egui::Sense::click());
    let chart = HeapChart::new(response.rect, &totals);
    let hovered =
        draw_heap_chart(&painter, &chart, &totals, &model.windows, cursor.current, response.hover_pos());
    if let Some(w) = hovered {
        response.clone().on_hover_text(window_text(&model, w));
    }
    if response.clicked()
        && let Some(p) = response.interact_pointer_pos()
    {
        commands.write(TimeCommand::GoTo(chart.snapshot_at(p.x)));
    }
}
