use super::*;
use crate::detect::Sizes;
use crate::growth::Measure;
use crate::measure::InstanceMeasure;

fn instance(path: &str, retained: u64) -> InstanceMeasure {
    InstanceMeasure {
        key: InstanceKey::Path(path.to_string()),
        path: path.to_string(),
        head: 0,
        type_name: "java.util.HashMap".to_string(),
        site: None,
        contained: false,
        measure: Measure { retained: Sizes { objects: 1, bytes: retained }, ..Measure::default() },
        leaves: Vec::new(),
    }
}

fn heap(instances: Vec<InstanceMeasure>, heap_bytes: u64) -> HeapStructures {
    HeapStructures { instances, heap_bytes }
}

#[test]
fn instances_are_followed_by_identity_with_zero_where_absent() {
    let mut series = RetainedSeries::default();
    series.push(&heap(vec![instance("static A.cache", 100), instance("static A.old", 50)], 1000));
    series.push(&heap(vec![instance("static A.cache", 300)], 1200));
    series.push(&heap(vec![instance("static A.cache", 500), instance("static B.late", 70)], 1500));
    assert_eq!(series.snapshots(), 3);
    assert_eq!(series.heap_bytes(), [1000, 1200, 1500]);
    let by_path = |p: &str| series.instances().iter().find(|t| t.path == p).unwrap().retained.clone();
    assert_eq!(by_path("static A.cache"), [100, 300, 500]);
    assert_eq!(by_path("static A.old"), [50, 0, 0]);
    assert_eq!(by_path("static B.late"), [0, 0, 70]);
    assert_eq!(series.instances().len(), 3);
}
