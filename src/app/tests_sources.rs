//! ECS tests of where the city comes from: a live WebSocket server pushing into the running
//! app, background loads (progress, failures that keep the city), and the timeline's windows.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use memcity_layout::Settings;
use memcity_wire::client::Connection;
use memcity_wire::protocol::{history_message, snapshot_message};
use memcity_wire::{Server, ServerConfig};

use crate::app::live::{LivePlugin, LiveServer};
use crate::app::load::{CompareInputs, LoadPlugin, Loading, OpenInput};
use crate::app::model::LayoutMorph;
use crate::app::model::{CityModel, ModelPlugin};
use crate::app::tests::{app, cursor, sample};
use crate::app::time::TimePlugin;

fn model(app: &App) -> CityModel {
    app.world().resource::<CityModel>().clone()
}

/// Updates until `done` holds (at most 20 s: the server and loader work on other threads).
fn update_until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
        app.update();
    }
}

fn live_app() -> (App, Connection) {
    live_app_reading(Vec::new())
}

/// A live city whose snapshots memcity can read again from `source` (as `--inspect` has).
fn live_app_reading(source: Vec<String>) -> (App, Connection) {
    let server = Server::start(ServerConfig { addr: "127.0.0.1:0".into(), ..Default::default() }).unwrap();
    let url = format!("ws://{}", server.local_addr());
    let empty = memcity_model::History { snapshots: Vec::new(), ..sample() };
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .init_resource::<ButtonInput<KeyCode>>()
        .add_plugins(ModelPlugin { history: Arc::new(empty), settings: Settings::default() })
        .add_plugins(TimePlugin)
        .insert_resource(LiveServer::new(server).with_source(source))
        .add_plugins(LivePlugin);
    app.update();
    let connection = Connection::open(&url, Duration::from_secs(20)).unwrap();
    (app, connection)
}

fn ok(connection: &mut Connection, message: String) {
    let reply = connection.request(message).unwrap();
    assert!(reply.contains("\"ok\":true"), "{reply}");
}

#[test]
fn a_live_city_grows_with_each_pushed_snapshot_and_keeps_its_arrangement() {
    let (mut app, mut ws) = live_app();
    assert_eq!(model(&app).snapshot_count(), 0, "an empty city waits for data");
    let full = sample();
    let first = memcity_model::History { snapshots: full.snapshots[..1].to_vec(), ..full.clone() };
    ok(&mut ws, history_message(&first));
    update_until(&mut app, "the first snapshot", |a| model(a).snapshot_count() == 1);
    let mut morphs = 0;
    for (i, snapshot) in full.snapshots.iter().enumerate().skip(1) {
        let before = model(&app);
        ok(&mut ws, snapshot_message(snapshot));
        update_until(&mut app, "an appended snapshot", |a| model(a).snapshot_count() == i + 1);
        let after = model(&app);
        assert!(after.generation > before.generation);
        // Groups already placed keep their relative order.
        let kept: Vec<u32> =
            after.layout.placed.iter().copied().filter(|g| before.layout.placed.contains(g)).collect();
        assert_eq!(kept, before.layout.placed, "snapshot {i} reordered the city");
        // A viewer at the newest snapshot follows the city as it grows.
        assert_eq!(cursor(&app).current, i);
        let morph = app.world().resource::<LayoutMorph>();
        if after.layout.buildings.iter().map(|b| b.cell).ne(before.layout.buildings.iter().map(|b| b.cell)) {
            assert!(morph.active(after.generation).is_some(), "snapshot {i}: a layout change is animated");
            morphs += 1;
        }
    }
    assert!(morphs > 0, "the sample's growth moves buildings at least once");
    // The city's own copy equals the pushed history, and its incrementally grown timeline the
    // one built from scratch.
    assert_eq!(*model(&app).history, full);
    assert_eq!(*model(&app).timeline, memcity_model::Timeline::new(&full));
    let live = app.world().resource::<LiveServer>();
    assert_eq!(live.last.map(|l| l.0), Some("snapshot"));
    assert!(live.latency.is_some());
    // Pointer maps for a shown snapshot reach the city without reordering it.
    let before = model(&app);
    let message = r#"{"type":"pointers","snapshot":0,"points_to":{"Heap#com.example.app#Person":{"Heap#java.lang#String":7}}}"#;
    ok(&mut ws, message.into());
    update_until(&mut app, "pointer maps", |a| model(a).generation > before.generation);
    let after = model(&app);
    assert_eq!(after.layout.placed, before.layout.placed);
    let (person, string) = (
        after.timeline.group("Heap#com.example.app#Person").unwrap(),
        after.timeline.group("Heap#java.lang#String").unwrap(),
    );
    assert!(
        after.timeline.pointers[0].points_to[&person].contains(&(string, 7)),
        "{:?}",
        after.timeline.pointers[0].points_to.get(&person)
    );
    let full = (*after.history).clone();
    // A bad message is refused and changes nothing.
    let reply = ws.request(r#"{"type":"snapshot","snapshot":{"time_ms":"soon"}}"#.into()).unwrap();
    assert!(reply.contains("\"ok\":false"), "{reply}");
    app.update();
    assert_eq!(*model(&app).history, full);
    // clear empties the city.
    ok(&mut ws, r#"{"type":"clear"}"#.into());
    update_until(&mut app, "clear", |a| model(a).snapshot_count() == 0);
    assert!(model(&app).layout.buildings.is_empty());
}

#[test]
fn a_live_city_computes_closures_from_where_its_snapshots_lie() {
    use crate::app::why::CitySource;
    let folder = "/tmp/memcity-inspect-folder".to_string();
    let (mut app, mut ws) = live_app_reading(vec![folder.clone()]);
    ok(&mut ws, history_message(&sample()));
    update_until(&mut app, "the pushed city", |a| model(a).snapshot_count() > 0);
    assert_eq!(app.world().resource::<CitySource>().0, [folder]);
    // A city pushed by a client carries groups only: nothing to read again.
    let (mut app, mut ws) = live_app();
    app.insert_resource(CitySource(vec!["dump.hprof".into()]));
    ok(&mut ws, history_message(&sample()));
    update_until(&mut app, "the pushed city", |a| model(a).snapshot_count() > 0);
    assert!(app.world().resource::<CitySource>().0.is_empty());
}

fn loading_app() -> App {
    let mut app = app();
    app.add_plugins(LoadPlugin);
    app.update();
    app
}

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn heap_dumps_load_in_the_background_and_replace_the_city() {
    let mut app = loading_app();
    app.world_mut().write_message(OpenInput(vec![repo("data/hprof")]));
    app.update();
    assert!(app.world().resource::<Loading>().status().is_some(), "a load is under way");
    update_until(&mut app, "the dump series", |a| !a.world().resource::<Loading>().is_busy());
    assert_eq!(app.world().resource::<Loading>().error, None);
    app.update();
    let city = model(&app);
    assert_eq!(city.snapshot_count(), 3);
    assert_eq!(city.history.snapshots[0].tree.key, "Heap");
    // A list of dumps is one series too.
    let two = vec![repo("data/hprof/dump3.hprof.gz"), repo("data/hprof/dump1.hprof.gz")];
    app.world_mut().write_message(OpenInput(two));
    app.update();
    update_until(&mut app, "two dumps", |a| !a.world().resource::<Loading>().is_busy());
    app.update();
    let labels: Vec<String> = model(&app).history.snapshots.iter().map(|s| s.display_label()).collect();
    assert_eq!(labels, ["dump1.hprof.gz", "dump3.hprof.gz"], "ordered by the dumps' own time");
}

#[test]
fn a_failed_load_says_why_and_keeps_the_city() {
    let mut app = loading_app();
    let before = model(&app);
    app.world_mut().write_message(OpenInput(vec![repo("no/such/file.json")]));
    app.update();
    let error = app.world().resource::<Loading>().error.clone().unwrap();
    assert!(error.contains("no/such/file.json: no such file or folder"), "{error}");
    // Malformed JSON fails on the loader thread.
    let bad = std::env::temp_dir().join(format!("memcity-bad-{}.json", std::process::id()));
    std::fs::write(&bad, r#"{"format":"memcity/1","snapshots":[{"time_ms":1}"#).unwrap();
    app.world_mut().write_message(OpenInput(vec![bad.to_str().unwrap().into()]));
    app.update();
    update_until(&mut app, "the bad file", |a| a.world().resource::<Loading>().error.is_some());
    let error = app.world().resource::<Loading>().error.clone().unwrap();
    assert!(error.contains("memcity-bad-"), "the error names the file: {error}");
    std::fs::remove_file(&bad).unwrap();
    let after = model(&app);
    assert_eq!((after.generation, after.snapshot_count()), (before.generation, before.snapshot_count()));
}

#[test]
fn two_runs_open_as_one_pair_and_a_bad_one_keeps_the_city() {
    let mut app = loading_app();
    let before = model(&app);
    let runs = |b: &str, a: &str| CompareInputs([b.to_string(), a.to_string()]);
    app.world_mut().write_message(runs(&repo("no/such/file.json"), "scenario:linked-list"));
    app.update();
    let error = app.world().resource::<Loading>().error.clone().unwrap();
    assert!(error.contains("no/such/file.json"), "{error}");
    assert_eq!(model(&app).generation, before.generation, "the city is unchanged");
    app.world_mut().write_message(runs(&repo("data/hprof/dump1.hprof.gz"), &repo("data/hprof")));
    app.update();
    update_until(&mut app, "the pair", |a| !a.world().resource::<Loading>().is_busy());
    assert_eq!(app.world().resource::<Loading>().error, None);
    app.update();
    let city = model(&app);
    assert!(memcity_model::compare::is_pair(&city.history));
    assert_eq!(city.snapshot_count(), 3, "as long as the longer run");
    assert!(
        city.layout.buildings.len() >= 2 && city.layout.buildings.len().is_multiple_of(2),
        "alike on both sides"
    );
}

#[test]
fn the_timeline_knows_the_teaching_scenarios_leak_window() {
    let history = crate::input::load("scenario:linked-list").unwrap();
    let city = CityModel::new(history, &Settings::default());
    let kinds: Vec<_> = city.windows.iter().map(|w| w.kind).collect();
    assert!(kinds.contains(&memcity_analysis::windows::WindowKind::Leak), "{kinds:?}");
    let healthy = CityModel::new(crate::input::load("scenario:healthy").unwrap(), &Settings::default());
    assert!(healthy.windows.iter().all(|w| w.kind != memcity_analysis::windows::WindowKind::Leak));
}

/// An importer's bug on an unusual file (a panic on the loading thread) is a failed load that
/// names the bug, and the city already shown stays.
#[test]
fn a_panicking_load_fails_that_load_and_keeps_the_city() {
    let mut app = loading_app();
    let before = model(&app);
    let mut loading = app.world_mut().resource_mut::<Loading>();
    loading
        .start_with("odd.hprof".into(), vec!["odd.hprof".into()], |_| panic!("an importer bug on a record"));
    update_until(&mut app, "the failed load", |a| !a.world().resource::<Loading>().is_busy());
    let error = app.world().resource::<Loading>().error.clone().expect("the load failed");
    assert!(error.starts_with("loading odd.hprof stopped on a bug in memcity: an importer bug"), "{error}");
    assert!(error.contains("please report it"), "{error}");
    app.update();
    assert_eq!(model(&app).generation, before.generation, "the city is unchanged");
}

/// While a load runs, the Open pane's line follows it: bytes and a fraction while it reads,
/// then the phase its importer names (no fraction: a phase's length is not known).
#[test]
fn a_load_under_way_shows_its_bytes_then_its_phase() {
    use memcity_heapgraph::Phase;
    let mut app = loading_app();
    let (step, steps) = std::sync::mpsc::channel::<()>();
    let (told, heard) = std::sync::mpsc::channel::<()>();
    let mut loading = app.world_mut().resource_mut::<Loading>();
    loading.start_with("big.hprof".into(), vec!["big.hprof".into()], move |progress| {
        progress.read(50, 200);
        told.send(()).unwrap();
        steps.recv().unwrap();
        progress.read(200, 200);
        progress.phase(Phase::Dominators);
        told.send(()).unwrap();
        steps.recv().unwrap();
        anyhow::bail!("stopped by the test")
    });
    heard.recv().unwrap();
    let loading = app.world().resource::<Loading>();
    assert_eq!((loading.bytes(), loading.phase()), ((50, 200), None));
    assert_eq!(loading.status().unwrap().1, Some(0.25));
    step.send(()).unwrap();
    heard.recv().unwrap();
    let loading = app.world().resource::<Loading>();
    assert_eq!(loading.phase(), Some(Phase::Dominators));
    assert_eq!(loading.status().unwrap().1, None, "a phase has no fraction");
    let (done, total) = loading.bytes();
    assert_eq!(
        crate::progress::line(done, total, 3.0, loading.phase()),
        "dominator tree and pointer maps (0 MB read)"
    );
    step.send(()).unwrap();
    update_until(&mut app, "the load's end", |a| !a.world().resource::<Loading>().is_busy());
    assert_eq!(app.world().resource::<Loading>().phase(), None, "no load, no phase");
}
