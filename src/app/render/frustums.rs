//! Reference frustums for the selected building: purple from the buildings that keep it alive,
//! green to the ones it keeps alive; straight cones or arcs routed over the city. All of them
//! are one mesh, rebuilt when the selection, the time or the options change.

use bevy::prelude::*;
use memcity_layout::references::{Direction, Frustum, arc, frustum, references};

use crate::app::inspect::{Selection, Target};
use crate::app::model::{CityModel, ViewOptions};
use crate::app::render::tubes::{Tubes, tube_mesh};
use crate::app::time::{DisplayedFrame, TimeCursor};

pub const INCOMING: [f32; 3] = [0.62, 0.22, 0.9];
pub const OUTGOING: [f32; 3] = [0.15, 0.85, 0.3];

pub struct FrustumPlugin;

impl Plugin for FrustumPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_frustum_mesh).add_systems(PostUpdate, update_frustums);
    }
}

#[derive(Component)]
struct FrustumMesh(Option<(u64, u64, Option<String>, bool, bool)>);

fn spawn_frustum_mesh(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((FrustumMesh(None), tube_mesh(&mut meshes, &mut materials)));
}

/// The frustums to draw now for the selection (none unless a building is selected and pointers
/// are shown).
pub fn current_frustums(
    model: &CityModel,
    frame: &DisplayedFrame,
    cursor: &TimeCursor,
    selection: &Selection,
) -> Vec<Frustum> {
    let Some(Target::Building(group)) = selection.target(model) else { return Vec::new() };
    let Some(b) = model.layout.building(group) else { return Vec::new() };
    if frame.frame.states.len() != model.layout.buildings.len() {
        return Vec::new();
    }
    references(&model.layout, &model.timeline, cursor.current, b)
        .iter()
        .filter_map(|r| frustum(&model.layout, &frame.frame, r))
        .collect()
}

fn update_frustums(
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    cursor: Res<TimeCursor>,
    selection: Res<Selection>,
    options: Res<ViewOptions>,
    mut query: Query<(&mut FrustumMesh, &Mesh3d)>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    let Ok((mut shown, handle)) = query.single_mut() else { return };
    let key = Some((
        model.generation,
        frame.version,
        selection.selected.clone(),
        options.show_pointers,
        options.routed,
    ));
    if shown.0 == key {
        return;
    }
    shown.0 = key;
    let frustums = if options.show_pointers {
        current_frustums(&model, &frame, &cursor, &selection)
    } else {
        Vec::new()
    };
    debug!("frustums: {}", frustums.len());
    let mut geometry = Tubes::default();
    for f in &frustums {
        let color = if f.direction == Direction::Incoming { INCOMING } else { OUTGOING };
        let path: Vec<Vec3> = if options.routed {
            arc(f, 24).into_iter().map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)).collect()
        } else {
            [f.from, f.to].into_iter().map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)).collect()
        };
        geometry.tube(&path, f.radius_from as f32, f.radius_to as f32, color);
    }
    if let Some(mut mesh) = meshes.get_mut(&handle.0) {
        geometry.write(&mut mesh);
    }
}
