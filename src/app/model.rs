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

pub struct ModelPlugin {
    pub history: Arc<History>,
    pub settings: Settings,
}

impl Plugin for ModelPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(CityModel::new((*self.history).clone(), &self.settings))
            .insert_resource(LayoutSettings(self.settings.clone()))
            .init_resource::<ViewOptions>()
            .add_message::<LoadHistory>()
            .add_systems(PreUpdate, (load_history, relayout_on_settings_change).chain());
    }
}

fn relayout_on_settings_change(settings: Res<LayoutSettings>, mut model: ResMut<CityModel>) {
    if settings.is_changed() && !settings.is_added() && model.layout.settings != settings.0 {
        model.relayout(&settings);
    }
}

pub fn load_history(
    mut messages: MessageReader<LoadHistory>,
    settings: Res<LayoutSettings>,
    mut model: ResMut<CityModel>,
) {
    if let Some(LoadHistory(history)) = messages.read().last() {
        let generation = model.generation;
        *model = CityModel::new((**history).clone(), &settings);
        model.generation = generation + 1;
    }
}
