//! The tree views' screen geometry, pure: tweening a partition between snapshots, hit-testing
//! a point to a part of an icicle or a sunburst, and the outline of a sunburst's ring sector.

use std::collections::HashMap;
use std::f64::consts::TAU;

use memcity_layout::partition::{Part, PartNode, icicle_rect, sunburst_sector};

/// How long a step through time takes to tween, in seconds.
pub const TWEEN_SECONDS: f64 = 0.4;

/// What a part is across snapshots: a group, or the "Other" node of a branch (whichever groups
/// it merges at each snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKey {
    Group(u32),
    Other(u32),
}

impl NodeKey {
    pub fn of(node: &PartNode) -> NodeKey {
        match node {
            PartNode::Group(g) => NodeKey::Group(*g),
            PartNode::Other { parent, .. } => NodeKey::Other(*parent),
        }
    }
}

/// Smoothstep: starts and ends at rest.
pub fn ease(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The parts of `to` on their way from where they were in `from` (`t` = 0) to their own place
/// (`t` = 1). A part new in `to` grows from nothing at its start; a part gone from `to` is gone.
pub fn tween(from: &[Part], to: &[Part], t: f64) -> Vec<Part> {
    if t >= 1.0 {
        return to.to_vec();
    }
    let before: HashMap<NodeKey, (f64, f64)> =
        from.iter().map(|p| (NodeKey::of(&p.node), (p.start, p.end))).collect();
    let lerp = |a: f64, b: f64| a + (b - a) * t;
    to.iter()
        .map(|p| {
            let (start, end) = before.get(&NodeKey::of(&p.node)).copied().unwrap_or((p.start, p.start));
            Part { start: lerp(start, p.start), end: lerp(end, p.end), ..p.clone() }
        })
        .collect()
}

/// The part of an icicle of `levels + 1` columns in a `width × height` view under `point`
/// (relative to the view's top left).
pub fn icicle_hit(parts: &[Part], levels: u32, width: f64, height: f64, point: [f64; 2]) -> Option<usize> {
    let [x, y] = point;
    parts.iter().position(|p| {
        let [x0, y0, x1, y1] = icicle_rect(p, levels, width, height);
        x >= x0 && x < x1 && y >= y0 && y < y1
    })
}

/// The part of a sunburst of `levels + 1` rings of `radius` under `point` (relative to its
/// centre, y down).
pub fn sunburst_hit(parts: &[Part], levels: u32, radius: f64, point: [f64; 2]) -> Option<usize> {
    let [x, y] = point;
    let r = x.hypot(y);
    // Clockwise from 12 o'clock, in 0..τ.
    let angle = x.atan2(-y).rem_euclid(TAU);
    parts.iter().position(|p| {
        let [r0, r1, a0, a1] = sunburst_sector(p, levels, radius);
        r >= r0 && r < r1 && angle >= a0 && angle < a1
    })
}

/// A point at `radius` and `angle` (clockwise from 12 o'clock) around `center`, y down.
pub fn polar(center: [f64; 2], radius: f64, angle: f64) -> [f64; 2] {
    [center[0] + radius * angle.sin(), center[1] - radius * angle.cos()]
}

/// The outline of a ring sector: the outer arc clockwise, then the inner arc back, one point per
/// `step` radians at most (a disc's inner arc is its centre).
pub fn sector_outline(center: [f64; 2], sector: [f64; 4], step: f64) -> Vec<[f64; 2]> {
    let [r0, r1, a0, a1] = sector;
    let n = ((a1 - a0) / step.max(1e-3)).ceil().max(1.0) as usize;
    let angle = |i: usize| a0 + (a1 - a0) * i as f64 / n as f64;
    let mut points: Vec<[f64; 2]> = (0..=n).map(|i| polar(center, r1, angle(i))).collect();
    if r0 <= 0.0 {
        points.push(center);
    } else {
        points.extend((0..=n).rev().map(|i| polar(center, r0, angle(i))));
    }
    points
}

/// A stretch of one level drawn as one piece: `start..end` along the value axis (fractions), in
/// the colour of `parts[part]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    pub depth: u32,
    pub start: f64,
    pub end: f64,
    pub part: usize,
}

/// What to draw of `parts` (in partition order: by level, then along the axis) when the whole
/// axis is `axis_px` pixels long: a part thinner than `min_px` merges with the neighbours it
/// touches on its level until the run is that thick, coloured as its largest part; thicker parts
/// stand alone. A level of thousands of slivers then costs as many pieces as it has pixels, and
/// no stretch of them vanishes.
pub fn runs(parts: &[Part], axis_px: f64, min_px: f64) -> Vec<Run> {
    let min = min_px / axis_px.max(1e-9);
    let mut runs: Vec<Run> = Vec::with_capacity(parts.len());
    for (i, p) in parts.iter().enumerate() {
        if let Some(last) = runs.last_mut()
            && last.depth == p.depth
            && (p.start - last.end).abs() < 1e-9
            && last.end - last.start < min
            && p.end - p.start < min
        {
            if p.end - p.start > parts[last.part].end - parts[last.part].start {
                last.part = i;
            }
            last.end = p.end;
            continue;
        }
        runs.push(Run { depth: p.depth, start: p.start, end: p.end, part: i });
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(node: PartNode, depth: u32, start: f64, end: f64) -> Part {
        Part { node, depth, start, end, value: 1 }
    }

    fn tree() -> Vec<Part> {
        vec![
            part(PartNode::Group(0), 0, 0.0, 1.0),
            part(PartNode::Group(1), 1, 0.0, 0.6),
            part(PartNode::Other { parent: 0, groups: vec![2, 3] }, 1, 0.6, 0.9),
            part(PartNode::Group(4), 2, 0.0, 0.25),
        ]
    }

    #[test]
    fn an_icicle_point_hits_the_part_in_its_column_and_extent() {
        let parts = tree();
        // 3 columns of 100 × 200.
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [50.0, 199.0]), Some(0));
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [150.0, 10.0]), Some(1));
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [150.0, 130.0]), Some(2));
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [150.0, 190.0]), None, "the root's own gap");
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [250.0, 40.0]), Some(3));
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [250.0, 60.0]), None);
        assert_eq!(icicle_hit(&parts, 2, 300.0, 200.0, [-1.0, 10.0]), None);
    }

    #[test]
    fn a_sunburst_point_hits_the_part_in_its_ring_and_angle() {
        let parts = tree();
        // Rings of 30 around the centre: the root's disc, then the children clockwise from 12.
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [5.0, -5.0]), Some(0));
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [40.0, 0.0]), Some(1), "3 o'clock is 0.25 round");
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [-40.0, 0.0]), Some(2), "9 o'clock is 0.75 round");
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [-12.0, -38.0]), None, "0.95 round: the gap");
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [70.0, 1.0]), None, "just past 0.25 at depth 2");
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [70.0, -20.0]), Some(3));
        assert_eq!(sunburst_hit(&parts, 2, 90.0, [95.0, 0.0]), None, "outside");
    }

    #[test]
    fn slivers_merge_into_runs_a_pixel_thick_and_thick_parts_stand_alone() {
        let mut parts = vec![part(PartNode::Group(0), 0, 0.0, 1.0)];
        // 1000 slivers of 0.1 px on a 200 px axis, a 20 px part, a gap, one more sliver.
        for i in 0..1000 {
            let start = i as f64 * 0.0005;
            parts.push(part(PartNode::Group(i + 1), 1, start, start + 0.0005));
        }
        parts.push(part(PartNode::Group(2000), 1, 0.5, 0.6));
        parts.push(part(PartNode::Group(2001), 1, 0.7, 0.7005));
        let runs = runs(&parts, 200.0, 1.0);
        assert_eq!(runs[0], Run { depth: 0, start: 0.0, end: 1.0, part: 0 });
        let slivers: Vec<&Run> = runs.iter().filter(|r| r.depth == 1 && r.end <= 0.5 + 1e-9).collect();
        assert!((90..=100).contains(&slivers.len()), "100 px of slivers in 1 px runs: {}", slivers.len());
        assert!(slivers.windows(2).all(|w| (w[0].end - w[1].start).abs() < 1e-9), "no gap between runs");
        assert_eq!(slivers[0].start, 0.0);
        assert!((slivers.last().unwrap().end - 0.5).abs() < 1e-9);
        let rest: Vec<(f64, f64, usize)> = runs
            .iter()
            .filter(|r| r.start >= 0.5 - 1e-9 && r.depth == 1)
            .map(|r| (r.start, r.end, r.part))
            .collect();
        assert_eq!(rest, [(0.5, 0.6, 1001), (0.7, 0.7005, 1002)], "thick parts and lone slivers as they are");
    }

    #[test]
    fn a_tween_moves_kept_parts_grows_new_ones_and_keeps_others_by_branch() {
        let from = tree();
        let mut to = tree();
        to[1].end = 0.4;
        to[2] = part(PartNode::Other { parent: 0, groups: vec![3] }, 1, 0.4, 0.5);
        to[3] = part(PartNode::Group(5), 2, 0.0, 0.2);
        let half = tween(&from, &to, 0.5);
        assert_eq!((half[1].start, half[1].end), (0.0, 0.5));
        assert!((half[2].start - 0.5).abs() < 1e-9 && (half[2].end - 0.7).abs() < 1e-9, "{:?}", half[2]);
        assert_eq!(half[2].node, to[2].node, "the part drawn is the new one");
        assert_eq!((half[3].start, half[3].end), (0.0, 0.1), "new: grows from its start");
        assert_eq!(tween(&from, &to, 0.0)[1].end, 0.6);
        assert_eq!(tween(&from, &to, 1.0), to);
        assert_eq!(ease(0.0), 0.0);
        assert_eq!(ease(1.0), 1.0);
        assert_eq!(ease(0.5), 0.5);
        assert!(ease(0.1) < 0.1, "starts slowly");
    }

    #[test]
    fn a_sector_outline_runs_round_the_outer_arc_and_back_along_the_inner() {
        let points = sector_outline([0.0, 0.0], [10.0, 20.0, 0.0, TAU / 4.0], TAU / 8.0);
        assert_eq!(points.len(), 6);
        let close = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9;
        assert!(close(points[0], [0.0, -20.0]) && close(points[2], [20.0, 0.0]));
        assert!(close(points[3], [10.0, 0.0]) && close(points[5], [0.0, -10.0]));
        let disc = sector_outline([5.0, 5.0], [0.0, 10.0, 0.0, TAU], 0.1);
        assert_eq!(*disc.last().unwrap(), [5.0, 5.0]);
    }
}
