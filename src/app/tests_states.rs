//! Every plugin's model-facing systems (no GPU, no egui) on each state the window's city can be
//! in: empty (loading, or a live city before its first snapshot), one snapshot, a long
//! history, a pair of runs of different lengths, and the changes between them — a large city
//! replaced by a smaller one or a pair while a group is selected, drilled into and pinned, and
//! a live `clear`. Each state runs a few frames with every tree view and with time stepping
//! and playing; afterwards nothing derived from the city points past it.

use std::sync::Arc;

use bevy::prelude::*;
use memcity_layout::Settings;
use memcity_model::History;

use crate::app::inspect::{InspectPlugin, Selection};
use crate::app::model::{CityModel, LoadHistory, ModelPlugin};
use crate::app::time::{TimeCommand, TimeCursor, TimePlugin};
use crate::app::trees::timeline::{Multiples, Pinned, TogglePin};
use crate::app::trees::{DrillDown, TreeKind, TreeParts, TreesPlugin};

fn empty() -> History {
    History { format: memcity_model::FORMAT.into(), metric_names: Default::default(), snapshots: Vec::new() }
}

fn scenario(name: &str) -> History {
    crate::input::load(&format!("scenario:{name}")).unwrap()
}

/// The last snapshot of a scenario alone.
fn one_snapshot(name: &str) -> History {
    let mut history = scenario(name);
    history.snapshots.drain(..history.snapshots.len() - 1);
    history
}

/// Two runs of different lengths as one pair city.
fn pair() -> History {
    let (before, mut after) = (scenario("linked-list"), scenario("linked-list-fixed"));
    after.snapshots.truncate(after.snapshots.len() / 2);
    memcity_model::compare::pair(&before, &after, ["before", "after"])
}

/// The window's app without rendering or egui: every plugin whose systems read the city.
fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .init_resource::<ButtonInput<KeyCode>>()
        .init_resource::<ButtonInput<MouseButton>>()
        .add_plugins(ModelPlugin { history: Arc::new(empty()), settings: Settings::default() })
        .add_plugins((TimePlugin, crate::app::names::NamesPlugin, crate::app::load::LoadPlugin))
        .add_plugins((InspectPlugin, crate::app::why::WhyPlugin, crate::app::tour::TourPlugin))
        .add_plugins((TreesPlugin, crate::app::ownership::OwnershipPlugin))
        .add_plugins((crate::app::structures::StructuresPlugin, crate::app::why_pane::WhyPanePlugin));
    app.update();
    app
}

/// A few frames in each tree view, stepping back and forth and playing.
fn exercise(app: &mut App) {
    for kind in [TreeKind::Icicle, TreeKind::Sunburst, TreeKind::Timeline] {
        *app.world_mut().resource_mut::<TreeKind>() = kind;
        for command in [TimeCommand::Step(-1), TimeCommand::GoTo(usize::MAX), TimeCommand::TogglePlay] {
            app.world_mut().write_message(command);
            app.update();
            app.update();
        }
        app.world_mut().write_message(TimeCommand::TogglePlay);
        app.update();
    }
    consistent(app);
}

/// Nothing derived from the city points past it.
fn consistent(app: &App) {
    let world = app.world();
    let model = world.resource::<CityModel>();
    let (count, groups) = (model.snapshot_count(), model.timeline.groups.len() as u32);
    let cursor = world.resource::<TimeCursor>();
    assert!(cursor.current < count.max(1), "time {} of {count} snapshots", cursor.current);
    let drill = world.resource::<DrillDown>().group(model);
    assert!(drill == 0 || drill < groups, "drill-down root {drill} of {groups} groups");
    let parts = world.resource::<TreeParts>();
    assert!(parts.root == 0 || parts.root < groups);
    let multiples = world.resource::<Multiples>();
    assert!(multiples.snapshots.iter().all(|&s| s < count), "{:?} of {count}", multiples.snapshots);
    assert!(multiples.roots.iter().all(|&r| r < groups.max(1)), "{:?} of {groups}", multiples.roots);
    let shown: Vec<u32> = parts.local.to.iter().chain(&parts.global.to).filter_map(group_of).collect();
    assert!(shown.iter().all(|&g| g < groups), "a part of another city");
}

fn group_of(part: &memcity_layout::partition::Part) -> Option<u32> {
    match part.node {
        memcity_layout::partition::PartNode::Group(g) => Some(g),
        _ => None,
    }
}

fn load(app: &mut App, history: History) {
    app.world_mut().write_message(LoadHistory(Arc::new(history)));
    app.update();
}

/// Selects the tallest grower, drills into the heap's largest branch and pins the last time:
/// state that must not outlive its city.
fn look_closely(app: &mut App) {
    let model = app.world().resource::<CityModel>().clone();
    let count = model.snapshot_count();
    let grower = model.top_growers(1).first().map(|&b| model.layout.buildings[b].group);
    let key = grower.map(|g| model.timeline.groups[g as usize].key.clone());
    app.world_mut().resource_mut::<Selection>().selected = key;
    let branch = model.timeline.groups.iter().rposition(|g| !g.is_leaf() && g.parent.is_some());
    app.world_mut().resource_mut::<DrillDown>().root = branch.map(|b| model.timeline.groups[b].key.clone());
    app.world_mut().write_message(TogglePin(count.saturating_sub(1)));
    app.world_mut().write_message(TimeCommand::GoTo(count.saturating_sub(1)));
    app.update();
    consistent(app);
}

#[test]
fn an_empty_city_runs_every_view_while_it_loads() {
    let mut app = app();
    exercise(&mut app);
    assert_eq!(app.world().resource::<CityModel>().snapshot_count(), 0);
    assert!(app.world().resource::<Multiples>().snapshots.is_empty());
}

#[test]
fn one_snapshot_runs_every_view() {
    let mut app = app();
    load(&mut app, one_snapshot("easytravel"));
    exercise(&mut app);
    look_closely(&mut app);
    exercise(&mut app);
    assert_eq!(app.world().resource::<Multiples>().snapshots, vec![0]);
}

#[test]
fn a_pair_of_runs_of_different_lengths_runs_every_view() {
    let mut app = app();
    load(&mut app, pair());
    exercise(&mut app);
    look_closely(&mut app);
    exercise(&mut app);
    assert_eq!(app.world().resource::<Multiples>().roots.len(), 2, "before and after");
}

#[test]
fn a_large_city_replaced_by_smaller_ones_a_pair_and_a_clear_leaves_nothing_pointing_past_it() {
    let mut app = app();
    type Step = (&'static str, fn() -> History);
    let steps: [Step; 6] = [
        ("easytravel", || scenario("easytravel")),
        ("one snapshot", || one_snapshot("linked-list")),
        ("easytravel again", || scenario("easytravel")),
        ("a pair", pair),
        ("a live clear", empty),
        ("healthy", || scenario("healthy")),
    ];
    for (what, history) in steps {
        let history = history();
        let snapshots = history.snapshots.len();
        load(&mut app, history);
        assert_eq!(app.world().resource::<CityModel>().snapshot_count(), snapshots, "{what}");
        exercise(&mut app);
        look_closely(&mut app);
    }
    // The pins the user chose are kept but none past the city shown is drawn.
    assert!(app.world().resource::<Pinned>().chosen);
}
