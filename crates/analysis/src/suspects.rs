//! Leak suspects: the leaf groups whose retained bytes grew most since the first snapshot, each
//! with the root-most holder of its retainer path ("held by LinkedList, which retains 67 % of
//! the heap"). The app's Leak suspects pane and `memcity check` rank them the same way.

use memcity_model::{History, Timeline};

/// A group whose retained bytes grow, with the path's root-most holder.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspect {
    pub group: u32,
    /// Retained bytes at the snapshot minus at the first.
    pub growth: i64,
    /// Retained bytes at the snapshot as a share of its heap.
    pub share: f64,
    /// The root-most step of its retainer path, when that is another group, and the share of
    /// the heap that step retains.
    pub holder: Option<(u32, f64)>,
}

/// The heap's size at a snapshot: its reachable bytes where the source measured them.
pub fn heap_bytes(history: &History, snapshot: usize) -> u64 {
    let s = &history.snapshots[snapshot];
    s.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap_or(s.tree.bytes)
}

/// Leaf groups ranked by how much their retained bytes grew from the first snapshot to
/// `snapshot`, the strongest first; groups that did not grow are left out.
pub fn leak_suspects(history: &History, timeline: &Timeline, snapshot: usize, limit: usize) -> Vec<Suspect> {
    let t = timeline;
    let (Some(first), Some(now)) = (t.retained.first(), t.retained.get(snapshot)) else { return Vec::new() };
    let s = &history.snapshots[snapshot];
    let heap = heap_bytes(history, snapshot).max(1);
    let mut suspects: Vec<Suspect> = now
        .iter()
        .filter(|&(&g, _)| t.groups[g as usize].is_leaf())
        .map(|(&g, &bytes)| Suspect {
            group: g,
            growth: bytes as i64 - first.get(&g).copied().unwrap_or(0) as i64,
            share: bytes as f64 / heap as f64,
            holder: s
                .retainers
                .get(&t.groups[g as usize].key)
                .and_then(|p| p.steps.last())
                .and_then(|step| Some((t.group(&step.key)?, step.retained_bytes as f64 / heap as f64)))
                .filter(|&(h, _)| h != g),
        })
        .filter(|s| s.growth > 0)
        .collect();
    suspects.sort_by(|a, b| b.growth.cmp(&a.growth).then(a.group.cmp(&b.group)));
    suspects.truncate(limit);
    suspects
}
