//! ECS tests of the Ownership tab's reading and focus (MinimalPlugins, no GPU, no egui): the
//! linked-list scenario read on a thread of its own, clicks that focus and go back, and a live
//! city whose new dumps are read as they arrive.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::prelude::*;
use memcity_layout::Settings;
use memcity_model::History;

use super::*;
use crate::app::model::ModelPlugin;
use crate::app::tests::linked_list_app;
use crate::app::time::TimePlugin;

fn app() -> App {
    linked_list_app(Settings::default(), |app| {
        app.insert_resource(CitySource(vec![crate::input::DEFAULT_INPUT.to_string()]))
            .add_plugins(OwnershipPlugin);
    })
}

/// Asks for the series (as the shown tab does every frame) until it has `count` snapshots.
fn read(app: &mut App, count: usize) -> Arc<Series> {
    for _ in 0..1500 {
        app.world_mut().write_message(ReadOwnership);
        app.update();
        let world = app.world();
        let analysis = world.resource::<OwnershipAnalysis>();
        if let Some(e) = &analysis.failed {
            panic!("{e}");
        }
        let city = world.resource::<CityModel>().city;
        if let Some(series) = analysis.series(city).filter(|s| s.snapshots().len() >= count) {
            return series.clone();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no series of {count} snapshots within 30 s");
}

#[test]
fn the_series_is_read_on_its_own_thread_and_kept_for_its_city() {
    let mut app = app();
    let series = read(&mut app, 30);
    assert_eq!(series.snapshots().len(), 30);
    let own = &series.snapshots()[29].ownership;
    assert!(own.classes.iter().any(|c| c.name == "cycle of java.util.LinkedList$Node"));
    // Asked again for the same city and snapshots: nothing is read.
    app.world_mut().write_message(ReadOwnership);
    app.update();
    assert!(!app.world().resource::<OwnershipAnalysis>().is_reading());
    // Paths stay: the list's place has a history over the whole run.
    let list = own.tree[0].children[0];
    let history = series.history(own.tree[list as usize].path);
    assert!(history[0] < history[29] && history.iter().all(|&b| b > 0), "{history:?}");
}

#[test]
fn a_click_focuses_a_subtree_and_back_returns() {
    let mut app = app();
    let series = read(&mut app, 30);
    let own = &series.snapshots()[29].ownership;
    let list = own.tree[own.tree[0].children[0] as usize].path;
    let cycle = own.tree[own.tree[own.tree[0].children[0] as usize].children[0] as usize].path;
    for (click, focus, back) in [
        (Some(list), Some(list), vec![None]),
        (Some(cycle), Some(cycle), vec![None, Some(list)]),
        // The focused root again: back one step; Back: another.
        (Some(cycle), Some(list), vec![None]),
        (None, None, vec![]),
        (None, None, vec![]),
    ] {
        app.world_mut().write_message(OwnershipClicked(click));
        app.update();
        let view = app.world().resource::<OwnershipView>();
        assert_eq!((view.focus, &view.back), (focus, &back), "after {click:?}");
    }
    // Another city starts from its heap.
    app.world_mut().write_message(OwnershipClicked(Some(list)));
    app.update();
    app.world_mut().resource_mut::<CityModel>().city += 1;
    app.update();
    assert_eq!(app.world().resource::<OwnershipView>().focus, None);
}

/// A folder of the sample dumps as a live city sees it grow.
fn dumps_into(dir: &Path, count: usize) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hprof");
    for i in 1..=count {
        let name = format!("dump{i}.hprof.gz");
        if !dir.join(&name).exists() {
            std::fs::copy(samples.join(&name), dir.join(&name)).unwrap();
        }
    }
}

fn history_of(dir: &Path) -> History {
    crate::input::load_all(&[dir.display().to_string()], &memcity_heapgraph::Silent).unwrap()
}

#[test]
fn a_growing_city_reads_its_new_snapshots() {
    let dir: PathBuf = std::env::temp_dir().join(format!("memcity-ownership-live-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dumps_into(&dir, 1);
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .init_resource::<ButtonInput<KeyCode>>()
        .add_plugins(ModelPlugin { history: Arc::new(history_of(&dir)), settings: Settings::default() })
        .add_plugins(TimePlugin)
        .insert_resource(CitySource(vec![dir.display().to_string()]))
        .add_plugins(OwnershipPlugin);
    app.update();
    let first = read(&mut app, 1);
    assert_eq!(first.snapshots().len(), 1);
    // Nothing new: asked again, nothing is read.
    app.world_mut().write_message(ReadOwnership);
    app.update();
    assert!(!app.world().resource::<OwnershipAnalysis>().is_reading());

    // A dump arrives and the city grows by it, as live pushes extend it.
    dumps_into(&dir, 2);
    let grown = history_of(&dir);
    let settings = Settings::default();
    app.world_mut().resource_mut::<CityModel>().extend(grown.snapshots[1..].iter().cloned(), &settings);
    let series = read(&mut app, 2);
    assert_eq!(series.snapshots().len(), 2);
    assert_eq!(series.snapshots()[0].ownership, first.snapshots()[0].ownership, "the first is kept");
    let (a, b) = (&series.snapshots()[0].ownership, &series.snapshots()[1].ownership);
    assert_eq!(b.tree[0].growth_bytes, b.heap_bytes as i64 - a.heap_bytes as i64);
    assert_eq!(series.heap_history(), vec![a.heap_bytes, b.heap_bytes]);
    let _ = std::fs::remove_dir_all(&dir);
}
