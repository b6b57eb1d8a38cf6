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
    assert!(found[0].steps_grown >= 10 && found[0].growth_per_step > 0.0);
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
