//! The render-world half of the instanced city: one pipeline (shaders/city.wgsl), one vertex
//! buffer for the unit cube, one instance buffer rewritten only when the main world's
//! [`CityInstances`] changes, and one draw per view.

use bevy::core_pipeline::core_3d::{CORE_3D_DEPTH_FORMAT, Transparent3d, TransparentSortingInfo3d};
use bevy::ecs::system::{SystemParamItem, lifetimeless::SRes};
use bevy::mesh::VertexBufferLayout;
use bevy::prelude::*;
use bevy::render::extract_resource::ExtractResource;
use bevy::render::render_phase::{
    DrawFunctions, PhaseItem, PhaseItemExtraIndex, RenderCommand, RenderCommandResult, SetItemPipeline,
    TrackedRenderPass, ViewSortedRenderPhases,
};
use bevy::render::render_resource::*;
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::sync_world::MainEntity;
use bevy::render::view::ExtractedView;
use bytemuck::{Pod, Zeroable};

use crate::app::render::CityDrawn;
use crate::app::viewport::CityCamera;

/// One box: center (w = flags), size, linear color with opacity. 48 bytes.
#[derive(Clone, Copy, Pod, Zeroable, Debug, Default, PartialEq)]
#[repr(C)]
pub struct InstanceData {
    pub center: [f32; 4],
    pub size: [f32; 4],
    pub color: [f32; 4],
}

pub const FLAG_SELECTED: f32 = 1.0;
pub const FLAG_HOVERED: f32 = 2.0;
/// A bit of its own: a marked building can be hovered or selected too.
pub const FLAG_MARKED: f32 = 4.0;

/// Every box of the city in draw order (opaque first, then translucent back to front).
#[derive(Resource, Clone, Default)]
pub struct CityInstances {
    pub instances: std::sync::Arc<Vec<InstanceData>>,
    pub version: u64,
}

impl ExtractResource for CityInstances {
    type Source = CityInstances;
    fn extract_resource(source: &Self::Source) -> Self {
        source.clone()
    }
}

#[derive(Resource)]
pub struct CityPipeline {
    layout: BindGroupLayoutDescriptor,
    shader: Handle<Shader>,
    cube: Buffer,
}

#[derive(Resource, Default)]
pub struct CityGpu {
    instances: Option<Buffer>,
    capacity: usize,
    count: u32,
    version: u64,
    view: Option<Buffer>,
    bind_group: Option<BindGroup>,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct ViewUniform {
    clip_from_world: [[f32; 4]; 4],
    camera: [f32; 4],
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CityPipelineKey {
    format: TextureFormat,
    samples: u32,
}

/// The city shader, added to the main world's assets when the plugin is built.
#[derive(Resource, Clone)]
pub struct CityShader(pub Handle<Shader>);

pub fn init_city_pipeline(mut commands: Commands, device: Res<RenderDevice>, shader: Res<CityShader>) {
    let shader = shader.0.clone();
    let layout = BindGroupLayoutDescriptor::new(
        "memcity_view_layout",
        &[BindGroupLayoutEntry {
            binding: 0,
            visibility: ShaderStages::VERTEX_FRAGMENT,
            ty: BindingType::Buffer {
                ty: BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    );
    let cube = device.create_buffer_with_data(&BufferInitDescriptor {
        label: Some("memcity_unit_cube"),
        contents: bytemuck::cast_slice(&unit_cube()),
        usage: BufferUsages::VERTEX,
    });
    commands.insert_resource(CityPipeline { layout, shader, cube });
}

/// 36 vertices (position, normal) of a unit cube centered at the origin.
fn unit_cube() -> Vec<[f32; 6]> {
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
    ];
    let mut out = Vec::with_capacity(36);
    for (n, u, v) in faces {
        let corner = |a: f32, b: f32| {
            let p = [0, 1, 2].map(|i| 0.5 * n[i] + 0.5 * a * u[i] + 0.5 * b * v[i]);
            [p[0], p[1], p[2], n[0], n[1], n[2]]
        };
        // Counter-clockwise seen from outside (u × v = n).
        for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            out.push(corner(a, b));
        }
    }
    out
}

impl SpecializedRenderPipeline for CityPipeline {
    type Key = CityPipelineKey;

    fn specialize(&self, key: Self::Key) -> RenderPipelineDescriptor {
        let attr = |format, offset, shader_location| VertexAttribute { format, offset, shader_location };
        RenderPipelineDescriptor {
            label: Some("memcity_city_pipeline".into()),
            layout: vec![self.layout.clone()],
            immediate_size: 0,
            vertex: VertexState {
                shader: self.shader.clone(),
                shader_defs: vec![],
                entry_point: Some("vertex".into()),
                buffers: vec![
                    VertexBufferLayout {
                        array_stride: 24,
                        step_mode: VertexStepMode::Vertex,
                        attributes: vec![
                            attr(VertexFormat::Float32x3, 0, 0),
                            attr(VertexFormat::Float32x3, 12, 1),
                        ],
                    },
                    VertexBufferLayout {
                        array_stride: std::mem::size_of::<InstanceData>() as u64,
                        step_mode: VertexStepMode::Instance,
                        attributes: vec![
                            attr(VertexFormat::Float32x4, 0, 2),
                            attr(VertexFormat::Float32x4, 16, 3),
                            attr(VertexFormat::Float32x4, 32, 4),
                        ],
                    },
                ],
            },
            primitive: PrimitiveState { cull_mode: Some(Face::Back), ..default() },
            // Reverse-z like Bevy's 3D pass; depth is written so translucent boxes drawn back to
            // front after the opaque ones blend correctly.
            depth_stencil: Some(DepthStencilState {
                format: CORE_3D_DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(CompareFunction::GreaterEqual),
                stencil: default(),
                bias: default(),
            }),
            multisample: MultisampleState { count: key.samples, mask: !0, alpha_to_coverage_enabled: false },
            fragment: Some(FragmentState {
                shader: self.shader.clone(),
                shader_defs: vec![],
                entry_point: Some("fragment".into()),
                targets: vec![Some(ColorTargetState {
                    format: key.format,
                    blend: Some(BlendState::ALPHA_BLENDING),
                    write_mask: ColorWrites::ALL,
                })],
            }),
            zero_initialize_workgroup_memory: false,
        }
    }
}

/// Uploads the instances when their version changed and the view matrix every frame.
pub fn prepare_city(
    instances: Option<Res<CityInstances>>,
    pipeline: Option<Res<CityPipeline>>,
    mut gpu: ResMut<CityGpu>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    cache: Res<PipelineCache>,
    views: Query<&ExtractedView, With<CityCamera>>,
) {
    let (Some(instances), Some(pipeline)) = (instances, pipeline) else { return };
    if gpu.version != instances.version || gpu.instances.is_none() {
        let bytes: &[u8] = bytemuck::cast_slice(instances.instances.as_slice());
        if instances.instances.len() > gpu.capacity || gpu.instances.is_none() {
            gpu.capacity = instances.instances.len().max(1).next_power_of_two();
            gpu.instances = Some(device.create_buffer(&BufferDescriptor {
                label: Some("memcity_instances"),
                size: (gpu.capacity * std::mem::size_of::<InstanceData>()) as u64,
                usage: BufferUsages::VERTEX | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if !bytes.is_empty() {
            queue.write_buffer(gpu.instances.as_ref().unwrap(), 0, bytes);
        }
        gpu.count = instances.instances.len() as u32;
        gpu.version = instances.version;
    }
    let Some(view) = views.iter().next() else { return };
    let world_from_view = view.world_from_view.to_matrix();
    let clip_from_world = view.clip_from_view * world_from_view.inverse();
    let uniform = ViewUniform {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        camera: world_from_view.w_axis.to_array(),
    };
    if gpu.view.is_none() {
        gpu.view = Some(device.create_buffer(&BufferDescriptor {
            label: Some("memcity_view"),
            size: std::mem::size_of::<ViewUniform>() as u64,
            usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }));
        let layout = cache.get_bind_group_layout(&pipeline.layout);
        let buffer = gpu.view.as_ref().unwrap();
        gpu.bind_group = Some(device.create_bind_group(
            "memcity_view_bind_group",
            &layout,
            &[BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
        ));
    }
    queue.write_buffer(gpu.view.as_ref().unwrap(), 0, bytemuck::bytes_of(&uniform));
}

/// Adds the city's one draw to every 3D view's transparent phase, sorted first so the city's
/// own back-to-front order and depth writes decide what shows.
#[allow(clippy::too_many_arguments)]
pub fn queue_city(
    draw_functions: Res<DrawFunctions<Transparent3d>>,
    pipeline: Option<Res<CityPipeline>>,
    mut pipelines: ResMut<SpecializedRenderPipelines<CityPipeline>>,
    cache: Res<PipelineCache>,
    gpu: Res<CityGpu>,
    mut phases: ResMut<ViewSortedRenderPhases<Transparent3d>>,
    views: Query<(Entity, &MainEntity, &ExtractedView, &Msaa), With<CityCamera>>,
) {
    let Some(pipeline) = pipeline else { return };
    debug!(
        "queue_city: count {} bind group {} views {}",
        gpu.count,
        gpu.bind_group.is_some(),
        views.iter().count()
    );
    if gpu.count == 0 || gpu.bind_group.is_none() {
        return;
    }
    let draw = draw_functions.read().id::<DrawCity>();
    for (entity, main_entity, view, msaa) in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else { continue };
        let key = CityPipelineKey { format: view.target_format, samples: msaa.samples() };
        let id = pipelines.specialize(&cache, &pipeline, key);
        phase.add_transient(Transparent3d {
            sorting_info: TransparentSortingInfo3d::AlwaysOnTop,
            distance: f32::NEG_INFINITY,
            pipeline: id,
            entity: (entity, *main_entity),
            draw_function: draw,
            batch_range: 0..1,
            extra_index: PhaseItemExtraIndex::None,
            indexed: false,
        });
    }
}

pub type DrawCity = (SetItemPipeline, DrawCityInstances);

pub struct DrawCityInstances;

impl<P: PhaseItem> RenderCommand<P> for DrawCityInstances {
    type Param = (SRes<CityGpu>, SRes<CityPipeline>, SRes<CityDrawn>);
    type ViewQuery = ();
    type ItemQuery = ();

    fn render<'w>(
        _item: &P,
        _view: (),
        _entity: Option<()>,
        (gpu, pipeline, drawn): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let (gpu, pipeline) = (gpu.into_inner(), pipeline.into_inner());
        let (Some(instances), Some(bind_group)) = (&gpu.instances, &gpu.bind_group) else {
            return RenderCommandResult::Skip;
        };
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_vertex_buffer(0, pipeline.cube.slice(..));
        pass.set_vertex_buffer(1, instances.slice(..));
        pass.draw(0..36, 0..gpu.count);
        drawn.0.store(true, std::sync::atomic::Ordering::Relaxed);
        RenderCommandResult::Success
    }
}
