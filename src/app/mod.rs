//! The 3D memory city (Bevy): one plugin per feature — model, names, time, camera, inspect,
//! render, tour, UI — coupled only through resources, messages and exported system sets
//! (docs/design.md, "The app").

pub mod baseline;
pub mod camera;
pub mod crash;
pub mod descriptions;
pub mod headless;
pub mod inspect;
pub mod live;
pub mod load;
pub mod model;
pub mod names;
pub mod objects;
pub mod ownership;
pub mod render;
pub mod screenshot;
pub mod solo;
pub mod structures;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_sources;
#[cfg(test)]
mod tests_states;
#[cfg(test)]
mod tests_tour;
pub mod time;
pub mod tour;
pub mod trees;
pub mod ui;
pub mod viewport;
pub mod visit;
pub mod wake;
pub mod why;
pub mod why_pane;

use std::path::PathBuf;
use std::sync::Arc;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use memcity_layout::Settings;
use memcity_model::History;

use headless::{Offscreen, RenderBench, ScreenshotJob};
use ui::workspace::ShowTab;
use ui::workspace::layouts::tabs::{OWNERSHIP, TREE};

/// How the app runs.
pub enum Mode {
    /// A window; with a path, it saves a screenshot of itself (UI included) once drawn and exits.
    Window(Option<PathBuf>),
    Screenshot {
        path: PathBuf,
        size: (u32, u32),
    },
    Bench {
        frames: usize,
        size: (u32, u32),
        baseline: bool,
        buildings: usize,
    },
}

pub struct AppOptions {
    pub history: History,
    pub settings: Settings,
    pub mode: Mode,
    pub time: Option<usize>,
    pub select: Option<String>,
    pub view: camera::View,
    /// Inputs to load in the background once the window is open (a heap dump series); the
    /// app starts with `history` (usually empty) and a progress bar.
    pub load_in_background: Option<Vec<String>>,
    /// A running WebSocket server whose pushes change the city (`--listen`).
    pub listen: Option<memcity_wire::Server>,
    /// Where the live snapshots lie when memcity takes them itself (`--inspect`, `--follow`).
    pub live_source: Vec<String>,
    /// The inputs `history` was loaded from (exact GC closures are computed again from them).
    pub source: Vec<String>,
    /// A guided tour to start (`--tour NAME`; `history` is that scenario).
    pub tour: Option<tour::Tour>,
    /// The tour's step to start at, as if the steps before it were done (`--step N`, 1-based).
    pub tour_step: Option<usize>,
    /// Where to write the workspace as drawn in the screenshot's frame (`--ui-state`).
    pub ui_state: Option<PathBuf>,
    /// With a screenshot of a tour step: the steps to capture after it (`--step A-B`).
    pub later_steps: Vec<headless::StepShot>,
    /// The window's size (`--size`).
    pub size: Option<(u32, u32)>,
    /// The workspace's layout to start with (`--layout`).
    pub layout: ui::workspace::state::LayoutChoice,
    /// The data-structure descriptions the Data structures tab detects with (built-in and
    /// `--structures`).
    pub structures: Arc<memcity_structures::Descriptions>,
    /// The view to start in (`--mode`).
    pub start_view: StartView,
    /// Bring every tab to the front in turn once each city is loaded, then play (`--visit-tabs`).
    pub visit_tabs: bool,
}

/// The view a run starts in: the city, a tree view or the ownership display.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartView {
    #[default]
    City,
    Tree(trees::TreeKind),
    Ownership,
}

impl StartView {
    /// The tab that shows it, other than the city's.
    fn tab(self) -> Option<&'static str> {
        match self {
            StartView::City => None,
            StartView::Tree(_) => Some(TREE),
            StartView::Ownership => Some(OWNERSHIP),
        }
    }
}

pub fn run(options: AppOptions) -> anyhow::Result<()> {
    if let Mode::Window(_) = options.mode
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        anyhow::bail!(
            "no display: DISPLAY is not set, so no window can open. Run under X (or Xvfb), or render \
             headless with --screenshot out.png"
        );
    }
    // A city that fills in later (live, or loading in the background) selects the key once a
    // group has it.
    let later = options.listen.is_some() || options.load_in_background.is_some();
    check_select(options.select.as_deref(), &options.history, later)?;
    crash::install();
    let mut app = App::new();
    let headless = !matches!(options.mode, Mode::Window(_));
    let log = bevy::log::LogPlugin { fmt_layer: plain_log_when_not_a_terminal, ..default() };
    if headless {
        app.add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: None,
                    exit_condition: ExitCondition::DontExit,
                    ..default()
                })
                .set(log)
                .disable::<WinitPlugin>(),
        )
        .add_plugins(ScheduleRunnerPlugin::run_loop(std::time::Duration::ZERO));
    } else {
        let mut window = Window { title: "memcity".into(), ..default() };
        if let Some((w, h)) = options.size {
            window.resolution = bevy::window::WindowResolution::new(w, h);
        }
        app.add_plugins(
            DefaultPlugins.set(WindowPlugin { primary_window: Some(window), ..default() }).set(log),
        );
    }
    let snapshots = options.history.snapshots.len();
    app.add_plugins(model::ModelPlugin { history: Arc::new(options.history), settings: options.settings })
        .add_plugins(names::NamesPlugin)
        .add_plugins(load::LoadPlugin)
        .add_plugins(time::TimePlugin)
        .add_plugins(inspect::InspectPlugin)
        .add_plugins(why::WhyPlugin)
        .add_plugins(tour::TourPlugin)
        .add_plugins(camera::CameraPlugin { interactive: !headless, view: options.view });
    if let Some(tour) = options.tour {
        app.insert_resource(tour);
        if let Some(to) = options.tour_step {
            app.insert_resource(tour::TourReplay { to });
        }
    }
    let baseline = matches!(options.mode, Mode::Bench { baseline: true, .. });
    // A tree view's benchmark measures the tab alone, as the window shows it over the city's
    // tab (the city's camera is off while its tab is hidden).
    let tree_bench = matches!((&options.mode, options.start_view), (Mode::Bench { .. }, StartView::Tree(_)));
    if baseline {
        app.add_plugins(baseline::BaselinePlugin);
    } else if !tree_bench {
        app.add_plugins(render::CityRenderPlugin);
    }
    if let Some(server) = options.listen {
        app.insert_resource(live::LiveServer::new(server).with_source(options.live_source))
            .add_plugins(live::LivePlugin);
    }
    if let Some(spec) = options.load_in_background {
        app.world_mut().write_message(load::OpenInput(spec));
    }
    let mut cursor = time::TimeCursor::default();
    // The last snapshot shows what grew; a tour starts at the first and plays.
    let start = if app.world().contains_resource::<tour::Tour>() { 0 } else { snapshots.saturating_sub(1) };
    cursor.jump_to(options.time.unwrap_or(start), snapshots);
    app.insert_resource(cursor);
    app.insert_resource(inspect::Selection { selected: options.select, hovered: None });
    app.insert_resource(why::CitySource(options.source));
    match options.mode {
        Mode::Window(shot) => {
            // The user's own layout is kept for the next start; a screenshot's is not.
            let save_layout = shot.is_none();
            app.add_plugins(bevy_egui::EguiPlugin::default())
                .add_plugins(ui::UiPlugin { layout: options.layout, save_layout })
                .add_plugins(why_pane::WhyPanePlugin)
                .add_plugins(structures::StructuresPlugin)
                .insert_resource(structures::StructureDescriptions(options.structures.clone()))
                .add_plugins(trees::TreesPlugin)
                .add_plugins(ownership::OwnershipPlugin)
                .add_plugins(objects::ObjectsPlugin)
                .add_plugins(screenshot::ScreenshotKeyPlugin)
                .add_plugins(wake::WakePlugin);
            if let StartView::Tree(kind) = options.start_view {
                app.insert_resource(kind);
            }
            if let Some(tab) = options.start_view.tab() {
                app.world_mut().write_message(ShowTab::named(tab));
            }
            if options.visit_tabs {
                app.add_plugins(visit::VisitTabsPlugin);
            }
            if let Some(path) = shot {
                // A capture needs frames until it is on disk.
                app.insert_resource(bevy::winit::WinitSettings::continuous());
                app.insert_resource(ScreenshotJob::new(path, options.ui_state, options.later_steps, 20))
                    .add_systems(Last, (headless::screenshot, screenshot::write_ui_state).chain());
            }
        }
        Mode::Screenshot { path, size } => {
            let image = headless::make_offscreen(&mut app.world_mut().resource_mut::<Assets<Image>>(), size);
            app.add_plugins(bevy_egui::EguiPlugin::default()).add_plugins((
                ui::fonts::FontsPlugin,
                ui::tour_target::TourTargetPlugin { bring_into_view: false },
            ));
            // A tab's view over the whole picture; the city with labels naming its towers (egui
            // draws them into the image).
            match options.start_view {
                StartView::Tree(kind) => {
                    app.insert_resource(kind).add_plugins(trees::TreesPlugin);
                }
                StartView::Ownership => {
                    app.add_plugins(ownership::OwnershipPlugin)
                        .insert_resource(structures::StructureDescriptions(options.structures.clone()));
                }
                StartView::City => {
                    app.add_plugins(ui::labels::LabelsPlugin);
                }
            }
            if let Some(tab) = options.start_view.tab() {
                app.add_plugins(solo::SoloTabPlugin(tab));
            }
            app.insert_resource(Offscreen(image))
                .insert_resource(ScreenshotJob::new(path, options.ui_state, options.later_steps, 3))
                .add_systems(PostStartup, headless::target_offscreen)
                .add_systems(Last, (headless::screenshot, screenshot::write_ui_state).chain());
        }
        Mode::Bench { frames, size, baseline, buildings } => {
            let image = headless::make_offscreen(&mut app.world_mut().resource_mut::<Assets<Image>>(), size);
            if let StartView::Tree(kind) = options.start_view {
                // Every node of the tree shown: the worst case of the tab.
                app.add_plugins(bevy_egui::EguiPlugin::default())
                    .add_plugins((ui::fonts::FontsPlugin, trees::TreesPlugin, solo::SoloTabPlugin(TREE)))
                    .insert_resource(kind)
                    .insert_resource(trees::TreeSettings::every_node())
                    .add_systems(
                        PostStartup,
                        solo::draw_with_a_camera_of_its_own.after(headless::target_offscreen),
                    )
                    .add_systems(Last, trees::count_parts.before(headless::bench_step));
                app.world_mut().resource_mut::<bevy_egui::EguiGlobalSettings>().auto_create_primary_context =
                    false;
            }
            app.insert_resource(Offscreen(image))
                .insert_resource(RenderBench {
                    frames,
                    warmup: 5,
                    buildings,
                    size,
                    baseline,
                    last: None,
                    times_ms: Vec::new(),
                    seen: 0,
                    detail: String::new(),
                })
                .add_systems(PostStartup, headless::target_offscreen)
                .add_systems(Last, headless::bench_step);
        }
    }
    app.add_systems(Last, crash::mark_started);
    match crash::run_guarded(&mut app) {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => anyhow::bail!("the app stopped with error code {code}"),
    }
}

/// Log lines without ANSI color codes when stderr is no terminal (a file, a pipe, CI).
fn plain_log_when_not_a_terminal(_: &mut App) -> Option<bevy::log::BoxedFmtLayer> {
    use std::io::IsTerminal;
    let layer = bevy::log::tracing_subscriber::fmt::Layer::default()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    Some(Box::new(layer))
}

/// `--select KEY` must name a group of the city, unless the city fills in `later` (an empty
/// live city, a series loading in the background): then the key is selected once it appears.
fn check_select(select: Option<&str>, history: &History, later: bool) -> anyhow::Result<()> {
    let Some(key) = select else { return Ok(()) };
    let known = history.snapshots.iter().any(|s| {
        let mut found = false;
        s.tree.walk(&mut |n, _| found |= n.key == key);
        found
    });
    let pending = later && history.snapshots.is_empty();
    if known || pending { Ok(()) } else { anyhow::bail!("--select {key}: no group has this key") }
}
