//! Frames (docs/design.md, "Frames" and "Growth color"): what every building looks like at one snapshot. A frame is compact
//! (8 bytes a building) so a million buildings update in milliseconds; footprint, height, color
//! and opacity derive from it and the static layout.

use rayon::prelude::*;

use crate::city::{AreaMode, Building, CityLayout};
use crate::squarify::Rect;

/// One building at one snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct BuildingState {
    /// `sqrt(area_t / area_max)`: the footprint is the reserved cell scaled by this.
    pub scale: f32,
    /// `(cur − first) / full_red`, clamped to [0, 1]; shrunk groups are 0 (gray).
    pub growth: f32,
}

/// All buildings of a layout at one snapshot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    pub states: Vec<BuildingState>,
}

/// Buildings per rayon task: large enough that scheduling costs nothing.
const CHUNK: usize = 16 * 1024;

/// Computes the frame of `snapshot`.
pub fn frame(city: &CityLayout, snapshot: usize) -> Frame {
    let mut states = vec![BuildingState::default(); city.buildings.len()];
    // Growth against the first snapshot, or in a difference city against the before run.
    let first = city.reference.get(snapshot).or(city.values.first());
    let (Some(cur), Some(first)) = (city.values.get(snapshot), first) else {
        return Frame { states };
    };
    let sqrt_area = city.settings.area == AreaMode::Sqrt;
    let full_red = city.full_red as f32;
    states.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        let range = c * CHUNK..c * CHUNK + out.len();
        let inv_max = &city.inv_max_value[range.clone()];
        let (cur, first) = (&cur[range.clone()], &first[range]);
        for (((state, &inv), &now), &first) in out.iter_mut().zip(inv_max).zip(cur).zip(first) {
            // area_t / area_max = v_t / v_max, or its square root in sqrt area mode.
            let ratio = (now * inv).min(1.0);
            let area_ratio = if sqrt_area { ratio.sqrt() } else { ratio };
            state.scale = area_ratio.sqrt();
            state.growth = ((now - first) / full_red).clamp(0.0, 1.0);
        }
    });
    Frame { states }
}

/// Every snapshot's frame, in parallel.
pub fn frames(city: &CityLayout) -> Vec<Frame> {
    (0..city.values.len()).into_par_iter().map(|s| frame(city, s)).collect()
}

/// Blends two frames (for animated transitions between snapshots).
pub fn lerp(a: BuildingState, b: BuildingState, t: f32) -> BuildingState {
    BuildingState { scale: a.scale + (b.scale - a.scale) * t, growth: a.growth + (b.growth - a.growth) * t }
}

/// The footprint: the reserved cell scaled uniformly and centered in it.
pub fn footprint(building: &Building, state: BuildingState) -> Rect {
    building.cell.scaled(state.scale as f64)
}

/// `2 · sqrt(footprint area)`.
pub fn height(building: &Building, state: BuildingState) -> f64 {
    2.0 * footprint(building, state).area().sqrt()
}

/// Hidden when the group has no objects at this snapshot.
pub fn visible(state: BuildingState) -> bool {
    state.scale > 0.0
}

pub const GRAY: [f32; 3] = [0.62, 0.62, 0.62];
pub const ORANGE: [f32; 3] = [1.0, 0.55, 0.0];
pub const RED: [f32; 3] = [0.9, 0.05, 0.05];

/// Gray (0) → orange (0.5) → red (1), sRGB.
pub fn growth_color(growth: f32) -> [f32; 3] {
    let t = growth.clamp(0.0, 1.0);
    let (from, to, u) = if t < 0.5 { (GRAY, ORANGE, t * 2.0) } else { (ORANGE, RED, t * 2.0 - 1.0) };
    [0, 1, 2].map(|i| from[i] * (1.0 - u) + to[i] * u)
}

/// Solid for the strongest overall growers, the non-solid opacity setting otherwise.
pub fn opacity(city: &CityLayout, building: &Building) -> f32 {
    if building.solid { 1.0 } else { city.settings.opacity }
}
