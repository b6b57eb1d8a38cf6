//! The workspace: every pane and view is a tab of one dock (egui_dock) under the menu bar —
//! splits that resize by dragging, tabs that re-dock by dragging, nothing drawn over anything
//! but menus and the hover card. The city is a tab too: its rectangle is the 3D camera's
//! viewport ([`CityViewport`]).
//!
//! A pane joins by registering a tab ([`AddTab::add_tab`]): a system that draws the tab's body
//! into the `Ui` it is given. The workspace runs it when the tab is shown, so panes know
//! nothing of each other or of where they sit; they ask to be shown with [`ShowTab`].

pub mod layouts;
pub mod state;

use bevy::ecs::system::{SystemId, SystemState};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPreUpdateSet, EguiPrimaryContextPass, egui};
use egui_dock::{DockArea, DockState, TabViewer};
use serde::{Deserialize, Serialize};

use super::UiSystems;
use crate::app::viewport::{CityCamera, CityViewport, UiFocus};

/// A tab's name in layouts and layout files (`city`, `selection`, …).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TabId(pub String);

impl TabId {
    pub fn new(name: &str) -> TabId {
        TabId(name.to_string())
    }
}

/// The city's own tab: the camera's viewport, never closed.
pub const CITY: &str = "city";

/// A tab body: a system that draws into the tab's `Ui`.
pub type TabSystem = SystemId<InMut<'static, egui::Ui>>;

/// One registered tab.
#[derive(Clone, Debug)]
pub struct TabSpec {
    pub id: &'static str,
    pub title: &'static str,
    pub system: TabSystem,
}

/// Every tab there is, in the order the View menu lists them.
#[derive(Resource, Default, Clone, Debug)]
pub struct TabRegistry {
    pub tabs: Vec<TabSpec>,
}

impl TabRegistry {
    pub fn get(&self, id: &TabId) -> Option<&TabSpec> {
        self.tabs.iter().find(|t| t.id == id.0)
    }

    pub fn title<'a>(&'a self, id: &'a TabId) -> &'a str {
        self.get(id).map_or(id.0.as_str(), |t| t.title)
    }
}

/// Registering a tab from a pane's plugin.
pub trait AddTab {
    fn add_tab<M>(
        &mut self,
        id: &'static str,
        title: &'static str,
        system: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    ) -> &mut Self;
}

impl AddTab for App {
    fn add_tab<M>(
        &mut self,
        id: &'static str,
        title: &'static str,
        system: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    ) -> &mut Self {
        let system = self.world_mut().register_system(system);
        self.world_mut().get_resource_or_init::<TabRegistry>().tabs.push(TabSpec { id, title, system });
        self
    }
}

/// Whether a tab on show is still computing what it shows (reading the input again on a
/// thread): a capture waits for it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TabBusy(pub bool);

/// Asks the workspace to show a tab: opened where it belongs if closed, brought to the front
/// of its group.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct ShowTab(pub TabId);

impl ShowTab {
    pub fn named(name: &str) -> ShowTab {
        ShowTab(TabId::new(name))
    }
}

/// A tab the user closed (its pane may stop what it was doing).
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct TabClosed(pub TabId);

/// The dock: which tabs are open and where.
#[derive(Resource, Clone)]
pub struct Workspace {
    pub dock: DockState<TabId>,
}

/// What was drawn in the last frame: each shown tab's body with the rectangle that shows on
/// screen (for `--ui-state` and the tests that check nothing overlaps).
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct DrawnTabs {
    pub tabs: Vec<(TabId, egui::Rect)>,
    /// The rectangle the dock was given.
    pub area: Option<egui::Rect>,
}

/// The part of the screen the menu bar leaves to the dock.
#[derive(Resource, Clone, Copy, Default, PartialEq)]
pub struct MenuBarHeight(pub f32);

pub struct WorkspacePlugin {
    /// The layout to start with.
    pub start: state::LayoutChoice,
    /// Whether the layout is saved on exit (an interactive window; not a screenshot or a test).
    pub save: bool,
}

impl Plugin for WorkspacePlugin {
    fn build(&self, app: &mut App) {
        let start = state::starting_workspace(&self.start, self.save);
        // egui draws over the whole window from a camera of its own; the city's camera draws
        // only into its tab.
        if let Some(mut egui) = app.world_mut().get_resource_mut::<bevy_egui::EguiGlobalSettings>() {
            egui.auto_create_primary_context = false;
        }
        app.insert_resource(start.workspace)
            .add_systems(Startup, spawn_ui_cameras)
            .insert_resource(start.saving)
            .init_resource::<TabRegistry>()
            .init_resource::<DrawnTabs>()
            .init_resource::<MenuBarHeight>()
            .init_resource::<CityViewport>()
            .init_resource::<UiFocus>()
            .add_message::<ShowTab>()
            .add_message::<TabClosed>()
            .add_message::<state::LayoutCommand>()
            .add_systems(PreUpdate, ui_focus.after(EguiPreUpdateSet::ProcessInput))
            .add_systems(Update, (state::apply_layout_commands, show_tabs).chain())
            .add_systems(EguiPrimaryContextPass, show_workspace.in_set(UiSystems::Panes))
            .add_systems(PostUpdate, city_camera_viewport)
            .add_systems(Last, state::save_on_exit);
        app.add_tab(CITY, "City", city_tab);
    }
}

/// The window's background behind the panes (the city's camera clears only its tab), and the
/// camera egui draws with, over everything.
fn spawn_ui_cameras(mut commands: Commands) {
    commands.spawn((
        Camera2d,
        Camera { order: -1, clear_color: ClearColorConfig::Custom(Color::srgb(0.1, 0.1, 0.1)), ..default() },
    ));
    commands.spawn((
        Camera2d,
        Camera { order: 1, clear_color: ClearColorConfig::None, ..default() },
        bevy_egui::PrimaryEguiContext,
    ));
}

/// The city tab's body: nothing drawn (the 3D view shows through); its rectangle becomes the
/// camera's viewport.
fn city_tab(InMut(ui): InMut<egui::Ui>, mut viewport: ResMut<CityViewport>) {
    let rect = ui.max_rect();
    let now =
        CityViewport { rect: Some(Rect::new(rect.min.x, rect.min.y, rect.max.x, rect.max.y)), shown: true };
    if *viewport != now {
        *viewport = now;
    }
}

/// The smallest a pane may be dragged to (egui_dock's default, 175 px, would keep a strip of
/// the teaching layout and the timeline so tall at 1024×600 that the city got under a third).
const SMALLEST_PANE: f32 = 90.0;

/// The dock's look: egui's, with panes allowed down to [`SMALLEST_PANE`].
pub fn dock_style(style: &egui::Style) -> egui_dock::Style {
    let mut dock = egui_dock::Style::from_egui(style);
    dock.separator.extra = SMALLEST_PANE;
    dock
}

/// Draws the dock into what the menu bar leaves, running each shown tab's system.
fn show_workspace(world: &mut World) {
    let mut contexts = SystemState::<EguiContexts>::new(world);
    let Ok(mut params) = contexts.get_mut(world) else { return };
    let Ok(ctx) = params.ctx_mut().map(|c| c.clone()) else { return };
    let top = world.resource::<MenuBarHeight>().0;
    let screen = ctx.content_rect();
    let area = egui::Rect::from_min_max(egui::pos2(screen.left(), screen.top() + top), screen.max);
    world.resource_scope(|world, registry: Mut<TabRegistry>| {
        world.resource_scope(|world, mut workspace: Mut<Workspace>| {
            let mut ui = egui::Ui::new(
                ctx.clone(),
                egui::Id::new("memcity_workspace_ui"),
                egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(area),
            );
            let mut viewer = Viewer { world, registry: &registry, drawn: Vec::new() };
            // Drags and closes change the dock in place; it is saved on exit, so nothing watches it.
            let dock = &mut workspace.bypass_change_detection().dock;
            DockArea::new(dock)
                .id(egui::Id::new("memcity_dock"))
                .style(dock_style(ui.style()))
                .show_add_buttons(false)
                .show_leaf_collapse_buttons(false)
                .show_leaf_close_all_buttons(false)
                .window_bounds(area)
                .show_inside(&mut ui, &mut viewer);
            let drawn = DrawnTabs { tabs: viewer.drawn, area: Some(area) };
            // The city's tab, where it was drawn; hidden behind another tab it was not.
            let city = drawn
                .tabs
                .iter()
                .find(|(t, _)| t.0 == CITY)
                .map(|(_, r)| Rect::new(r.min.x, r.min.y, r.max.x, r.max.y));
            let now = match city {
                Some(rect) => CityViewport { rect: Some(rect), shown: true },
                None => CityViewport { shown: false, ..*world.resource::<CityViewport>() },
            };
            let mut viewport = world.resource_mut::<CityViewport>();
            if *viewport != now {
                *viewport = now;
            }
            let mut last = world.resource_mut::<DrawnTabs>();
            if *last != drawn {
                *last = drawn;
            }
        });
    });
}

struct Viewer<'w> {
    world: &'w mut World,
    registry: &'w TabRegistry,
    drawn: Vec<(TabId, egui::Rect)>,
}

impl TabViewer for Viewer<'_> {
    type Tab = TabId;

    fn id(&mut self, tab: &mut TabId) -> egui::Id {
        egui::Id::new(("memcity_tab", &tab.0))
    }

    fn title(&mut self, tab: &mut TabId) -> egui::WidgetText {
        self.registry.title(tab).into()
    }

    fn ui(&mut self, ui: &mut egui::Ui, tab: &mut TabId) {
        // What shows of the body: a scrolling pane's window onto its content (the content's own
        // rectangle moves as it scrolls), else the body inside its margin (the city's viewport).
        let shown = if self.scroll_bars(tab)[1] { ui.clip_rect() } else { ui.max_rect() };
        self.drawn.push((tab.clone(), shown));
        let Some(spec) = self.registry.get(tab) else {
            ui.label(format!("\"{}\" is not a tab of this version of memcity.", tab.0));
            return;
        };
        if let Err(e) = self.world.run_system_with(spec.system, ui) {
            warn!("the {} tab could not be drawn: {e}", spec.title);
        }
    }

    fn on_close(&mut self, tab: &mut TabId) -> egui_dock::widgets::tab_viewer::OnCloseResponse {
        self.world.write_message(TabClosed(tab.clone()));
        egui_dock::widgets::tab_viewer::OnCloseResponse::Close
    }

    fn is_closeable(&self, tab: &TabId) -> bool {
        tab.0 != CITY
    }

    fn clear_background(&self, tab: &TabId) -> bool {
        tab.0 != CITY
    }

    fn scroll_bars(&self, tab: &TabId) -> [bool; 2] {
        // The city and the timeline's chart fill their tabs; panes scroll.
        if tab.0 == CITY || tab.0 == layouts::tabs::TIMELINE { [false, false] } else { [false, true] }
    }

    fn allowed_in_windows(&self, _tab: &mut TabId) -> bool {
        // A floating window would cover the city.
        false
    }
}

/// Shows the tabs asked for: brought to the front where open, else opened beside the panes
/// (or split off the city where there are none).
fn show_tabs(mut requests: MessageReader<ShowTab>, mut workspace: ResMut<Workspace>) {
    for ShowTab(tab) in requests.read() {
        // Tests driving the window wait for this rather than guess how long a frame takes.
        debug!("showing the {} tab", tab.0);
        let dock = &mut workspace.dock;
        if let Some(at) = dock.find_tab(tab) {
            let _ = dock.set_active_tab(at);
            dock.set_focused_node_and_surface(at.node_path());
            continue;
        }
        layouts::open_beside_panes(dock, tab.clone());
    }
}

/// The city camera renders into the city tab's rectangle, and not at all while the tab is
/// hidden behind another.
fn city_camera_viewport(
    viewport: Res<CityViewport>,
    windows: Query<&Window, With<PrimaryWindow>>,
    mut cameras: Query<&mut Camera, With<CityCamera>>,
) {
    if !viewport.is_changed() {
        return;
    }
    let (Ok(window), Ok(mut camera)) = (windows.single(), cameras.single_mut()) else { return };
    let scale = window.scale_factor();
    let physical = window.physical_size();
    let wanted = viewport.rect.filter(|_| viewport.shown).and_then(|r| {
        let min = (r.min * scale).round().max(Vec2::ZERO).as_uvec2().min(physical);
        let max = (r.max * scale).round().max(Vec2::ZERO).as_uvec2().min(physical);
        (max.x > min.x && max.y > min.y).then(|| bevy::camera::Viewport {
            physical_position: min,
            physical_size: max - min,
            ..default()
        })
    });
    camera.is_active = wanted.is_some();
    if let Some(wanted) = wanted
        && camera.viewport.as_ref().is_none_or(|v| {
            v.physical_position != wanted.physical_position || v.physical_size != wanted.physical_size
        })
    {
        camera.viewport = Some(wanted);
    }
}

/// Whether the UI has the pointer (anywhere but the city tab, over a menu or the hover card,
/// or dragging a split or a tab) or the keyboard (a text field has focus). Computed before the
/// city's systems run, from this frame's pointer position, so a click on a pane never reaches
/// the city.
fn ui_focus(
    mut contexts: EguiContexts,
    windows: Query<&Window, With<PrimaryWindow>>,
    viewport: Res<CityViewport>,
    mut focus: ResMut<UiFocus>,
) {
    // The first frame may come before the context.
    let Ok(ctx) = contexts.ctx_mut() else { return };
    let cursor = windows.single().ok().and_then(Window::cursor_position);
    let in_city = cursor.is_some_and(|p| {
        viewport.shown
            && viewport.rect.is_some_and(|r| r.contains(p))
            && ctx
                .layer_id_at(egui::pos2(p.x, p.y))
                .is_none_or(|layer| layer.order == egui::Order::Background)
    });
    let now = UiFocus {
        pointer: !in_city || ctx.egui_is_using_pointer(),
        keyboard: ctx.egui_wants_keyboard_input(),
    };
    if *focus != now {
        *focus = now;
    }
}
