//! The egui interface: a docked workspace ([`workspace`]) under a menu bar, one plugin per
//! pane, each pane a tab — timeline, settings, selection, search, open, tour and controls — and
//! the hover card and the labels over the top growers in the city's tab. Panes read and write
//! the city only through resources and messages; `UiFocus` tells the city when the UI has
//! the pointer or the keyboard.

pub mod controls;
pub mod describe;
pub mod fonts;
pub mod heap_chart;
pub mod labels;
pub mod search;
pub mod selection;
pub mod settings;
pub mod sources;
pub mod style;
pub mod timeline;
pub mod toolbar;
pub mod tooltip;
pub mod tour;
pub mod tour_target;
pub mod workspace;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPreUpdateSet, EguiPrimaryContextPass, egui};

/// The order egui draws in: the menu bar first (it takes its edge), then the workspace and
/// what floats over the city.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum UiSystems {
    Panels,
    Panes,
}

/// A Ui over the whole screen for a panel to take its edge of (egui's panels live in a Ui).
pub fn screen_ui(ctx: &egui::Context, id: &str) -> egui::Ui {
    egui::Ui::new(
        ctx.clone(),
        egui::Id::new(id),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    )
}

pub struct UiPlugin {
    /// The layout to start with.
    pub layout: workspace::state::LayoutChoice,
    /// Whether the layout is saved on exit.
    pub save_layout: bool,
}

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(EguiPrimaryContextPass, (UiSystems::Panels, UiSystems::Panes).chain())
            .add_systems(PreUpdate, drop_repeated_modifiers.after(EguiPreUpdateSet::ProcessInput))
            .add_systems(EguiPrimaryContextPass, why_repaint.after(UiSystems::Panes))
            .add_plugins(workspace::WorkspacePlugin { start: self.layout.clone(), save: self.save_layout })
            .add_plugins((
                fonts::FontsPlugin,
                toolbar::ToolbarPlugin,
                timeline::TimelinePlugin,
                selection::SelectionPlugin,
                search::SearchPlugin,
                sources::SourcesPlugin,
                tour::TourPanePlugin,
                tour_target::TourTargetPlugin { bring_into_view: true },
                settings::SettingsPlugin,
                controls::ControlsPlugin,
                tooltip::TooltipPlugin,
                labels::LabelsPlugin,
            ));
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
