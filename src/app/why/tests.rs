//! ECS tests of "why is it alive?" on the linked-list scenario (MinimalPlugins, no GPU).

use bevy::prelude::*;
use memcity_layout::Settings;

use super::*;
use crate::app::tests::linked_list_app;

const CHARS: &str = "Heap#Type:char[]#Allocation Site:app.model.Person.<init>";

fn app(settings: Settings) -> App {
    linked_list_app(settings, |app| {
        app.init_resource::<Selection>().add_plugins(WhyPlugin);
    })
}

fn select(app: &mut App, key: &str) {
    app.world_mut().resource_mut::<Selection>().selected = Some(key.to_string());
    app.update();
    app.update();
}

fn shown(app: &App, key: &str) -> bool {
    let model = app.world().resource::<CityModel>();
    model.timeline.group(key).is_some_and(|g| model.layout.building(g).is_some())
}

#[test]
fn a_selected_building_shows_its_retainer_path() {
    let mut app = app(Settings::default());
    select(&mut app, CHARS);
    let world = app.world();
    let (model, view) = (world.resource::<CityModel>(), world.resource::<RetainerView>());
    assert_eq!(view.key.as_deref(), Some(CHARS));
    let PathLines { lines, roots, references } = step_lines(model, view, 29).unwrap();
    assert_eq!(
        references.as_deref(),
        Some("static app.model.Registry.people → .last → .item → .name → .value"),
        "the path in field names"
    );
    assert_eq!(lines.len(), 5);
    assert!(lines[4].name.contains("java.util.LinkedList"), "{:?}", lines[4]);
    assert_eq!(roots, ["Static Field app.model.Registry.people"]);
    assert_eq!(view.groups(model, 29).len(), 5);
}

#[test]
fn pruned_groups_on_the_path_are_pinned_and_shown() {
    // One child per district: most of the path is pruned away.
    let mut app = app(Settings { children: 1, ..Settings::default() });
    let model = app.world().resource::<CityModel>().clone();
    let path = keys_to_pin(&model, CHARS);
    assert!(path.iter().any(|k| !shown(&app, k)), "the test needs a pruned step");
    select(&mut app, CHARS);
    for key in &path {
        assert!(shown(&app, key), "{key} is on the path and must be shown");
    }
    assert!(!app.world().resource::<LayoutSettings>().pinned.is_empty());
}

#[test]
fn the_exact_closure_is_computed_in_the_background() {
    let mut app = app(Settings::default());
    app.insert_resource(CitySource(vec![crate::input::DEFAULT_INPUT.to_string()]));
    let person = "Heap#Type:app.model.Person#Allocation Site:app.model.Registry.register";
    select(&mut app, person);
    let started = std::time::Instant::now();
    let state = loop {
        app.update();
        let state = app.world().resource::<Closures>().get(29, person).cloned();
        if !matches!(state, Some(Closure::Computing)) || started.elapsed().as_secs() > 60 {
            break state;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let Some(Closure::Done(objects, bytes)) = state else { panic!("{state:?}") };
    let model = app.world().resource::<CityModel>();
    let group = model.timeline.group(person).unwrap();
    let dominated = model.timeline.retained[29][&group];
    assert!(objects > 1000 && bytes >= dominated, "{bytes} vs {dominated}");
}

#[test]
fn leak_suspects_rank_the_growing_chain_and_name_its_holder() {
    let app = app(Settings::default());
    let model = app.world().resource::<CityModel>();
    let suspects = leak_suspects(model, 29, 6);
    assert!(!suspects.is_empty());
    let top = &model.timeline.groups[suspects[0].group as usize];
    assert!(top.key.contains("java.util.LinkedList"), "{}", top.key);
    let person = model
        .timeline
        .group("Heap#Type:app.model.Person#Allocation Site:app.model.Registry.register")
        .unwrap();
    let s = suspects.iter().find(|s| s.group == person).expect("Person is a suspect");
    let (holder, share) = s.holder.unwrap();
    assert!(share > 0.5, "the list holds most of the heap: {share}");
    let holder = &model.timeline.groups[holder as usize].key;
    assert!(holder.starts_with("Heap#Type:java.util.LinkedList#"), "{holder}");
    assert!(leak_suspects(model, 0, 6).is_empty(), "nothing grew at the first snapshot");
}

#[test]
fn suspects_are_ranked_once_per_city_and_snapshot() {
    let mut app = app(Settings::default());
    let ranked = app.world().resource::<LeakSuspects>().clone();
    let model = app.world().resource::<CityModel>().clone();
    assert_eq!(ranked.at, Some((model.generation, 29)));
    let unfolded: Vec<SuspectLine> =
        leak_suspects(&model, 29, SUSPECTS).into_iter().map(SuspectLine::Group).collect();
    assert_eq!(ranked.ranked, unfolded, "nothing is folded before the structures are measured");
    app.world_mut().resource_mut::<TimeCursor>().jump_to(0, 30);
    app.update();
    assert!(app.world().resource::<LeakSuspects>().ranked.is_empty(), "nothing grew at snapshot 0");
}
