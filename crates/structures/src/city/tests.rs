use memcity_heapgraph::{
    AnalysisOptions, EdgeLabels, Grouper, Label, OUTSIDE, OUTSIDE_KEY, RootKind, TypedHeap, TypedSnapshot,
    parse_list, reachable, root_sets,
};

use super::*;
use crate::detect::tests::Builder;
use crate::lang::builtin;

/// The objects of [`registry`] the tests look at.
struct Registry {
    heap: TypedHeap,
    map: u32,
    map_table: u32,
    map_person: u32,
    map_key: u32,
    set: u32,
    inner_map: u32,
    set_person: u32,
    loner: u32,
    shared: u32,
}

/// A class `app.Registry` (a static root) whose field `people` is a HashMap of 2 Persons under
/// String keys, whose field `members` is a HashSet (its inner HashMap holding 3 Persons), and
/// whose field `boss` is a Person in no structure; one more Person is held by the map and by a
/// list of `app.Team.all` at once. The map's Persons are allocated at `Registry.add`.
fn registry() -> Registry {
    let mut b = Builder::new();
    let class = b.object("java.lang.Class", 0, &[]);
    let team = b.object("java.lang.Class", 0, &[]);
    let map_person = b.object("app.Person", 24, &[]);
    let other_person = b.object("app.Person", 24, &[]);
    let shared = b.object("app.Person", 24, &[]);
    let map_key = b.object("java.lang.String", 24, &[]);
    let second_key = b.object("java.lang.String", 24, &[]);
    let third_key = b.object("java.lang.String", 24, &[]);
    let node3 = b.object("java.util.HashMap$Node", 32, &[third_key, shared]);
    let node2 = b.object("java.util.HashMap$Node", 32, &[second_key, other_person, node3]);
    let node1 = b.object("java.util.HashMap$Node", 32, &[map_key, map_person]);
    let map_table = b.object("java.util.HashMap$Node[]", 32, &[node1, node2]);
    let map = b.object("java.util.HashMap", 48, &[map_table]);
    let people: Vec<u32> = (0..3).map(|_| b.object("app.Person", 24, &[])).collect();
    let nodes: Vec<u32> = people.iter().map(|&p| b.object("java.util.HashMap$Node", 32, &[p])).collect();
    let set_table = b.object("java.util.HashMap$Node[]", 32, &nodes);
    let inner_map = b.object("java.util.HashMap", 48, &[set_table]);
    let set = b.object("java.util.HashSet", 16, &[inner_map]);
    let loner = b.object("app.Person", 24, &[]);
    let array = b.object("java.lang.Object[]", 24, &[shared]);
    let list = b.object("java.util.ArrayList", 24, &[array]);
    // The class's fields, in this order: edges 0, 1, 2; the team's list: edge 3.
    for target in [map, set, loner] {
        b.point(class, target);
    }
    b.point(team, list);
    let mut heap = b.heap();
    let n = heap.graph.object_count();
    // Object 0, the class, is the builder's root; the team's class is one too.
    heap.graph.roots = vec![class, team];
    let objects = &mut heap.objects;
    objects.root_names = vec![(class, "class app.Registry".into()), (team, "class app.Team".into())];
    objects.root_kinds = vec![(class, RootKind::StickyClass), (team, RootKind::StickyClass)];
    let mut of_edge = vec![Label::NONE; heap.graph.edges.len()];
    for (edge, name) in (0..4).zip(0..) {
        of_edge[edge] = Label::field(name);
    }
    objects.labels = EdgeLabels {
        names: ["people", "members", "boss", "all"].map(String::from).to_vec(),
        of_edge: of_edge.into(),
    };
    objects.sites = vec!["app.Registry.add".into(), "app.Registry.<clinit>".into()];
    objects.site_of = vec![memcity_heapgraph::NO_SITE; n].into();
    objects.site_of[map_person as usize] = 0;
    objects.site_of[other_person as usize] = 0;
    objects.site_of[map as usize] = 1;
    objects.site_of[set as usize] = 1;
    Registry {
        heap,
        map,
        map_table,
        map_person,
        map_key,
        set,
        inner_map,
        set_person: people[0],
        loner,
        shared,
    }
}

const MAP: &str = "java.util.HashMap static app.Registry.people";
const SET: &str = "java.util.HashSet static app.Registry.members";

/// Every object's leaf key, grouped by `classifiers` keeping `keep`.
fn keys(r: &mut Registry, classifiers: &str, keep: Keep) -> Vec<String> {
    let structures = detect(&r.heap, &builtin());
    let membership = Membership::of(&r.heap, &structures);
    let roots = root_sets(r.heap.graph.object_count(), r.heap.objects.root_kinds.iter().copied());
    let live = reachable(&r.heap.graph);
    let mut grouper = Grouper::new(parse_list(classifiers).unwrap());
    regroup(&mut r.heap, &roots, &live, &membership, keep, &mut grouper);
    r.heap.graph.group.iter().map(|g| grouper.leaf_key(g)).collect()
}

#[test]
fn objects_are_grouped_by_their_top_level_structure_and_role() {
    let mut r = registry();
    let keys = keys(&mut r, "containing-structure,leaf,type", Keep::All);
    let key = |top: &str, role: &str, ty: &str| {
        format!("Heap#Containing Structure:{top}#Role in Structure:{role}#Type:{ty}")
    };
    // The map: its leaves by type apart from its own head, table and nodes.
    assert_eq!(keys[r.map_person as usize], key(MAP, "leaves", "app.Person"));
    assert_eq!(keys[r.map_key as usize], key(MAP, "leaves", "java.lang.String"));
    assert_eq!(keys[r.map as usize], key(MAP, "structure", "java.util.HashMap"));
    assert_eq!(keys[r.map_table as usize], key(MAP, "structure", "java.util.HashMap$Node[]"));
    // Nested: the set's elements belong to the set, and are leaves of its inner map; the inner
    // map is part of the set's structure.
    assert_eq!(keys[r.set_person as usize], key(SET, "leaves", "app.Person"));
    assert_eq!(keys[r.inner_map as usize], key(SET, "structure", "java.util.HashMap"));
    assert_eq!(keys[r.set as usize], key(SET, "structure", "java.util.HashSet"));
    // Outside every structure, and shared by two top-level ones.
    let none = "(in no structure)";
    assert_eq!(keys[r.loner as usize], key(none, none, "app.Person"));
    assert_eq!(keys[0], key(none, none, "java.lang.Class"));
    assert_eq!(keys[r.shared as usize], key(IN_SEVERAL_STRUCTURES, "leaves", "app.Person"));
}

#[test]
fn the_view_keeps_only_the_heads_of_top_level_structures() {
    let mut r = registry();
    let keys = keys(&mut r, "type,containing-structure", Keep::TopLevelHeads);
    let kept: Vec<usize> = (0..keys.len()).filter(|&o| keys[o] != OUTSIDE_KEY).collect();
    let list = (0..keys.len()).find(|&o| keys[o].contains("ArrayList")).expect("the list is kept");
    let mut want = vec![r.map as usize, r.set as usize, list];
    want.sort();
    assert_eq!(kept, want, "the set's inner map, parts, leaves and the rest are outside: {keys:?}");
    assert_eq!(keys[r.map as usize], format!("Heap#Type:java.util.HashMap#Containing Structure:{MAP}"));
    assert_eq!(
        keys[list],
        "Heap#Type:java.util.ArrayList#Containing Structure:java.util.ArrayList static app.Team.all"
    );
    assert_eq!(r.heap.graph.group[r.inner_map as usize], OUTSIDE);
    let keys = self::keys(&mut registry(), "type,allocation-site", Keep::TopLevelHeads);
    assert_eq!(keys[r.map as usize], "Heap#Type:java.util.HashMap#Allocation Site:app.Registry.<clinit>");
}

#[test]
fn the_view_city_shows_each_structure_with_what_its_head_retains() {
    let r = registry();
    let snapshot = |index: usize, heap: TypedHeap| TypedSnapshot {
        index,
        time_ms: index as u64 * 10,
        reachable_bytes: 0,
        label: format!("GC #{index}"),
        metrics: Default::default(),
        heap,
    };
    let mut city = CityBuilder::view(View::Identity, AnalysisOptions::default(), builtin());
    city.add(snapshot(0, r.heap.clone()));
    city.add(snapshot(1, r.heap.clone()));
    let history = city.history();
    assert_eq!(history.snapshots.len(), 2);
    let s = &history.snapshots[1];
    assert_eq!(s.label.as_deref(), Some("GC #1"));
    let map_key = format!("Heap#Type:java.util.HashMap#Containing Structure:{MAP}");
    let mut buildings = Vec::new();
    s.tree.walk(&mut |n, _| {
        if n.children.is_empty() {
            buildings.push((n.key.clone(), n.objects, n.bytes, n.retained_bytes));
        }
    });
    // One building per top-level structure: the map, the set and the team's list.
    assert_eq!(buildings.len(), 3, "{buildings:?}");
    let map = buildings.iter().find(|b| b.0 == map_key).expect("the map's building");
    // Its head alone, retaining its table, nodes, keys and own Persons (not the shared one).
    assert_eq!((map.1, map.2), (1, 48));
    assert_eq!(map.3, Some(48 + 32 + 3 * 32 + 3 * 24 + 2 * 24));
    // The whole heap still counts, and the map's path names its holder.
    let heap_bytes: u64 = r.heap.graph.shallow.iter().sum();
    assert_eq!(s.heap.as_ref().and_then(|h| h.reachable_bytes), Some(heap_bytes));
    let path = &s.retainers[&map_key];
    assert_eq!(path.roots, ["Sticky Class class app.Registry"]);
    assert!(s.retainers.keys().all(|k| k != OUTSIDE_KEY));
}

#[test]
fn classifiers_typed_heaps_lack_are_refused_by_name() {
    let refused = |list: &str| check(&parse_list(list).unwrap()).unwrap_err().to_string();
    assert_eq!(
        refused("containing-structure,thread"),
        "classifier `thread` cannot be combined with data structures: typed heaps carry no threads"
    );
    assert!(refused("leaf,allocation-site:2").contains("`allocation-site:2`"));
    assert!(refused("leaf,node-type").contains("`node-type`"));
    assert!(
        check(&parse_list("package,type,allocation-site,root-kind,leaf,containing-structure").unwrap())
            .is_ok()
    );
    let grouping = Grouping::new(parse_list("leaf,age").unwrap());
    assert!(CityBuilder::new(grouping, Keep::All, builtin()).is_err());
}

#[test]
fn holders_are_named_without_the_kind_the_table_writes_in_front() {
    let objects = ObjectTable {
        root_names: vec![(0, "static app.Registry.people".into()), (1, "local variable main.args".into())],
        ..ObjectTable::default()
    };
    let roots = root_sets(3, [(0, RootKind::Static), (1, RootKind::Local), (2, RootKind::Local)]);
    assert_eq!(holder_name(&objects, &roots, 0).as_deref(), Some("app.Registry.people"));
    assert_eq!(holder_name(&objects, &roots, 1).as_deref(), Some("main.args"));
    assert_eq!(holder_name(&objects, &roots, 2), None);
}
