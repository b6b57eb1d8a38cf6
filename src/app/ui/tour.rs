//! The Tour pane: the running tour's step, what to do, and Next; at the end the program's
//! source lines that cause the leak, the fix, and a button that opens the fixed program.
//! Without a tour it lists the tours there are.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

use super::selection::HIGHLIGHT;
use super::stack::{Place, Stacks};
use super::{Panes, Room, UiSystems};
use crate::app::model::CityModel;
use crate::app::names::GroupNames;
use crate::app::tour::{STEPS, Step, Tour, TourCommand, top_grower, tour_names};

pub struct TourPanePlugin;

impl Plugin for TourPanePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, tour_pane.in_set(UiSystems::Panes));
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
                            entry to follow the chain towards what holds the leak."
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

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn tour_pane(
    mut contexts: EguiContexts,
    room: Res<Room>,
    mut panes: ResMut<Panes>,
    tour: Option<Res<Tour>>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    mut commands: MessageWriter<TourCommand>,
    mut stacks: ResMut<Stacks>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let room = room.rect(ctx);
    // A running tour keeps its pane open.
    let mut open = panes.tour || tour.is_some();
    let shown = stacks
        .window(Place::Tour, "Tour", room)
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .default_width(420.0)
        .show(ctx, |ui| {
            ui.set_max_width(460.0);
            let Some(tour) = &tour else {
                ui.label("A guided demo of a leak, step by step:");
                for name in tour_names() {
                    if ui.button(format!("Tour of {name}")).clicked() {
                        commands.write(TourCommand::Start(name.into()));
                    }
                }
                return;
            };
            ui.strong(format!(
                "Tour of {}: step {} of {}",
                tour.scenario.name,
                tour.index() + 1,
                STEPS.len()
            ));
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
                if ui.button(format!("Open the fixed program ({})", tour.lesson.fixed)).clicked() {
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
        });
    stacks.record(Place::Tour, shown);
    if tour.is_some() && !open {
        commands.write(TourCommand::End);
    }
    if open != panes.tour {
        panes.tour = open;
    }
    Ok(())
}
