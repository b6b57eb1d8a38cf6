use super::*;
use crate::scenarios::{Params, find};

fn run(name: &str) -> (History, Timeline) {
    let history = find(name).unwrap().history(&Params::default(), crate::default_grouping());
    let timeline = Timeline::new(&history);
    (history, timeline)
}

/// Limits small enough for the scenarios' small heaps (a few hundred kB).
const SMALL: Limits = Limits { max_growth_bytes: 20_000, max_growth_percent: 2.0, min_steps: 3 };

#[test]
fn a_steady_leak_fails_and_its_fix_passes() {
    let (history, timeline) = run("linked-list");
    let found = findings(&history, &timeline, SMALL, &|_| false);
    assert!(!found.is_empty());
    let names: Vec<&str> = found.iter().map(|f| timeline.groups[f.group as usize].key.as_str()).collect();
    assert!(names.iter().any(|k| k.contains("LinkedList")), "{names:?}");
    assert!(found[0].grew.steps_grown >= 10 && found[0].grew.growth_per_step > 0.0);
    let (history, timeline) = run("linked-list-fixed");
    assert_eq!(findings(&history, &timeline, SMALL, &|_| false), []);
}

#[test]
fn settled_and_churning_heaps_pass() {
    for name in ["healthy", "churn"] {
        let (history, timeline) = run(name);
        let found = findings(&history, &timeline, SMALL, &|_| false);
        assert!(
            found.is_empty(),
            "{name}: {:?}",
            found.iter().map(|f| &timeline.groups[f.group as usize].key).collect::<Vec<_>>()
        );
    }
}

#[test]
fn limits_and_ignored_groups_leave_findings_out() {
    let (history, timeline) = run("linked-list");
    let loose = Limits { max_growth_bytes: 10 << 20, ..SMALL };
    assert!(findings(&history, &timeline, loose, &|_| false).is_empty(), "under 10 MB");
    let all = findings(&history, &timeline, SMALL, &|_| true);
    assert!(all.is_empty(), "everything ignored");
}

#[test]
fn patterns_match_anywhere_with_stars() {
    assert!(matches("HashMap", "java.util.HashMap$Node"));
    assert!(matches("java.util.*Node", "java.util.HashMap$Node"));
    assert!(matches("*", "anything"));
    assert!(!matches("java.lang.*Map", "java.util.HashMap"));
    assert!(!matches("Cache", "Registry"));
}

#[test]
fn the_rule_wants_steady_growth_that_goes_on_to_the_end() {
    let limits = Limits { max_growth_bytes: 100, max_growth_percent: 1.0, min_steps: 3 };
    let steady = [0, 200, 400, 600, 800];
    let grew = grew_past(&steady, 10_000, limits).expect("a steady leak");
    assert_eq!((grew.growth_bytes, grew.steps_grown, grew.retained_bytes), (800, 4, 800));
    assert_eq!(grew.growth_per_step, 200.0);
    // Filled early, then flat: grew, but not in the last third.
    assert_eq!(grew_past(&[0, 400, 800, 800, 800], 10_000, limits), None);
    // Too little of the heap, too few steps, or one snapshot.
    assert_eq!(grew_past(&steady, 1_000_000, limits), None);
    assert_eq!(grew_past(&[0, 0, 0, 400, 800], 10_000, limits), None);
    assert_eq!(grew_past(&[800], 10_000, limits), None);
}
