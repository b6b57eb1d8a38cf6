//! Tubes as one triangle mesh: the geometry of reference frustums and retainer arcs.

use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::NoFrustumCulling;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;

/// The parts of an entity that draws tubes: an empty mesh to be rewritten, an unlit material
/// colored by the vertices, and no culling (the mesh spans the city).
pub fn tube_mesh(
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) -> (Mesh3d, MeshMaterial3d<StandardMaterial>, Transform, NoFrustumCulling) {
    let mut mesh = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default());
    Tubes::default().write(&mut mesh);
    let material = StandardMaterial {
        base_color: Color::WHITE,
        unlit: true,
        double_sided: true,
        cull_mode: None,
        ..default()
    };
    (
        Mesh3d(meshes.add(mesh)),
        MeshMaterial3d(materials.add(material)),
        Transform::default(),
        NoFrustumCulling,
    )
}

/// Triangle soup of tubes with a radius that varies linearly along the path.
#[derive(Default)]
pub struct Tubes {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 4]>,
    indices: Vec<u32>,
}

const SIDES: u32 = 12;

impl Tubes {
    pub fn tube(&mut self, path: &[Vec3], r0: f32, r1: f32, rgb: [f32; 3]) {
        if path.len() < 2 {
            return;
        }
        let c = Color::srgb(rgb[0], rgb[1], rgb[2]).to_linear();
        let color = [c.red, c.green, c.blue, 1.0];
        let first = self.positions.len() as u32;
        for (i, &p) in path.iter().enumerate() {
            let t = i as f32 / (path.len() - 1) as f32;
            let radius = r0 + (r1 - r0) * t;
            let along = (path[(i + 1).min(path.len() - 1)] - path[i.saturating_sub(1)]).normalize_or(Vec3::Y);
            let side = along.any_orthonormal_vector();
            let up = along.cross(side);
            for s in 0..SIDES {
                let a = s as f32 / SIDES as f32 * std::f32::consts::TAU;
                let n = side * a.cos() + up * a.sin();
                self.positions.push((p + n * radius).to_array());
                self.normals.push(n.to_array());
                self.colors.push(color);
            }
        }
        for ring in 0..path.len() as u32 - 1 {
            for s in 0..SIDES {
                let (a, b) = (first + ring * SIDES + s, first + ring * SIDES + (s + 1) % SIDES);
                let (c, d) = (a + SIDES, b + SIDES);
                self.indices.extend([a, c, b, b, c, d]);
            }
        }
    }

    pub fn write(mut self, mesh: &mut Mesh) {
        if self.indices.is_empty() {
            // An empty mesh upsets the mesh allocator; one degenerate triangle draws nothing.
            self.positions = vec![[0.0; 3]; 3];
            self.normals = vec![[0.0, 1.0, 0.0]; 3];
            self.colors = vec![[0.0; 4]; 3];
            self.indices = vec![0, 1, 2];
        }
        mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, self.positions);
        mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, self.normals);
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, self.colors);
        mesh.insert_indices(Indices::U32(self.indices));
    }
}
