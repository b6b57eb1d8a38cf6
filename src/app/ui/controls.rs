//! The Controls pane: mouse and keys.

use bevy::prelude::*;
use bevy_egui::egui;

use super::workspace::AddTab;
use super::workspace::layouts::tabs::CONTROLS;

pub struct ControlsPlugin;

impl Plugin for ControlsPlugin {
    fn build(&self, app: &mut App) {
        app.add_tab(CONTROLS, "Controls", controls);
    }
}

pub const HINTS: &[&str] = &[
    "wheel: zoom · right-drag: rotate · middle-drag: pan",
    "left-click: select / deselect · Esc: deselect",
    "W/A/S/D: move · Q/E: down/up",
    "B: bird's-eye · R: whole city · F: frame the selection and its references",
    "Ctrl+F or /: search · Ctrl+O: open",
    "P/N or ←/→: previous/next snapshot · Space: play/pause",
    "F12: screenshot",
];

fn controls(InMut(ui): InMut<egui::Ui>) {
    for line in HINTS {
        ui.label(*line);
    }
}
