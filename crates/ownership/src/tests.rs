use memcity_heapgraph::{EdgeLabels, HeapGraph, Label, ObjectTable, ObjectType, TypeKind, TypedHeap};
use memcity_structures::builtin;

use super::*;

/// A heap built object by object; `root(o)` makes `o` a GC root.
#[derive(Default)]
pub(crate) struct Builder {
    types: Vec<ObjectType>,
    objects: Vec<(u32, u64, Vec<u32>)>,
    roots: Vec<u32>,
    root_names: Vec<(u32, String)>,
    ids: Vec<u64>,
}

impl Builder {
    pub(crate) fn object(&mut self, name: &str, size: u64, referents: &[u32]) -> u32 {
        let kind = match name {
            _ if name == "byte[]" || name == "char[]" => TypeKind::PrimitiveArray,
            _ if name.ends_with("[]") => TypeKind::ReferenceArray,
            _ => TypeKind::Instance,
        };
        let t = self.types.iter().position(|t| t.name == name).unwrap_or_else(|| {
            self.types.push(ObjectType { name: name.into(), kind });
            self.types.len() - 1
        });
        self.objects.push((t as u32, size, referents.to_vec()));
        self.ids.push(self.ids.len() as u64 + 1000);
        (self.objects.len() - 1) as u32
    }

    pub(crate) fn point(&mut self, from: u32, to: u32) {
        self.objects[from as usize].2.push(to);
    }

    pub(crate) fn root(&mut self, o: u32, name: Option<&str>) {
        self.roots.push(o);
        if let Some(name) = name {
            self.root_names.push((o, name.into()));
        }
    }

    pub(crate) fn heap(&self) -> TypedHeap {
        let mut edge_start = vec![0];
        let mut edges = Vec::new();
        for (_, _, r) in &self.objects {
            edges.extend(r);
            edge_start.push(edges.len() as u32);
        }
        let n = self.objects.len();
        let graph = HeapGraph {
            group: vec![0; n].into(),
            shallow: self.objects.iter().map(|o| o.1).collect::<Vec<_>>().into(),
            edge_start: edge_start.into(),
            edges: edges.into(),
            roots: self.roots.clone(),
        };
        let mut root_names = self.root_names.clone();
        root_names.sort();
        let objects = ObjectTable {
            types: self.types.clone(),
            type_of: self.objects.iter().map(|o| o.0).collect(),
            identity: self.ids.clone().into(),
            identity_stable: true,
            root_names,
            ..ObjectTable::default()
        };
        TypedHeap { graph, objects, tree: None }
    }
}

/// A HashMap with one table holding `values` through one node each.
fn hash_map(b: &mut Builder, values: &[u32]) -> u32 {
    let nodes: Vec<u32> = values.iter().map(|&v| b.object("java.util.HashMap$Node", 32, &[v])).collect();
    let table = b.object("java.util.HashMap$Node[]", 16 + 4 * values.len() as u64, &nodes);
    b.object("java.util.HashMap", 48, &[table])
}

/// Tomcat's shape: a manager (a static) holds a map of sessions, each session a map of
/// attributes and a reference back to its manager.
pub(crate) fn sessions(b: &mut Builder, count: usize) -> u32 {
    let manager = b.object("app.SessionManager", 24, &[]);
    let mut held = Vec::new();
    for i in 0..count {
        let value = b.object("java.lang.String", 24, &[]);
        let chars = b.object("byte[]", 40 + i as u64, &[]);
        b.point(value, chars);
        let attributes = hash_map(b, &[value]);
        held.push(b.object("app.Session", 40, &[attributes, manager]));
    }
    let map = hash_map(b, &held);
    b.point(manager, map);
    manager
}

pub(crate) fn own(heap: &TypedHeap) -> Ownership {
    ownership(heap, &builtin(), &Options::default())
}

/// Every node owns its self bytes plus its children's; the root the reachable heap; the
/// copies of a class node share it whole.
pub(crate) fn assert_conserved(own: &Ownership) {
    for (t, node) in own.tree.iter().enumerate() {
        let children: u64 = node.children.iter().map(|&c| own.tree[c as usize].owned_bytes).sum();
        assert_eq!(node.owned_bytes, node.self_bytes + children, "tree node {t}");
        for &c in &node.children {
            assert_eq!(own.tree[c as usize].parent, Some(t as u32));
        }
    }
    assert_eq!(own.tree[0].owned_bytes, own.heap_bytes);
    let mut fractions = vec![0.0; own.classes.len()];
    for node in &own.tree {
        fractions[node.class as usize] += node.fraction;
    }
    for (c, f) in fractions.iter().enumerate().skip(1) {
        assert!((f - 1.0).abs() < 1e-9, "class {c} ({}): fractions sum to {f}", own.classes[c].name);
    }
}

pub(crate) fn find(own: &Ownership, full_name: &str) -> Vec<u32> {
    (0..own.tree.len() as u32).filter(|&t| own.class_of(t).full_name() == full_name).collect()
}

#[test]
fn collections_split_by_their_referrer_and_the_managers_map_owns_the_sessions() {
    let mut b = Builder::default();
    let manager = sessions(&mut b, 3);
    b.root(manager, Some("static app.Registry.manager"));
    let heap = b.heap();
    let own = own(&heap);
    assert_conserved(&own);
    let manager_map = find(&own, "java.util.HashMap in app.SessionManager");
    let session_maps = find(&own, "java.util.HashMap in app.Session");
    assert_eq!((manager_map.len(), session_maps.len()), (1, 1), "one node each: {:#?}", own.classes);
    let t = &own.tree[manager_map[0] as usize];
    let sessions = &own.tree[t.children[0] as usize];
    assert_eq!(own.classes[sessions.class as usize].name, "java.util.HashMap$Node[]");
    assert_eq!(
        own.classes[sessions.class as usize].referrer.as_deref(),
        Some("java.util.HashMap in app.SessionManager")
    );
    let session = find(&own, "app.Session");
    assert_eq!(session.len(), 1);
    assert_eq!(own.tree[session[0] as usize].objects, 3);
    // The session map's node lies under the session, which lies under the manager's map.
    let mut at = session_maps[0];
    let mut above = Vec::new();
    while let Some(p) = own.tree[at as usize].parent {
        above.push(own.class_of(p).full_name());
        at = p;
    }
    assert!(above.contains(&"app.Session".to_string()), "{above:?}");
    assert!(above.contains(&"java.util.HashMap in app.SessionManager".to_string()), "{above:?}");
    // The session's reference to its manager is to its owner: no cycle.
    assert!(own.classes.iter().all(|c| c.kind != Kind::Cycle), "{:#?}", own.classes);
    assert_eq!(own.tree[0].children.len(), 1);
    assert_eq!(own.class_of(own.tree[0].children[0]).name, "app.SessionManager");
}

#[test]
fn a_linked_lists_nodes_are_a_cycle_of_its_parts() {
    let mut b = Builder::default();
    let list = b.object("java.util.LinkedList", 32, &[]);
    let mut previous: Option<u32> = None;
    for _ in 0..4 {
        let person = b.object("app.Person", 24, &[]);
        let node = b.object("java.util.LinkedList$Node", 24, &[person]);
        match previous {
            None => b.point(list, node),
            Some(p) => {
                b.point(p, node);
                b.point(node, p);
            }
        }
        previous = Some(node);
    }
    b.point(list, previous.unwrap());
    b.root(list, Some("static app.Registry.people"));
    let own = own(&b.heap());
    assert_conserved(&own);
    let cycle = own.classes.iter().find(|c| c.kind == Kind::Cycle).expect("a cycle");
    assert_eq!(cycle.name, "cycle of java.util.LinkedList$Node");
    assert_eq!(
        cycle.members,
        ["java.util.LinkedList$Node in java.util.LinkedList in static app.Registry.people"]
    );
    assert_eq!((cycle.objects, cycle.self_bytes, cycle.owned_bytes), (4, 96, 96 + 96));
    let list = &own.classes[own.tree[own.tree[0].children[0] as usize].class as usize];
    assert_eq!(list.full_name(), "java.util.LinkedList in static app.Registry.people");
    assert_eq!(list.kind, Kind::Collection);
}

#[test]
fn a_class_owned_by_two_is_split_by_what_each_dominates() {
    let mut b = Builder::default();
    let root = b.object("app.Root", 8, &[]);
    b.root(root, None);
    // Two A objects own one Data each (100 bytes), one B owns two (200 bytes), and one Data
    // is held by an A and a B, so the root dominates it.
    for _ in 0..2 {
        let data = b.object("app.Data", 100, &[]);
        let a = b.object("app.A", 10, &[data]);
        b.point(root, a);
    }
    let d1 = b.object("app.Data", 100, &[]);
    let d2 = b.object("app.Data", 100, &[]);
    let bee = b.object("app.B", 10, &[d1, d2]);
    b.point(root, bee);
    let shared = b.object("app.Data", 100, &[]);
    b.point(root, shared);
    let own = own(&b.heap());
    assert_conserved(&own);
    let copies = find(&own, "app.Data");
    assert_eq!(copies.len(), 3, "under A, under B and under Root");
    let under = |parent: &str| {
        copies
            .iter()
            .map(|&t| &own.tree[t as usize])
            .find(|n| own.class_of(n.parent.unwrap()).name == parent)
            .unwrap()
    };
    assert_eq!(under("app.A").owned_bytes, 200);
    assert_eq!(under("app.B").owned_bytes, 200);
    assert_eq!(under("app.Root").owned_bytes, 100);
    assert!((under("app.A").fraction - 0.4).abs() < 1e-9);
    assert!((under("app.Root").fraction - 0.2).abs() < 1e-9);
    let data = &own.classes[own.tree[copies[0] as usize].class as usize];
    assert_eq!(data.owned_bytes, 500);
    let parents: Vec<(&str, u64)> =
        data.parents.iter().map(|&(p, bytes)| (own.classes[p as usize].name.as_str(), bytes)).collect();
    assert_eq!(parents[2], ("app.Root", 100));
    assert_eq!(parents.iter().map(|p| p.1).sum::<u64>(), 500);
    assert_eq!(own.heap_bytes, 8 + 20 + 10 + 500);
}

#[test]
fn classes_holding_each_other_collapse_into_one_cycle() {
    let mut b = Builder::default();
    // Folder → File → Folder (a file system tree: folders hold files holding folders); the
    // files' references to a sibling folder are not to their owner.
    let top = b.object("app.Folder", 16, &[]);
    b.root(top, None);
    let mut folder = top;
    let mut previous_file = None;
    for _ in 0..3 {
        let file = b.object("app.File", 8, &[]);
        let inner = b.object("app.Folder", 16, &[]);
        b.point(folder, file);
        b.point(file, inner);
        if let Some(f) = previous_file {
            b.point(f, inner);
        }
        previous_file = Some(file);
        folder = inner;
    }
    let own = own(&b.heap());
    assert_conserved(&own);
    let cycles: Vec<&ClassNode> = own.classes.iter().filter(|c| c.kind == Kind::Cycle).collect();
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].members, ["app.File", "app.Folder"]);
    assert_eq!(cycles[0].objects, 7);
    assert_eq!(own.tree.len(), 2, "the root and the cycle: {:#?}", own.tree);
}

#[test]
fn large_arrays_and_strings_are_pseudo_classes() {
    let mut b = Builder::default();
    let big_chars = b.object("byte[]", 1 << 20, &[]);
    let big = b.object("java.lang.String", 24, &[big_chars]);
    let small_chars = b.object("byte[]", 64, &[]);
    let small = b.object("java.lang.String", 24, &[small_chars]);
    let buffer = b.object("byte[]", 300 << 10, &[]);
    let holder = b.object("app.Holder", 16, &[big, small, buffer]);
    b.root(holder, None);
    let own = ownership(&b.heap(), &builtin(), &Options { large_bytes: 256 << 10 });
    assert_conserved(&own);
    let named = |name: &str| own.classes.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}"));
    let string = named("large java.lang.String");
    assert_eq!((string.kind, string.objects, string.self_bytes), (Kind::Pseudo, 2, 24 + (1 << 20)));
    assert_eq!(named("large byte[]").self_bytes, 300 << 10);
    assert_eq!(named("java.lang.String").self_bytes, 24);
    assert_eq!(named("byte[]").self_bytes, 64, "the small string's characters stay plain");
    let none = ownership(&b.heap(), &builtin(), &Options { large_bytes: u64::MAX });
    assert!(none.classes.iter().all(|c| c.kind != Kind::Pseudo));
}

#[test]
fn an_objects_own_storage_is_the_objects_and_splits_what_it_holds_by_the_object() {
    // Python: a session's attribute dict (an empty-named reference) holds its roles list.
    let mut b = Builder::default();
    let roles = b.object("builtins.list", 56, &[]);
    let attributes = b.object("builtins.dict (attributes)", 100, &[roles]);
    let session = b.object("__main__.Session", 48, &[attributes]);
    b.root(session, None);
    let mut heap = b.heap();
    heap.objects.labels = EdgeLabels {
        names: vec![String::new(), "roles".into()],
        of_edge: vec![Label::field(1), Label::field(0)].into(),
    };
    let own = own(&heap);
    assert_conserved(&own);
    let session = &own.tree[1];
    assert_eq!(own.class_of(1).name, "__main__.Session");
    assert_eq!((session.objects, session.self_bytes), (2, 148), "the attribute dict is the session's");
    assert_eq!(own.class_of(session.children[0]).full_name(), "builtins.list in __main__.Session");
}

#[test]
fn unreachable_objects_are_nobodys() {
    let mut b = Builder::default();
    let kept = b.object("app.Kept", 10, &[]);
    let _lost = b.object("app.Lost", 1000, &[]);
    b.root(kept, None);
    let own = own(&b.heap());
    assert_eq!(own.heap_bytes, 10);
    assert!(own.classes.iter().all(|c| c.name != "app.Lost"));
}

#[test]
fn nodes_under_the_share_are_hidden_with_their_subtrees() {
    let mut b = Builder::default();
    let manager = sessions(&mut b, 3);
    b.root(manager, None);
    let own = own(&b.heap());
    assert!(visible(&own, 0.0).iter().all(|&v| v));
    let shown = visible(&own, 0.5);
    assert!(shown[0]);
    for (t, node) in own.tree.iter().enumerate().skip(1) {
        let parent_shown = shown[node.parent.unwrap() as usize];
        assert_eq!(shown[t], parent_shown && node.owned_bytes * 2 >= own.heap_bytes, "{t}");
    }
    assert!(shown.iter().any(|&v| !v));
}
