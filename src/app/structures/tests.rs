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
