//! The loaded city as ECS resources: the history, its meta trees, the layout for the current
//! settings and every snapshot's frame. Relayout happens here when settings change; everything
//! else reads these resources.

use std::sync::Arc;

use bevy::prelude::*;
use memcity_layout::pick::PickGrid;
use memcity_layout::{CityLayout, Frame, Settings, frames, layout, relayout};
use memcity_model::{History, Timeline};

/// The city being shown. Replaced whole: a rejected input never touches it.
#[derive(Resource, Clone)]
pub struct CityModel {
    pub history: Arc<History>,
    pub timeline: Arc<Timeline>,
    pub layout: Arc<CityLayout>,
    pub frames: Arc<Vec<Frame>>,
    pub grid: Arc<PickGrid>,
    /// Suspicious time windows (leak, fastest growth, GC overhead, churn) for the timeline.
    pub windows: Arc<Vec<memcity_analysis::windows::Window>>,
    /// Bumped on every relayout or reload.
    pub generation: u64,
    /// Bumped only when another history replaces the city (not when it grows or relayouts).
    pub city: u64,
}

impl CityModel {
    pub fn new(history: History, settings: &Settings) -> CityModel {
        let timeline = Arc::new(Timeline::new(&history));
        let mut model = CityModel {
            history: Arc::new(history),
            timeline,
            layout: Arc::default(),
            frames: Arc::default(),
            grid: Arc::new(PickGrid::new(&CityLayout::empty())),
            windows: Arc::default(),
            generation: 0,
            city: 0,
        };
        model.windows = Arc::new(memcity_analysis::windows::detect(&model.history));
        model.relayout(settings);
        model
    }

    /// Appends snapshots (a live city): the timeline grows by the new snapshots only, and the
    /// layout is recomputed keeping the arrangement.
    pub fn extend(
        &mut self,
        snapshots: impl IntoIterator<Item = memcity_model::Snapshot>,
        settings: &Settings,
    ) {
        let (history, timeline) = (Arc::make_mut(&mut self.history), Arc::make_mut(&mut self.timeline));
        for snapshot in snapshots {
            timeline.push(&snapshot);
            history.snapshots.push(snapshot);
        }
        self.grown(settings);
    }

    /// The same city with more data (snapshots, pointer maps): keeps the arrangement.
    pub fn replace_keeping_layout(&mut self, history: History, settings: &Settings) {
        self.timeline = Arc::new(Timeline::new(&history));
        self.history = Arc::new(history);
        self.grown(settings);
    }

    fn grown(&mut self, settings: &Settings) {
        self.windows = Arc::new(memcity_analysis::windows::detect(&self.history));
        let city = relayout(&self.timeline, settings, &self.layout);
        self.set_layout(city);
    }

    pub fn relayout(&mut self, settings: &Settings) {
        self.set_layout(layout(&self.timeline, settings));
    }

    fn set_layout(&mut self, city: CityLayout) {
        self.frames = Arc::new(frames(&city));
        self.grid = Arc::new(PickGrid::new(&city));
        self.layout = Arc::new(city);
        self.generation += 1;
    }

    pub fn snapshot_count(&self) -> usize {
        self.timeline.snapshot_count()
    }

    /// The `n` buildings that grew most over the history (positive growth only), strongest first.
    pub fn top_growers(&self, n: usize) -> Vec<usize> {
        let layout = &self.layout;
        let growth = self.timeline.growth.get(layout.settings.metric);
        let mut top: Vec<usize> =
            (0..layout.buildings.len()).filter(|&b| growth[layout.buildings[b].group as usize] > 0).collect();
        top.sort_by_key(|&b| (std::cmp::Reverse(growth[layout.buildings[b].group as usize]), b));
        top.truncate(n);
        top
    }
}

/// The layout settings (metric, area mode, child count, solid count, opacity).
#[derive(Resource, Clone, Debug, PartialEq, Deref, DerefMut)]
pub struct LayoutSettings(pub Settings);

/// Display options that need no relayout.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ViewOptions {
    pub show_pointers: bool,
    /// Arcs over the city instead of straight frustums.
    pub routed: bool,
    pub growth_color: bool,
    pub labels: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions { show_pointers: true, routed: false, growth_color: true, labels: true }
    }
}

/// Replace the city with another history (from a file, the WebSocket, …).
#[derive(Message, Clone)]
pub struct LoadHistory(pub Arc<History>);

/// A layout change being animated: buildings and districts slide from where `from` had them
/// (a live city that grew).
#[derive(Resource, Default)]
pub struct LayoutMorph {
    pub from: Option<Arc<CityLayout>>,
    /// The model generation the morph leads to; another change ends it.
    pub generation: u64,
    /// 0 at the old layout, 1 at the new one.
    pub t: f32,
}

impl LayoutMorph {
    /// Eased progress while animating towards `generation`, else `None`.
    pub fn active(&self, generation: u64) -> Option<(&CityLayout, f32)> {
        let from = self.from.as_deref()?;
        (self.generation == generation && self.t < 1.0)
            .then_some((from, self.t * self.t * (3.0 - 2.0 * self.t)))
    }
}

/// Seconds a layout change takes on screen.
const MORPH_SECONDS: f32 = 0.6;

/// Where the city changes: systems that feed it (live pushes) run before [`ModelSystems::Load`].
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum ModelSystems {
    Load,
}

pub struct ModelPlugin {
    pub history: Arc<History>,
    pub settings: Settings,
}

impl Plugin for ModelPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(CityModel::new((*self.history).clone(), &self.settings))
            .insert_resource(LayoutSettings(self.settings.clone()))
            .init_resource::<ViewOptions>()
            .init_resource::<LayoutMorph>()
            .add_message::<LoadHistory>()
            .add_systems(
                PreUpdate,
                (load_history, relayout_on_settings_change).chain().in_set(ModelSystems::Load),
            )
            .add_systems(Update, advance_morph);
    }
}

fn advance_morph(time: Res<Time>, mut morph: ResMut<LayoutMorph>) {
    if morph.from.is_some() {
        morph.t = (morph.t + time.delta_secs() / MORPH_SECONDS).min(1.0);
        if morph.t >= 1.0 {
            morph.from = None;
        }
    }
}

fn relayout_on_settings_change(settings: Res<LayoutSettings>, mut model: ResMut<CityModel>) {
    if settings.is_changed() && !settings.is_added() && model.layout.settings != settings.0 {
        model.relayout(&settings);
    }
}

fn load_history(
    mut messages: MessageReader<LoadHistory>,
    settings: Res<LayoutSettings>,
    mut model: ResMut<CityModel>,
) {
    if let Some(LoadHistory(history)) = messages.read().last() {
        let (generation, city) = (model.generation, model.city);
        *model = CityModel::new((**history).clone(), &settings);
        model.generation = generation + 1;
        model.city = city + 1;
    }
}
