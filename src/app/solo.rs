//! One tab alone over the whole picture, for `--screenshot --mode icicle|sunburst|timeline|
//! ownership` and `--bench-render --mode …` without a window: no workspace is drawn offscreen,
//! so the tab's system runs in a panel of its own.

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use bevy::camera::RenderTarget;

use crate::app::headless::Offscreen;
use crate::app::ui::workspace::{TabId, TabRegistry};
use crate::app::viewport::CityCamera;

/// Draws the tab `0` (its id) alone.
pub struct SoloTabPlugin(pub &'static str);

/// The tab drawn alone.
#[derive(Resource, Clone, Copy)]
struct SoloTab(&'static str);

impl Plugin for SoloTabPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(SoloTab(self.0)).add_systems(EguiPrimaryContextPass, draw_tab_alone);
    }
}

fn draw_tab_alone(world: &mut World) {
    let mut contexts = SystemState::<EguiContexts>::new(world);
    let Ok(mut params) = contexts.get_mut(world) else { return };
    let Ok(ctx) = params.ctx_mut().map(|c| c.clone()) else { return };
    let SoloTab(tab) = *world.resource::<SoloTab>();
    let Some(system) = world.resource::<TabRegistry>().get(&TabId::new(tab)).map(|s| s.system) else {
        return;
    };
    let mut ui = crate::app::ui::screen_ui(&ctx, "memcity_tab_alone");
    egui::CentralPanel::default().show(&mut ui, |ui| {
        if let Err(e) = world.run_system_with(system, ui) {
            warn!("the {tab} tab could not be drawn: {e}");
        }
    });
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
