//! The city layout (docs/design.md, "Layout"): a squarified treemap over the max tree, computed once per history
//! and setting. Every building gets the cell it needs at its largest size, so no building moves
//! when time changes; districts are flat slabs stacked by depth with a street around their
//! children.

use memcity_model::{Metric, Timeline};
use rayon::prelude::*;

use crate::compare::{CompareView, after_side, shared_max, twins};
use crate::squarify::{Rect, squarify};

/// How a value becomes an area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AreaMode {
    Linear,
    /// `sqrt(value)`: keeps small groups visible next to huge ones.
    #[default]
    Sqrt,
}

impl AreaMode {
    pub fn map(self, value: f64) -> f64 {
        match self {
            AreaMode::Linear => value,
            AreaMode::Sqrt => value.sqrt(),
        }
    }
}

/// What growth is measured against when it becomes a color (docs/design.md, "Growth color").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GrowthScale {
    /// Against the heap: full red from [`RED_HEAP_SHARE`] of the peak heap (or the largest
    /// grower, if it grew more), so a program without a leak stays gray.
    #[default]
    Heap,
    /// The paper's: against the largest grower, which is always red.
    Relative,
}

/// Growth of this share of the peak heap (in the layout's metric) is drawn full red in
/// [`GrowthScale::Heap`]; half of it orange.
pub const RED_HEAP_SHARE: f64 = 0.1;

impl std::str::FromStr for GrowthScale {
    type Err = String;
    fn from_str(s: &str) -> Result<GrowthScale, String> {
        match s {
            "heap" => Ok(GrowthScale::Heap),
            "relative" => Ok(GrowthScale::Relative),
            _ => Err(format!("unknown growth scale \"{s}\" (expected heap or relative)")),
        }
    }
}

/// Everything the layout and the frames depend on.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    pub metric: Metric,
    pub area: AreaMode,
    /// Keep the N largest children (by max value) per node.
    pub children: usize,
    /// Street around a district's children, as a fraction of the district's shorter side.
    pub street: f64,
    /// The N strongest overall growers are solid.
    pub solid: usize,
    /// Opacity of all other buildings.
    pub opacity: f32,
    /// Groups (by key) that pruning never hides, with the districts around them: the selection
    /// and its retainer path are always shown.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub pinned: std::collections::BTreeSet<String>,
    /// What growth colors are relative to.
    #[serde(default)]
    pub growth: GrowthScale,
    /// How two compared runs are shown (only a pair history has two).
    #[serde(default)]
    pub compare: CompareView,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            metric: Metric::Objects,
            area: AreaMode::Sqrt,
            children: 20,
            street: 0.03,
            solid: 10,
            opacity: 0.4,
            pinned: Default::default(),
            growth: GrowthScale::Heap,
            compare: CompareView::Sides,
        }
    }
}

/// Side of the square city in world units.
pub const CITY_SIZE: f64 = 1000.0;
/// Thickness of one district slab.
pub const SLAB: f64 = 2.0;

/// An inner node of the max tree: a flat slab.
#[derive(Debug, Clone, PartialEq)]
pub struct District {
    pub group: u32,
    pub depth: u32,
    pub rect: Rect,
    /// sRGB, dark blue at the root to light blue at the deepest level.
    pub color: [f32; 3],
}

impl District {
    /// Height of the slab's top face.
    pub fn top(&self) -> f64 {
        (self.depth + 1) as f64 * SLAB
    }
}

/// A leaf of the max tree: a building with its reserved cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Building {
    pub group: u32,
    pub cell: Rect,
    /// Height of the ground it stands on (its district's top).
    pub base: f64,
    /// Among the strongest overall growers: drawn solid.
    pub solid: bool,
}

/// A laid-out city: districts and buildings with static cells.
#[derive(Debug, Clone, PartialEq)]
pub struct CityLayout {
    pub settings: Settings,
    pub districts: Vec<District>,
    pub buildings: Vec<Building>,
    /// Building index per group id (`u32::MAX` where the group is no building of this layout).
    pub building_of_group: Vec<u32>,
    /// District index per group id (`u32::MAX` where none).
    pub district_of_group: Vec<u32>,
    /// Per building, contiguous for the per-frame loop: its group, `1 / max value` (0 where the
    /// max is 0), and per snapshot its value in the layout's metric.
    pub groups: Vec<u32>,
    pub inv_max_value: Vec<f32>,
    pub values: Vec<Vec<f32>>,
    /// Per snapshot and building, what its growth is measured against when not against its
    /// first snapshot: in a difference city, its twin's value in the before run (else empty).
    pub reference: Vec<Vec<f32>>,
    /// The largest positive overall growth among buildings (1 where none grows).
    pub max_growth: f64,
    /// The growth drawn full red: `max_growth`, or in [`GrowthScale::Heap`] at least
    /// [`RED_HEAP_SHARE`] of the peak heap.
    pub full_red: f64,
    /// Group ids in the order they were placed (depth first, siblings in squarify order), so a
    /// later layout can keep siblings in the same order ([`relayout`]).
    pub placed: Vec<u32>,
    /// Nothing grew (one snapshot, or a flat series): the largest buildings are solid instead
    /// of the strongest growers, and stay in the neutral colour.
    pub solid_by_size: bool,
}

pub const NONE: u32 = u32::MAX;

impl CityLayout {
    pub fn building(&self, group: u32) -> Option<usize> {
        self.building_of_group.get(group as usize).filter(|&&b| b != NONE).map(|&b| b as usize)
    }

    pub fn district(&self, group: u32) -> Option<usize> {
        self.district_of_group.get(group as usize).filter(|&&d| d != NONE).map(|&d| d as usize)
    }
}

/// Lays out the max tree of `timeline`.
pub fn layout(timeline: &Timeline, settings: &Settings) -> CityLayout {
    layout_in_order(timeline, settings, None)
}

/// Lays out `timeline` again after it grew (a live snapshot, a new key, a new maximum), keeping
/// siblings in the order `previous` placed them so buildings keep their relative arrangement as
/// far as the treemap allows; groups new to the city follow, largest first. `previous` must come
/// from an earlier state of the same history (group ids are stable while snapshots are appended).
pub fn relayout(timeline: &Timeline, settings: &Settings, previous: &CityLayout) -> CityLayout {
    let mut rank = vec![NONE; timeline.groups.len()];
    for (i, &g) in previous.placed.iter().enumerate() {
        if let Some(r) = rank.get_mut(g as usize) {
            *r = i as u32;
        }
    }
    layout_in_order(timeline, settings, Some(&rank))
}

fn layout_in_order(timeline: &Timeline, settings: &Settings, rank: Option<&[u32]>) -> CityLayout {
    let twins = twins(timeline);
    let shared;
    let max = match &twins {
        Some(twins) => {
            shared = shared_max(timeline, twins, settings.metric);
            &shared[..]
        }
        None => timeline.max.get(settings.metric),
    };
    let n = timeline.groups.len();
    let mapped: Vec<f64> = max.iter().map(|&v| settings.area.map(v as f64)).collect();
    let mut kept = kept_children(timeline, &mapped, settings.children);
    keep_pinned(timeline, &settings.pinned, &mut kept);
    let difference = twins.is_some() && settings.compare == CompareView::Difference;
    if difference && let Some(after) = after_side(timeline) {
        kept[0] = vec![after];
    }
    if let Some(rank) = rank {
        // Stable sort: new groups (rank NONE) keep their largest-first order at the end.
        kept.iter_mut().for_each(|c| c.sort_by_key(|&g| rank[g as usize]));
    }
    let area = subtree_areas(timeline, &mapped, &kept);
    let mut city = CityLayout {
        settings: settings.clone(),
        districts: Vec::new(),
        buildings: Vec::new(),
        building_of_group: vec![NONE; n],
        district_of_group: vec![NONE; n],
        groups: Vec::new(),
        inv_max_value: Vec::new(),
        values: Vec::new(),
        reference: Vec::new(),
        max_growth: 1.0,
        full_red: 1.0,
        placed: Vec::new(),
        solid_by_size: false,
    };
    if n > 0 && area[0] > 0.0 {
        place(timeline, &kept, &area, 0, Rect::new(0.0, 0.0, CITY_SIZE, CITY_SIZE), &mut city);
    }
    let deepest = city.districts.iter().map(|d| d.depth).max().unwrap_or(0);
    for d in &mut city.districts {
        d.color = district_color(d.depth, deepest);
    }
    city.groups = city.buildings.iter().map(|b| b.group).collect();
    city.inv_max_value = city
        .groups
        .iter()
        .map(|&g| if max[g as usize] > 0 { (1.0 / max[g as usize] as f64) as f32 } else { 0.0 })
        .collect();
    // Gathered once here so each frame is a straight pass over contiguous floats.
    city.values = timeline
        .values
        .par_iter()
        .map(|v| {
            let metric = v.get(settings.metric);
            city.groups.iter().map(|&g| metric[g as usize] as f32).collect()
        })
        .collect();
    if let (true, Some(twins)) = (difference, &twins) {
        city.reference = timeline
            .values
            .par_iter()
            .map(|v| {
                let metric = v.get(settings.metric);
                city.groups
                    .iter()
                    .map(|&g| {
                        twins.get(g as usize).and_then(|&t| metric.get(t as usize)).map_or(0.0, |&v| v as f32)
                    })
                    .collect()
            })
            .collect();
    }
    mark_solid(timeline, &mut city);
    city
}

/// Children of each node kept by pruning: the N largest by max value, largest first, ties by key
/// so the layout is deterministic.
fn kept_children(timeline: &Timeline, mapped: &[f64], n: usize) -> Vec<Vec<u32>> {
    timeline
        .groups
        .iter()
        .map(|g| {
            let mut c: Vec<u32> = g.children.clone();
            c.sort_by(|&a, &b| {
                mapped[b as usize]
                    .total_cmp(&mapped[a as usize])
                    .then_with(|| timeline.groups[a as usize].key.cmp(&timeline.groups[b as usize].key))
            });
            c.truncate(n);
            c
        })
        .collect()
}

/// Adds the pinned groups and their ancestors back where pruning dropped them.
fn keep_pinned(timeline: &Timeline, pinned: &std::collections::BTreeSet<String>, kept: &mut [Vec<u32>]) {
    for key in pinned {
        let mut group = timeline.group(key);
        while let Some(g) = group {
            let Some(parent) = timeline.groups[g as usize].parent else { break };
            if kept[parent as usize].contains(&g) {
                // The rest of the chain up to the root is kept already or added by another key.
                group = Some(parent);
                continue;
            }
            kept[parent as usize].push(g);
            group = Some(parent);
        }
    }
}

/// Area each node needs: its own mapped max for leaves, the sum of its kept children for
/// districts (so children fit in proportion).
fn subtree_areas(timeline: &Timeline, mapped: &[f64], kept: &[Vec<u32>]) -> Vec<f64> {
    let mut area = vec![0.0; timeline.groups.len()];
    // Children are always created after their parent, so a reverse sweep is bottom-up.
    for id in (0..timeline.groups.len()).rev() {
        area[id] = if timeline.groups[id].is_leaf() {
            mapped[id]
        } else {
            kept[id].iter().map(|&c| area[c as usize]).sum()
        };
    }
    area
}

/// Places the subtree of `root` in `rect`, in pre-order (iteratively: trees may be deep).
fn place(timeline: &Timeline, kept: &[Vec<u32>], area: &[f64], root: u32, rect: Rect, city: &mut CityLayout) {
    let mut stack = vec![(root, rect)];
    while let Some((id, rect)) = stack.pop() {
        let group = &timeline.groups[id as usize];
        city.placed.push(id);
        if group.is_leaf() {
            // It stands on its parent's slab, whose top is at depth(parent) + 1 = depth(self).
            let base = group.depth as f64 * SLAB;
            city.building_of_group[id as usize] = city.buildings.len() as u32;
            city.buildings.push(Building { group: id, cell: rect, base, solid: false });
            continue;
        }
        city.district_of_group[id as usize] = city.districts.len() as u32;
        city.districts.push(District { group: id, depth: group.depth, rect, color: [0.0; 3] });
        let inner = rect.inset(city.settings.street * rect.w.min(rect.d));
        let children: Vec<u32> =
            kept[id as usize].iter().copied().filter(|&c| area[c as usize] > 0.0).collect();
        let values: Vec<f64> = children.iter().map(|&c| area[c as usize]).collect();
        let cells: Vec<(u32, Rect)> = children.into_iter().zip(squarify(&values, inner)).collect();
        stack.extend(cells.into_iter().rev());
    }
}

/// Linear gradient from dark blue (root) to light blue (deepest district).
pub fn district_color(depth: u32, deepest: u32) -> [f32; 3] {
    const ROOT: [f32; 3] = [0.05, 0.12, 0.35];
    const DEEPEST: [f32; 3] = [0.55, 0.78, 0.97];
    let t = if deepest == 0 { 0.0 } else { depth as f32 / deepest as f32 };
    [0, 1, 2].map(|i| ROOT[i] + (DEEPEST[i] - ROOT[i]) * t)
}

/// The largest root value over all snapshots: the heap at its largest.
pub fn peak_heap(timeline: &Timeline, metric: Metric) -> f64 {
    timeline.values.iter().map(|v| v.get(metric).first().copied().unwrap_or(0) as f64).fold(0.0, f64::max)
}

/// The `solid` strongest positive overall growers are solid; `max_growth` is the largest.
fn mark_solid(timeline: &Timeline, city: &mut CityLayout) {
    let growth = building_growth(timeline, city);
    let mut growers: Vec<usize> = (0..city.buildings.len()).filter(|&b| growth[b] > 0).collect();
    growers.sort_by_key(|&b| (std::cmp::Reverse(growth[b]), city.buildings[b].group));
    city.max_growth = growers.first().map_or(1.0, |&b| growth[b] as f64);
    city.full_red = match city.settings.growth {
        GrowthScale::Relative => city.max_growth,
        GrowthScale::Heap => city.max_growth.max(RED_HEAP_SHARE * peak_heap(timeline, city.settings.metric)),
    };
    // Nothing to rank by growth: the largest buildings at the last snapshot stand solid, so a
    // single snapshot still shows a city and not only glass.
    city.solid_by_size = growers.is_empty();
    if city.solid_by_size {
        let last = |b: usize| city.values.last().map_or(0.0, |v| v[b]);
        growers = (0..city.buildings.len()).filter(|&b| last(b) > 0.0).collect();
        growers.sort_by(|&a, &b| {
            last(b).total_cmp(&last(a)).then(city.buildings[a].group.cmp(&city.buildings[b].group))
        });
    }
    for &b in growers.iter().take(city.settings.solid) {
        city.buildings[b].solid = true;
    }
}

/// Each building's overall growth: last snapshot minus first, or in a difference city minus its
/// reference at the last snapshot.
fn building_growth(timeline: &Timeline, city: &CityLayout) -> Vec<i64> {
    match (city.reference.last(), city.values.last()) {
        (Some(reference), Some(last)) => {
            last.iter().zip(reference).map(|(&a, &b)| a as i64 - b as i64).collect()
        }
        _ => {
            let growth = timeline.growth.get(city.settings.metric);
            city.buildings.iter().map(|b| growth[b.group as usize]).collect()
        }
    }
}

impl std::str::FromStr for AreaMode {
    type Err = String;
    fn from_str(s: &str) -> Result<AreaMode, String> {
        match s {
            "linear" => Ok(AreaMode::Linear),
            "sqrt" => Ok(AreaMode::Sqrt),
            _ => Err(format!("unknown area mode \"{s}\" (expected linear or sqrt)")),
        }
    }
}

impl CityLayout {
    /// A city with nothing in it.
    pub fn empty() -> CityLayout {
        CityLayout {
            settings: Settings::default(),
            districts: Vec::new(),
            buildings: Vec::new(),
            building_of_group: Vec::new(),
            district_of_group: Vec::new(),
            groups: Vec::new(),
            inv_max_value: Vec::new(),
            values: Vec::new(),
            reference: Vec::new(),
            max_growth: 1.0,
            full_red: 1.0,
            placed: Vec::new(),
            solid_by_size: false,
        }
    }
}

impl Default for CityLayout {
    fn default() -> Self {
        CityLayout::empty()
    }
}
