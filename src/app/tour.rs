//! Guided tours of the teaching scenarios, the way a teacher demos a leak: play the history,
//! spot the red towers, select the top grower, follow what keeps it alive, read the root cause
//! in the program's source and open the fixed program. Each step advances when the user does
//! what it asks (or on Next); the UI shows the step and highlights what it is about.

use bevy::prelude::*;
use memcity_analysis::scenarios::{self, Lesson, Scenario};

use crate::app::camera::FlyTo;
use crate::app::inspect::{Selection, Target};
use crate::app::load::OpenInput;
use crate::app::model::CityModel;
use crate::app::time::TimeCursor;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Play the history from the first GC to the last.
    Play,
    /// Look at the red towers (hovering the top grower is enough).
    Spot,
    /// Select the top grower.
    Select,
    /// Follow "kept alive by" to what holds it.
    KeptAlive,
    /// The leak's root cause in the program's source, and the fix.
    Cause,
    /// The fixed program: the city stays flat.
    Fixed,
}

pub const STEPS: [Step; 6] =
    [Step::Play, Step::Spot, Step::Select, Step::KeptAlive, Step::Cause, Step::Fixed];

/// The running tour.
#[derive(Resource, Clone)]
pub struct Tour {
    pub scenario: &'static Scenario,
    pub lesson: &'static Lesson,
    pub step: Step,
    /// While the city it asked for loads: the city that must be replaced first.
    pub waiting: Option<u64>,
    /// Playback was started during the Play step.
    played: bool,
    /// The building selected when the KeptAlive step began.
    followed_from: Option<String>,
}

impl Tour {
    /// A tour of scenario `name`, if it has a lesson.
    pub fn of(name: &str) -> Option<Tour> {
        let scenario = scenarios::find(name)?;
        Some(Tour {
            scenario,
            lesson: scenario.lesson?,
            step: Step::Play,
            waiting: None,
            played: false,
            followed_from: None,
        })
    }

    pub fn index(&self) -> usize {
        STEPS.iter().position(|s| *s == self.step).unwrap_or(0)
    }

    fn advance(&mut self) {
        if let Some(next) = STEPS.get(self.index() + 1) {
            self.step = *next;
        }
    }
}

/// Names of the scenarios that have a tour.
pub fn tour_names() -> impl Iterator<Item = &'static str> {
    scenarios::SCENARIOS.iter().filter(|s| s.lesson.is_some()).map(|s| s.name)
}

/// What the user (or the tour pane) asks of the tour.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum TourCommand {
    /// Open scenario NAME and start its tour.
    Start(String),
    Next,
    /// Open the fixed program (the Cause step's button).
    OpenFixed,
    End,
}

/// The building the tour points at: the strongest grower of the city.
pub fn top_grower(model: &CityModel) -> Option<u32> {
    model.top_growers(1).first().map(|&b| model.layout.buildings[b].group)
}

/// What keeps group `g` alive at `snapshot`, as (group, objects), strongest first: the order
/// of the Selection pane's "kept alive by" list, whose first entry the tour follows.
pub fn keepers(model: &CityModel, snapshot: usize, g: u32) -> Vec<(u32, u64)> {
    let edges = model.timeline.pointers.get(snapshot).and_then(|maps| maps.pointed_from.get(&g));
    strongest_first(edges.cloned().unwrap_or_default())
}

/// References sorted by their object counts, largest first (ties keep their order).
pub fn strongest_first(mut edges: Vec<(u32, u64)>) -> Vec<(u32, u64)> {
    edges.sort_by_key(|e| std::cmp::Reverse(e.1));
    edges
}

/// `--step N`: the tour starts at step N (1-based), as if the user had done each step before
/// it — the history played to its end, the top grower pointed at and selected, its first
/// keeper followed, the fixed program opened. Removed once the tour is there.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TourReplay {
    pub to: usize,
}

/// The system sets of the tour: the replay of `--step` runs before the tour follows the user.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct TourSystems;

pub struct TourPlugin;

impl Plugin for TourPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<TourCommand>().add_message::<FlyTo>().add_systems(
            Update,
            (replay_earlier_steps, tour_commands, follow_the_user)
                .chain()
                .in_set(TourSystems)
                // The replay's pointing at the top grower is not undone by the pointer's hover.
                .after(crate::app::inspect::hover),
        );
    }
}

/// Does what the current step asks, once per frame, until the tour is at the step `--step`
/// asked for; [`follow_the_user`] then advances the tour as it does for a user.
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn replay_earlier_steps(
    replay: Option<Res<TourReplay>>,
    tour: Option<ResMut<Tour>>,
    model: Res<CityModel>,
    mut cursor: ResMut<TimeCursor>,
    mut selection: ResMut<Selection>,
    mut commands: MessageWriter<TourCommand>,
    mut fly: MessageWriter<FlyTo>,
    mut world: Commands,
) {
    let (Some(replay), Some(mut tour)) = (replay, tour) else { return };
    if tour.waiting.is_some() {
        return;
    }
    if tour.index() + 1 >= replay.to {
        world.remove_resource::<TourReplay>();
        return;
    }
    let Some(top) = top_grower(&model) else { return };
    let key = |g: u32| model.timeline.groups[g as usize].key.clone();
    match tour.step {
        Step::Play => {
            let count = model.snapshot_count();
            cursor.jump_to(count.saturating_sub(1), count);
            cursor.playing = false;
            tour.played = true;
        }
        Step::Spot => selection.hovered = Some(Target::Building(top)),
        Step::Select => selection.selected = Some(key(top)),
        Step::KeptAlive => {
            if let Some(&(keeper, _)) = keepers(&model, cursor.current, top).first() {
                selection.selected = Some(key(keeper));
                if model.layout.building(keeper).is_some() {
                    fly.write(FlyTo::Target { target: Target::Building(keeper), with_references: true });
                }
            }
        }
        Step::Cause => {
            commands.write(TourCommand::OpenFixed);
        }
        Step::Fixed => {}
    }
}

fn tour_commands(
    mut commands: MessageReader<TourCommand>,
    mut tour: Option<ResMut<Tour>>,
    model: Res<CityModel>,
    mut open: MessageWriter<OpenInput>,
    mut world: Commands,
) {
    for command in commands.read() {
        match command {
            TourCommand::Start(name) => {
                if let Some(new) = Tour::of(name) {
                    open.write(OpenInput(vec![format!("scenario:{name}")]));
                    world.insert_resource(Tour { waiting: Some(model.city), ..new });
                }
            }
            TourCommand::Next => {
                if let Some(tour) = tour.as_mut() {
                    tour.advance();
                }
            }
            TourCommand::OpenFixed => {
                if let Some(tour) = tour.as_mut() {
                    open.write(OpenInput(vec![format!("scenario:{}", tour.lesson.fixed)]));
                    tour.waiting = Some(model.city);
                    tour.step = Step::Fixed;
                }
            }
            TourCommand::End => world.remove_resource::<Tour>(),
        }
    }
}

/// Advances the tour when the user did what the step asks.
fn follow_the_user(
    tour: Option<ResMut<Tour>>,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    selection: Res<Selection>,
) {
    let Some(mut tour) = tour else { return };
    if let Some(old) = tour.waiting {
        if old == model.city {
            return;
        }
        tour.waiting = None;
    }
    let top = top_grower(&model);
    let key = |g: u32| model.timeline.groups[g as usize].key.clone();
    match tour.step {
        Step::Play => {
            tour.played |= cursor.playing;
            let at_end = cursor.current + 1 >= model.snapshot_count();
            if tour.played && !cursor.playing && at_end {
                tour.advance();
            }
        }
        Step::Spot => {
            if top.is_some() && selection.hovered.map(|t| t.group()) == top {
                tour.advance();
            }
        }
        Step::Select => {
            if top.is_some() && selection.selected == top.map(key) {
                tour.followed_from = selection.selected.clone();
                tour.advance();
            }
        }
        Step::KeptAlive => {
            // Done once the selection moved to something that keeps the top grower alive.
            let (Some(from), Some(now)) = (&tour.followed_from, &selection.selected) else { return };
            let (Some(from), Some(now)) = (model.timeline.group(from), model.timeline.group(now)) else {
                return;
            };
            let keeps = model.timeline.pointers.get(cursor.current).and_then(|m| m.pointed_from.get(&from));
            if keeps.is_some_and(|edges| edges.iter().any(|(g, _)| *g == now)) {
                tour.advance();
            }
        }
        Step::Cause | Step::Fixed => {}
    }
}
