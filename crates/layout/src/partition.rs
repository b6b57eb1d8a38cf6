//! Icicles and sunbursts of the union tree over time (docs/design.md, "Tree views"): one
//! partition per snapshot, where a node's extent along the value axis is its share of the heap.
//!
//! Stable over time (relative position animation): every group gets one sort position among
//! its siblings for the whole window ([`sort_order`]: by size at the window's start, at its
//! end, or by growth over it), so nodes keep their order while they grow and shrink. Pruning
//! keeps a branch's children in that order until they hold 90 % of it, at most 9, and merges
//! the rest into one "Other" node ([`Pruning`]): the first-ranked stay, so few nodes come and
//! go between snapshots. Scaled partitions set each snapshot against the window's largest heap,
//! so absolute growth shows; unscaled ones fill the view.

use memcity_model::{Metric, Timeline};

/// How siblings are ordered for the whole window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// Largest at the window's first snapshot first.
    StartSize,
    /// Largest at the window's last snapshot first.
    EndSize,
    /// Most grown from first to last first (the paper's default for leak hunting).
    #[default]
    Growth,
}

/// Which children a branch keeps: in sort order until they hold `share` of the branch, at most
/// `max_children`; the rest become one "Other" node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pruning {
    pub share: f64,
    pub max_children: usize,
}

impl Default for Pruning {
    fn default() -> Pruning {
        Pruning { share: 0.9, max_children: 9 }
    }
}

/// What a tree view shows: the metric, the window's sort order ([`sort_order`]), the pruning,
/// the group at its root, how many levels below it, and the value the whole axis stands for
/// (the window's largest root value for a scaled view, [`window_scale`]; the root's own value
/// to fill the view).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeView<'a> {
    pub metric: Metric,
    pub order: &'a [u32],
    pub pruning: Pruning,
    pub root: u32,
    pub levels: u32,
    pub scale: u64,
}

/// A node of a partition: a group of the union tree, or the merged rest of a branch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PartNode {
    Group(u32),
    /// The children of `parent` pruned away, merged (`groups`: which, in sort order).
    Other {
        parent: u32,
        groups: Vec<u32>,
    },
}

/// One node's place: its level below the view's root (the root is 0) and its extent along the
/// value axis, as fractions of the whole axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub node: PartNode,
    pub depth: u32,
    pub start: f64,
    pub end: f64,
    pub value: u64,
}

/// Each group's sort position among its siblings (0 first) for the window `from..=to`; ties
/// keep the order of first appearance.
pub fn sort_order(timeline: &Timeline, metric: Metric, by: SortBy, from: usize, to: usize) -> Vec<u32> {
    let value = sort_value(timeline, metric, by, from, to);
    sort_order_by(timeline, value)
}

/// What a group is sorted by for the window `from..=to`.
pub fn sort_value(
    timeline: &Timeline,
    metric: Metric,
    by: SortBy,
    from: usize,
    to: usize,
) -> impl Fn(u32) -> i128 + '_ {
    let at = move |s: usize| timeline.values.get(s).map(|v| v.get(metric));
    let (first, last) = (at(from), at(to));
    move |g: u32| -> i128 {
        let v = |values: Option<&[u64]>| values.and_then(|v| v.get(g as usize)).copied().unwrap_or(0) as i128;
        match by {
            SortBy::StartSize => v(first),
            SortBy::EndSize => v(last),
            SortBy::Growth => v(last) - v(first),
        }
    }
}

/// Each group's position among its siblings, largest `value` first; ties keep the order of
/// first appearance.
pub fn sort_order_by(timeline: &Timeline, value: impl Fn(u32) -> i128) -> Vec<u32> {
    let mut rank = vec![0u32; timeline.groups.len()];
    for group in &timeline.groups {
        let mut children = group.children.clone();
        // Stable: equal values keep their order of first appearance.
        children.sort_by_key(|&c| std::cmp::Reverse(value(c)));
        for (position, c) in children.into_iter().enumerate() {
            rank[c as usize] = position as u32;
        }
    }
    rank
}

/// The children of `group` a partition shows at `snapshot`, in sort order, and the pruned rest
/// (those with a value there), also in sort order.
pub fn kept_children(
    timeline: &Timeline,
    view: &TreeView,
    group: u32,
    snapshot: usize,
) -> (Vec<u32>, Vec<u32>) {
    let TreeView { metric, order, pruning, .. } = *view;
    let values = timeline.values[snapshot].get(metric);
    let value = |g: u32| values.get(g as usize).copied().unwrap_or(0);
    let mut children: Vec<u32> =
        timeline.groups[group as usize].children.iter().copied().filter(|&c| value(c) > 0).collect();
    children.sort_by_key(|&c| order[c as usize]);
    let branch: u64 = children.iter().map(|&c| value(c)).sum();
    let mut held = 0u64;
    let mut kept = 0;
    for &c in &children {
        if kept >= pruning.max_children || held as f64 >= pruning.share * branch as f64 {
            break;
        }
        held += value(c);
        kept += 1;
    }
    // Merging a single child gains nothing: it is shown as itself.
    if children.len() == kept + 1 {
        kept += 1;
    }
    let rest = children.split_off(kept);
    (children, rest)
}

/// The view's partition at `snapshot`: the root spans `0..root value / scale` of the axis, each
/// child follows its siblings in sort order inside its parent's extent, down to `levels` below
/// the root. A group's own objects (its value beyond its children's) leave a gap at the end of
/// its extent.
pub fn partition(timeline: &Timeline, view: &TreeView, snapshot: usize) -> Vec<Part> {
    let TreeView { metric, root, levels, scale, order, .. } = *view;
    // A root or order of another city (the window's model changed under a view) shows nothing.
    if root as usize >= timeline.groups.len() || order.len() != timeline.groups.len() {
        return Vec::new();
    }
    let Some(values) = timeline.values.get(snapshot).map(|v| v.get(metric)) else { return Vec::new() };
    let value = |g: u32| values.get(g as usize).copied().unwrap_or(0);
    let scale = scale.max(1) as f64;
    let mut parts = vec![Part {
        node: PartNode::Group(root),
        depth: 0,
        start: 0.0,
        end: value(root) as f64 / scale,
        value: value(root),
    }];
    let mut at = 0;
    while at < parts.len() {
        let (depth, start) = (parts[at].depth, parts[at].start);
        let PartNode::Group(group) = parts[at].node else {
            at += 1;
            continue;
        };
        at += 1;
        if depth >= levels {
            continue;
        }
        let (kept, rest) = kept_children(timeline, view, group, snapshot);
        let mut offset = start;
        let mut place = |node: PartNode, v: u64, parts: &mut Vec<Part>| {
            let end = offset + v as f64 / scale;
            parts.push(Part { node, depth: depth + 1, start: offset, end, value: v });
            offset = end;
        };
        for c in kept {
            place(PartNode::Group(c), value(c), &mut parts);
        }
        if !rest.is_empty() {
            let v = rest.iter().map(|&c| value(c)).sum();
            place(PartNode::Other { parent: group, groups: rest }, v, &mut parts);
        }
    }
    parts
}

/// The largest value `root` reaches in the window: the scale of a scaled view.
pub fn window_scale(timeline: &Timeline, metric: Metric, root: u32, from: usize, to: usize) -> u64 {
    (from..=to)
        .filter_map(|s| timeline.values.get(s))
        .map(|v| v.get(metric).get(root as usize).copied().unwrap_or(0))
        .max()
        .unwrap_or(0)
}

/// How many levels lie below `root` in the union tree (at least one, so a leaf shows as a
/// column or ring of its own).
pub fn levels_below(timeline: &Timeline, root: u32) -> u32 {
    // No such group (an empty city): one level, as for a leaf.
    let Some(base) = timeline.groups.get(root as usize).map(|g| g.depth) else { return 1 };
    let mut deepest = base;
    let mut pending = vec![root];
    while let Some(g) = pending.pop() {
        let group = &timeline.groups[g as usize];
        deepest = deepest.max(group.depth);
        pending.extend(&group.children);
    }
    (deepest - base).max(1)
}

/// A part as an icicle's rectangle in a `width × height` view showing `levels + 1` columns:
/// levels are columns from the left, extents run down. `[x0, y0, x1, y1]`.
pub fn icicle_rect(part: &Part, levels: u32, width: f64, height: f64) -> [f64; 4] {
    let column = width / f64::from(levels + 1);
    let x0 = column * f64::from(part.depth);
    [x0, part.start * height, x0 + column, part.end * height]
}

/// A part as a sunburst's ring sector of radius `radius` showing `levels + 1` rings (the root
/// is the disc in the middle): `[inner radius, outer radius, start angle, end angle]`, angles
/// in radians clockwise from 12 o'clock.
pub fn sunburst_sector(part: &Part, levels: u32, radius: f64) -> [f64; 4] {
    let ring = radius / f64::from(levels + 1);
    let tau = std::f64::consts::TAU;
    [ring * f64::from(part.depth), ring * f64::from(part.depth + 1), part.start * tau, part.end * tau]
}

#[cfg(test)]
mod tests;
