use super::*;

fn sizes(bytes: u64) -> Sizes {
    Sizes { objects: bytes / 8, bytes }
}

fn measure(retained: u64, deep: u64, structure: u64, deep_structure: u64) -> Measure {
    Measure {
        retained: sizes(retained),
        deep: sizes(deep),
        structure: sizes(structure),
        deep_structure: sizes(deep_structure),
    }
}

#[test]
fn the_five_patterns() {
    let start = measure(1000, 2000, 500, 500);
    let heap_growth = 100_000;
    let end_heap = 1_000_000;
    let pattern = |end: Measure| compare(&start, &end, heap_growth, end_heap).pattern;
    assert_eq!(pattern(measure(81_000, 82_000, 40_500, 40_500)), Pattern::SingleOwnershipContainerGrowth);
    assert_eq!(pattern(measure(2_000, 82_000, 40_500, 40_500)), Pattern::SharedOwnershipContainerGrowth);
    assert_eq!(pattern(measure(51_000, 52_000, 600, 600)), Pattern::SingleOwnershipDataGrowth);
    assert_eq!(pattern(measure(1_500, 42_000, 600, 600)), Pattern::SharedOwnershipDataGrowth);
    assert_eq!(pattern(measure(1_500, 2_500, 600, 600)), Pattern::NonGrowth);
}

#[test]
fn heap_growth_portions() {
    let g =
        compare(&measure(1000, 2000, 500, 500), &measure(71_000, 72_000, 30_500, 40_500), 100_000, 1_000_000);
    assert_eq!(g.retained, Delta { objects: 8750, bytes: 70_000 });
    assert_eq!(g.hgp, [Some(70.0), Some(70.0), Some(30.0), Some(40.0)]);
    // Above 100 %: it grew more than the heap did (something else shrank).
    assert_eq!(compare(&measure(0, 0, 0, 0), &measure(150, 150, 0, 0), 100, 1000).hgp[0], Some(150.0));
    // A heap that did not grow has no portions, and its noise is no growth.
    let flat = compare(&measure(1000, 1000, 800, 800), &measure(1100, 1100, 880, 880), 0, 1_000_000);
    assert_eq!(flat.hgp, [None; 4]);
    assert_eq!(flat.pattern, Pattern::NonGrowth);
    assert_eq!(
        compare(&measure(0, 0, 0, 0), &measure(5000, 5000, 5000, 5000), -10, 100_000).pattern,
        Pattern::SingleOwnershipContainerGrowth,
        "5 % of a flat heap is strong"
    );
}

#[test]
fn instances_pair_by_identity() {
    let start = ["a", "b", "c", "c"];
    let end = ["c", "d", "a"];
    let pairs = pair(&start, &end);
    assert_eq!(
        pairs,
        [
            (Some(2), Some(0), Status::Survived),
            (Some(0), Some(2), Status::Survived),
            (None, Some(1), Status::Appeared),
            (Some(1), None, Status::Died),
            (Some(3), None, Status::Died),
        ]
    );
}
