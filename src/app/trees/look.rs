//! How the Tree tab colours and names its parts: the city's growth colour and the names the
//! city shows (shared by the pane and its drawing).

use bevy_egui::egui;
use memcity_layout::frame::growth_color;
use memcity_layout::partition::{Part, PartNode};

use crate::app::model::CityModel;
use crate::app::names::{GroupNames, short};

/// The colour of an "Other" node.
const OTHER: egui::Color32 = egui::Color32::from_gray(105);

/// What colours and names parts.
pub struct Look<'a> {
    pub model: &'a CityModel,
    pub names: &'a GroupNames,
    pub snapshot: usize,
    pub selected: Option<u32>,
    pub growth_color: bool,
}

impl Look<'_> {
    pub fn name(&self, g: u32) -> String {
        let name = self.names.get(g);
        if name.is_empty() {
            self.model.timeline.groups.get(g as usize).map_or("", |g| short(&g.name)).to_string()
        } else {
            name.into()
        }
    }

    pub fn label(&self, part: &Part) -> String {
        match &part.node {
            PartNode::Group(g) => self.name(*g),
            PartNode::Other { groups, .. } => format!("Other ({})", groups.len()),
        }
    }

    /// `metric` values of `groups` at the first and the current snapshot.
    pub fn values(&self, groups: &[u32], metric: memcity_model::Metric) -> (u64, u64) {
        let values = &self.model.timeline.values;
        let sum = |s: usize| {
            values.get(s).map_or(0, |v| groups.iter().filter_map(|&g| v.get(metric).get(g as usize)).sum())
        };
        (sum(0), sum(self.snapshot))
    }

    /// The city's growth colour: growth since the first snapshot against what the city draws red.
    pub fn fill(&self, part: &Part) -> egui::Color32 {
        let PartNode::Group(g) = part.node else { return OTHER };
        let (first, now) = self.values(&[g], self.model.layout.settings.metric);
        let growth = (now as f64 - first as f64) / self.model.layout.full_red.max(1e-9);
        let [r, g, b] = growth_color(if self.growth_color { growth as f32 } else { 0.0 });
        egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8)
    }
}
