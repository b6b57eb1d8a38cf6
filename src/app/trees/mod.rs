//! The Tree tab (docs/design.md, "Tree views"): the union tree as an icicle or a sunburst — the
//! local view (the drill-down root and two levels below it, unscaled) beside the global view
//! (the whole tree, scaled by default), on the city's metric, time, selection and growth
//! colour. One sort order for the whole history keeps nodes in place while time steps, and
//! parts tween to their new extents. The timeline (timeline.rs) shows small multiples of the
//! tree at pinned times above the heap's chart. V (or the menu bar) switches City → Icicle →
//! Sunburst → Timeline.

mod draw;
pub mod geometry;
mod look;
mod pane;
pub mod timeline;
mod timeline_pane;

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use memcity_layout::partition::{
    Part, PartNode, Pruning, SortBy, TreeView, partition, sort_order, window_scale,
};
use memcity_model::Metric;

use crate::app::camera::FlyTo;
use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::time::TimeCursor;
use crate::app::ui::workspace::layouts::tabs::TREE;
use crate::app::ui::workspace::{AddTab, CITY, DrawnTabs, ShowTab};
use crate::app::viewport::UiFocus;
use crate::app::why::target_of;
use geometry::{TWEEN_SECONDS, ease, tween};

/// Levels the local view shows below its root.
pub const LOCAL_LEVELS: u32 = 2;

pub struct TreesPlugin;

impl Plugin for TreesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TreeKind>()
            .init_resource::<TreeSettings>()
            .init_resource::<DrillDown>()
            .init_resource::<TreeOrder>()
            .init_resource::<TreeParts>()
            .init_resource::<PendingFlight>()
            .init_resource::<timeline::Pinned>()
            .init_resource::<timeline::Multiples>()
            .add_message::<timeline::TogglePin>()
            .init_resource::<DrawnTabs>()
            .init_resource::<UiFocus>()
            .add_message::<TreeClicked>()
            .add_message::<CycleView>()
            .add_message::<ShowTab>()
            .add_message::<FlyTo>()
            .add_message::<RequestRedraw>()
            .add_tab(TREE, "Tree", pane::tree_pane)
            .add_systems(
                Update,
                (
                    cycle_view_key,
                    cycle_view,
                    apply_clicks,
                    fly_to_clicked,
                    update_order,
                    update_parts,
                    timeline::toggle_pins,
                    timeline::update_multiples,
                )
                    .chain(),
            )
            .add_systems(Last, redraw_while_tweening);
    }
}

/// What the tab shows: the local and global view as an icicle or a sunburst, or the timeline of
/// small multiples.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeKind {
    #[default]
    Icicle,
    Sunburst,
    Timeline,
}

/// How one tree is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    #[default]
    Icicle,
    Sunburst,
}

impl TreeKind {
    /// The shape its trees are drawn in (the timeline's small multiples take the setting's).
    pub fn shape(self, settings: &TreeSettings) -> Shape {
        match self {
            TreeKind::Icicle => Shape::Icicle,
            TreeKind::Sunburst => Shape::Sunburst,
            TreeKind::Timeline => settings.multiples,
        }
    }
}

/// The tab's own settings (the metric is the city's).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct TreeSettings {
    pub sort: SortBy,
    pub pruning: Pruning,
    /// Whether the global view and the timeline's trees are scaled to the window's largest heap.
    pub scaled: bool,
    /// The shape of the timeline's small multiples.
    pub multiples: Shape,
}

impl TreeSettings {
    /// No pruning: every node of the tree is drawn (`--bench-render --mode …`).
    pub fn every_node() -> TreeSettings {
        TreeSettings { pruning: Pruning { share: 1.0, max_children: usize::MAX }, ..Default::default() }
    }
}

impl Default for TreeSettings {
    fn default() -> Self {
        TreeSettings {
            sort: SortBy::Growth,
            pruning: Pruning::default(),
            scaled: true,
            multiples: Shape::Icicle,
        }
    }
}

/// The local view's root, by key (kept through time steps and relayouts); `None`: the heap.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct DrillDown {
    pub root: Option<String>,
}

impl DrillDown {
    /// The root's group in `model` (the heap where the key is gone).
    pub fn group(&self, model: &CityModel) -> u32 {
        self.root.as_deref().and_then(|k| model.timeline.group(k)).unwrap_or(0)
    }

    fn set(&mut self, model: &CityModel, group: u32) {
        self.root = model.timeline.groups.get(group as usize).filter(|_| group != 0).map(|g| g.key.clone());
    }
}

/// The sort positions of the whole history, for the metric and strategy they were made for.
#[derive(Resource, Default)]
pub struct TreeOrder {
    pub order: Vec<u32>,
    made_for: Option<(u64, usize, Metric, SortBy)>,
}

/// A click on a part: a leaf (or any group with `select`) selects its group; a branch becomes
/// the local view's root; its root steps up.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct TreeClicked {
    pub node: PartNode,
    pub select: bool,
}

/// Switch to the next view: City → Icicle → Sunburst → Timeline → City.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct CycleView;

/// A view's partition on its way from the last snapshot's to the current one's.
#[derive(Clone, Debug, Default)]
pub struct Tweened {
    from: Vec<Part>,
    pub to: Vec<Part>,
    since: f64,
    pub levels: u32,
}

impl Tweened {
    /// The parts at `now` (seconds).
    pub fn at(&self, now: f64) -> Vec<Part> {
        tween(&self.from, &self.to, ease((now - self.since) / TWEEN_SECONDS))
    }

    pub fn moving(&self, now: f64) -> bool {
        now - self.since < TWEEN_SECONDS
    }

    /// Shows `parts`, tweening from what is shown at `now` or jumping.
    fn show(&mut self, parts: Vec<Part>, levels: u32, now: f64, animate: bool) {
        if animate {
            self.from = self.at(now);
            self.since = now;
        } else {
            self.from.clear();
            self.since = f64::NEG_INFINITY;
        }
        self.to = parts;
        self.levels = levels;
    }
}

/// What the tab draws: the local and the global view at the current snapshot.
#[derive(Resource, Default)]
pub struct TreeParts {
    pub local: Tweened,
    pub global: Tweened,
    /// The local view's root group and the snapshot shown.
    pub root: u32,
    pub snapshot: usize,
    made_for: Option<PartsKey>,
}

/// What the parts depend on; only `snapshot` changing tweens.
#[derive(Clone, Debug, PartialEq)]
struct PartsKey {
    generation: u64,
    order: Option<(u64, usize, Metric, SortBy)>,
    root: u32,
    settings: TreeSettings,
    snapshot: usize,
}

/// A group clicked in the tree, to fly to once the city shows it (pruned from the city, it is
/// shown after the selection pins it).
#[derive(Resource, Default)]
struct PendingFlight(Option<String>);

fn cycle_view_key(keys: Res<ButtonInput<KeyCode>>, focus: Res<UiFocus>, mut cycle: MessageWriter<CycleView>) {
    if !focus.keyboard && keys.just_pressed(KeyCode::KeyV) {
        cycle.write(CycleView);
    }
}

/// The next view after what was drawn last: the tree tab hidden → the icicle; the icicle →
/// the sunburst → the timeline → the city (or the icicle where the city is beside it).
fn cycle_view(
    mut cycles: MessageReader<CycleView>,
    drawn: Res<DrawnTabs>,
    mut kind: ResMut<TreeKind>,
    mut show: MessageWriter<ShowTab>,
) {
    for _ in cycles.read() {
        let shown = |name: &str| drawn.tabs.iter().any(|(t, _)| t.0 == name);
        let next = match (shown(TREE), *kind) {
            (false, _) => Some(TreeKind::Icicle),
            (true, TreeKind::Icicle) => Some(TreeKind::Sunburst),
            (true, TreeKind::Sunburst) => Some(TreeKind::Timeline),
            (true, TreeKind::Timeline) if shown(CITY) => Some(TreeKind::Icicle),
            (true, TreeKind::Timeline) => None,
        };
        match next {
            Some(next) => {
                if *kind != next {
                    *kind = next;
                }
                show.write(ShowTab::named(TREE));
            }
            None => {
                show.write(ShowTab::named(CITY));
            }
        }
    }
}

fn apply_clicks(
    mut clicks: MessageReader<TreeClicked>,
    model: Res<CityModel>,
    mut drill: ResMut<DrillDown>,
    mut selection: ResMut<Selection>,
    mut flight: ResMut<PendingFlight>,
) {
    for click in clicks.read() {
        // "Other" merges several groups: nothing to select or drill into.
        let PartNode::Group(g) = click.node else { continue };
        // A click on a tree drawn for the city before this one.
        let Some(group) = model.timeline.groups.get(g as usize) else { continue };
        if click.select || group.is_leaf() {
            selection.selected = Some(group.key.clone());
            flight.0 = Some(group.key.clone());
        } else if g == drill.group(&model) {
            drill.set(&model, group.parent.unwrap_or(0));
        } else {
            drill.set(&model, g);
        }
    }
}

fn fly_to_clicked(
    model: Res<CityModel>,
    selection: Res<Selection>,
    mut flight: ResMut<PendingFlight>,
    mut fly: MessageWriter<FlyTo>,
) {
    let Some(key) = flight.0.as_deref() else { return };
    if selection.selected.as_deref() != Some(key) {
        flight.0 = None;
        return;
    }
    if let Some(target) = model.timeline.group(key).and_then(|g| target_of(&model, g)) {
        fly.write(FlyTo::Target { target, with_references: false });
        flight.0 = None;
    }
}

/// The order for the whole history: recomputed for another city, more snapshots, another
/// metric or sort.
fn update_order(model: Res<CityModel>, settings: Res<TreeSettings>, mut order: ResMut<TreeOrder>) {
    let (timeline, metric) = (&model.timeline, model.layout.settings.metric);
    let made_for = (model.generation, timeline.values.len(), metric, settings.sort);
    if order.made_for == Some(made_for) {
        return;
    }
    let last = timeline.values.len().saturating_sub(1);
    // Two compared runs sort a group and its twin alike, so both sides read in the same order.
    order.order = match memcity_layout::compare::twins(timeline) {
        Some(twins) => {
            memcity_layout::compare::shared_order(timeline, &twins, metric, settings.sort, 0, last)
        }
        None => sort_order(timeline, metric, settings.sort, 0, last),
    };
    order.made_for = Some(made_for);
}

fn update_parts(
    model: Res<CityModel>,
    settings: Res<TreeSettings>,
    order: Res<TreeOrder>,
    drill: Res<DrillDown>,
    cursor: Res<TimeCursor>,
    time: Res<Time<Real>>,
    mut parts: ResMut<TreeParts>,
) {
    let last_snapshot = model.timeline.values.len().saturating_sub(1);
    let snapshot = cursor.current.min(last_snapshot);
    let root = drill.group(&model);
    let key =
        PartsKey { generation: model.generation, order: order.made_for, root, settings: *settings, snapshot };
    if parts.made_for.as_ref() == Some(&key) {
        return;
    }
    let animate = parts.made_for.as_ref().is_some_and(|last| PartsKey { snapshot, ..last.clone() } == key);
    let now = time.elapsed_secs_f64();
    show(&mut parts, &model, &order.order, &settings, key, animate, now);
}

fn show(
    parts: &mut TreeParts,
    model: &CityModel,
    order: &[u32],
    settings: &TreeSettings,
    key: PartsKey,
    animate: bool,
    now: f64,
) {
    let (timeline, metric) = (&model.timeline, model.layout.settings.metric);
    let (root, snapshot) = (key.root, key.snapshot);
    if order.len() != timeline.groups.len() {
        return;
    }
    let value = |g: u32| timeline.values.get(snapshot).map_or(0, |v| v.get(metric)[g as usize]);
    let last = timeline.values.len().saturating_sub(1);
    let view = |root: u32, levels: u32, scale: u64| TreeView {
        metric,
        order,
        pruning: settings.pruning,
        root,
        levels,
        scale,
    };
    let local = view(root, LOCAL_LEVELS, value(root));
    parts.local.show(partition(timeline, &local, snapshot), LOCAL_LEVELS, now, animate);
    let depth = timeline.groups.iter().map(|g| g.depth).max().unwrap_or(0);
    let scale = if settings.scaled { window_scale(timeline, metric, 0, 0, last) } else { value(0) };
    parts.global.show(partition(timeline, &view(0, depth, scale), snapshot), depth, now, animate);
    parts.root = root;
    parts.snapshot = snapshot;
    parts.made_for = Some(key);
}

/// The window rests when idle: a tween must still run to its end.
fn redraw_while_tweening(
    parts: Res<TreeParts>,
    multiples: Res<timeline::Multiples>,
    time: Res<Time<Real>>,
    mut redraw: MessageWriter<RequestRedraw>,
) {
    let now = time.elapsed_secs_f64();
    if parts.local.moving(now) || parts.global.moving(now) || multiples.moving(now) {
        redraw.write(RequestRedraw);
    }
}

/// Tells the render benchmark how many parts the tab draws.
pub fn count_parts(
    kind: Res<TreeKind>,
    parts: Res<TreeParts>,
    multiples: Res<timeline::Multiples>,
    mut bench: ResMut<crate::app::headless::RenderBench>,
) {
    let drawn = match *kind {
        TreeKind::Timeline => multiples.part_count(),
        _ => parts.local.to.len() + parts.global.to.len(),
    };
    bench.detail = format!(", {drawn} tree parts drawn ({kind:?})", kind = *kind);
}

#[cfg(test)]
mod tests;
