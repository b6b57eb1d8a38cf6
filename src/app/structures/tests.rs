//! ECS tests of the Data structures tab's analysis and marks on the linked-list scenario
//! (MinimalPlugins, no GPU, no egui).

use std::sync::Arc;

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use memcity_layout::Settings;

use super::*;
use crate::app::inspect::Selection;
use crate::app::render::pipeline::FLAG_MARKED;
use crate::app::render::{CityMarks, city_instances};
use crate::app::tests::linked_list_app;
use crate::app::time::DisplayedFrame;

fn app() -> App {
    linked_list_app(Settings::default(), |app| {
        app.init_resource::<Marked>()
            .add_message::<RequestRedraw>()
            .insert_resource(CitySource(vec![crate::input::DEFAULT_INPUT.to_string()]))
            .add_plugins(StructuresPlugin);
    })
}

/// Asks for a measurement and runs the app until it arrives.
fn measured(app: &mut App) -> Arc<Measured> {
    app.world_mut().write_message(MeasureStructures(Request::default()));
    for _ in 0..600 {
        app.update();
        match &app.world().resource::<StructureAnalysis>().state {
            Analysis::Done(_, m) => return m.clone(),
            Analysis::Failed(_, e) => panic!("{e}"),
            _ => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    panic!("no measurement within 12 s");
}

#[test]
fn a_measurement_runs_on_its_own_thread_and_is_kept_for_its_request_and_city() {
    let mut app = app();
    let m = measured(&mut app);
    assert_eq!(m.rows[0].path, "static app.model.Registry.people");
    let city = app.world().resource::<CityModel>().city;
    let analysis = app.world().resource::<StructureAnalysis>();
    assert!(analysis.is_current(city));
    assert!(!analysis.is_current(city + 1), "another city asks again");
    // The same request again measures nothing new.
    app.world_mut().write_message(MeasureStructures(Request::default()));
    app.update();
    assert!(!app.world().resource::<StructureAnalysis>().is_measuring());
}

#[test]
fn a_picked_instance_marks_the_buildings_of_what_it_holds_until_unpicked() {
    let mut app = app();
    let m = measured(&mut app);
    let city = app.world().resource::<CityModel>().city;
    let row = &m.rows[0];
    app.world_mut().resource_mut::<PickedStructure>().picked = Some(Picked {
        row: 0,
        type_name: row.type_name.clone(),
        path: row.path.clone(),
        selected: None,
        types: row.types.clone(),
        city,
    });
    app.update();
    let world = app.world();
    let (model, marked) = (world.resource::<CityModel>(), world.resource::<Marked>());
    let names: Vec<&str> = model
        .layout
        .buildings
        .iter()
        .filter(|b| marked.has(b.group))
        .map(|b| model.timeline.groups[b.group as usize].key.as_str())
        .collect();
    assert!(names.iter().any(|k| k.contains("Type:java.util.LinkedList$Node#")), "{names:?}");
    assert!(names.iter().any(|k| k.contains("Type:app.model.Person#")), "{names:?}");
    assert!(!names.iter().any(|k| k.contains("char[]")), "a Person's fields are no leaves: {names:?}");
    // The city draws them with the mark's flag.
    let (frame, selection) = (world.resource::<DisplayedFrame>(), Selection::default());
    let instances =
        city_instances(model, frame, CityMarks { selection: &selection, marked }, true, Vec3::ZERO, None);
    let flagged = instances.iter().filter(|i| (i.center[3] as u32) & FLAG_MARKED as u32 != 0).count();
    assert_eq!(flagged, names.len());

    let version = app.world().resource::<Marked>().version;
    app.world_mut().resource_mut::<PickedStructure>().picked = None;
    app.update();
    let marked = app.world().resource::<Marked>();
    assert!(marked.groups.iter().all(|m| !m), "unpicked, unmarked");
    assert!(marked.version > version);
}

/// Selects `key` and runs the app until the panes' "held in" lines for it are measured.
fn held_lines_of(app: &mut App, key: &str) -> Vec<held::HeldLine> {
    app.world_mut().resource_mut::<Selection>().selected = Some(key.to_string());
    for _ in 0..3000 {
        app.update();
        if let held::HeldIn::Held(lines) = app.world().resource::<held::HeldIn>() {
            return lines.clone();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("{key}: never measured");
}

/// Whether a JDK is here; where none is, the JVM test skips with a note unless CI or
/// MEMCITY_REQUIRE_JVM make that a failure.
fn jdk_present() -> bool {
    let runs = |tool: &str| std::process::Command::new(tool).arg("-version").output().is_ok();
    let present = ["java", "javac", "jcmd"].into_iter().all(runs);
    let required = std::env::var_os("CI").is_some() || std::env::var_os("MEMCITY_REQUIRE_JVM").is_some();
    assert!(present || !required, "CI or MEMCITY_REQUIRE_JVM is set but no JDK was found");
    present
}

/// Dumps of tests/java/CacheLeak.java (a search cache whose key class has no equals and
/// hashCode) taken with jcmd at its first `phases` pauses, in `dir`.
fn cache_leak_dumps(dir: &std::path::Path, phases: usize) {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let classes = dir.join("classes");
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/java/CacheLeak.java");
    assert!(Command::new("javac").arg("-d").arg(&classes).arg(source).status().unwrap().success());
    let mut java = Command::new("java")
        .args(["-Xmx128m", "-XX:+UseSerialGC", "-cp"])
        .arg(&classes)
        .args(["CacheLeak", "20000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut stdin, pid) = (java.stdin.take().unwrap(), java.id().to_string());
    let mut lines = BufReader::new(java.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "STARTED");
    let dumps = dir.join("series");
    std::fs::create_dir_all(&dumps).unwrap();
    for phase in 1..=phases {
        writeln!(stdin, "go").unwrap();
        stdin.flush().unwrap();
        assert!(lines.next().unwrap().unwrap().starts_with(&format!("READY {phase}")));
        let file = dumps.join(format!("dump_{phase}.hprof"));
        let dumped = Command::new("jcmd").args([&pid, "GC.heap_dump"]).arg(&file).output().unwrap();
        assert!(dumped.status.success() && file.exists(), "{}", String::from_utf8_lossy(&dumped.stdout));
    }
    let _ = writeln!(stdin, "quit");
    let _ = java.wait();
}

/// The first click on the tallest red tower of a JVM series names the leaking field: the
/// Selection and Why panes' line comes from the measurement each city gets in the background.
#[test]
fn a_selected_grower_of_a_jvm_series_is_held_in_the_leaking_field() {
    if !jdk_present() {
        eprintln!("no JDK here: skipping");
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-held-in-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    cache_leak_dumps(&dir, 3);
    let series = dir.join("series").display().to_string();
    let history = crate::input::load(&series).unwrap();
    let mut app = crate::app::tests::history_app(history, Settings::default(), |app| {
        app.init_resource::<Marked>()
            .add_message::<RequestRedraw>()
            .insert_resource(CitySource(vec![series.clone()]))
            .add_plugins((StructuresPlugin, crate::app::why::WhyPlugin));
    });
    let model = app.world().resource::<CityModel>().clone();
    let tallest = model.top_growers(1)[0];
    let key = model.timeline.groups[model.layout.buildings[tallest].group as usize].key.clone();
    let lines = held_lines_of(&mut app, &key);
    let first = lines.first().unwrap_or_else(|| panic!("{key}: held in nothing"));
    assert!(
        first.text.starts_with("held in static CacheLeak.SERVICE .cache (HashMap, +"),
        "{key}: {first:?}"
    );
    // The Why pane names the cause under it: the keys compare by identity.
    let cause = first.causes.first().unwrap_or_else(|| panic!("no cause: {first:?}"));
    assert!(cause.starts_with("cause duplicate-keys: "), "{cause}");
    assert!(
        cause.contains("distinct by value: does CacheLeak$SearchKey define equals and hashCode?"),
        "{cause}"
    );
    // A click on the line picks that map in the Data structures tab.
    app.world_mut().write_message(held::PickStructure(first.row));
    app.update();
    let picked = app.world().resource::<PickedStructure>().picked.clone().expect("picked");
    assert_eq!(picked.path, "static CacheLeak.SERVICE .cache");
    // One leak, one line: the Leak suspects fold the map's groups under the map, with its cause.
    let folds = app.world().resource::<crate::app::why::SuspectFolds>().clone();
    let ranked = app.world().resource::<crate::app::why::LeakSuspects>().ranked.clone();
    let first = ranked.first().expect("suspects");
    let crate::app::why::SuspectLine::Structure { structure, folded } = first else {
        panic!("the first suspect line is not the map: {ranked:?}")
    };
    let map = &folds.structures[*structure];
    assert_eq!(map.path, "static CacheLeak.SERVICE .cache");
    assert!(folded.len() >= 2, "the keys, their strings and the lists fold into it: {folded:?}");
    assert!(folded.iter().any(|s| s.group == model.layout.buildings[tallest].group), "{folded:?}");
    assert!(map.causes.iter().any(|c| c.starts_with("cause duplicate-keys: ")), "{:?}", map.causes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A group whose type no structure holds (a Person's char[] inside the leaking list) is named
/// by the structure holding the nearest group up its retainer path.
#[test]
fn a_group_inside_held_objects_is_held_through_them() {
    let mut app = app();
    app.init_resource::<Selection>();
    let model = app.world().resource::<CityModel>().clone();
    let mut keys = model.layout.buildings.iter().map(|b| &model.timeline.groups[b.group as usize].key);
    let key = keys.find(|k| k.contains("Type:char[]") && k.ends_with("Person.<init>")).cloned();
    let key = key.expect("a char[] building");
    let lines = held_lines_of(&mut app, &key);
    let first = &lines.first().unwrap_or_else(|| panic!("{key}: held in nothing")).text;
    assert!(first.starts_with("held in static app.model.Registry.people (LinkedList, +"), "{first}");
    assert!(first.ends_with("· through Person"), "{first}");
}

/// The tab's waste section measures the shown snapshot of the committed dumps as `memcity
/// waste` does: LeakApp's searches copy their result strings.
#[test]
fn the_waste_section_measures_the_shown_snapshot() {
    let dumps = format!("{}/data/hprof", env!("CARGO_MANIFEST_DIR"));
    let history = crate::input::load(&dumps).unwrap();
    let mut app = crate::app::tests::history_app(history, Settings::default(), |app| {
        app.init_resource::<Marked>()
            .add_message::<RequestRedraw>()
            .insert_resource(CitySource(vec![dumps.clone()]))
            .add_plugins(StructuresPlugin);
    });
    app.world_mut().write_message(waste::MeasureWaste);
    for _ in 0..1500 {
        app.update();
        let view = app.world().resource::<waste::WasteView>();
        match &view.state {
            waste::Wasted::Done(w) => {
                assert_eq!(view.at.map(|(_, t)| t), Some(2), "the shown snapshot: the last");
                let top = &w.duplicate_strings[0];
                assert!(top.text.starts_with("result for city-") && top.count == 300, "{top:?}");
                assert!(w.duplicate_strings.len() <= waste::TOP);
                return;
            }
            waste::Wasted::Failed(e) => panic!("{e}"),
            _ => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    panic!("the waste was never measured");
}
