use super::*;

fn times(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64 * 1000.0).collect()
}

#[test]
fn heuristic_restarts_after_a_strong_drop_and_tolerates_small_ones() {
    // Growth, a 50% drop at 4, then growth with a 10% dip at 8.
    let r = [10.0, 20.0, 30.0, 40.0, 20.0, 30.0, 40.0, 50.0, 45.0, 60.0];
    assert_eq!(leak_heuristic(&r), Some((4, 9)));
    // A dip below the window's start restarts it.
    let r = [10.0, 50.0, 60.0, 9.0, 20.0, 30.0];
    assert_eq!(leak_heuristic(&r), Some((3, 5)));
}

#[test]
fn heuristic_needs_coverage_and_growth() {
    // Only the last 3 of 40 points grow: < 10% of GCs.
    let mut r = vec![100.0; 38];
    r.extend([200.0, 300.0]);
    assert_eq!(leak_heuristic(&r), None);
    // A flat series with a 1% rise is no leak.
    let r: Vec<f64> = (0..20).map(|i| 1000.0 + (i % 3) as f64 * 5.0).collect();
    assert_eq!(leak_heuristic(&r), None);
    assert_eq!(leak_heuristic(&[5.0]), None);
}

#[test]
fn regression_picks_the_steepest_tail() {
    // Flat for 10 points, then rising by 10 per second: the slope is steepest over the rise.
    let r: Vec<f64> = (0..20).map(|i| if i < 10 { 100.0 } else { 100.0 + 10.0 * (i - 9) as f64 }).collect();
    let (first, last, slope) = leak_regression(&times(20), &r).unwrap();
    // Every window inside the straight rise has the same slope; none reaches into the flat part.
    assert!((9..=17).contains(&first) && last == 19, "{first}");
    assert!((slope - 10.0).abs() < 1e-6, "{slope}");
    let flat = vec![100.0; 20];
    assert_eq!(leak_regression(&times(20), &flat), None);
}

#[test]
fn fastest_growth_finds_the_steep_part() {
    // 40 points rising 1/s, except 30/s between 12 and 18; windows have 4 to 20 points.
    let r: Vec<f64> = (0..40).map(|i: usize| i as f64 + 29.0 * (i.clamp(12, 18) - 12) as f64).collect();
    let (s, e, g) = fastest_growth(&times(40), &r, 0, 39).unwrap();
    assert!(s >= 12 && e <= 18 && e - s == 3, "{s}..{e}");
    assert!((g - 30.0).abs() < 1e-9, "{g}");
    // Inside a window of 10 points, 2-point sub-windows are allowed.
    assert_eq!(fastest_growth(&times(40), &r, 0, 9).map(|w| w.2), Some(1.0));
}

#[test]
fn gc_overhead_finds_the_busy_gcs() {
    // GCs every 100 ms lasting 1 ms, except GCs 20..25 lasting 50 ms.
    let end: Vec<f64> = (0..40).map(|i| 100.0 * (i + 1) as f64).collect();
    let start: Vec<f64> =
        end.iter().enumerate().map(|(i, e)| e - if (20..25).contains(&i) { 50.0 } else { 1.0 }).collect();
    let (s, e, overhead) = gc_overhead(&start, &end).unwrap();
    assert_eq!((s, e), (20, 24));
    assert!((overhead - 0.5).abs() < 1e-9);
    let quiet: Vec<f64> = end.iter().map(|e| e - 1.0).collect();
    assert_eq!(gc_overhead(&quiet, &end), None);
}

#[test]
fn churn_finds_a_burst_and_ignores_steady_churn() {
    let end: Vec<f64> = (0..40).map(|i| 100.0 * (i + 1) as f64).collect();
    let start: Vec<f64> = end.iter().map(|e| e - 1.0).collect();
    let mut freed = vec![1000.0; 40];
    assert_eq!(churn(&start, &end, &freed), None);
    for f in &mut freed[10..15] {
        *f = 20_000.0;
    }
    let (s, e, _) = churn(&start, &end, &freed).unwrap();
    assert_eq!((s, e), (10, 14));
}

#[test]
fn detect_falls_back_to_the_roots_bytes() {
    use memcity_model::{History, MetricNames, Node, Snapshot};
    let snapshot = |i: u64| {
        Snapshot::new(
            1000 * i,
            Node::leaf("Heap", "Heap", "Root", 10, 1000 + if i < 10 { 0 } else { 100 * i }),
        )
    };
    let history = History {
        format: memcity_model::FORMAT.into(),
        metric_names: MetricNames::default(),
        snapshots: (0..20).map(snapshot).collect(),
    };
    let windows = detect(&history);
    let leak = windows.iter().find(|w| w.kind == WindowKind::Leak).unwrap();
    assert_eq!((leak.first, leak.last), (9, 19));
    // Without GC times there is no GC overhead or churn window.
    assert!(windows.iter().all(|w| !matches!(w.kind, WindowKind::GcOverhead | WindowKind::Churn)));
}
