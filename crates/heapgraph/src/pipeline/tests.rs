use super::*;
use crate::classify::parse_list;
use crate::roots::{RootKind, root_sets};

/// root(Static) → list(L) → node(N) → node(N) → person(P) ×2; a shared String(S) held by both
/// persons; a Local-rooted Temp(T); garbage G.
fn heap() -> (HeapGraph, Vec<RootSet>, Grouper) {
    example("type", ["L", "N", "P", "S", "T", "G"])
}

/// [`heap`] grouped by `classifiers`, its six types named `types`.
pub(super) fn example(classifiers: &str, types: [&str; 6]) -> (HeapGraph, Vec<RootSet>, Grouper) {
    let mut grouper = Grouper::new(parse_list(classifiers).unwrap());
    let mut leaf = |t: &str| grouper.leaf(&ObjectFacts { type_name: t, ..Default::default() });
    let [l, n, p, s, t, g] = types.map(&mut leaf);
    // objects:   0  1  2  3  4  5  6  7
    let group = vec![l, n, n, p, p, s, t, g];
    let refs: [&[u32]; 8] = [&[1], &[2, 3], &[4], &[5], &[5], &[], &[], &[0]];
    let mut edge_start = vec![0];
    let mut edges = Vec::new();
    for r in refs {
        edges.extend_from_slice(r);
        edge_start.push(edges.len() as u32);
    }
    let graph = HeapGraph {
        group: group.into(),
        shallow: vec![10, 20, 20, 30, 30, 40, 50, 60].into(),
        edge_start: edge_start.into(),
        edges: edges.into(),
        roots: vec![0, 6],
    };
    let roots = root_sets(8, [(0, RootKind::Static), (6, RootKind::Local)]);
    (graph, roots, grouper)
}

#[test]
fn counts_retained_closure_and_paths_per_group() {
    let (g, roots, grouper) = heap();
    let live = crate::reachable(&g);
    let options = AnalysisOptions { retained: Retained::Closure, ..AnalysisOptions::default() };
    let holder = |o: u32| (o == 0).then(|| "App.list".to_string());
    let grouped = group_heap_named(&g, grouper.group_count(), &live, &roots, &holder, &options);
    let group = |t: &str| grouper.group_of_key(&format!("Heap#Type:{t}")).unwrap() as usize;
    let c = |t: &str| grouped.counts[group(t)];
    assert_eq!((c("N").objects, c("N").bytes), (2, 40));
    assert_eq!(c("G").objects, 0, "garbage is not counted");
    assert_eq!(grouped.reachable_bytes, 200);
    // The two persons share the string: neither dominates it, the group's closure frees it.
    assert_eq!((c("P").retained, c("P").closure), (Some(60), Some(100)));
    assert_eq!(c("N").retained, Some(140));
    assert_eq!(c("L").retained, Some(150));
    let path = grouped.paths[group("S")].as_ref().unwrap();
    let steps: Vec<u32> = path.steps.iter().map(|s| s.group).collect();
    assert_eq!(steps, [group("S"), group("N"), group("L")].map(|g| g as u32));
    assert_eq!(path.roots, ["Static Field App.list"]);
    assert_eq!(grouped.paths[group("T")].as_ref().unwrap().roots, ["Local Variable"]);
    assert!(grouped.paths[group("G")].is_none());
    assert!(grouped.maps.as_ref().unwrap().points_to[group("P")].contains_key(&(group("S") as u32)));
}

#[test]
fn snapshots_carry_keyed_paths_that_validate() {
    let (g, roots, grouper) = heap();
    let live = crate::reachable(&g);
    let grouped = group_heap(&g, grouper.group_count(), &live, &roots, &AnalysisOptions::default());
    let snapshot = grouper.snapshot(&grouped, SnapshotInfo { time_ms: 5, ..SnapshotInfo::default() });
    let path = &snapshot.retainers["Heap#Type:S"];
    assert_eq!(
        path.steps.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(),
        ["Heap#Type:S", "Heap#Type:N", "Heap#Type:L"]
    );
    assert_eq!(path.roots, ["Static Field"]);
    let history = memcity_model::History {
        format: memcity_model::FORMAT.into(),
        metric_names: Default::default(),
        snapshots: vec![snapshot],
    };
    memcity_model::validate_history(&history, &|_| "t".into(), &|_| "s".into()).unwrap();
}

#[test]
fn objects_outside_the_city_count_for_the_heap_but_have_no_building() {
    // The list and its nodes outside: the persons keep their building and what they retain.
    let (mut g, roots, grouper) = heap();
    g.group.as_mut_slice()[..3].fill(crate::OUTSIDE);
    let live = crate::reachable(&g);
    let grouped = group_heap(&g, grouper.group_count(), &live, &roots, &AnalysisOptions::default());
    assert_eq!(grouped.reachable_bytes, 200);
    let snapshot = grouper.snapshot(&grouped, SnapshotInfo::default());
    let mut keys = Vec::new();
    snapshot.tree.walk(&mut |n, _| keys.push(n.key.clone()));
    assert_eq!(keys, ["Heap", "Heap#Type:P", "Heap#Type:S", "Heap#Type:T"]);
    assert_eq!(snapshot.tree.children[0].retained_bytes, Some(60));
    // The path folds the steps outside the city into the persons' own.
    let path = &snapshot.retainers["Heap#Type:S"];
    let steps: Vec<&str> = path.steps.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(steps, ["Heap#Type:S"]);
    assert_eq!(path.roots, ["Static Field"]);
    assert!(!snapshot.retainers.contains_key(crate::OUTSIDE_KEY));
    let history = memcity_model::History {
        format: memcity_model::FORMAT.into(),
        metric_names: Default::default(),
        snapshots: vec![snapshot.clone()],
    };
    memcity_model::validate_history(&history, &|_| "t".into(), &|_| "s".into()).unwrap();
    let maps = [&snapshot.points_to, &snapshot.pointed_from];
    assert!(
        maps.iter()
            .all(|m| m.iter().all(|(k, v)| k != crate::OUTSIDE_KEY && !v.contains_key(crate::OUTSIDE_KEY)))
    );
    assert!(snapshot.points_to["Heap#Type:P"].contains_key("Heap#Type:S"));
}

#[test]
fn steps_outside_the_city_are_read_through() {
    let (mut g, roots, grouper) = heap();
    g.group.as_mut_slice()[..3].fill(crate::OUTSIDE);
    let live = crate::reachable(&g);
    let names = |from: u32, to: u32| Some(format!(".f{from}{to}"));
    let holder = |o: u32| (o == 0).then(|| "class App".to_string());
    let grouped = group_heap_labelled(
        &g,
        grouper.group_count(),
        &live,
        &roots,
        &holder,
        PathNames::Namer(&names),
        &AnalysisOptions::default(),
    );
    let snapshot = grouper.snapshot(&grouped, SnapshotInfo::default());
    let path = &snapshot.retainers["Heap#Type:P"];
    assert_eq!(path.steps.len(), 1);
    // The list (0) and the nodes (1, 2) are outside: the via of the persons' representative (3)
    // reads through them, the class and its field as the static field.
    assert_eq!(path.steps[0].via.as_deref(), Some("static App.f01 .f13"));
    assert_eq!(through(None, Some(".x".into())).as_deref(), Some(".x"));
    assert_eq!(through(Some("global".into()), Some(".x".into())).as_deref(), Some("global .x"));
}

#[test]
fn without_retained_nothing_needs_a_dominator_tree() {
    let (g, roots, grouper) = heap();
    let live = crate::reachable(&g);
    let options = AnalysisOptions { pointer_maps: false, retained: Retained::None, retainer_paths: false };
    let grouped = group_heap(&g, grouper.group_count(), &live, &roots, &options);
    assert!(grouped.counts.iter().all(|c| c.retained.is_none() && c.closure.is_none()));
    assert!(grouped.paths.iter().all(Option::is_none) && grouped.maps.is_none());
}

#[test]
fn root_labels_name_holders_and_cap_the_list() {
    let roots = vec![
        RootSet::NONE,
        [RootKind::Jni].into_iter().collect(),
        RootSet::NONE,
        RootSet::NONE,
        RootSet::NONE,
    ];
    let named = |o: u32| (o >= 2).then(|| format!("class C{o}"));
    assert_eq!(
        root_labels(&[0, 1, 2, 3, 4], &RootKinds { records: &roots, held: &[] }, &named),
        ["several roots", "JNI Global", "class C2, held by several roots", "and 2 more"]
    );
}

#[test]
fn an_owned_graph_gives_the_same_result() {
    let (g, roots, grouper) = heap();
    let live = crate::reachable(&g);
    for retained in [Retained::None, Retained::Dominated, Retained::Closure] {
        for (pointer_maps, retainer_paths) in [(true, true), (false, true), (true, false), (false, false)] {
            let options = AnalysisOptions { pointer_maps, retained, retainer_paths };
            let holder = |o: u32| (o == 0).then(|| "App.list".to_string());
            let borrowed = group_heap_named(&g, grouper.group_count(), &live, &roots, &holder, &options);
            let owned = group_heap_owned(g.clone(), grouper.group_count(), &live, &roots, &holder, &options);
            assert_eq!(owned, borrowed, "{options:?}");
            assert_eq!(borrowed.maps.is_some(), pointer_maps);
            assert_eq!(borrowed.paths.iter().any(Option::is_some), retainer_paths);
        }
    }
}

#[test]
fn every_objects_retained_size_comes_from_the_groups_own_tree() {
    let (g, roots, grouper) = heap();
    let live = crate::reachable(&g);
    let holder = |o: u32| (o == 0).then(|| "App.list".to_string());
    let tree = crate::dominators(&g);
    // Whatever the groups need, the tree is built when object sizes are asked for.
    for retained in [Retained::None, Retained::Dominated] {
        for retainer_paths in [false, true] {
            let options = AnalysisOptions { pointer_maps: true, retained, retainer_paths };
            let alone = group_heap_named(&g, grouper.group_count(), &live, &roots, &holder, &options);
            let n = grouper.group_count();
            let (grouped, per_object, none) = group_heap_inspected(
                &g,
                TreeSource::Build,
                true,
                n,
                &live,
                &roots,
                &holder,
                &options,
                &Silent,
            );
            assert_eq!(grouped, alone, "{options:?}");
            assert_eq!(per_object, tree.retained.to_vec(), "{options:?}");
            assert!(none.is_none());
            // From the tree as known: the same; kept when asked for.
            let known = TreeSource::Known(tree.clone());
            let (grouped, per_object, _) =
                group_heap_inspected(&g, known, true, n, &live, &roots, &holder, &options, &Silent);
            assert_eq!((grouped, per_object), (alone.clone(), tree.retained.to_vec()), "{options:?}");
            let keep = TreeSource::BuildAndKeep;
            let (_, _, kept) =
                group_heap_inspected(&g, keep, false, n, &live, &roots, &holder, &options, &Silent);
            assert_eq!(kept.as_ref(), (retained != Retained::None || retainer_paths).then_some(&tree));
        }
    }
    // The list retains its nodes, people and their shared String; garbage retains nothing.
    assert_eq!(tree.retained[0], 10 + 20 + 20 + 30 + 30 + 40);
    assert_eq!(tree.retained[7], 0);
}

/// The references of `heap()`, named: 0 .head→ 1 .next→ 2; 1 .item→ 3; 2 .item→ 4; 3, 4 .name→ 5.
fn labels() -> crate::objects::EdgeLabels {
    use crate::objects::Label;
    crate::objects::EdgeLabels {
        names: vec!["head".into(), "next".into(), "item".into(), "name".into()],
        of_edge: vec![
            Label::field(0),
            Label::field(1),
            Label::field(2),
            Label::field(2),
            Label::field(3),
            Label::field(3),
        ]
        .into(),
    }
}

#[test]
fn paths_name_the_references_between_their_steps() {
    let (g, roots, grouper) = heap();
    let live = crate::reachable(&g);
    let holder = |o: u32| (o == 0).then(|| "App.list".to_string());
    let labels = labels();
    let options = AnalysisOptions::default();
    let by_edges = group_heap_owned_labelled(
        g.clone(),
        grouper.group_count(),
        &live,
        &roots,
        &holder,
        PathNames::Edges(&labels),
        &options,
    );
    let snapshot = grouper.snapshot(&by_edges, SnapshotInfo::default());
    let via = |key: &str| -> Vec<Option<String>> {
        snapshot.retainers[&format!("Heap#Type:{key}")].steps.iter().map(|s| s.via.clone()).collect()
    };
    // A person: held by the first node's .item, the node by the list's .head, the list by a static.
    assert_eq!(via("P"), [Some(".item".into()), Some(".head".into()), Some("static App.list".into())]);
    // The shared string is dominated by the first node, which reaches it only through a person.
    assert_eq!(via("S"), [Some("?".into()), Some(".head".into()), Some("static App.list".into())]);
    // The same names from a namer that knows the references itself.
    let edges = g.clone();
    let namer = move |from: u32, to: u32| {
        let at = edges.referents(from).iter().position(|&t| t == to)?;
        labels.text(edges.edge_range(from).start + at)
    };
    let by_namer = group_heap_labelled(
        &g,
        grouper.group_count(),
        &live,
        &roots,
        &holder,
        PathNames::Namer(&namer),
        &options,
    );
    assert_eq!(by_namer, by_edges);
    // Unnamed, the steps carry nothing, and the file says nothing.
    let plain = group_heap_named(&g, grouper.group_count(), &live, &roots, &holder, &options);
    assert!(plain.paths.iter().flatten().all(|p| p.via.is_empty()));
    let json = serde_json::to_string(&grouper.snapshot(&plain, SnapshotInfo::default())).unwrap();
    assert!(!json.contains("\"via\""), "{json}");
}

#[test]
fn long_chains_keep_their_ends() {
    let chain: Vec<u32> = (0..20).collect();
    let name = |from: u32, _to: u32| format!(".n{from}");
    assert_eq!(hops(&chain[..3], &name), ".n0 .n1");
    assert_eq!(hops(&chain[..1], &name), "");
    assert_eq!(hops(&chain, &name), ".n0 .n1 .n2 .n3 … .n15 .n16 .n17 .n18");
}

/// A tree kept from an earlier opening groups a heap exactly as the tree built from it: counts,
/// both pointer maps (points-to from the graph's referrers instead of the search's), retained
/// sizes and paths; garbage and roots of every kind included.
#[test]
fn a_kept_tree_groups_as_the_one_built() {
    let (g, roots, grouper) = heap();
    let n = grouper.group_count();
    let live = crate::reachable(&g);
    let holder = |o: u32| (o == 0).then(|| "App.list".to_string());
    let options = AnalysisOptions::default();
    let owned =
        |tree| group_heap_owned_with_tree(g.clone(), tree, n, &live, &roots, &holder, &options, &Silent);
    let (built, kept) = owned(TreeSource::BuildAndKeep);
    let kept = kept.expect("asked to be kept");
    assert_eq!(kept, crate::dominators(&g));
    assert_eq!(built, group_heap_named(&g, n, &live, &roots, &holder, &options));
    // Handed over as soon as it is assembled, the same tree, and the same grouping after it.
    let handed = std::sync::Mutex::new(None);
    let hand =
        |tree: &DominatorTree, held: &[u32]| *handed.lock().unwrap() = Some((tree.clone(), held.to_vec()));
    let left = Unreached::Left;
    let grouped = group_heap_owned_handing_tree(
        g.clone(),
        Some(&hand),
        left,
        n,
        &live,
        &roots,
        &holder,
        &options,
        &Silent,
    );
    assert_eq!((grouped, handed.into_inner().unwrap()), (built.clone(), Some((kept.clone(), Vec::new()))));
    let (known, none) = owned(TreeSource::Known(kept));
    assert!(none.is_none(), "only a built tree is handed back");
    assert_eq!(known, built);
    assert!(owned(TreeSource::Build).1.is_none());
    assert!(
        built.maps.as_ref().unwrap().points_to[grouper.group_of_key("Heap#Type:P").unwrap() as usize]
            .contains_key(&grouper.group_of_key("Heap#Type:S").unwrap())
    );

    // Random graphs with cycles, self-references, duplicate roots and garbage.
    for g in crate::dominators::tests::random_graphs() {
        let group_count = g.group.iter().max().unwrap_or(0) as usize + 1;
        let live = crate::reachable(&g);
        let roots = vec![RootSet::NONE; g.object_count()];
        let none = |_: u32| None;
        let built = group_heap_named(&g, group_count, &live, &roots, &none, &options);
        let tree = TreeSource::Known(crate::dominators(&g));
        let (known, _) =
            group_heap_owned_with_tree(g.clone(), tree, group_count, &live, &roots, &none, &options, &Silent);
        assert_eq!(known, built);
    }
}

/// Objects the roots do not reach, held by the search, group as a dump's do where a marking
/// made them roots of the VM beforehand: every object counts, the same tree is handed over with
/// them, and a path that ends at one says the VM holds it.
#[test]
fn unreached_objects_held_by_the_search_group_as_if_marked_first() {
    let (g, roots, grouper) = heap();
    let n = grouper.group_count();
    let holder = |o: u32| (o == 0).then(|| "App.list".to_string());
    let options = AnalysisOptions::default();
    let marked = |g: &HeapGraph, roots: &[RootSet]| {
        let reached = crate::reachable(g);
        let (mut g, mut roots) = (g.clone(), roots.to_vec());
        for o in (0..g.object_count() as u32).filter(|&o| !reached[o as usize]) {
            g.roots.push(o);
            roots[o as usize] = roots[o as usize].with(RootKind::Internal);
        }
        (g, roots)
    };
    let held_by_search =
        |g: &HeapGraph, n: usize, roots: &[RootSet], holder: &dyn Fn(u32) -> Option<String>| {
            let handed = std::sync::Mutex::new(None);
            let hand = |tree: &DominatorTree, held: &[u32]| {
                *handed.lock().unwrap() = Some((tree.clone(), held.to_vec()))
            };
            let group = |hand| {
                let (held, all) = (Unreached::Held, Live::All);
                group_heap_owned_handing_tree(g.clone(), hand, held, n, all, roots, holder, &options, &Silent)
            };
            let grouped = group(Some(&hand));
            assert_eq!(group(None), grouped, "handed over or not");
            (grouped, handed.into_inner().unwrap().expect("handed over"))
        };
    let (grouped, (tree, held)) = held_by_search(&g, n, &roots, &holder);
    assert_eq!(held, [7], "the garbage G");
    let (g_marked, roots_marked) = marked(&g, &roots);
    assert_eq!(tree, crate::dominators(&g_marked));
    assert_eq!(grouped, group_heap_named(&g_marked, n, &[true; 8], &roots_marked, &holder, &options));
    let group = |t: &str| grouper.group_of_key(&format!("Heap#Type:{t}")).unwrap() as usize;
    assert_eq!(grouped.counts[group("G")].objects, 1);
    assert_eq!(grouped.paths[group("G")].as_ref().unwrap().roots, ["VM Internal"]);

    for g in crate::dominators::tests::random_graphs() {
        let group_count = g.group.iter().max().unwrap_or(0) as usize + 1;
        let roots = vec![RootSet::NONE; g.object_count()];
        let none = |_: u32| None;
        let (grouped, (tree, held)) = held_by_search(&g, group_count, &roots, &none);
        let (g_marked, roots_marked) = marked(&g, &roots);
        assert_eq!(held, &g_marked.roots[g.roots.len()..]);
        assert_eq!(tree, crate::dominators(&g_marked));
        assert_eq!(
            grouped,
            group_heap_named(
                &g_marked,
                group_count,
                &vec![true; g.object_count()],
                &roots_marked,
                &none,
                &options
            )
        );
    }
}

/// Each phase is told as it begins, in order: the tree and the maps beside it, then retained
/// sizes and paths (beside a known tree, the maps are made in that phase, or alone where no
/// paths are asked); nothing where nothing is asked.
#[test]
fn the_phases_are_told_as_they_begin() {
    struct Heard(std::sync::Mutex<Vec<Phase>>);
    impl Progress for Heard {
        fn read(&self, _: u64, _: u64) {}
        fn phase(&self, phase: Phase) {
            self.0.lock().unwrap().push(phase);
        }
    }
    let (g, roots, grouper) = heap();
    let n = grouper.group_count();
    let live = crate::reachable(&g);
    let none = |_: u32| None;
    let phases = |tree, options: &AnalysisOptions| {
        let heard = Heard(Default::default());
        group_heap_owned_with_tree(g.clone(), tree, n, &live, &roots, &none, options, &heard);
        heard.0.into_inner().unwrap()
    };
    let all = AnalysisOptions::default();
    assert_eq!(phases(TreeSource::Build, &all), [Phase::Dominators, Phase::RetainedAndPaths]);
    let known = TreeSource::Known(crate::dominators(&g));
    assert_eq!(phases(known, &all), [Phase::RetainedAndPaths]);
    let no_paths = AnalysisOptions { retainer_paths: false, ..all };
    let known = TreeSource::Known(crate::dominators(&g));
    assert_eq!(phases(known, &no_paths), [Phase::PointerMaps, Phase::RetainedAndPaths]);
    let counts_only =
        AnalysisOptions { pointer_maps: false, retained: Retained::None, retainer_paths: false };
    assert_eq!(phases(TreeSource::Build, &counts_only), []);
}

#[test]
fn every_object_counted_without_marks_is_every_object_marked() {
    let (g, roots, grouper) = heap();
    let marks = vec![true; g.object_count()];
    let options = AnalysisOptions { retained: Retained::Closure, ..AnalysisOptions::default() };
    let run = |live: Live| {
        let (heap, _) = group_heap_owned_with_tree(
            g.clone(),
            TreeSource::Build,
            grouper.group_count(),
            live,
            &roots,
            &|_| None,
            &options,
            &Silent,
        );
        heap
    };
    let all = run(Live::All);
    assert_eq!(all, run(Live::Marked(&marks)));
    let garbage = grouper.group_of_key("Heap#Type:G").unwrap() as usize;
    assert_eq!(all.counts[garbage].objects, 1, "unmarked, the garbage counts too");
    assert_eq!(run(Live::Marked(&crate::reachable(&g))).counts[garbage].objects, 0);
}

/// Where every object counts and the reader counted each key's objects, the counts come from
/// those totals: the same heap as a sweep of every object gives.
#[test]
fn counts_from_the_readers_totals_are_a_sweeps() {
    let mut rng = crate::tests::Rng(11);
    let g = crate::tests::random_heap(&mut rng, 5_000, 20);
    let keys = g.group.to_table();
    let mut totals = vec![crate::KeyTotal::default(); 20];
    for (o, &key) in keys.iter().enumerate() {
        totals[key as usize].add(o as u64, g.shallow[o]);
    }
    let by_key: Vec<u32> = (0..20).map(|key| key % 7).collect();
    let swept = crate::ObjectGroups::through(keys.clone(), by_key.clone());
    let counted = crate::ObjectGroups::from(keys).with_totals(totals).grouped_by_key(by_key);
    assert!(counted.totals().is_some() && swept.totals().is_none());
    let roots = vec![RootSet::NONE; g.object_count()];
    let analyse = |group: crate::ObjectGroups| {
        let g = HeapGraph { group, ..g.clone() };
        let options = AnalysisOptions::default();
        group_heap_owned_with_tree(g, TreeSource::Build, 7, Live::All, &roots, &|_| None, &options, &Silent).0
    };
    let (from_totals, from_sweep) = (analyse(counted), analyse(swept));
    assert_eq!(from_totals, from_sweep);
    assert_eq!(from_totals.counts.iter().map(|c| c.objects).sum::<u64>(), 5_000);
}
