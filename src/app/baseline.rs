//! The naive way, for `--bench-render --baseline`: one entity per building, each with its own
//! StandardMaterial, updated one by one when the frame changes. Measured side by side with the
//! instanced city to show what instancing gains.

use bevy::prelude::*;
use memcity_layout::frame::{footprint, growth_color, height, opacity, visible};

use crate::app::model::CityModel;
use crate::app::time::DisplayedFrame;

pub struct BaselinePlugin;

impl Plugin for BaselinePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_buildings).add_systems(PostUpdate, update_buildings);
    }
}

#[derive(Component)]
struct NaiveBuilding(usize);

#[derive(Component)]
struct Shown(u64);

fn spawn_buildings(
    mut commands: Commands,
    model: Res<CityModel>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let cube = meshes.add(Cuboid::new(1.0, 1.0, 1.0));
    for b in 0..model.layout.buildings.len() {
        commands.spawn((
            NaiveBuilding(b),
            Mesh3d(cube.clone()),
            MeshMaterial3d(materials.add(StandardMaterial::default())),
            Transform::default(),
        ));
    }
    commands.spawn((
        DirectionalLight::default(),
        Transform::from_xyz(1.0, 2.0, 1.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn(Shown(u64::MAX));
}

fn update_buildings(
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    mut shown: Query<&mut Shown>,
    mut buildings: Query<(
        &NaiveBuilding,
        &mut Transform,
        &MeshMaterial3d<StandardMaterial>,
        &mut Visibility,
    )>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let Ok(mut shown) = shown.single_mut() else { return };
    if shown.0 == frame.version || frame.frame.states.len() != model.layout.buildings.len() {
        return;
    }
    shown.0 = frame.version;
    let layout = &model.layout;
    for (NaiveBuilding(b), mut transform, material, mut visibility) in &mut buildings {
        let (building, state) = (&layout.buildings[*b], frame.frame.states[*b]);
        *visibility = if visible(state) { Visibility::Inherited } else { Visibility::Hidden };
        let fp = footprint(building, state);
        let h = height(building, state);
        let (x, z) = fp.center();
        *transform = Transform::from_xyz(x as f32, (building.base + h / 2.0) as f32, z as f32)
            .with_scale(Vec3::new(fp.w as f32, h as f32, fp.d as f32));
        if let Some(mut m) = materials.get_mut(&material.0) {
            let c = growth_color(state.growth);
            m.base_color = Color::srgba(c[0], c[1], c[2], opacity(layout, building));
            m.alpha_mode = if building.solid { AlphaMode::Opaque } else { AlphaMode::Blend };
        }
    }
}
