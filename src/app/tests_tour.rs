//! ECS tests of first use and teaching: input the UI owns never reaches the city, a new city
//! opens at its end, a guided tour runs to its end, and fixed programs stay gray.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use memcity_layout::Settings;

use crate::app::inspect::{InspectPlugin, Selection, Target};
use crate::app::load::LoadPlugin;
use crate::app::model::{CityModel, LoadHistory, ModelPlugin};
use crate::app::tests::{app, cursor, sample};
use crate::app::time::{TimeCursor, TimePlugin};
use crate::app::tour::{Step, Tour, TourCommand, TourPlugin, TourReplay, keepers, top_grower};
use crate::app::viewport::UiFocus;

fn press(app: &mut App, key: KeyCode) {
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(key);
    app.update();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.release(key);
    keys.clear();
}

#[test]
fn typing_into_a_text_field_does_not_step_or_play() {
    let mut app = app();
    app.world_mut().resource_mut::<TimeCursor>().jump_to(3, 8);
    app.world_mut().resource_mut::<UiFocus>().keyboard = true;
    for key in [KeyCode::KeyN, KeyCode::KeyN, KeyCode::KeyP, KeyCode::Space, KeyCode::ArrowRight] {
        press(&mut app, key);
    }
    let c = cursor(&app);
    assert_eq!((c.current, c.playing), (3, false), "keys typed into the UI moved time: {c:?}");
    app.world_mut().resource_mut::<UiFocus>().keyboard = false;
    press(&mut app, KeyCode::KeyN);
    assert_eq!(cursor(&app).current, 4, "without a focused field N steps");
}

#[test]
fn a_click_that_ends_on_a_pane_does_not_reach_the_city() {
    let mut app = app();
    app.add_plugins(InspectPlugin);
    app.world_mut().spawn((Window::default(), PrimaryWindow));
    app.update();
    let model = app.world().resource::<CityModel>().clone();
    let person = model.timeline.group("Heap#com.example.app#Person").unwrap();
    app.world_mut().resource_mut::<Selection>().toggle(&model, Some(Target::Building(person)));
    let click = |app: &mut App, pane_at_release: bool| {
        let mut windows = app.world_mut().query_filtered::<&mut Window, With<PrimaryWindow>>();
        windows.single_mut(app.world_mut()).unwrap().set_cursor_position(Some(Vec2::new(100.0, 100.0)));
        app.world_mut().resource_mut::<UiFocus>().pointer = false;
        app.world_mut().resource_mut::<ButtonInput<MouseButton>>().press(MouseButton::Left);
        app.update();
        // The pointer reached the pane by the time the button came up (a quick move-then-click).
        app.world_mut().resource_mut::<UiFocus>().pointer = pane_at_release;
        let mut buttons = app.world_mut().resource_mut::<ButtonInput<MouseButton>>();
        buttons.clear();
        buttons.release(MouseButton::Left);
        app.update();
        app.world_mut().resource_mut::<ButtonInput<MouseButton>>().clear();
    };
    click(&mut app, true);
    assert_eq!(app.world().resource::<Selection>().target(&model), Some(Target::Building(person)));
    // The same click on empty ground deselects.
    click(&mut app, false);
    assert_eq!(app.world().resource::<Selection>().selected, None);
}

#[test]
fn a_new_city_opens_at_its_last_snapshot() {
    let mut app = app();
    app.world_mut().resource_mut::<TimeCursor>().jump_to(2, 8);
    app.update();
    assert_eq!(cursor(&app).current, 2, "the first city keeps the cursor it was given");
    app.world_mut().write_message(LoadHistory(Arc::new(sample())));
    app.update();
    assert_eq!(cursor(&app).current, 7, "a new city starts at its end, not at the old index");
}

/// Updates until `done` holds (the loader works on its own thread).
fn update_until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < Duration::from_secs(30), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
        app.update();
    }
}

fn step(app: &App) -> Step {
    app.world().resource::<Tour>().step
}

/// An app running the tour of scenario `name`, without a window.
fn tour_app(name: &str) -> App {
    let mut app = App::new();
    let history = crate::input::load(&format!("scenario:{name}")).unwrap();
    app.add_plugins(MinimalPlugins)
        .init_resource::<ButtonInput<KeyCode>>()
        .init_resource::<ButtonInput<MouseButton>>()
        .add_plugins(ModelPlugin { history: Arc::new(history), settings: Settings::default() })
        // Selection without InspectPlugin: no window here, and its hover would undo the test's.
        .init_resource::<Selection>()
        .add_plugins((TimePlugin, LoadPlugin, TourPlugin))
        .insert_resource(Tour::of(name).unwrap());
    app
}

#[test]
fn a_tour_runs_from_playback_to_the_fixed_program() {
    let mut app = tour_app("linked-list");
    app.update();
    assert_eq!(step(&app), Step::Play);
    // Play: fast playback to the end.
    app.world_mut().resource_mut::<TimeCursor>().period = 0.0;
    press(&mut app, KeyCode::Space);
    update_until(&mut app, "playback to end", |a| !a.world().resource::<TimeCursor>().playing);
    app.update();
    assert_eq!(step(&app), Step::Spot, "playing to the end advances");
    // Spot: pointing at the top grower.
    let model = app.world().resource::<CityModel>().clone();
    let top = top_grower(&model).unwrap();
    app.world_mut().resource_mut::<Selection>().hovered = Some(Target::Building(top));
    app.update();
    assert_eq!(step(&app), Step::Select);
    // Select: something else does not count, the top grower does.
    let other = model.layout.buildings.iter().map(|b| b.group).find(|&g| g != top).unwrap();
    app.world_mut().resource_mut::<Selection>().toggle(&model, Some(Target::Building(other)));
    app.update();
    assert_eq!(step(&app), Step::Select);
    app.world_mut().resource_mut::<Selection>().toggle(&model, Some(Target::Building(top)));
    app.update();
    assert_eq!(step(&app), Step::KeptAlive);
    // KeptAlive: follow the first "kept alive by" entry.
    let last = model.snapshot_count() - 1;
    let keeper = model.timeline.pointers[last].pointed_from[&top].iter().max_by_key(|e| e.1).unwrap().0;
    app.world_mut().resource_mut::<Selection>().selected =
        Some(model.timeline.groups[keeper as usize].key.clone());
    app.update();
    assert_eq!(step(&app), Step::Cause);
    let tour = app.world().resource::<Tour>().clone();
    assert!(tour.lesson.code.contains("people.add"), "the source lines that leak");
    // Cause → the fixed program opens and the tour ends there.
    app.world_mut().write_message(TourCommand::OpenFixed);
    app.update();
    update_until(&mut app, "the fixed program", |a| a.world().resource::<Tour>().waiting.is_none());
    assert_eq!(step(&app), Step::Fixed);
    let fixed = app.world().resource::<CityModel>().clone();
    assert_eq!(fixed.history.snapshots.len(), 30);
    assert!(fixed.windows.iter().all(|w| w.kind != memcity_analysis::windows::WindowKind::Leak));
    app.world_mut().write_message(TourCommand::End);
    app.update();
    assert!(!app.world().contains_resource::<Tour>());
}

#[test]
fn a_tour_started_at_a_later_step_finds_each_earlier_step_done() {
    for (to, expected) in
        [(1, Step::Play), (3, Step::Select), (4, Step::KeptAlive), (5, Step::Cause), (6, Step::Fixed)]
    {
        let mut app = tour_app("easytravel");
        app.insert_resource(TourReplay { to });
        update_until(&mut app, "the replay", |a| !a.world().contains_resource::<TourReplay>());
        assert_eq!(step(&app), expected, "--step {to}");
        let (c, selected) = (cursor(&app), app.world().resource::<Selection>().selected.clone());
        if to == 1 {
            assert_eq!((c.current, selected), (0, None), "nothing done before the first step");
            continue;
        }
        let model = app.world().resource::<CityModel>().clone();
        assert_eq!(
            (c.current + 1, c.playing),
            (model.snapshot_count(), false),
            "--step {to}: played to the end"
        );
        if to == 6 {
            // easytravel leaks; the fixed program that replaced it does not.
            assert!(model.windows.iter().all(|w| w.kind != memcity_analysis::windows::WindowKind::Leak));
            continue;
        }
        let top = top_grower(&model).unwrap();
        let key = |g: u32| Some(model.timeline.groups[g as usize].key.clone());
        match expected {
            Step::Select => assert_eq!(selected, None, "pointed at, not yet selected"),
            Step::KeptAlive => assert_eq!(selected, key(top), "the top grower selected"),
            _ => {
                let first = keepers(&model, c.current, top)[0].0;
                assert_eq!(selected, key(first), "its first keeper followed");
            }
        }
    }
}

#[test]
fn next_walks_every_step_and_a_tour_can_start_from_the_menu() {
    let mut app = app();
    app.add_plugins((InspectPlugin, LoadPlugin, TourPlugin));
    app.world_mut().write_message(TourCommand::Start("easytravel".into()));
    app.update();
    update_until(&mut app, "the scenario", |a| {
        a.world().get_resource::<Tour>().is_some_and(|t| t.waiting.is_none())
    });
    assert!(app.world().resource::<CityModel>().history.snapshots[0].tree.key.starts_with("Heap"));
    for expected in [Step::Spot, Step::Select, Step::KeptAlive, Step::Cause, Step::Fixed, Step::Fixed] {
        app.world_mut().write_message(TourCommand::Next);
        app.update();
        assert_eq!(step(&app), expected);
    }
    assert!(Tour::of("healthy").is_none(), "no leak, no tour");
}

/// The largest growth of any building as a color value (1 = full red) at the default settings.
fn reddest(name: &str) -> f32 {
    let model =
        CityModel::new(crate::input::load(&format!("scenario:{name}")).unwrap(), &Settings::default());
    model.frames.last().unwrap().states.iter().map(|s| s.growth).fold(0.0, f32::max)
}

#[test]
fn leaks_turn_red_and_fixed_or_healthy_programs_stay_below_orange() {
    for leak in ["linked-list", "http-client", "easytravel"] {
        assert!(reddest(leak) >= 0.99, "{leak}: {}", reddest(leak));
    }
    // Orange is 0.5: growth of 5% of the peak heap.
    for flat in ["linked-list-fixed", "http-client-fixed", "easytravel-fixed", "healthy", "churn"] {
        assert!(reddest(flat) < 0.25, "{flat}: {}", reddest(flat));
    }
}
