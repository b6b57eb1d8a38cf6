//! The Tree tab alone over the whole picture, for `--screenshot --mode icicle|sunburst|timeline`
//! and `--bench-render --mode …` without a window: no workspace is drawn offscreen, so the tab's
//! system runs in a panel of its own.

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use bevy::camera::RenderTarget;

use super::timeline::Multiples;
use super::{TreeKind, TreeParts};
use crate::app::headless::{Offscreen, RenderBench};
use crate::app::ui::workspace::layouts::tabs::TREE;
use crate::app::ui::workspace::{TabId, TabRegistry};
use crate::app::viewport::CityCamera;

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

/// Tells the render benchmark how many parts the tab draws.
pub fn count_parts(
    kind: Res<TreeKind>,
    parts: Res<TreeParts>,
    multiples: Res<Multiples>,
    mut bench: ResMut<RenderBench>,
) {
    let drawn = match *kind {
        TreeKind::Timeline => {
            multiples.pinned.iter().map(Vec::len).sum::<usize>() + multiples.current.to.len()
        }
        _ => parts.local.to.len() + parts.global.to.len(),
    };
    bench.detail = format!(", {drawn} tree parts drawn ({kind:?})", kind = *kind);
}

/// For the benchmark, as the window draws a tab over the hidden city: the city's camera off,
/// egui drawing into the image from a 2D camera of its own.
pub fn draw_with_a_camera_of_its_own(
    mut commands: Commands,
    offscreen: Res<Offscreen>,
    mut cities: Query<&mut Camera, With<CityCamera>>,
) {
    for mut camera in &mut cities {
        camera.is_active = false;
    }
    commands.spawn((
        Camera2d,
        RenderTarget::Image(offscreen.0.clone().into()),
        bevy_egui::PrimaryEguiContext,
    ));
}
