//! ECS tests without a GPU (MinimalPlugins): time travel, key bindings, selection persistence,
//! settings → relayout.

use std::sync::Arc;

use bevy::prelude::*;
use memcity_layout::Settings;

use crate::app::inspect::{InspectPlugin, Selection, Target};
use crate::app::model::{CityModel, LayoutSettings, LoadHistory, ModelPlugin};
use crate::app::time::{DisplayedFrame, TimeCommand, TimeCursor, TimePlugin};

pub fn sample() -> memcity_model::History {
    memcity_model::load_path(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/sample-leak.json"
    )))
    .unwrap()
}

pub fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .init_resource::<ButtonInput<KeyCode>>()
        .init_resource::<ButtonInput<MouseButton>>()
        .add_plugins(ModelPlugin { history: Arc::new(sample()), settings: Settings::default() })
        .add_plugins(TimePlugin);
    app.update();
    app
}

/// The linked-list scenario's city at its last snapshot, with the model and time plugins and
/// what `add` puts in (the plugin under test and the resources it needs).
pub fn linked_list_app(settings: Settings, add: impl FnOnce(&mut App)) -> App {
    history_app(crate::input::load(crate::input::DEFAULT_INPUT).unwrap(), settings, add)
}

/// The model and time of `history`, with `add`'s plugins, at its last snapshot.
pub fn history_app(history: memcity_model::History, settings: Settings, add: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .init_resource::<ButtonInput<KeyCode>>()
        .add_plugins(ModelPlugin { history: Arc::new(history), settings })
        .add_plugins(TimePlugin);
    add(&mut app);
    let last = app.world().resource::<CityModel>().history.snapshots.len();
    app.world_mut().resource_mut::<TimeCursor>().jump_to(last - 1, last);
    app.update();
    app
}

fn press(app: &mut App, key: KeyCode) {
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(key);
    app.update();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.release(key);
    keys.clear();
}

pub fn cursor(app: &App) -> TimeCursor {
    app.world().resource::<TimeCursor>().clone()
}

#[test]
fn keys_step_through_time_and_stay_in_range() {
    let mut app = app();
    press(&mut app, KeyCode::KeyN);
    assert_eq!(cursor(&app).current, 1);
    press(&mut app, KeyCode::ArrowRight);
    assert_eq!(cursor(&app).current, 2);
    press(&mut app, KeyCode::KeyP);
    press(&mut app, KeyCode::ArrowLeft);
    press(&mut app, KeyCode::ArrowLeft);
    assert_eq!(cursor(&app).current, 0, "never before the first snapshot");
    app.world_mut().write_message(TimeCommand::GoTo(99));
    app.update();
    assert_eq!(cursor(&app).current, 7, "never past the last snapshot");
}

#[test]
fn space_plays_and_steps_are_animated() {
    let mut app = app();
    press(&mut app, KeyCode::Space);
    assert!(cursor(&app).playing);
    press(&mut app, KeyCode::Space);
    assert!(!cursor(&app).playing);
    press(&mut app, KeyCode::KeyN);
    let c = cursor(&app);
    assert!(c.blend < 1.0 && c.previous == 0 && c.current == 1, "a step starts a transition: {c:?}");
    // Mid-transition the displayed frame lies between the two snapshots' frames.
    let model = app.world().resource::<CityModel>().clone();
    let shown = app.world().resource::<DisplayedFrame>().frame.clone();
    let grower = model.layout.building(model.timeline.group("Heap#java.lang#String").unwrap()).unwrap();
    let (a, b) = (model.frames[0].states[grower].scale, model.frames[1].states[grower].scale);
    let s = shown.states[grower].scale;
    assert!(a <= s && s <= b, "{a} <= {s} <= {b}");
    let mut c = cursor(&app);
    c.jump_to(5, 8);
    assert_eq!((c.previous, c.current, c.blend), (5, 5, 1.0));
}

#[test]
fn selection_persists_across_time_and_escape_deselects() {
    let mut app = app();
    app.add_plugins(InspectPlugin).init_resource::<crate::app::viewport::UiFocus>();
    let model = app.world().resource::<CityModel>().clone();
    let person = model.timeline.group("Heap#com.example.app#Person").unwrap();
    app.world_mut().resource_mut::<Selection>().toggle(&model, Some(Target::Building(person)));
    for _ in 0..3 {
        press(&mut app, KeyCode::KeyN);
        let selection = app.world().resource::<Selection>().clone();
        assert_eq!(selection.target(&model), Some(Target::Building(person)));
    }
    // Clicking the selected building again deselects it.
    let mut selection = app.world().resource::<Selection>().clone();
    selection.toggle(&model, Some(Target::Building(person)));
    assert_eq!(selection.selected, None);
    app.world_mut().resource_mut::<Selection>().toggle(&model, Some(Target::Building(person)));
    press(&mut app, KeyCode::Escape);
    assert_eq!(app.world().resource::<Selection>().selected, None);
}

#[test]
fn changing_layout_settings_relayouts_without_restart() {
    let mut app = app();
    let before = app.world().resource::<CityModel>().clone();
    assert_eq!(before.layout.buildings.len(), 17);
    app.world_mut().resource_mut::<LayoutSettings>().children = 2;
    app.update();
    let after = app.world().resource::<CityModel>().clone();
    assert!(after.generation > before.generation);
    assert_eq!(after.layout.buildings.len(), 4, "two packages with two buildings each");
    assert_eq!(after.frames.len(), 8);
}

#[test]
fn loading_a_history_replaces_the_city_and_keeps_time_in_range() {
    let mut app = app();
    app.world_mut().write_message(TimeCommand::GoTo(7));
    app.update();
    let mut smaller = sample();
    smaller.snapshots.truncate(3);
    app.world_mut().write_message(LoadHistory(Arc::new(smaller)));
    app.update();
    assert_eq!(app.world().resource::<CityModel>().snapshot_count(), 3);
    assert_eq!(cursor(&app).current, 2);
}

#[test]
fn select_names_a_group_unless_the_city_fills_in_later() {
    let history = sample();
    let key = "Heap#com.example.app#Person";
    assert!(super::check_select(Some(key), &history, false).is_ok());
    let e = super::check_select(Some("Heap#Nope"), &history, false).unwrap_err().to_string();
    assert_eq!(e, "--select Heap#Nope: no group has this key");
    // An empty live city, or a series still loading, selects the key once it appears.
    let empty = memcity_model::History { snapshots: Vec::new(), ..sample() };
    assert!(super::check_select(Some("Heap#Nope"), &empty, true).is_ok());
    assert!(super::check_select(Some("Heap#Nope"), &empty, false).is_err());
    // A city that is already there must have it, live or not.
    assert!(super::check_select(Some("Heap#Nope"), &history, true).is_err());
    assert!(super::check_select(None, &empty, false).is_ok());
}
