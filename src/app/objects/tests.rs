//! ECS tests of the Objects tab's reads (MinimalPlugins, no GPU, no egui) on the sample dumps.

use std::sync::Arc;

use bevy::prelude::*;
use memcity_layout::Settings;

use super::*;
use crate::app::model::LoadHistory;
use crate::app::tests::history_app;

fn dumps() -> String {
    format!("{}/data/hprof", env!("CARGO_MANIFEST_DIR"))
}

fn app() -> App {
    let history = crate::input::load(&dumps()).unwrap();
    history_app(history, Settings::default(), |app| {
        app.insert_resource(CitySource(vec![dumps()])).add_plugins(ObjectsPlugin);
    })
}

/// Asks to look inside `target` and runs the app until the read ends.
fn look(app: &mut App, target: Target) -> Arc<(Inspection, String)> {
    app.world_mut().write_message(LookInside(target));
    for _ in 0..1500 {
        app.update();
        match &app.world().resource::<ObjectsView>().state {
            Looked::Done(done) => return done.clone(),
            Looked::Failed(e) => panic!("{e}"),
            _ => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    panic!("no objects within 30 s");
}

#[test]
fn a_structure_shows_its_entries_and_a_reference_opens_its_object() {
    let mut app = app();
    let done = look(&mut app, Target::Structure("static LeakApp.PEOPLE".into()));
    let (inspection, label) = &*done;
    assert!(!label.is_empty());
    assert_eq!(inspection.target.kind, "structure");
    assert_eq!(inspection.entries.len(), PAGE, "a page of entries");
    // Its first entry's object, by the id a click on it opens.
    let first = inspection.entries[0].value.clone().flatten().expect("a person");
    let done = look(&mut app, Target::Object(first.id.clone()));
    assert_eq!(done.0.objects.len(), 1);
    assert_eq!(done.0.objects[0].id, first.id);
    assert_eq!(done.0.objects[0].fields, first.fields, "the same object, the same fields");
    // The object opened selects its type's group in the city.
    let model = app.world().resource::<CityModel>();
    let selected = app.world().resource::<crate::app::inspect::Selection>().selected.clone();
    let group = group_of_type(&model.timeline, &first.type_name).expect("a group of its type");
    assert_eq!(selected.as_deref(), Some(model.timeline.groups[group as usize].key.as_str()));
    assert_eq!(
        app.world().resource::<ObjectsView>().back,
        [Target::Structure("static LeakApp.PEOPLE".into())]
    );
}

#[test]
fn the_same_target_again_reads_the_next_page_and_another_city_starts_over() {
    let mut app = app();
    let target = Target::Structure("static LeakApp.PEOPLE".into());
    look(&mut app, target.clone());
    let more = look(&mut app, target);
    assert_eq!(more.0.entries.len(), 2 * PAGE, "the next page");
    app.world_mut().write_message(LoadHistory(Arc::new(crate::input::load("scenario:linked-list").unwrap())));
    app.update();
    app.update();
    let view = app.world().resource::<ObjectsView>();
    assert!(view.asked.is_none() && view.back.is_empty() && matches!(view.state, Looked::Nothing));
}

#[test]
fn a_city_without_an_input_to_read_reads_nothing() {
    let mut app = app();
    app.insert_resource(CitySource(Vec::new()));
    app.world_mut().write_message(LookInside(Target::Group("Heap#Type:x".into())));
    app.update();
    let view = app.world().resource::<ObjectsView>();
    assert!(view.asked.is_none() && matches!(view.state, Looked::Nothing));
}

#[test]
fn a_bad_target_is_a_failed_read_with_its_reason() {
    let mut app = app();
    app.world_mut().write_message(LookInside(Target::Object("0xdeadbeef".into())));
    for _ in 0..1500 {
        app.update();
        if let Looked::Failed(e) = &app.world().resource::<ObjectsView>().state {
            assert!(e.contains("0xdeadbeef"), "{e}");
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the bad id was never refused");
}
