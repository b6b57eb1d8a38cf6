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
/// the current one's (tweened as time steps). Two compared runs give each time a pair of trees,
/// before and after ([`Multiples::roots`]).
#[derive(Resource, Default)]
pub struct Multiples {
    pub snapshots: Vec<usize>,
    /// Per pinned snapshot, one partition per root.
    pub pinned: Vec<Vec<Part>>,
    /// The current snapshot's, one per root.
    pub current: Vec<Tweened>,
    pub levels: u32,
    /// The subtree's root, or with two compared runs the before and after side of it.
    pub roots: Vec<u32>,
    /// The current snapshot.
    pub snapshot: usize,
    made_for: Option<MultiplesKey>,
}

impl Multiples {
    /// The parts of the `i`-th multiple's tree of `roots[side]` at `now`.
    pub fn parts(&self, i: usize, side: usize, now: f64) -> Vec<Part> {
        if self.snapshots.get(i) == Some(&self.snapshot) {
            self.current.get(side).map(|t| t.at(now)).unwrap_or_default()
        } else {
            let pinned = self.snapshots[..i].iter().filter(|&&s| s != self.snapshot).count();
            self.pinned.get(pinned * self.roots.len() + side).cloned().unwrap_or_default()
        }
    }

    /// Whether a tree is still moving to where time put it.
    pub fn moving(&self, now: f64) -> bool {
        self.current.iter().any(|t| t.moving(now))
    }

    /// Parts drawn, for the benchmark.
    pub fn part_count(&self) -> usize {
        self.pinned.iter().chain(self.current.iter().map(|t| &t.to)).map(Vec::len).sum()
    }
}

/// The trees a multiple shows for `root`: itself, or with two compared runs the before and the
/// after side of it (the pair's root gives both runs).
pub fn paired_roots(model: &CityModel, root: u32) -> Vec<u32> {
    use memcity_layout::compare::{side_of, twin_of};
    use memcity_model::compare::SIDES;
    let timeline = &model.timeline;
    let sides = SIDES.map(|k| timeline.group(k));
    if let [Some(before), Some(after)] = sides
        && timeline.groups.get(root as usize).is_some_and(|g| g.parent.is_none())
    {
        return vec![before, after];
    }
    match (twin_of(timeline, root), side_of(timeline, root)) {
        (Some(twin), Some(0)) => vec![root, twin],
        (Some(twin), Some(_)) => vec![twin, root],
        _ => vec![root],
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
    let roots = paired_roots(&model, key.root);
    let levels = levels_below(timeline, roots[0]);
    // Both runs of a pair at one scale, so the larger heap shows as the larger tree.
    let largest = roots
        .iter()
        .map(|&r| window_scale(timeline, metric, r, 0, count.saturating_sub(1)))
        .max()
        .unwrap_or(0);
    let tree_at = |s: usize, root: u32| {
        let value = timeline.values[s].get(metric)[root as usize];
        let scale = if settings.scaled { largest } else { value };
        let view = TreeView { metric, order: &order.order, pruning: settings.pruning, root, levels, scale };
        partition(timeline, &view, s)
    };
    let mut snapshots: BTreeSet<usize> = key.pinned.clone();
    if count > 0 {
        snapshots.insert(snapshot);
    }
    multiples.snapshots = snapshots.into_iter().collect();
    multiples.pinned = multiples
        .snapshots
        .iter()
        .filter(|&&s| s != snapshot)
        .flat_map(|&s| roots.iter().map(move |&r| (s, r)))
        .map(|(s, r)| tree_at(s, r))
        .collect();
    let animate = animate && multiples.roots == roots;
    multiples.current.resize_with(roots.len(), Tweened::default);
    for (tweened, &root) in multiples.current.iter_mut().zip(&roots) {
        let current = if count > 0 { tree_at(snapshot, root) } else { Vec::new() };
        tweened.show(current, levels, now, animate);
    }
    multiples.levels = levels;
    multiples.roots = roots;
    multiples.snapshot = snapshot;
    multiples.made_for = Some(key);
}
