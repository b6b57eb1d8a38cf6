use std::collections::BTreeMap;

use memcity_model::History;

use super::*;
use crate::replay::default_grouping;
use crate::windows::{WindowKind, detect};
use memcity_heapgraph::{Classifier, Grouping};

fn by_type(name: &str) -> History {
    let options = Grouping::new(vec![Classifier::Type]);
    find(name).unwrap().history(&Params::default(), options)
}

fn key(type_name: &str) -> String {
    format!("Heap#Type:{type_name}")
}

/// Objects per type in the last snapshot minus the first.
fn growth(h: &History) -> BTreeMap<String, i64> {
    let objects = |i: usize| -> BTreeMap<String, i64> {
        h.snapshots[i].tree.children.iter().map(|c| (c.name.clone(), c.objects as i64)).collect()
    };
    let (first, last) = (objects(0), objects(h.snapshots.len() - 1));
    last.iter().map(|(k, v)| (k.clone(), v - first.get(k).copied().unwrap_or(0))).collect()
}

/// The group with the most distinct referrers of `target`'s objects in the last snapshot.
fn top_referrer(h: &History, target: &str) -> String {
    let last = h.snapshots.last().unwrap();
    let from = &last.pointed_from[&key(target)];
    from.iter().max_by_key(|(_, n)| **n).unwrap().0.clone()
}

#[test]
fn scenarios_are_deterministic_for_a_seed() {
    let s = find("linked-list").unwrap();
    let p = Params::default();
    assert_eq!(s.trace(&p), s.trace(&p));
    assert_ne!(s.trace(&p), s.trace(&Params { seed: 7, ..p }));
}

#[test]
fn default_histories_are_modest_and_valid() {
    for s in SCENARIOS {
        let h = s.history(&Params::default(), default_grouping());
        memcity_model::validate_history(&h, &|_| s.name.into(), &|i| format!("snapshots[{i}]")).unwrap();
        assert_eq!(h.snapshots.len(), 30, "{}", s.name);
        let mut leaves = 0;
        memcity_model::Timeline::new(&h);
        h.snapshots.last().unwrap().tree.walk(&mut |n, _| leaves += n.is_leaf() as usize);
        assert!((40..2000).contains(&leaves), "{}: {leaves} leaves", s.name);
    }
}

#[test]
fn leak_types_are_the_strongest_growers() {
    for s in SCENARIOS.iter().filter(|s| !s.leak_types.is_empty()) {
        let g = growth(&by_type(s.name));
        let weakest_leak = s.leak_types.iter().map(|t| g[*t]).min().unwrap();
        let (noise, strongest_noise) = g
            .iter()
            .filter(|(t, _)| !s.structure_types.contains(&t.as_str()))
            .max_by_key(|(_, v)| **v)
            .unwrap();
        assert!(
            weakest_leak > 0 && weakest_leak > *strongest_noise * 5,
            "{}: leak {weakest_leak}, {noise} {strongest_noise}",
            s.name
        );
    }
}

#[test]
fn pointer_maps_lead_from_symptom_to_cause() {
    let h = by_type("linked-list");
    assert_eq!(top_referrer(&h, "char[]"), key("java.lang.String"));
    assert_eq!(top_referrer(&h, "java.lang.String"), key("app.model.Person"));
    assert_eq!(top_referrer(&h, "app.model.Person"), key("java.util.LinkedList$Node"));
    let last = h.snapshots.last().unwrap();
    assert!(last.pointed_from[&key("java.util.LinkedList$Node")].contains_key(&key("java.util.LinkedList")));

    let h = by_type("http-client");
    let pool = "org.apache.commons.httpclient.MultiThreadedHttpConnectionManager$HostConnectionPool";
    assert_eq!(top_referrer(&h, pool), key("java.util.HashMap$Node"));
    assert!(
        h.snapshots.last().unwrap().pointed_from[&key("java.util.HashMap$Node")]
            .contains_key(&key("java.util.HashMap$Node[]"))
    );

    let h = by_type("easytravel");
    assert_eq!(top_referrer(&h, "java.util.Date"), key("com.dynatrace.easytravel.Location"));
    assert_eq!(top_referrer(&h, "com.dynatrace.easytravel.Location"), key("java.lang.Object[]"));
    let last = h.snapshots.last().unwrap();
    assert!(
        last.pointed_from[&key("java.util.ArrayList")]
            .contains_key(&key("java.util.concurrent.ConcurrentHashMap$Node"))
    );
    assert!(
        last.points_to[&key("java.util.concurrent.ConcurrentHashMap$Node")]
            .contains_key(&key("com.dynatrace.easytravel.QueryKey"))
    );
}

#[test]
fn leaks_have_a_leak_window_and_steady_states_do_not() {
    for s in SCENARIOS {
        let kinds: Vec<WindowKind> = detect(&by_type(s.name)).iter().map(|w| w.kind).collect();
        let leak = kinds.contains(&WindowKind::Leak) || kinds.contains(&WindowKind::LeakRegression);
        assert_eq!(leak, !s.leak_types.is_empty(), "{}: {kinds:?}", s.name);
    }
    let churn = detect(&by_type("churn"));
    let w = churn.iter().find(|w| w.kind == WindowKind::Churn).expect("a churn window");
    assert!(w.first >= 11 && w.last <= 18, "{w:?}");
}

#[test]
fn retained_size_of_the_leak_root_holds_the_leak() {
    let h = by_type("linked-list");
    let last = h.snapshots.last().unwrap();
    let group = |t: &str| last.tree.children.iter().find(|c| c.key == key(t)).unwrap();
    // The single LinkedList retains every node, person, string and char[] of the leak.
    let list = group("java.util.LinkedList").retained_bytes.unwrap();
    let held: u64 = ["java.util.LinkedList$Node", "app.model.Person"].iter().map(|t| group(t).bytes).sum();
    assert!(list > held, "{list} vs {held}");
}

#[test]
fn window_verdicts_hold_for_other_seeds() {
    for seed in 1..6 {
        for s in SCENARIOS {
            let options = default_grouping().without_retained();
            let kinds: Vec<WindowKind> = detect(&s.history(&Params { seed, ..Params::default() }, options))
                .iter()
                .map(|w| w.kind)
                .collect();
            assert_eq!(
                kinds.contains(&WindowKind::Leak),
                !s.leak_types.is_empty(),
                "seed {seed}: {}: {kinds:?}",
                s.name
            );
            assert_eq!(
                kinds.contains(&WindowKind::Churn),
                s.name == "churn",
                "seed {seed}: {}: {kinds:?}",
                s.name
            );
        }
    }
}

/// The types on the retainer path of the group `type_name ‹ site` at the last snapshot, and the
/// roots it ends at.
fn retainer_types(h: &History, leaf_key: &str) -> (Vec<String>, Vec<String>) {
    let last = h.snapshots.last().unwrap();
    let path = &last.retainers[leaf_key];
    let types = path
        .steps
        .iter()
        .map(|s| {
            s.key.trim_start_matches("Heap#Type:").split("#Allocation Site:").next().unwrap().to_string()
        })
        .collect();
    (types, path.roots.clone())
}

#[test]
fn linked_list_char_arrays_are_kept_by_the_registry_list() {
    let h = find("linked-list").unwrap().history(&Params::default(), default_grouping());
    let (types, roots) = retainer_types(&h, "Heap#Type:char[]#Allocation Site:app.model.Person.<init>");
    assert_eq!(
        types,
        [
            "char[]",
            "java.lang.String",
            "app.model.Person",
            "java.util.LinkedList$Node",
            "java.util.LinkedList"
        ]
    );
    assert_eq!(roots, ["Static Field app.model.Registry.people"]);
    // Each step holds the leak's objects, and the list at the top retains them all.
    let path =
        &h.snapshots.last().unwrap().retainers["Heap#Type:char[]#Allocation Site:app.model.Person.<init>"];
    assert_eq!(path.steps[3].objects, path.steps[0].objects);
    assert_eq!(path.steps[4].objects, 1);
    assert!(path.steps.windows(2).all(|w| w[0].retained_bytes <= w[1].retained_bytes));
}

#[test]
fn cache_leaks_end_at_the_map_that_is_never_cleaned() {
    for (scenario, leaking, map, root) in [
        (
            "http-client",
            "Heap#Type:org.apache.commons.httpclient.HostConfiguration#Allocation Site:org.apache.commons.httpclient.HttpMethodBase.getHostConfiguration",
            "java.util.HashMap",
            "Static Field app.feed.Fetcher.connectionManager",
        ),
        (
            "easytravel",
            "Heap#Type:com.dynatrace.easytravel.Location#Allocation Site:com.dynatrace.easytravel.Location.<init>",
            "java.util.concurrent.ConcurrentHashMap",
            "Static Field com.dynatrace.easytravel.LocationCache.cache",
        ),
    ] {
        let h = find(scenario).unwrap().history(&Params::default(), default_grouping());
        let (types, roots) = retainer_types(&h, leaking);
        assert!(types.iter().any(|t| t == map), "{scenario}: {types:?}");
        assert_eq!(roots, [root], "{scenario}: {types:?}");
    }
}

#[test]
fn every_leak_has_a_lesson_whose_fixed_variant_stays_flat() {
    for s in SCENARIOS.iter().filter(|s| !s.leak_types.is_empty()) {
        let lesson = s.lesson.unwrap_or_else(|| panic!("{} has no lesson", s.name));
        let fixed = find(lesson.fixed).unwrap_or_else(|| panic!("{}: no scenario {}", s.name, lesson.fixed));
        assert!(fixed.leak_types.is_empty() && fixed.lesson.is_none(), "{}", fixed.name);
        // Same program: the leak's types are there, but none of them keeps growing.
        let (leaky, flat) = (growth(&by_type(s.name)), growth(&by_type(fixed.name)));
        for t in s.leak_types {
            assert!(flat.contains_key(*t), "{}: {t} is missing", fixed.name);
            assert!(
                flat[*t] * 20 < leaky[*t],
                "{}: {t} grows by {} (leak: {})",
                fixed.name,
                flat[*t],
                leaky[*t]
            );
        }
    }
}
