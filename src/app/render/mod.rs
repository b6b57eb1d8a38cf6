//! Drawing the city: the main world turns the layout and the displayed frame into one list of
//! box instances (ground, district slabs, buildings); the render world draws it in one instanced
//! call with shaders/city.wgsl. The list is rebuilt only when what it shows changes.

pub mod frustums;
pub mod pipeline;
pub mod retainer_arcs;
pub mod tubes;

use bevy::core_pipeline::core_3d::Transparent3d;
use bevy::prelude::*;
use bevy::render::extract_resource::ExtractResourcePlugin;
use bevy::render::render_phase::AddRenderCommand;
use bevy::render::render_resource::SpecializedRenderPipelines;
use bevy::render::{Render, RenderApp, RenderStartup, RenderSystems};
use memcity_layout::city::{CITY_SIZE, SLAB};
use memcity_layout::frame::{footprint, growth_color, height, opacity, visible};
use memcity_layout::{Building, CityLayout, Rect};
use rayon::prelude::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::app::inspect::{Marked, Selection, Target};
use crate::app::model::{CityModel, LayoutMorph, ViewOptions};
use crate::app::time::DisplayedFrame;
use crate::app::viewport::CityCamera;
use pipeline::{CityGpu, CityInstances, DrawCity, FLAG_HOVERED, FLAG_MARKED, FLAG_SELECTED, InstanceData};

pub struct CityRenderPlugin;

/// Set by the render world once the city's draw has run, so a screenshot never shows a city
/// whose pipeline was still compiling.
#[derive(Resource, Clone, Default)]
pub struct CityDrawn(pub Arc<AtomicBool>);

/// Set by the render world while no pipeline is still compiling (frustums use Bevy's own).
#[derive(Resource, Clone, Default)]
pub struct PipelinesIdle(pub Arc<AtomicBool>);

/// One log line when the city is first on screen (how long opening took, for the README).
fn announce_first_draw(drawn: Res<CityDrawn>, mut told: Local<bool>) {
    if !*told && drawn.0.load(Ordering::Relaxed) {
        *told = true;
        info!("the city is on screen");
    }
}

fn watch_pipelines(cache: Res<bevy::render::render_resource::PipelineCache>, idle: Res<PipelinesIdle>) {
    idle.0.store(cache.waiting_pipelines().next().is_none(), Ordering::Relaxed);
}

impl Plugin for CityRenderPlugin {
    fn build(&self, app: &mut App) {
        let drawn = CityDrawn::default();
        let idle = PipelinesIdle::default();
        let shader = app
            .world_mut()
            .resource_mut::<Assets<Shader>>()
            .add(Shader::from_wgsl(include_str!("../../../shaders/city.wgsl"), "shaders/city.wgsl"));
        app.insert_resource(drawn.clone())
            .insert_resource(idle.clone())
            .init_resource::<CityInstances>()
            .init_resource::<InstanceInputs>()
            .add_plugins(ExtractResourcePlugin::<CityInstances>::default())
            .add_plugins(frustums::FrustumPlugin)
            .add_plugins(retainer_arcs::RetainerArcPlugin)
            .add_systems(PostUpdate, build_instances)
            .add_systems(Last, announce_first_draw);
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else { return };
        render_app
            .insert_resource(drawn)
            .insert_resource(idle)
            .insert_resource(pipeline::CityShader(shader))
            .init_resource::<CityGpu>()
            .init_resource::<SpecializedRenderPipelines<pipeline::CityPipeline>>()
            .add_render_command::<Transparent3d, DrawCity>()
            .add_systems(RenderStartup, pipeline::init_city_pipeline)
            .add_systems(
                Render,
                (
                    pipeline::prepare_city.in_set(RenderSystems::PrepareResources),
                    pipeline::queue_city.in_set(RenderSystems::Queue),
                    watch_pipelines.in_set(RenderSystems::Cleanup),
                ),
            );
    }
}

/// What the instance list was last built from: model generation, frame version, selection,
/// hover, marks, growth colors, camera cell, layout morph progress.
type InputsKey = (u64, u64, Option<String>, Option<Target>, u64, bool, [i32; 3], u32);

#[derive(Resource, Default, PartialEq)]
struct InstanceInputs {
    key: Option<InputsKey>,
}

fn linear(srgb: [f32; 3], alpha: f32) -> [f32; 4] {
    let c = Color::srgb(srgb[0], srgb[1], srgb[2]).to_linear();
    [c.red, c.green, c.blue, alpha]
}

#[allow(clippy::too_many_arguments)]
fn build_instances(
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    selection: Res<Selection>,
    marked: Res<Marked>,
    options: Res<ViewOptions>,
    cameras: Query<&GlobalTransform, With<CityCamera>>,
    morph: Option<Res<LayoutMorph>>,
    mut inputs: ResMut<InstanceInputs>,
    mut out: ResMut<CityInstances>,
) {
    let eye = cameras.single().map(|t| t.translation()).unwrap_or(Vec3::splat(CITY_SIZE as f32));
    // Re-sort translucent buildings only when the camera moved noticeably.
    let grid = (CITY_SIZE / 200.0) as f32;
    let eye_cell = [(eye.x / grid) as i32, (eye.y / grid) as i32, (eye.z / grid) as i32];
    let key = Some((
        model.generation,
        frame.version,
        selection.selected.clone(),
        selection.hovered,
        marked.version,
        options.growth_color,
        eye_cell,
        morph.as_ref().map_or(1.0, |m| m.t).to_bits(),
    ));
    if inputs.key == key {
        return;
    }
    inputs.key = key;
    let morph = morph.as_ref().and_then(|m| m.active(model.generation));
    let marks = CityMarks { selection: &selection, marked: &marked };
    out.instances = Arc::new(city_instances(&model, &frame, marks, options.growth_color, eye, morph));
    out.version += 1;
}

/// Where a rectangle is `t` of the way from `a` to `b`.
fn lerp_rect(a: Rect, b: Rect, t: f64) -> Rect {
    let l = |a: f64, b: f64| a + (b - a) * t;
    Rect::new(l(a.x, b.x), l(a.z, b.z), l(a.w, b.w), l(a.d, b.d))
}

/// What stands out in the city: the selection, the hovered target and the marked groups.
#[derive(Clone, Copy)]
pub struct CityMarks<'a> {
    pub selection: &'a Selection,
    pub marked: &'a Marked,
}

/// Ground, districts and opaque buildings first; translucent buildings after, back to front.
/// During a layout change (`morph`: the old layout and the eased progress) every district and
/// building that was in the old layout is drawn on its way from there.
pub fn city_instances(
    model: &CityModel,
    frame: &DisplayedFrame,
    marks: CityMarks,
    growth_colors: bool,
    eye: Vec3,
    morph: Option<(&CityLayout, f32)>,
) -> Vec<InstanceData> {
    let layout = &model.layout;
    let CityMarks { selection, marked } = marks;
    let selected = selection.target(model);
    let flags = |target: Target| {
        let state = if selected == Some(target) {
            FLAG_SELECTED
        } else if selection.hovered == Some(target) {
            FLAG_HOVERED
        } else {
            0.0
        };
        let mark = matches!(target, Target::Building(g) if marked.has(g));
        state + if mark { FLAG_MARKED } else { 0.0 }
    };
    let c = CITY_SIZE as f32;
    let mut opaque = vec![InstanceData {
        center: [c / 2.0, -1.0, c / 2.0, 0.0],
        size: [c * 1.6, 2.0, c * 1.6, 0.0],
        color: linear([0.16, 0.17, 0.2], 1.0),
    }];
    let t = morph.map_or(1.0, |m| m.1 as f64);
    for d in &layout.districts {
        let old = morph.and_then(|(from, _)| from.district(d.group).map(|i| from.districts[i].rect));
        let rect = old.map_or(d.rect, |old| lerp_rect(old, d.rect, t));
        let (x, z) = rect.center();
        opaque.push(InstanceData {
            center: [x as f32, (d.top() - SLAB / 2.0) as f32, z as f32, flags(Target::District(d.group))],
            size: [rect.w as f32, SLAB as f32, rect.d as f32, 0.0],
            color: linear(d.color, 1.0),
        });
    }
    let states = &frame.frame.states;
    if states.len() != layout.buildings.len() {
        return opaque;
    }
    let boxes: Vec<(InstanceData, bool, f32)> = layout
        .buildings
        .par_iter()
        .zip(states.par_iter())
        .filter(|(_, s)| visible(**s))
        .map(|(b, &state)| {
            let moving = morph.and_then(|(from, _)| from.building(b.group).map(|i| &from.buildings[i]));
            let b = &match moving {
                Some(old) => Building {
                    cell: lerp_rect(old.cell, b.cell, t),
                    base: old.base + (b.base - old.base) * t,
                    ..*b
                },
                None => b.clone(),
            };
            let fp = footprint(b, state);
            let h = height(b, state);
            let (x, z) = fp.center();
            let alpha = opacity(layout, b);
            let rgb = if growth_colors { growth_color(state.growth) } else { memcity_layout::frame::GRAY };
            let center = Vec3::new(x as f32, (b.base + h / 2.0) as f32, z as f32);
            let instance = InstanceData {
                center: [center.x, center.y, center.z, flags(Target::Building(b.group))],
                size: [fp.w as f32, h as f32, fp.d as f32, 0.0],
                color: linear(rgb, alpha),
            };
            (instance, alpha >= 1.0, center.distance_squared(eye))
        })
        .collect();
    let (solid, mut translucent): (Vec<_>, Vec<_>) = boxes.into_iter().partition(|(_, solid, _)| *solid);
    translucent.par_sort_unstable_by(|a, b| b.2.total_cmp(&a.2));
    opaque.extend(solid.into_iter().map(|(i, _, _)| i));
    opaque.extend(translucent.into_iter().map(|(i, _, _)| i));
    opaque
}
