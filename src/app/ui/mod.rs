//! The egui interface, one plugin per pane: the toolbar whose titles open the panes, the
//! timeline, settings, selection, search, open, tour and controls panes, the hover tooltip and
//! labels over the top growers. Panes read and write the city only through resources and
//! messages; [`UiFocus`] tells the city when the UI has the pointer or the keyboard.

pub mod controls;
pub mod describe;
pub mod fonts;
pub mod labels;
pub mod search;
pub mod selection;
pub mod settings;
pub mod sources;
pub mod stack;
pub mod timeline;
pub mod toolbar;
pub mod tooltip;
pub mod tour;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPreUpdateSet, EguiPrimaryContextPass, egui};

use crate::app::viewport::UiFocus;

/// The order egui draws in: panels first (they take their space), then the floating panes.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum UiSystems {
    Panels,
    Panes,
}

/// Which panes are open (the toolbar's buttons toggle them).
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct Panes {
    pub settings: bool,
    pub search: bool,
    pub open: bool,
    pub controls: bool,
    pub tour: bool,
}

impl Default for Panes {
    fn default() -> Self {
        Panes { settings: false, search: false, open: false, controls: true, tour: false }
    }
}

/// The part of the screen the panels leave free: the toolbar's height at the top and the
/// timeline's at the bottom. Panes, tooltips and labels stay inside it.
#[derive(Resource, Clone, Copy, Default, PartialEq)]
pub struct Room {
    pub top: f32,
    pub bottom: f32,
}

impl Room {
    pub fn rect(&self, ctx: &egui::Context) -> egui::Rect {
        let screen = ctx.content_rect();
        egui::Rect::from_min_max(
            egui::pos2(screen.left(), screen.top() + self.top),
            egui::pos2(screen.right(), (screen.bottom() - self.bottom).max(screen.top() + self.top + 1.0)),
        )
    }
}

/// A Ui over the whole screen for a panel to take its edge of (egui's panels live in a Ui).
pub fn screen_ui(ctx: &egui::Context, id: &str) -> egui::Ui {
    egui::Ui::new(
        ctx.clone(),
        egui::Id::new(id),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    )
}

pub struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Panes>()
            .init_resource::<Room>()
            .init_resource::<UiFocus>()
            .init_resource::<stack::Stacks>()
            .configure_sets(EguiPrimaryContextPass, (UiSystems::Panels, UiSystems::Panes).chain())
            .add_systems(PreUpdate, (drop_repeated_modifiers, ui_focus).after(EguiPreUpdateSet::ProcessInput))
            .add_systems(EguiPrimaryContextPass, stack::next_frame.before(UiSystems::Panes))
            .add_systems(EguiPrimaryContextPass, why_repaint.after(UiSystems::Panes))
            .add_plugins((
                fonts::FontsPlugin,
                toolbar::ToolbarPlugin,
                timeline::TimelinePlugin,
                settings::SettingsPlugin,
                selection::SelectionPlugin,
                search::SearchPlugin,
                sources::SourcesPlugin,
                tour::TourPanePlugin,
                controls::ControlsPlugin,
                tooltip::TooltipPlugin,
                labels::LabelsPlugin,
            ));
    }
}

/// Whether the UI has the pointer (over a pane now, by last frame's layout, or dragging a
/// widget) or the keyboard (a text field has focus). Computed before the city's systems run,
/// from this frame's pointer position, so a click on a pane never reaches the city.
fn ui_focus(
    mut contexts: EguiContexts,
    windows: Query<&Window, With<PrimaryWindow>>,
    room: Res<Room>,
    mut focus: ResMut<UiFocus>,
) {
    // The first frame may come before the context.
    let Ok(ctx) = contexts.ctx_mut() else { return };
    let cursor = windows.single().ok().and_then(Window::cursor_position).map(|p| egui::pos2(p.x, p.y));
    // Over a pane (an egui area) or over a panel (the toolbar, the timeline: outside the room).
    let over = cursor.is_some_and(|p| {
        ctx.layer_id_at(p).is_some_and(|layer| layer.order != egui::Order::Background)
            || !room.rect(ctx).contains(p)
    });
    let now =
        UiFocus { pointer: over || ctx.egui_is_using_pointer(), keyboard: ctx.egui_wants_keyboard_input() };
    if *focus != now {
        *focus = now;
    }
}

/// bevy_egui reports the modifier keys as an input event every frame, and egui repaints on
/// every input event: the window would never rest. Only a change of the modifiers is passed on.
fn drop_repeated_modifiers(
    mut inputs: Query<&mut bevy_egui::EguiInput>,
    mut last: Local<Option<egui::Modifiers>>,
) {
    for mut input in &mut inputs {
        input.events.retain(|event| match event {
            egui::Event::ModifiersChanged(now) => last.replace(*now) != Some(*now),
            _ => true,
        });
    }
}

/// At debug level: why egui asked for another frame (a window that should rest must not).
fn why_repaint(mut contexts: EguiContexts) {
    if let Ok(ctx) = contexts.ctx_mut()
        && ctx.has_requested_repaint()
    {
        let events = ctx.input(|i| i.events.clone());
        debug!("egui asks for a repaint: {:?}, input events {events:?}", ctx.repaint_causes());
    }
}
