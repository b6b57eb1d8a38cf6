//! Camera orbits and framing: the closest orbit that shows a box whole above the timeline, the
//! whole city at its largest, and the box around a target and its references.

use bevy::prelude::*;
use memcity_layout::city::CITY_SIZE;
use memcity_layout::frame::height;
use memcity_layout::references::{frustum, references};

use crate::app::inspect::{Marked, Target};
use crate::app::model::CityModel;
use crate::app::time::DisplayedFrame;

/// Where the camera looks from: an orbit around `focus`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    pub focus: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub radius: f32,
}

/// The vertical field of view (Bevy's default perspective).
pub const FOV: f32 = std::f32::consts::FRAC_PI_4;
/// Space left around what is framed.
const MARGIN: f32 = 1.08;

impl Orbit {
    /// The eye's offset from the focus.
    fn offset(yaw: f32, pitch: f32) -> Vec3 {
        Vec3::new(pitch.cos() * yaw.sin(), pitch.sin(), pitch.cos() * yaw.cos())
    }

    /// The closest orbit looking from (`yaw`, `pitch`) that shows the box `min..max` whole on a
    /// screen of `aspect` (width / height) whose bottom `bottom` fraction is covered by the UI:
    /// every corner lands inside the part above it.
    pub fn framing(min: Vec3, max: Vec3, yaw: f32, pitch: f32, aspect: f32, bottom: f32) -> Orbit {
        let center = (min + max) / 2.0;
        let back = Orbit::offset(yaw, pitch);
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        let up = back.cross(right);
        let bottom = bottom.clamp(0.0, 0.6);
        let (tan_v, tan_h) = ((FOV / 2.0).tan(), (FOV / 2.0).tan() * aspect.max(0.1));
        let mut distance: f32 = 1.0;
        for corner in 0..8 {
            let pick = |bit: usize, a: f32, b: f32| if corner >> bit & 1 == 0 { a } else { b };
            let p = Vec3::new(pick(0, min.x, max.x), pick(1, min.y, max.y), pick(2, min.z, max.z)) - center;
            let (x, y, z) = (p.dot(right), p.dot(up), p.dot(back));
            distance = distance.max(z + (x.abs() / tan_h).max(y.abs() / (tan_v * (1.0 - bottom))));
        }
        let radius = distance * MARGIN;
        // Lift the framed box into the middle of the part of the screen above the UI.
        let focus = center - up * bottom * radius * tan_v;
        Orbit { focus, yaw, pitch, radius }
    }

    /// The whole city at its largest (the max tree's tallest building included).
    pub fn overview(tallest: f32, aspect: f32, bottom: f32) -> Orbit {
        let (min, max) = city_bounds(tallest);
        Orbit::framing(min, max, 0.55, 0.6, aspect, bottom)
    }

    pub fn bird(tallest: f32) -> Orbit {
        let c = CITY_SIZE as f32 / 2.0;
        Orbit { focus: Vec3::new(c, 0.0, c), pitch: 1.5, yaw: 0.0, radius: 1.3 * CITY_SIZE as f32 + tallest }
    }

    /// Low over the city's front edge, looking along the streets.
    pub fn street(tallest: f32) -> Orbit {
        let c = CITY_SIZE as f32 / 2.0;
        Orbit {
            focus: Vec3::new(c, tallest * 0.25, c),
            yaw: 0.35,
            pitch: 0.22,
            radius: 1.2 * (CITY_SIZE as f32).max(tallest),
        }
    }

    /// Height of the tallest building of a layout at its largest.
    pub fn tallest(layout: &memcity_layout::CityLayout) -> f32 {
        layout.buildings.iter().map(|b| (b.base + 2.0 * b.cell.area().sqrt()) as f32).fold(0.0, f32::max)
    }

    /// The first orbit of `frame(pitch)`, for pitches from `self`'s up to 80° from level, from
    /// which no tower outside the target box `min..max` hides the target's top: each line of
    /// sight from the camera to the top's corners and center passes by every tower.
    pub fn clear_of(self, towers: &[Tower], min: Vec3, max: Vec3, frame: impl Fn(f32) -> Orbit) -> Orbit {
        let outside: Vec<&Tower> = towers
            .iter()
            .filter(|t| {
                !(t.center.x >= min.x && t.center.x <= max.x && t.center.y >= min.z && t.center.y <= max.z)
            })
            .collect();
        let tops = [
            Vec3::new((min.x + max.x) / 2.0, max.y, (min.z + max.z) / 2.0),
            Vec3::new(min.x, max.y, min.z),
            Vec3::new(min.x, max.y, max.z),
            Vec3::new(max.x, max.y, min.z),
            Vec3::new(max.x, max.y, max.z),
        ];
        let mut orbit = self;
        while orbit.pitch < 1.4 {
            let camera = orbit.transform().translation;
            let hidden = outside.iter().any(|t| tops.iter().any(|&p| t.blocks(p, camera)));
            if !hidden {
                return orbit;
            }
            orbit = frame((orbit.pitch + 0.05).min(1.4));
        }
        orbit
    }

    pub fn transform(&self) -> Transform {
        Transform::from_translation(self.focus + self.radius * Orbit::offset(self.yaw, self.pitch))
            .looking_at(self.focus, Vec3::Y)
    }
}

fn city_bounds(tallest: f32) -> (Vec3, Vec3) {
    (Vec3::ZERO, Vec3::new(CITY_SIZE as f32, tallest.max(1.0), CITY_SIZE as f32))
}

/// The box around `target` as shown now, and with `with_references` around the buildings its
/// references lead to.
/// A building as the camera must see past it: its center on the ground (x, z), half its
/// width, and its top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tower {
    pub center: Vec2,
    pub half: f32,
    pub top: f32,
}

impl Tower {
    /// Whether the segment `from → to` passes through this tower (a box from the ground up).
    pub fn blocks(&self, from: Vec3, to: Vec3) -> bool {
        let lo = Vec3::new(self.center.x - self.half, 0.0, self.center.y - self.half);
        let hi = Vec3::new(self.center.x + self.half, self.top, self.center.y + self.half);
        let d = to - from;
        let (mut enter, mut leave) = (0.0f32, 1.0f32);
        for axis in 0..3 {
            if d[axis].abs() < 1e-6 {
                if from[axis] < lo[axis] || from[axis] > hi[axis] {
                    return false;
                }
                continue;
            }
            let (a, b) = ((lo[axis] - from[axis]) / d[axis], (hi[axis] - from[axis]) / d[axis]);
            enter = enter.max(a.min(b));
            leave = leave.min(a.max(b));
        }
        enter <= leave
    }
}

/// Every shown building as a [`Tower`] at the displayed frame.
pub fn towers(model: &CityModel, frame: &DisplayedFrame) -> Vec<Tower> {
    let layout = &model.layout;
    if frame.frame.states.len() != layout.buildings.len() {
        return Vec::new();
    }
    layout
        .buildings
        .iter()
        .zip(&frame.frame.states)
        .filter(|(_, state)| memcity_layout::frame::visible(**state))
        .map(|(b, state)| {
            let (x, z) = b.cell.center();
            Tower {
                center: Vec2::new(x as f32, z as f32),
                half: (b.cell.w.max(b.cell.d) / 2.0) as f32,
                top: (b.base + height(b, *state)) as f32,
            }
        })
        .collect()
}

pub fn target_bounds(
    model: &CityModel,
    frame: &DisplayedFrame,
    snapshot: usize,
    target: Target,
    with_references: bool,
) -> Option<(Vec3, Vec3)> {
    let layout = &model.layout;
    let (rect, top, building) = match target {
        Target::Building(g) => {
            let b = layout.building(g)?;
            let building = &layout.buildings[b];
            let state = frame.frame.states.get(b).copied().unwrap_or_default();
            (building.cell, building.base + height(building, state).max(1.0), Some(b))
        }
        Target::District(g) => {
            let d = &layout.districts[layout.district(g)?];
            // The district's towers belong in view, not just its plate.
            let r = d.rect;
            let towers = towers(model, frame).into_iter().filter(|t| {
                let (x, z) = (t.center.x as f64, t.center.y as f64);
                x >= r.x && x <= r.x + r.w && z >= r.z && z <= r.z + r.d
            });
            let top = towers.map(|t| t.top as f64).fold(d.top(), f64::max);
            (d.rect, top, None)
        }
    };
    let mut min = Vec3::new(rect.x as f32, 0.0, rect.z as f32);
    let mut max = Vec3::new((rect.x + rect.w) as f32, top as f32, (rect.z + rect.d) as f32);
    if let (Some(b), true) = (building, with_references)
        && frame.frame.states.len() == layout.buildings.len()
        && snapshot < model.timeline.pointers.len()
    {
        for r in references(layout, &model.timeline, snapshot, b) {
            if let Some(f) = frustum(layout, &frame.frame, &r) {
                for p in [f.from, f.to] {
                    let p = Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32);
                    (min, max) = (min.min(p), max.max(p));
                }
            }
        }
    }
    Some((min, max))
}

/// The box around every marked building as shown now, if any is.
pub fn marked_bounds(model: &CityModel, frame: &DisplayedFrame, marked: &Marked) -> Option<(Vec3, Vec3)> {
    model
        .layout
        .buildings
        .iter()
        .filter(|b| marked.has(b.group))
        .filter_map(|b| target_bounds(model, frame, 0, Target::Building(b.group), false))
        .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tall_tower_between_camera_and_target_makes_the_camera_look_down_past_it() {
        let (min, max) = (Vec3::new(-5.0, 0.0, -5.0), Vec3::new(5.0, 10.0, 5.0));
        let level = Orbit::framing(min, max, 0.0, 0.45, 16.0 / 9.0, 0.0);
        // The camera is towards +z (yaw 0); a tower taller than the target on that side.
        let wall = Tower { center: Vec2::new(0.0, 15.0), half: 4.0, top: 16.0 };
        let behind = Tower { center: Vec2::new(0.0, -40.0), half: 8.0, top: 500.0 };
        let beside = Tower { center: Vec2::new(80.0, 40.0), half: 8.0, top: 500.0 };
        let frame = |pitch| Orbit::framing(min, max, 0.0, pitch, 16.0 / 9.0, 0.0);
        let top = Vec3::new(0.0, max.y, 0.0);
        assert!(wall.blocks(top, level.transform().translation), "the test needs a hiding wall");
        let clear = level.clear_of(&[wall, behind, beside], min, max, frame);
        assert!(clear.pitch > level.pitch + 0.3, "{} → {}", level.pitch, clear.pitch);
        let camera = clear.transform().translation;
        for corner in [top, Vec3::new(min.x, max.y, max.z), Vec3::new(max.x, max.y, min.z)] {
            assert!(!wall.blocks(corner, camera), "the wall still hides {corner}");
        }
        // Nothing in the way: unchanged.
        assert_eq!(level.clear_of(&[behind, beside], min, max, frame), level);
    }

    /// Where a world point lands in normalized device coordinates for an orbit.
    fn ndc(orbit: &Orbit, aspect: f32, p: Vec3) -> Vec2 {
        let view = orbit.transform().to_matrix().inverse();
        let clip = Mat4::perspective_rh(FOV, aspect, 1.0, 1e6) * view * p.extend(1.0);
        Vec2::new(clip.x / clip.w, clip.y / clip.w)
    }

    #[test]
    fn framing_keeps_every_corner_on_screen_and_above_the_timeline() {
        let (min, max) = city_bounds(900.0);
        for (aspect, bottom) in [(16.0 / 9.0, 0.0), (16.0 / 9.0, 0.2), (0.7, 0.15), (3.0, 0.3)] {
            let orbit = Orbit::framing(min, max, 0.55, 0.6, aspect, bottom);
            let mut lowest: f32 = 1.0;
            for corner in 0..8 {
                let pick = |bit: usize, a: f32, b: f32| if corner >> bit & 1 == 0 { a } else { b };
                let p = Vec3::new(pick(0, min.x, max.x), pick(1, min.y, max.y), pick(2, min.z, max.z));
                let q = ndc(&orbit, aspect, p);
                assert!(q.x.abs() <= 1.0 && q.y <= 1.0, "{aspect} {bottom}: corner {p} at {q}");
                // The timeline covers ndc y below -1 + 2·bottom.
                assert!(
                    q.y >= -1.0 + 2.0 * bottom - 1e-3,
                    "{aspect} {bottom}: corner {p} under the UI at {q}"
                );
                lowest = lowest.min(q.y);
            }
            // Tight: some corner comes close to the usable bottom edge or a side.
            assert!(lowest < -1.0 + 2.0 * bottom + 0.3, "{aspect} {bottom}: loose framing ({lowest})");
        }
    }

    #[test]
    fn the_overview_frames_the_tallest_building_at_its_largest() {
        let low = Orbit::overview(50.0, 16.0 / 9.0, 0.1);
        let high = Orbit::overview(2000.0, 16.0 / 9.0, 0.1);
        assert!(high.radius > low.radius * 1.3, "a taller city is seen from further away");
        let top = Vec3::new(500.0, 2000.0, 500.0);
        assert!(ndc(&high, 16.0 / 9.0, top).y <= 1.0, "the roof is not cut");
    }
}
