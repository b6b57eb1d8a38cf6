//! The selected building's retainer path as gold arcs over the city, from each holder to what it
//! keeps alive, up to the building closest to the GC roots. One mesh, rebuilt when the
//! selection, the time or the city changes.

use bevy::prelude::*;
use memcity_layout::retainers::{arc_points, retainer_arcs};

use crate::app::model::{CityModel, ViewOptions};
use crate::app::render::tubes::{Tubes, tube_mesh};
use crate::app::time::{DisplayedFrame, TimeCursor};
use crate::app::why::RetainerView;

/// Yellow gold: apart from the purple and green reference frustums and from the gray → orange
/// → red of growth.
pub const RETAINER: [f32; 3] = [1.0, 0.9, 0.1];

pub struct RetainerArcPlugin;

impl Plugin for RetainerArcPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_arc_mesh).add_systems(PostUpdate, update_arcs);
    }
}

/// What the mesh shows: (city generation, frame version, path).
#[derive(Component)]
struct ArcMesh(Option<(u64, u64, Vec<u32>, bool)>);

fn spawn_arc_mesh(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((ArcMesh(None), tube_mesh(&mut meshes, &mut materials)));
}

fn update_arcs(
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    cursor: Res<TimeCursor>,
    view: Res<RetainerView>,
    options: Res<ViewOptions>,
    mut query: Query<(&mut ArcMesh, &Mesh3d)>,
    mut meshes: ResMut<Assets<Mesh>>,
) {
    let Ok((mut shown, handle)) = query.single_mut() else { return };
    let groups = view.groups(&model, cursor.current);
    let key = Some((model.generation, frame.version, groups.clone(), options.show_pointers));
    if shown.0 == key {
        return;
    }
    shown.0 = key;
    let mut geometry = Tubes::default();
    if options.show_pointers && frame.frame.states.len() == model.layout.buildings.len() {
        // A fixed share of the city, so the chain reads at any zoom-out and city size.
        let thickness = (memcity_layout::city::CITY_SIZE * 0.005) as f32;
        for arc in retainer_arcs(&model.layout, &frame.frame, &groups) {
            let path: Vec<Vec3> = arc_points(&arc, 32)
                .into_iter()
                .map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32))
                .collect();
            geometry.tube(&path, thickness, thickness * 0.6, RETAINER);
        }
    }
    if let Some(mut mesh) = meshes.get_mut(&handle.0) {
        geometry.write(&mut mesh);
    }
}
