//! The Controls pane: mouse and keys.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

use super::stack::{Place, Stacks};
use super::{Panes, Room, UiSystems};

pub struct ControlsPlugin;

impl Plugin for ControlsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, controls.in_set(UiSystems::Panes));
    }
}

pub const HINTS: &[&str] = &[
    "wheel: zoom · right-drag: rotate · middle-drag: pan",
    "left-click: select / deselect · Esc: deselect",
    "W/A/S/D: move · Q/E: down/up",
    "B: bird's-eye · R: whole city · F: frame the selection and its references",
    "P/N or ←/→: previous/next snapshot · Space: play/pause",
    "F12: screenshot",
];

fn controls(
    mut contexts: EguiContexts,
    room: Res<Room>,
    mut panes: ResMut<Panes>,
    mut stacks: ResMut<Stacks>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let room = room.rect(ctx);
    let mut open = panes.controls;
    let shown = stacks
        .window(Place::Controls, "Controls", room)
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            for line in HINTS {
                ui.label(*line);
            }
        });
    stacks.record(Place::Controls, shown);
    if open != panes.controls {
        panes.controls = open;
    }
    Ok(())
}
