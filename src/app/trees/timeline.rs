//! The timeline of small multiples (docs/design.md, "Tree views"): the heap's chart with a
//! point per snapshot; a click on a point pins that time's tree, and the pinned trees stand
//! side by side above the chart with the current time's, which is always shown. The trees are
//! the drill-down root's whole subtree, scaled to its largest value in the history by default,
//! so the row of trees shows growth the way the chart does.

use std::collections::BTreeSet;

use bevy::prelude::*;
use memcity_layout::partition::{Part, TreeView, levels_below, partition, window_scale};
use memcity_model::Metric;

use super::{DrillDown, TreeOrder, TreeSettings, Tweened};
use crate::app::model::CityModel;
use crate::app::time::TimeCursor;

/// The snapshots whose trees are pinned: until the user pins one, the first snapshot and where
/// the first leak window starts, so the timeline opens on a comparison.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct Pinned {
    pub times: BTreeSet<usize>,
    /// Whether the user chose the pins (the defaults no longer follow the city).
    pub chosen: bool,
}

/// The pins a city starts with: its first snapshot and the start of its first leak window.
pub fn default_pins(model: &CityModel) -> BTreeSet<usize> {
    use memcity_analysis::windows::WindowKind;
    let leak =
        model.windows.iter().filter(|w| matches!(w.kind, WindowKind::Leak | WindowKind::LeakRegression));
    let mut pins: BTreeSet<usize> = leak.map(|w| w.first).min().into_iter().collect();
    if !model.timeline.values.is_empty() {
        pins.insert(0);
    }
    pins
}

/// Pin the tree of a snapshot, or unpin it.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TogglePin(pub usize);

/// The small multiples: the snapshots shown, in time order, the pinned ones' partitions and
/// the current one's (tweened as time steps).
#[derive(Resource, Default)]
pub struct Multiples {
    pub snapshots: Vec<usize>,
    pub pinned: Vec<Vec<Part>>,
    pub current: Tweened,
    pub levels: u32,
    /// The subtree's root and the current snapshot.
    pub root: u32,
    pub snapshot: usize,
    made_for: Option<MultiplesKey>,
}

impl Multiples {
    /// The parts of the `i`-th multiple at `now`.
    pub fn parts(&self, i: usize, now: f64) -> Vec<Part> {
        if self.snapshots.get(i) == Some(&self.snapshot) {
            self.current.at(now)
        } else {
            let pinned = self.snapshots[..i].iter().filter(|&&s| s != self.snapshot).count();
            self.pinned.get(pinned).cloned().unwrap_or_default()
        }
    }
}

/// What the multiples depend on; only `snapshot` changing tweens.
#[derive(Clone, Debug, PartialEq)]
struct MultiplesKey {
    generation: u64,
    order: Option<(u64, usize, Metric, memcity_layout::partition::SortBy)>,
    root: u32,
    settings: TreeSettings,
    pinned: BTreeSet<usize>,
    snapshot: usize,
}

pub fn toggle_pins(model: Res<CityModel>, mut toggles: MessageReader<TogglePin>, mut pinned: ResMut<Pinned>) {
    if !pinned.chosen && (model.is_changed() || pinned.is_added()) {
        let times = default_pins(&model);
        if pinned.times != times {
            pinned.times = times;
        }
    }
    for &TogglePin(snapshot) in toggles.read() {
        pinned.chosen = true;
        if !pinned.times.remove(&snapshot) {
            pinned.times.insert(snapshot);
        }
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
pub fn update_multiples(
    model: Res<CityModel>,
    settings: Res<TreeSettings>,
    order: Res<TreeOrder>,
    drill: Res<DrillDown>,
    pinned: Res<Pinned>,
    cursor: Res<TimeCursor>,
    time: Res<Time<Real>>,
    mut multiples: ResMut<Multiples>,
) {
    let count = model.timeline.values.len();
    let snapshot = cursor.current.min(count.saturating_sub(1));
    // Pins past the history's end (another city) wait until it is that long.
    let pins: BTreeSet<usize> = pinned.times.iter().copied().filter(|&s| s < count).collect();
    let key = MultiplesKey {
        generation: model.generation,
        order: order.made_for,
        root: drill.group(&model),
        settings: *settings,
        pinned: pins,
        snapshot,
    };
    if multiples.made_for.as_ref() == Some(&key) || order.order.len() != model.timeline.groups.len() {
        return;
    }
    let animate =
        multiples.made_for.as_ref().is_some_and(|last| MultiplesKey { snapshot, ..last.clone() } == key);
    let now = time.elapsed_secs_f64();
    let (timeline, metric) = (&model.timeline, model.layout.settings.metric);
    let levels = levels_below(timeline, key.root);
    let largest = window_scale(timeline, metric, key.root, 0, count.saturating_sub(1));
    let tree_at = |s: usize| {
        let value = timeline.values[s].get(metric)[key.root as usize];
        let scale = if settings.scaled { largest } else { value };
        let view = TreeView {
            metric,
            order: &order.order,
            pruning: settings.pruning,
            root: key.root,
            levels,
            scale,
        };
        partition(timeline, &view, s)
    };
    let mut snapshots: BTreeSet<usize> = key.pinned.clone();
    if count > 0 {
        snapshots.insert(snapshot);
    }
    multiples.snapshots = snapshots.into_iter().collect();
    multiples.pinned = multiples.snapshots.iter().filter(|&&s| s != snapshot).map(|&s| tree_at(s)).collect();
    let current = if count > 0 { tree_at(snapshot) } else { Vec::new() };
    multiples.current.show(current, levels, now, animate);
    multiples.levels = levels;
    multiples.root = key.root;
    multiples.snapshot = snapshot;
    multiples.made_for = Some(key);
}
