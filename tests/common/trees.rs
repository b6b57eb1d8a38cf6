//! Geometry checks of `memcity tree` icicle exports, shared by the scenario and the real-program
//! tests: children inside their parent in proportion, in the next column, siblings apart, and
//! one sibling order for the whole window.

use serde_json::Value;

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} of {v}"))
}

/// Checks every frame of an icicle export; returns the depth-1 keys of each frame in order.
pub fn check_icicle(doc: &Value) -> Vec<Vec<String>> {
    assert_eq!(doc["kind"], "icicle");
    let mut orders: Vec<Vec<String>> = Vec::new();
    for frame in doc["frames"].as_array().unwrap() {
        let nodes = frame["nodes"].as_array().unwrap();
        let by_key = |k: &str| nodes.iter().find(|n| n["key"] == k).unwrap();
        for n in nodes.iter().filter(|n| !n["parent"].is_null()) {
            let p = by_key(n["parent"].as_str().unwrap());
            assert!(f(n, "y0") >= f(p, "y0") - 1e-9 && f(n, "y1") <= f(p, "y1") + 1e-9, "{n} inside {p}");
            assert!((f(n, "x0") - f(p, "x1")).abs() < 1e-9, "the next column");
            if f(p, "value") > 0.0 {
                let share = (f(n, "y1") - f(n, "y0")) / (f(p, "y1") - f(p, "y0"));
                assert!((share - f(n, "value") / f(p, "value")).abs() < 1e-6, "in proportion");
            }
        }
        // Siblings do not overlap.
        let mut spans: Vec<(f64, f64, u64)> =
            nodes.iter().map(|n| (f(n, "y0"), f(n, "y1"), n["depth"].as_u64().unwrap())).collect();
        spans.sort_by(|a, b| (a.2, a.0).partial_cmp(&(b.2, b.0)).unwrap());
        assert!(spans.windows(2).all(|w| w[0].2 != w[1].2 || w[0].1 <= w[1].0 + 1e-9));
        orders.push(
            nodes
                .iter()
                .filter(|n| n["depth"] == 1 && n["other"] == false)
                .map(|n| n["key"].as_str().unwrap().into())
                .collect(),
        );
    }
    // One order for the whole window: any two groups keep their order at every time.
    let last = orders.last().unwrap().clone();
    for order in &orders {
        let positions: Vec<usize> = order.iter().filter_map(|k| last.iter().position(|l| l == k)).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{order:?} against {last:?}");
    }
    orders
}

/// A scaled export: each frame's root spans its heap over the largest heap of the frames.
pub fn check_scaled(doc: &Value) {
    let frames = doc["frames"].as_array().unwrap();
    let largest = frames.iter().map(|fr| f(fr, "heap")).fold(0.0, f64::max);
    for fr in frames {
        let root = &fr["nodes"][0];
        let extent = f(root, "y1") - f(root, "y0");
        assert!(
            (extent - f(fr, "heap") / largest).abs() < 1e-9,
            "{extent} for {} of {largest}",
            f(fr, "heap")
        );
    }
}
