//! Camera orbits and framing: the closest orbit that shows a box whole above the timeline, the
//! whole city at its largest, and the box around a target and its references.

use bevy::prelude::*;
use memcity_layout::city::CITY_SIZE;
use memcity_layout::frame::height;
use memcity_layout::references::{frustum, references};

use crate::app::inspect::Target;
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
            (d.rect, d.top(), None)
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

#[cfg(test)]
mod tests {
    use super::*;

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
