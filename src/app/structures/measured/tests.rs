use super::*;

fn linked_list() -> Measured {
    let specs = [crate::input::DEFAULT_INPUT.to_string()];
    measure(&specs, Request::default(), &memcity_structures::builtin(), &[]).expect("the scenario measures")
}

#[test]
fn the_leaking_list_is_the_first_row_by_its_field() {
    let measured = linked_list();
    assert_eq!((measured.from, measured.to), (0, 29));
    let first = &measured.rows[0];
    assert_eq!(first.type_name, "java.util.LinkedList");
    assert_eq!(first.path, "static app.model.Registry.people");
    assert_eq!(first.pattern, "single-ownership container growth");
    assert!(first.hgp[0].is_some_and(|h| h > 50.0), "{:?}", first.hgp);
    assert!(first.objects.1 > first.objects.0 * 10);
    assert_eq!(first.leaves[0].key.type_name, "app.model.Person");
    assert_eq!(first.types, ["app.model.Person", "java.util.LinkedList", "java.util.LinkedList$Node"]);
    assert!(measured.rows.len() <= SHOWN);
    assert_eq!(measured.rows.len(), measured.survived.min(SHOWN));
}

#[test]
fn a_window_and_a_metric_are_measured_as_asked() {
    let request = Request { by: SortBy::Structure, from: Some(3), to: Some(7) };
    let specs = [crate::input::DEFAULT_INPUT.to_string()];
    let measured = measure(&specs, request, &memcity_structures::builtin(), &[]).unwrap();
    assert_eq!((measured.from, measured.to), (3, 7));
    let growths: Vec<i64> = measured.rows.iter().map(|r| r.growth[2]).collect();
    assert!(growths.windows(2).all(|w| w[0] >= w[1]), "ranked by structure growth: {growths:?}");
    let bad = Request { from: Some(99), ..Request::default() };
    let e = measure(&specs, bad, &memcity_structures::builtin(), &[]).unwrap_err().to_string();
    assert!(e.contains("--from 99"), "{e}");
}

#[test]
fn the_groups_of_a_type_are_it_and_all_below_it() {
    let history = crate::input::load(crate::input::DEFAULT_INPUT).unwrap();
    let timeline = Timeline::new(&history);
    let types = ["java.util.LinkedList$Node".to_string()];
    let marked = groups_of_types(&timeline, &types);
    let node = timeline.groups.iter().position(|g| g.name == "java.util.LinkedList$Node").unwrap() as u32;
    assert!(marked[node as usize]);
    let below: Vec<usize> =
        (0..timeline.groups.len()).filter(|&g| timeline.groups[g].parent == Some(node)).collect();
    assert!(!below.is_empty(), "sites below the type");
    assert!(below.iter().all(|&g| marked[g]));
    let person = timeline.groups.iter().position(|g| g.name == "app.model.Person").unwrap();
    assert!(!marked[person], "another type");
    assert_eq!(marked.iter().filter(|m| **m).count(), 1 + below.len());
}

#[test]
fn the_head_stands_for_its_instance_at_its_site() {
    let history = crate::input::load(crate::input::DEFAULT_INPUT).unwrap();
    let timeline = Timeline::new(&history);
    let list = head_group(&timeline, "java.util.LinkedList", Some("app.model.Registry.<clinit>")).unwrap();
    let group = &timeline.groups[list as usize];
    assert_eq!(group.role, "Allocation Site", "the building, not the type's district");
    let parent = &timeline.groups[group.parent.unwrap() as usize];
    assert_eq!(parent.name, "java.util.LinkedList");
    assert_eq!(head_group(&timeline, "no.such.Type", None), None);
}

#[test]
fn a_selected_group_is_held_in_the_leaking_list_by_its_field() {
    let measured = linked_list();
    let history = crate::input::load(crate::input::DEFAULT_INPUT).unwrap();
    let timeline = Timeline::new(&history);
    // An allocation site's building below the Person type.
    let person = timeline.groups.iter().position(|g| g.name == "app.model.Person").unwrap() as u32;
    let site =
        (0..timeline.groups.len() as u32).find(|&g| timeline.groups[g as usize].parent == Some(person));
    let site = site.expect("a site below Person");
    assert_eq!(type_of_group(&timeline, site), Some("app.model.Person"));
    let holders = holders_of(&measured, "app.model.Person");
    let (row, objects) = holders[0];
    assert_eq!(measured.rows[row].path, "static app.model.Registry.people");
    assert!(objects > 0 && holders.windows(2).all(|w| w[0].1 >= w[1].1), "{holders:?}");
    assert!(holders_of(&measured, "no.such.Type").is_empty());
}
