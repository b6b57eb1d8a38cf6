//! The Tour pane: the running tour's step, what to do, and Next; at the end the program's
//! source lines that cause the leak, the fix, and a button that opens the fixed program.
//! Without a tour it lists the tours there are.

use bevy::prelude::*;
use bevy_egui::egui;

use super::style::HIGHLIGHT;
use super::tour_target::TourTarget;
use super::workspace::layouts::tabs::TOUR;
use super::workspace::state::{LayoutCommand, apply_layout_commands};
use super::workspace::{AddTab, TabClosed};
use crate::app::model::CityModel;
use crate::app::names::GroupNames;
use crate::app::tour::{STEPS, Step, Tour, TourCommand, top_grower, tour_names};

pub struct TourPanePlugin;

impl Plugin for TourPanePlugin {
    fn build(&self, app: &mut App) {
        // A tour's first frame is drawn in the teaching layout (the camera frames for it).
        app.add_tab(TOUR, "Tour", tour_pane)
            .add_systems(Update, (tour_layout.before(apply_layout_commands), end_when_closed));
    }
}

/// What the step asks, in words.
pub fn instructions(tour: &Tour, top: &str) -> String {
    match tour.step {
        Step::Play => "Press Space (or ▶ at the bottom) to play the program's history from its first \
                       garbage collection to its last. Watch which buildings grow."
            .into(),
        Step::Spot => format!(
            "Red means growth that matters against the whole heap. The tallest red tower grew most: \
             {top}. Point at it to read its figures."
        ),
        Step::Select => format!(
            "Click {top} to select it. Purple tubes come from the buildings whose objects keep it alive, \
             green ones go to what it keeps alive."
        ),
        Step::KeptAlive => "The Selection pane lists what keeps it alive (purple). Click its first \
                            entry (or press Enter) to follow the chain towards what holds the leak."
            .into(),
        Step::Cause => {
            format!("The root cause in the program ({}):\n{}", tour.scenario.name, tour.lesson.why)
        }
        Step::Fixed => format!(
            "This is {}: the same program with the bug fixed. Press Space: the city stays gray and \
             flat, nothing grows against the heap.",
            tour.lesson.fixed
        ),
    }
}

/// A tour runs in the teaching layout (its pane a strip under the city); when it
/// ends, the layout from before comes back.
fn tour_layout(tour: Option<Res<Tour>>, mut running: Local<bool>, mut layout: MessageWriter<LayoutCommand>) {
    if tour.is_some() != *running {
        *running = tour.is_some();
        layout.write(if *running { LayoutCommand::Teaching } else { LayoutCommand::Restore });
    }
}

/// Closing the Tour tab ends a running tour.
fn end_when_closed(
    mut closed: MessageReader<TabClosed>,
    tour: Option<Res<Tour>>,
    mut commands: MessageWriter<TourCommand>,
) {
    if closed.read().any(|c| c.0.0 == TOUR) && tour.is_some() {
        commands.write(TourCommand::End);
    }
}

fn tour_pane(
    InMut(ui): InMut<egui::Ui>,
    tour: Option<Res<Tour>>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    mut target: ResMut<TourTarget>,
    mut commands: MessageWriter<TourCommand>,
) {
    let Some(tour) = &tour else {
        ui.label("A guided demo of a leak, step by step:");
        for name in tour_names() {
            if ui.button(format!("Tour of {name}")).clicked() {
                commands.write(TourCommand::Start(name.into()));
            }
        }
        return;
    };
    ui.strong(format!("Tour of {}: step {} of {}", tour.scenario.name, tour.index() + 1, STEPS.len()));
    if tour.waiting.is_some() {
        ui.label("Opening the program…");
        return;
    }
    let top = top_grower(&model).map(|g| names.get(g).to_string()).unwrap_or_default();
    ui.colored_label(HIGHLIGHT, instructions(tour, &format!("«{top}»")));
    if tour.step == Step::Cause {
        ui.label("The lines that leak:");
        ui.code(tour.lesson.code);
        ui.label("The fix:");
        ui.code(tour.lesson.fixed_code);
        let open = ui.button(format!("Open the fixed program ({})", tour.lesson.fixed));
        target.drawn(TOUR, &open, true);
        if open.clicked() {
            commands.write(TourCommand::OpenFixed);
        }
    }
    ui.horizontal(|ui| {
        if tour.step != Step::Fixed && tour.step != Step::Cause && ui.button("Next").clicked() {
            commands.write(TourCommand::Next);
        }
        if ui.button(if tour.step == Step::Fixed { "Finish" } else { "End the tour" }).clicked() {
            commands.write(TourCommand::End);
        }
    });
}
