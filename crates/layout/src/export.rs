//! `city.json`: a laid-out city with every snapshot's frame, for tools that draw it themselves.
//! Schema in docs/city-json.md.

use memcity_model::{History, Timeline};
use serde::Serialize;

use crate::city::CityLayout;
use crate::frame::{Frame, footprint, growth_color, height, opacity, visible};
use crate::squarify::Rect;

#[derive(Serialize)]
pub struct CityJson<'a> {
    pub settings: &'a crate::Settings,
    pub districts: Vec<DistrictJson<'a>>,
    pub buildings: Vec<BuildingJson<'a>>,
    pub frames: Vec<FrameJson<'a>>,
}

#[derive(Serialize)]
pub struct DistrictJson<'a> {
    pub key: &'a str,
    pub depth: u32,
    #[serde(flatten)]
    pub rect: Rect,
    /// Height of the slab's top face.
    pub top: f64,
    pub color: [f32; 3],
}

#[derive(Serialize)]
pub struct BuildingJson<'a> {
    pub key: &'a str,
    pub reserved: Rect,
    /// Height of the ground the building stands on.
    pub base: f64,
}

#[derive(Serialize)]
pub struct FrameJson<'a> {
    pub time: u64,
    pub label: String,
    pub buildings: Vec<BuildingFrameJson<'a>>,
}

#[derive(Serialize)]
pub struct BuildingFrameJson<'a> {
    pub key: &'a str,
    #[serde(flatten)]
    pub footprint: Rect,
    pub height: f64,
    pub color: [f32; 3],
    pub opacity: f32,
    pub visible: bool,
}

/// The whole city with all `frames` (one per snapshot of `history`).
pub fn city_json<'a>(
    history: &History,
    timeline: &'a Timeline,
    city: &'a CityLayout,
    frames: &[Frame],
) -> CityJson<'a> {
    let key = |g: u32| timeline.groups[g as usize].key.as_str();
    CityJson {
        settings: &city.settings,
        districts: city
            .districts
            .iter()
            .map(|d| DistrictJson {
                key: key(d.group),
                depth: d.depth,
                rect: d.rect,
                top: d.top(),
                color: d.color,
            })
            .collect(),
        buildings: city
            .buildings
            .iter()
            .map(|b| BuildingJson { key: key(b.group), reserved: b.cell, base: b.base })
            .collect(),
        frames: frames
            .iter()
            .zip(&history.snapshots)
            .map(|(f, s)| FrameJson {
                time: s.time_ms,
                label: s.display_label(),
                buildings: city
                    .buildings
                    .iter()
                    .zip(&f.states)
                    .map(|(b, &state)| BuildingFrameJson {
                        key: key(b.group),
                        footprint: footprint(b, state),
                        height: height(b, state),
                        color: growth_color(state.growth),
                        opacity: opacity(city, b),
                        visible: visible(state),
                    })
                    .collect(),
            })
            .collect(),
    }
}
