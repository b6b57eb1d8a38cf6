//! Picking: which building a ray from the camera hits first. Buildings never leave their reserved
//! cells, so a uniform grid over the cells, built once per layout, serves every snapshot; a ray
//! walks the grid front to back (2D DDA) and tests only the buildings registered where it passes.

use crate::city::{CITY_SIZE, CityLayout};
use crate::squarify::Rect;

/// A building's box at some time: footprint, base and height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuildingBox {
    pub footprint: Rect,
    pub base: f64,
    pub height: f64,
}

/// Buildings registered per grid cell, in compressed rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PickGrid {
    side: usize,
    cell: f64,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl PickGrid {
    pub fn new(city: &CityLayout) -> PickGrid {
        let side = ((city.buildings.len() as f64).sqrt().ceil() as usize).clamp(1, 2048);
        let cell = CITY_SIZE / side as f64;
        let range = |lo: f64, len: f64| {
            let a = ((lo / cell).floor().max(0.0) as usize).min(side - 1);
            let b = (((lo + len) / cell).floor().max(0.0) as usize).min(side - 1);
            a..=b
        };
        let mut counts = vec![0u32; side * side + 1];
        let each = |f: &mut dyn FnMut(usize, u32)| {
            for (i, b) in city.buildings.iter().enumerate() {
                for gz in range(b.cell.z, b.cell.d) {
                    for gx in range(b.cell.x, b.cell.w) {
                        f(gz * side + gx, i as u32);
                    }
                }
            }
        };
        each(&mut |c, _| counts[c + 1] += 1);
        for c in 1..counts.len() {
            counts[c] += counts[c - 1];
        }
        let mut fill = counts.clone();
        let mut items = vec![0u32; *counts.last().unwrap() as usize];
        each(&mut |c, i| {
            items[fill[c] as usize] = i;
            fill[c] += 1;
        });
        PickGrid { side, cell, starts: counts, items }
    }

    fn cell_items(&self, gx: usize, gz: usize) -> &[u32] {
        let c = gz * self.side + gx;
        &self.items[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// The nearest building hit by the ray `origin + t·dir` (t ≥ 0) and its distance `t`.
    /// `box_of` gives a building's current box, or `None` where it is hidden.
    pub fn pick(
        &self,
        origin: [f64; 3],
        dir: [f64; 3],
        box_of: impl Fn(usize) -> Option<BuildingBox>,
    ) -> Option<(usize, f64)> {
        // Clip the ray to the city's square on the ground plane.
        let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
        for (o, d) in [(origin[0], dir[0]), (origin[2], dir[2])] {
            if d.abs() < 1e-12 {
                if !(0.0..=CITY_SIZE).contains(&o) {
                    return None;
                }
            } else {
                let (a, b) = ((0.0 - o) / d, (CITY_SIZE - o) / d);
                t0 = t0.max(a.min(b));
                t1 = t1.min(a.max(b));
            }
        }
        if t0 > t1 {
            return None;
        }
        let start = [origin[0] + dir[0] * t0, origin[2] + dir[2] * t0];
        let clampi = |v: f64| ((v / self.cell).floor().max(0.0) as usize).min(self.side - 1);
        let (mut gx, mut gz) = (clampi(start[0]), clampi(start[1]));
        let step = |d: f64| if d > 0.0 { 1i64 } else { -1 };
        let next_boundary =
            |g: usize, d: f64| if d > 0.0 { (g + 1) as f64 * self.cell } else { g as f64 * self.cell };
        let t_to = |o: f64, d: f64, g: usize| {
            if d.abs() < 1e-12 { f64::INFINITY } else { (next_boundary(g, d) - o) / d }
        };
        let (mut tx, mut tz) = (t_to(origin[0], dir[0], gx), t_to(origin[2], dir[2], gz));
        let (dtx, dtz) = (self.cell / dir[0].abs().max(1e-12), self.cell / dir[2].abs().max(1e-12));
        let mut best: Option<(usize, f64)> = None;
        loop {
            for &b in self.cell_items(gx, gz) {
                if let Some(bx) = box_of(b as usize)
                    && let Some(t) = ray_box(origin, dir, &bx)
                    && best.is_none_or(|(_, bt)| t < bt)
                {
                    best = Some((b as usize, t));
                }
            }
            let cell_exit = tx.min(tz);
            if best.is_some_and(|(_, t)| t <= cell_exit) || cell_exit > t1 {
                return best;
            }
            if tx < tz {
                let nx = gx as i64 + step(dir[0]);
                if !(0..self.side as i64).contains(&nx) {
                    return best;
                }
                gx = nx as usize;
                tx += dtx;
            } else {
                let nz = gz as i64 + step(dir[2]);
                if !(0..self.side as i64).contains(&nz) {
                    return best;
                }
                gz = nz as usize;
                tz += dtz;
            }
        }
    }
}

/// Slab test: the entry distance of the ray into the box, if it hits.
pub fn ray_box(origin: [f64; 3], dir: [f64; 3], b: &BuildingBox) -> Option<f64> {
    let lo = [b.footprint.x, b.base, b.footprint.z];
    let hi = [b.footprint.x + b.footprint.w, b.base + b.height, b.footprint.z + b.footprint.d];
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for k in 0..3 {
        if dir[k].abs() < 1e-12 {
            if origin[k] < lo[k] || origin[k] > hi[k] {
                return None;
            }
        } else {
            let (a, c) = ((lo[k] - origin[k]) / dir[k], (hi[k] - origin[k]) / dir[k]);
            t0 = t0.max(a.min(c));
            t1 = t1.min(a.max(c));
        }
    }
    (t0 <= t1).then_some(t0)
}
