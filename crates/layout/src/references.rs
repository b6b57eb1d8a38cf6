//! Reference frustums (docs/design.md, "References"): for a selected building S, the buildings that keep it alive
//! (incoming, purple) and the ones it keeps alive (outgoing, green). For an edge A→B the radius
//! at A grows with the fraction of A's objects that reference B, the radius at B with the
//! fraction of B's objects referenced from A, so few-to-many and many-to-few read as cones.

use memcity_model::{Pointers, Timeline};

use crate::city::CityLayout;
use crate::frame::{Frame, footprint, height, visible};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From a building that keeps the selection alive.
    Incoming,
    /// To a building the selection keeps alive.
    Outgoing,
}

/// An edge A→B between two buildings at one snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub direction: Direction,
    /// Building indices.
    pub from: usize,
    pub to: usize,
    /// Distinct objects of A that reference B (`pointed_from[B][A]`).
    pub referrers: u64,
    /// Distinct objects of B referenced from A (`points_to[A][B]`).
    pub referents: u64,
    /// `referrers / objects(A)` and `referents / objects(B)`, in [0, 1].
    pub from_fraction: f32,
    pub to_fraction: f32,
}

/// The edges of building `selected` at `snapshot`, incoming first; buildings outside the layout
/// (pruned) and self-references are left out.
pub fn references(
    city: &CityLayout,
    timeline: &Timeline,
    snapshot: usize,
    selected: usize,
) -> Vec<Reference> {
    let s = city.buildings[selected].group;
    let maps = &timeline.pointers[snapshot];
    let objects = &timeline.values[snapshot].objects;
    let edge = |direction, a: u32, b: u32| {
        let referents = Pointers::count(&maps.points_to, a, b);
        let referrers = Pointers::count(&maps.pointed_from, b, a);
        // A source that gives only one of the two maps: use that count for both ends.
        let (referrers, referents) = match (referrers, referents) {
            (0, n) | (n, 0) => (n, n),
            pair => pair,
        };
        let fraction = |n: u64, g: u32| {
            let total = objects[g as usize];
            if total == 0 { 0.0 } else { (n as f64 / total as f64).min(1.0) as f32 }
        };
        Some(Reference {
            direction,
            from: city.building(a)?,
            to: city.building(b)?,
            referrers,
            referents,
            from_fraction: fraction(referrers, a),
            to_fraction: fraction(referents, b),
        })
    };
    let incoming = maps.pointed_from.get(&s).into_iter().flatten().filter(|&&(a, _)| a != s);
    let outgoing = maps.points_to.get(&s).into_iter().flatten().filter(|&&(b, _)| b != s);
    incoming
        .filter_map(|&(a, _)| edge(Direction::Incoming, a, s))
        .chain(outgoing.filter_map(|&(b, _)| edge(Direction::Outgoing, s, b)))
        .collect()
}

/// A truncated cone between two roof centers.
#[derive(Debug, Clone, PartialEq)]
pub struct Frustum {
    pub direction: Direction,
    pub from: [f64; 3],
    pub to: [f64; 3],
    pub radius_from: f64,
    pub radius_to: f64,
}

/// Smallest drawn radius, as a fraction of the largest, so thin edges stay visible.
pub const MIN_FRACTION: f64 = 0.08;
/// Radius of an end whose fraction is 1, as a fraction of the roof's shorter side.
pub const FULL_RADIUS: f64 = 0.2;

/// The frustum of `reference` in `frame`; `None` when an end is not visible at that time.
pub fn frustum(city: &CityLayout, frame: &Frame, reference: &Reference) -> Option<Frustum> {
    let end = |b: usize, fraction: f32| {
        let (building, state) = (&city.buildings[b], frame.states[b]);
        visible(state).then(|| {
            let fp = footprint(building, state);
            let (x, z) = fp.center();
            let top = [x, building.base + height(building, state), z];
            (top, FULL_RADIUS * fp.w.min(fp.d) * (fraction as f64).max(MIN_FRACTION))
        })
    };
    let (from, radius_from) = end(reference.from, reference.from_fraction)?;
    let (to, radius_to) = end(reference.to, reference.to_fraction)?;
    Some(Frustum { direction: reference.direction, from, to, radius_from, radius_to })
}

/// Points along an arc over the city from `f.from` to `f.to` (a quadratic Bézier whose apex
/// clears both ends by a quarter of their distance), for routed references that do not cut
/// through buildings.
pub fn arc(f: &Frustum, segments: usize) -> Vec<[f64; 3]> {
    let dist = ((f.to[0] - f.from[0]).powi(2) + (f.to[2] - f.from[2]).powi(2)).sqrt();
    let apex = f.from[1].max(f.to[1]) + 0.25 * dist + 1.0;
    let control =
        [(f.from[0] + f.to[0]) / 2.0, 2.0 * apex - (f.from[1] + f.to[1]) / 2.0, (f.from[2] + f.to[2]) / 2.0];
    (0..=segments.max(1))
        .map(|i| {
            let t = i as f64 / segments.max(1) as f64;
            let (a, b, c) = ((1.0 - t) * (1.0 - t), 2.0 * (1.0 - t) * t, t * t);
            [0, 1, 2].map(|k| a * f.from[k] + b * control[k] + c * f.to[k])
        })
        .collect()
}
