//! ECS tests of the Tree tab's state on the linked-list scenario (MinimalPlugins, no GPU, no
//! egui): the order for the whole history, drill-down, clicks, the V switch, tweening.

use bevy::ecs::message::Messages;
use bevy::prelude::*;
use memcity_layout::Settings;

use super::timeline::{Multiples, Pinned, TogglePin, default_pins};
use super::*;
use crate::app::tests::linked_list_app;
use crate::app::ui::workspace::TabId;

fn app() -> App {
    linked_list_app(Settings::default(), |app| {
        app.init_resource::<Selection>().add_plugins(TreesPlugin);
    })
}

fn go_to(app: &mut App, snapshot: usize) {
    app.world_mut().resource_mut::<TimeCursor>().go_to(snapshot, 30);
    app.update();
}

fn click(app: &mut App, node: PartNode, select: bool) {
    app.world_mut().write_message(TreeClicked { node, select });
    app.update();
}

/// The groups of the local view at `depth`, top to bottom.
fn column(app: &App, depth: u32) -> Vec<PartNode> {
    let parts = app.world().resource::<TreeParts>();
    parts.local.to.iter().filter(|p| p.depth == depth).map(|p| p.node.clone()).collect()
}

fn groups(nodes: &[PartNode]) -> Vec<u32> {
    nodes.iter().filter_map(|n| if let PartNode::Group(g) = n { Some(*g) } else { None }).collect()
}

/// A branch below the heap: a group of the local view's first level with children.
fn branch(app: &App) -> u32 {
    let model = app.world().resource::<CityModel>();
    let found = groups(&column(app, 1)).into_iter().find(|&g| !model.timeline.groups[g as usize].is_leaf());
    found.expect("a branch below the heap")
}

fn key(app: &App, g: u32) -> String {
    app.world().resource::<CityModel>().timeline.groups[g as usize].key.clone()
}

#[test]
fn the_order_comes_from_the_whole_history_and_nodes_keep_their_places_across_snapshots() {
    let mut app = app();
    {
        let model = app.world().resource::<CityModel>();
        let whole = sort_order(&model.timeline, Metric::Objects, SortBy::Growth, 0, 29);
        assert_eq!(app.world().resource::<TreeOrder>().order, whole);
    }
    let late = groups(&column(&app, 1));
    assert!(late.len() >= 2, "{late:?}");
    go_to(&mut app, 12);
    let early = groups(&column(&app, 1));
    let both: Vec<u32> = late.iter().copied().filter(|g| early.contains(g)).collect();
    let early_order: Vec<u32> = early.iter().copied().filter(|g| both.contains(g)).collect();
    assert!(both.len() >= 2, "{early:?} / {late:?}");
    assert_eq!(early_order, both, "siblings keep their order while time steps");
    // Another sort strategy is another order.
    app.world_mut().resource_mut::<TreeSettings>().sort = SortBy::StartSize;
    app.update();
    let model = app.world().resource::<CityModel>();
    let start = sort_order(&model.timeline, Metric::Objects, SortBy::StartSize, 0, 29);
    assert_eq!(app.world().resource::<TreeOrder>().order, start);
}

#[test]
fn pruning_keeps_at_most_the_set_number_of_children_and_merges_the_rest() {
    let mut app = app();
    app.world_mut().resource_mut::<TreeSettings>().pruning = Pruning { share: 1.0, max_children: 1 };
    app.update();
    let first = column(&app, 1);
    assert!(first.len() <= 2, "{first:?}");
    assert_eq!(groups(&first).len(), 1, "{first:?}");
    if first.len() == 2 {
        assert!(matches!(first[1], PartNode::Other { parent: 0, .. }), "{first:?}");
    }
}

#[test]
fn a_click_on_a_branch_drills_down_and_a_click_on_the_root_steps_up() {
    let mut app = app();
    let g = branch(&app);
    click(&mut app, PartNode::Group(g), false);
    assert_eq!(app.world().resource::<DrillDown>().root, Some(key(&app, g)));
    let parts = app.world().resource::<TreeParts>();
    assert_eq!(parts.root, g);
    assert_eq!(parts.local.to[0].node, PartNode::Group(g));
    assert_eq!((parts.local.to[0].start, parts.local.to[0].end), (0.0, 1.0), "the local view is unscaled");
    assert_eq!(parts.global.to[0].node, PartNode::Group(0), "the global view keeps the whole heap");
    assert!(app.world().resource::<Selection>().selected.is_none(), "drilling selects nothing");
    click(&mut app, PartNode::Group(g), false);
    assert_eq!(app.world().resource::<DrillDown>().root, None, "back up at the heap");
    assert_eq!(app.world().resource::<TreeParts>().root, 0);
    // "Other" is no place to drill into.
    click(&mut app, PartNode::Other { parent: 0, groups: vec![g] }, false);
    assert_eq!(app.world().resource::<DrillDown>().root, None);
}

#[test]
fn the_drill_down_is_kept_while_time_steps_and_the_step_tweens() {
    let mut app = app();
    let g = branch(&app);
    click(&mut app, PartNode::Group(g), false);
    let now = |app: &App| app.world().resource::<Time<Real>>().elapsed_secs_f64();
    assert!(!app.world().resource::<TreeParts>().local.moving(now(&app) + 0.01), "drilling does not tween");
    go_to(&mut app, 20);
    let parts = app.world().resource::<TreeParts>();
    assert_eq!((parts.root, parts.snapshot), (g, 20));
    assert_eq!(parts.local.to[0].node, PartNode::Group(g));
    assert!(parts.local.moving(now(&app)), "a time step tweens");
    assert!(!parts.local.moving(now(&app) + TWEEN_SECONDS));
    assert_eq!(app.world().resource::<DrillDown>().root, Some(key(&app, g)));
}

#[test]
fn a_click_on_a_leaf_selects_its_group_and_flies_there() {
    let mut app = app();
    let leaf = {
        let (model, parts) = (app.world().resource::<CityModel>(), app.world().resource::<TreeParts>());
        let leaves = groups(&parts.global.to.iter().map(|p| p.node.clone()).collect::<Vec<_>>());
        leaves
            .into_iter()
            .find(|&g| model.timeline.groups[g as usize].is_leaf() && target_of(model, g).is_some())
    };
    let leaf = leaf.expect("a leaf the city shows");
    app.world_mut().write_message(TreeClicked { node: PartNode::Group(leaf), select: false });
    app.update();
    assert_eq!(app.world().resource::<Selection>().selected, Some(key(&app, leaf)));
    let flights: Vec<FlyTo> =
        app.world().resource::<Messages<FlyTo>>().iter_current_update_messages().copied().collect();
    assert!(matches!(flights[..], [FlyTo::Target { target, .. }] if target.group() == leaf), "{flights:?}");
    assert_eq!(app.world().resource::<DrillDown>().root, None, "a leaf is not drilled into");
    // Ctrl+click selects a branch instead of opening it.
    let g = branch(&app);
    click(&mut app, PartNode::Group(g), true);
    assert_eq!(app.world().resource::<Selection>().selected, Some(key(&app, g)));
    assert_eq!(app.world().resource::<DrillDown>().root, None);
}

fn press_v(app: &mut App) -> Vec<ShowTab> {
    let mut cursor = app.world().resource::<Messages<ShowTab>>().get_cursor_current();
    app.world_mut().resource_mut::<ButtonInput<KeyCode>>().press(KeyCode::KeyV);
    app.update();
    let shown = cursor.read(app.world().resource::<Messages<ShowTab>>()).cloned().collect();
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.release(KeyCode::KeyV);
    keys.clear();
    shown
}

fn drawn(app: &mut App, tabs: &[&str]) {
    let tabs = tabs.iter().map(|t| (TabId::new(t), bevy_egui::egui::Rect::ZERO)).collect();
    app.world_mut().resource_mut::<DrawnTabs>().tabs = tabs;
}

#[test]
fn v_switches_city_icicle_sunburst_timeline_unless_a_text_box_has_the_keyboard() {
    let mut app = app();
    *app.world_mut().resource_mut::<TreeKind>() = TreeKind::Sunburst;
    drawn(&mut app, &[CITY]);
    assert_eq!(press_v(&mut app), [ShowTab::named(TREE)]);
    assert_eq!(*app.world().resource::<TreeKind>(), TreeKind::Icicle);
    drawn(&mut app, &[TREE]);
    assert_eq!(press_v(&mut app), [ShowTab::named(TREE)]);
    assert_eq!(*app.world().resource::<TreeKind>(), TreeKind::Sunburst);
    assert_eq!(press_v(&mut app), [ShowTab::named(TREE)]);
    assert_eq!(*app.world().resource::<TreeKind>(), TreeKind::Timeline);
    assert_eq!(press_v(&mut app), [ShowTab::named(CITY)]);
    // With the city beside the tree tab, V goes round the tree views.
    drawn(&mut app, &[CITY, TREE]);
    assert_eq!(press_v(&mut app), [ShowTab::named(TREE)]);
    assert_eq!(*app.world().resource::<TreeKind>(), TreeKind::Icicle);
    app.world_mut().resource_mut::<UiFocus>().keyboard = true;
    drawn(&mut app, &[CITY]);
    assert_eq!(press_v(&mut app), []);
    assert_eq!(*app.world().resource::<TreeKind>(), TreeKind::Icicle);
}

fn pin(app: &mut App, snapshot: usize) {
    app.world_mut().write_message(TogglePin(snapshot));
    app.update();
}

fn shown(app: &App) -> Vec<usize> {
    app.world().resource::<Multiples>().snapshots.clone()
}

#[test]
fn the_timeline_shows_the_pinned_trees_in_time_order_and_always_the_current_one() {
    let mut app = app();
    let leak_start = {
        let model = app.world().resource::<CityModel>();
        let leak = model.windows.iter().find(|w| w.kind == memcity_analysis::windows::WindowKind::Leak);
        leak.expect("the linked list leaks").first
    };
    let opening: std::collections::BTreeSet<usize> = [0, leak_start, 29].into();
    assert_eq!(shown(&app), opening.into_iter().collect::<Vec<_>>(), "the start, the leak's start, now");
    for s in default_pins(app.world().resource::<CityModel>()) {
        pin(&mut app, s);
    }
    assert_eq!(shown(&app), [29], "the current time's tree, nothing pinned");
    pin(&mut app, 20);
    pin(&mut app, 3);
    assert_eq!(shown(&app), [3, 20, 29]);
    go_to(&mut app, 10);
    assert_eq!(shown(&app), [3, 10, 20], "the current one moves with the time, the pins stay");
    pin(&mut app, 20);
    assert_eq!(shown(&app), [3, 10], "a second click unpins");
    pin(&mut app, 10);
    go_to(&mut app, 12);
    assert_eq!(shown(&app), [3, 10, 12], "a pinned current time stays when time moves on");
    let multiples = app.world().resource::<Multiples>();
    let now = app.world().resource::<Time<Real>>().elapsed_secs_f64();
    let model = app.world().resource::<CityModel>();
    for (i, &s) in multiples.snapshots.iter().enumerate() {
        let parts = multiples.parts(i, 0, now + TWEEN_SECONDS);
        assert_eq!(
            parts[0].value, model.timeline.values[s].objects[0],
            "multiple {i} is snapshot {s}'s tree"
        );
    }
}

#[test]
fn the_timeline_trees_are_scaled_to_the_largest_heap_and_follow_the_drill_down() {
    let mut app = app();
    *app.world_mut().resource_mut::<Pinned>() = Pinned { times: [5].into(), chosen: true };
    app.update();
    let (heaps, largest) = {
        let model = app.world().resource::<CityModel>();
        let heaps: Vec<u64> = [5, 29].iter().map(|&s| model.timeline.values[s].objects[0]).collect();
        (heaps, model.timeline.values.iter().map(|v| v.objects[0]).max().unwrap())
    };
    assert!(heaps[0] < heaps[1], "the linked list grows: {heaps:?}");
    let ends = |app: &App| {
        let multiples = app.world().resource::<Multiples>();
        (0..2).map(|i| multiples.parts(i, 0, f64::INFINITY)[0].end).collect::<Vec<f64>>()
    };
    let scaled = ends(&app);
    for (end, heap) in scaled.iter().zip(&heaps) {
        assert!((end - *heap as f64 / largest as f64).abs() < 1e-9, "{scaled:?} {heaps:?} of {largest}");
    }
    app.world_mut().resource_mut::<TreeSettings>().scaled = false;
    app.update();
    assert_eq!(ends(&app), [1.0, 1.0], "unscaled, each tree fills its view");
    let g = branch(&app);
    click(&mut app, PartNode::Group(g), false);
    let multiples = app.world().resource::<Multiples>();
    assert_eq!(multiples.roots, [g]);
    assert!(multiples.parts(0, 0, f64::INFINITY).iter().all(|p| p.depth > 0 || p.node == PartNode::Group(g)));
}

#[test]
fn two_compared_runs_give_each_time_a_pair_of_trees_in_one_order() {
    let history = crate::input::compare::pair("scenario:linked-list", "scenario:linked-list-fixed").unwrap();
    let mut app = crate::app::tests::history_app(history, Settings::default(), |app| {
        app.init_resource::<Selection>().add_plugins(TreesPlugin);
    });
    *app.world_mut().resource_mut::<Pinned>() = Pinned { times: [0].into(), chosen: true };
    app.update();
    let model = app.world().resource::<CityModel>().clone();
    let sides = memcity_model::compare::SIDES.map(|k| model.timeline.group(k).unwrap());
    let multiples = app.world().resource::<Multiples>();
    assert_eq!(multiples.roots, sides, "before and after");
    let last = multiples.snapshots.len() - 1;
    let (before, after) = (multiples.parts(last, 0, f64::INFINITY), multiples.parts(last, 1, f64::INFINITY));
    assert_eq!(before[0].node, PartNode::Group(sides[0]));
    assert_eq!(after[0].node, PartNode::Group(sides[1]));
    // One scale for both: the leaking run's tree is the longer one at the end.
    assert!(before[0].end > after[0].end, "{} vs {}", before[0].end, after[0].end);
    // The same groups in the same places: each run's key, level by level, in order.
    let own = |parts: &[memcity_layout::partition::Part]| -> Vec<String> {
        parts
            .iter()
            .filter(|p| p.depth == 1)
            .filter_map(|p| if let PartNode::Group(g) = p.node { Some(g) } else { None })
            .map(|g| {
                memcity_model::compare::split_key(&model.timeline.groups[g as usize].key)
                    .unwrap()
                    .1
                    .to_string()
            })
            .collect()
    };
    assert!(!own(&before).is_empty());
    assert_eq!(own(&before), own(&after));
    // Drilled into one run's group, the pair is that group and its twin.
    let g = model.timeline.group(&memcity_model::compare::side_key(1, &own(&after)[0])).unwrap();
    click(&mut app, PartNode::Group(g), false);
    let twin = memcity_layout::compare::twins(&model.timeline).unwrap()[g as usize];
    assert_eq!(app.world().resource::<Multiples>().roots, [twin, g]);
}
