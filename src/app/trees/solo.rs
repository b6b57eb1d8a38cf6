//! The Tree tab alone over the whole picture, for `--screenshot --mode icicle|sunburst|timeline`
//! without a window: no workspace is drawn offscreen, so the tab's system runs in a panel of
//! its own.

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::app::ui::workspace::layouts::tabs::TREE;
use crate::app::ui::workspace::{TabId, TabRegistry};

pub struct SoloTreePlugin;

impl Plugin for SoloTreePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, draw_tree_alone);
    }
}

fn draw_tree_alone(world: &mut World) {
    let mut contexts = SystemState::<EguiContexts>::new(world);
    let Ok(mut params) = contexts.get_mut(world) else { return };
    let Ok(ctx) = params.ctx_mut().map(|c| c.clone()) else { return };
    let Some(system) = world.resource::<TabRegistry>().get(&TabId::new(TREE)).map(|s| s.system) else {
        return;
    };
    let mut ui = crate::app::ui::screen_ui(&ctx, "memcity_tree_alone");
    egui::CentralPanel::default().show(&mut ui, |ui| {
        if let Err(e) = world.run_system_with(system, ui) {
            warn!("the tree could not be drawn: {e}");
        }
    });
}
