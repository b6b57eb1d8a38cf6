//! The display's geometry and colours (docs/ownership.md, "The display"), shared by the SVG
//! and the app: the shown root at the left filling the height, each node's children in the
//! next column to its right, stacked from its top edge largest first, each as tall as it owns;
//! what the children leave free below them is the node's self size (and its hidden children).
//! Colours run green → red with self size; a duplicated node's are paler.

use crate::{Ownership, TreeNode};

/// A tree node's place: `[x0, y0, x1, y1]` from the top left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Block {
    pub node: u32,
    /// Columns right of the shown root.
    pub depth: u32,
    pub rect: [f64; 4],
}

/// The blocks of the shown nodes under `focus` (itself included) in a `width` × `height`
/// area, parents before children. Every column has one width: the area over the deepest shown
/// level.
pub fn blocks(own: &Ownership, shown: &[bool], focus: u32, width: f64, height: f64) -> Vec<Block> {
    let levels = deepest(own, shown, focus) + 1;
    let column = width / f64::from(levels);
    let owned = own.tree[focus as usize].owned_bytes.max(1) as f64;
    let scale = height / owned;
    let mut out = vec![Block { node: focus, depth: 0, rect: [0.0, 0.0, column, height] }];
    let mut at = 0;
    while at < out.len() {
        let Block { node, depth, rect } = out[at];
        let mut y = rect[1];
        for &c in &own.tree[node as usize].children {
            if !shown[c as usize] {
                continue;
            }
            let h = own.tree[c as usize].owned_bytes as f64 * scale;
            let x0 = column * f64::from(depth + 1);
            out.push(Block { node: c, depth: depth + 1, rect: [x0, y, x0 + column, y + h] });
            y += h;
        }
        at += 1;
    }
    out
}

/// How many shown levels lie below `focus`.
fn deepest(own: &Ownership, shown: &[bool], focus: u32) -> u32 {
    let mut deepest = 0;
    let mut pending = vec![(focus, 0u32)];
    while let Some((t, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        for &c in &own.tree[t as usize].children {
            if shown[c as usize] {
                pending.push((c, depth + 1));
            }
        }
    }
    deepest
}

/// The block under the point `(x, y)`, if any.
pub fn hit(blocks: &[Block], x: f64, y: f64) -> Option<&Block> {
    blocks.iter().find(|b| x >= b.rect[0] && x < b.rect[2] && y >= b.rect[1] && y < b.rect[3])
}

/// The largest self size among `blocks`: the colour scale's red.
pub fn reddest(own: &Ownership, blocks: &[Block]) -> u64 {
    blocks.iter().map(|b| own.tree[b.node as usize].self_bytes).max().unwrap_or(0).max(1)
}

/// A node's colour: green (no self bytes) through yellow to red (`reddest`), on a square-root
/// scale so mid-sized users stand apart from the smallest; mixed halfway to grey where the
/// node is one of several copies of its class node.
pub fn color(node: &TreeNode, reddest: u64) -> [u8; 3] {
    let t = (node.self_bytes as f64 / reddest.max(1) as f64).clamp(0.0, 1.0).sqrt();
    let (green, yellow, red) = ([46.0, 184.0, 92.0], [241.0, 196.0, 15.0], [214.0, 48.0, 49.0]);
    let mix = |a: [f64; 3], b: [f64; 3], f: f64| [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * f);
    let mut rgb = if t < 0.5 { mix(green, yellow, t * 2.0) } else { mix(yellow, red, t * 2.0 - 1.0) };
    if node.fraction < 1.0 - 1e-9 {
        rgb = mix(rgb, [175.0, 175.0, 175.0], 0.55);
    }
    rgb.map(|v| v.round() as u8)
}

/// The shares of a node's height hatched: at the top its new objects among its objects, at
/// the bottom its growth among what it owns (0 where it shrank).
pub fn hatches(node: &TreeNode) -> (f64, f64) {
    let share = |part: f64, whole: u64| if whole == 0 { 0.0 } else { (part / whole as f64).clamp(0.0, 1.0) };
    (share(node.new_objects as f64, node.objects), share(node.growth_bytes.max(0) as f64, node.owned_bytes))
}

/// A sparkline of `history` in `rect`: one point per snapshot, the largest value at the top.
pub fn sparkline(history: &[u64], rect: [f64; 4]) -> Vec<[f64; 2]> {
    let top = history.iter().copied().max().unwrap_or(0).max(1) as f64;
    let steps = history.len().saturating_sub(1).max(1) as f64;
    let [x0, y0, x1, y1] = rect;
    history
        .iter()
        .enumerate()
        .map(|(i, &v)| [x0 + (x1 - x0) * i as f64 / steps, y1 - (y1 - y0) * v as f64 / top])
        .collect()
}

/// Whether a block has room for a sparkline (and its label above it).
pub fn fits_sparkline(rect: [f64; 4]) -> bool {
    rect[2] - rect[0] >= 60.0 && rect[3] - rect[1] >= 40.0
}

/// The history bar's shade for a heap of `bytes` against the `largest`: light (small) to dark
/// blue (large).
pub fn heap_shade(bytes: u64, largest: u64) -> [u8; 3] {
    let t = (bytes as f64 / largest.max(1) as f64).clamp(0.0, 1.0);
    let (light, dark) = ([222.0, 235.0, 247.0], [8.0, 48.0, 107.0]);
    [0, 1, 2].map(|i| (light[i] + (dark[i] - light[i]) * t).round() as u8)
}

/// Where each snapshot lies along the history bar, `0..=1` from the top, by its time (by its
/// index where the times do not increase).
pub fn time_marks(times_ms: &[u64]) -> Vec<f64> {
    let (first, last) = (times_ms.first().copied().unwrap_or(0), times_ms.last().copied().unwrap_or(0));
    let by_time = last > first && times_ms.windows(2).all(|w| w[0] <= w[1]);
    let steps = times_ms.len().saturating_sub(1).max(1) as f64;
    (0..times_ms.len())
        .map(|i| match by_time {
            true => (times_ms[i] - first) as f64 / (last - first) as f64,
            false if times_ms.len() == 1 => 0.5,
            false => i as f64 / steps,
        })
        .collect()
}

/// Each snapshot's band of the history bar, `(top, bottom)` in `0..=1`: from halfway to the
/// mark before to halfway to the mark after (the ends to the bar's ends).
pub fn bands(marks: &[f64]) -> Vec<(f64, f64)> {
    (0..marks.len())
        .map(|i| {
            let top = if i == 0 { 0.0 } else { (marks[i - 1] + marks[i]) / 2.0 };
            let bottom = if i + 1 == marks.len() { 1.0 } else { (marks[i] + marks[i + 1]) / 2.0 };
            (top, bottom)
        })
        .collect()
}

/// The snapshot a click at `at` (`0..=1` along the bar) picks: the nearest mark.
pub fn nearest_mark(marks: &[f64], at: f64) -> Option<usize> {
    (0..marks.len()).min_by(|&a, &b| (marks[a] - at).abs().total_cmp(&(marks[b] - at).abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{Builder, own, sessions};
    use crate::visible;

    #[test]
    fn children_stack_from_the_top_largest_first_and_leave_the_self_gap() {
        let mut b = Builder::default();
        let manager = sessions(&mut b, 4);
        b.root(manager, None);
        let own = own(&b.heap());
        let shown = visible(&own, 0.0);
        let blocks = blocks(&own, &shown, 0, 600.0, 400.0);
        assert_eq!(blocks.len(), own.tree.len());
        assert_eq!(blocks[0].rect, [0.0, 0.0, blocks[0].rect[2], 400.0]);
        let scale = 400.0 / own.heap_bytes as f64;
        for block in &blocks {
            let node = &own.tree[block.node as usize];
            let height = block.rect[3] - block.rect[1];
            assert!((height - node.owned_bytes as f64 * scale).abs() < 1e-6);
            let children: Vec<&Block> =
                blocks.iter().filter(|c| own.tree[c.node as usize].parent == Some(block.node)).collect();
            let mut y = block.rect[1];
            for c in &children {
                assert!((c.rect[1] - y).abs() < 1e-6, "stacked from the parent's top");
                assert!(c.rect[0] >= block.rect[2] - 1e-6, "to the right");
                y = c.rect[3];
            }
            let gap = block.rect[3] - y;
            assert!((gap - node.self_bytes as f64 * scale).abs() < 1e-6, "the gap is the self size");
            assert!(children.windows(2).all(|w| w[0].rect[3] - w[0].rect[1] >= w[1].rect[3] - w[1].rect[1]));
        }
        let inner = blocks.last().unwrap();
        let centre = [(inner.rect[0] + inner.rect[2]) / 2.0, (inner.rect[1] + inner.rect[3]) / 2.0];
        assert_eq!(hit(&blocks, centre[0], centre[1]).map(|b| b.node), Some(inner.node));
        assert!(hit(&blocks, -1.0, 0.0).is_none());
        // Focused on a subtree, it fills the height.
        let focus = own.tree[0].children[0];
        let sub = super::blocks(&own, &shown, focus, 600.0, 400.0);
        assert_eq!(sub[0].rect[3], 400.0);
        assert!(sub.len() < blocks.len());
    }

    #[test]
    fn colours_and_marks() {
        let mut b = Builder::default();
        let x = b.object("app.X", 10, &[]);
        b.root(x, None);
        let own = own(&b.heap());
        let mut node = own.tree[1].clone();
        node.self_bytes = 0;
        assert_eq!(color(&node, 100), [46, 184, 92]);
        node.self_bytes = 100;
        assert_eq!(color(&node, 100), [214, 48, 49]);
        node.fraction = 0.5;
        let pale = color(&node, 100);
        assert!(pale[0] < 214 && pale[1] > 48, "{pale:?}");
        node.objects = 10;
        node.new_objects = 5;
        node.owned_bytes = 100;
        node.growth_bytes = -20;
        assert_eq!(hatches(&node), (0.5, 0.0));
        assert_eq!(time_marks(&[1000, 2000, 5000]), [0.0, 0.25, 1.0]);
        assert_eq!(time_marks(&[0, 0, 0]), [0.0, 0.5, 1.0]);
        assert_eq!(nearest_mark(&[0.0, 0.25, 1.0], 0.3), Some(1));
        assert_eq!(bands(&[0.0, 0.25, 1.0]), [(0.0, 0.125), (0.125, 0.625), (0.625, 1.0)]);
        assert!(heap_shade(100, 100)[2] < heap_shade(10, 100)[2]);
        let line = sparkline(&[0, 50, 100], [0.0, 0.0, 10.0, 10.0]);
        assert_eq!(line, [[0.0, 10.0], [5.0, 5.0], [10.0, 0.0]]);
    }
}
