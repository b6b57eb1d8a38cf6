//! Synthetic histories of any size, for benchmarks and the render bench: a tree of depth 3
//! (root → package → type → allocation site) over `leaves` buildings, where one leaf in twenty
//! leaks (grows every snapshot) and the rest fluctuate. Deterministic for a seed.

use crate::history::{FORMAT, History, MetricNames, Node, PointerMap, Snapshot};

/// splitmix64: small, fast, deterministic.
pub fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A history with `snapshots` snapshots of a tree with about `leaves` leaves.
pub fn history(leaves: usize, snapshots: usize, seed: u64) -> History {
    let fanout = ((leaves.max(1) as f64).cbrt().ceil() as usize).max(1);
    let mut rng = seed;
    // Per leaf: (package, type, site, base objects, growth per snapshot, bytes per object).
    let mut specs = Vec::with_capacity(leaves);
    for i in 0..leaves {
        let base = 1 + next_random(&mut rng) % 5_000;
        let grows = next_random(&mut rng).is_multiple_of(20);
        let growth = if grows { base / 4 + 1 } else { 0 };
        let size = 16 + 8 * (next_random(&mut rng) % 12);
        specs.push((i / (fanout * fanout), (i / fanout) % fanout, i % fanout, base, growth, size));
    }
    let snapshots = (0..snapshots.max(1))
        .map(|s| {
            let mut noise = seed ^ (s as u64).wrapping_mul(0x1234_5678_9ABC);
            let mut packages: Vec<Node> = Vec::new();
            for &(p, t, site, base, growth, size) in &specs {
                let jitter = if growth == 0 { next_random(&mut noise) % (base / 5 + 1) } else { 0 };
                let objects = base + growth * s as u64 + jitter;
                if packages.len() <= p {
                    packages.push(inner(format!("Heap#pkg{p}"), format!("pkg{p}"), "Package"));
                }
                let package = packages.last_mut().unwrap();
                if package.children.len() <= t {
                    let key = format!("{}#Type{t}", package.key);
                    package.children.push(inner(key, format!("Type{t}"), "Type"));
                }
                let ty = package.children.last_mut().unwrap();
                let key = format!("{}#site{site}", ty.key);
                ty.children.push(Node::leaf(
                    &key,
                    &format!("site{site}()"),
                    "Allocation Site",
                    objects,
                    objects * size,
                ));
            }
            let mut root = inner("Heap".into(), "Heap".into(), "Root");
            root.children = packages;
            sum_up(&mut root);
            Snapshot {
                time_ms: 1000 * (s as u64 + 1),
                gc_id: Some(s as u64 + 1),
                label: None,
                tree: root,
                points_to: PointerMap::new(),
                pointed_from: PointerMap::new(),
                heap: None,
                retainers: Default::default(),
            }
        })
        .collect();
    History { format: FORMAT.into(), metric_names: MetricNames::default(), snapshots }
}

fn inner(key: String, name: String, role: &str) -> Node {
    Node {
        key,
        name,
        role: role.into(),
        objects: 0,
        bytes: 0,
        retained_bytes: None,
        closure_bytes: None,
        children: Vec::new(),
    }
}

fn sum_up(node: &mut Node) {
    if node.children.is_empty() {
        return;
    }
    for c in &mut node.children {
        sum_up(c);
    }
    node.objects = node.children.iter().map(|c| c.objects).sum();
    node.bytes = node.children.iter().map(|c| c.bytes).sum();
}

/// A memcity/1 document whose one snapshot is a chain `depth` levels deep (keys `k0`, `k1`, …),
/// written as text so that making it needs no deep `Node` (for the deep-tree tests).
pub fn deep_document(depth: usize) -> String {
    let mut text = String::from(r#"{"format":"memcity/1","snapshots":[{"time_ms":1,"tree":"#);
    for level in 0..depth {
        text.push_str(&format!(r#"{{"key":"k{level}","name":"n{level}","objects":1,"bytes":8"#));
        if level + 1 < depth {
            text.push_str(r#","children":["#);
        }
    }
    for level in (0..depth).rev() {
        text.push('}');
        if level > 0 {
            text.push(']');
        }
    }
    text.push_str("}]}");
    text
}
