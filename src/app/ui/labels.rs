//! Names over the strongest growers, skipping any that would overlap one already placed. Which
//! buildings get a label is decided when the city changes; each frame only projects them.
//! During a tour the building it points at gets a highlighted label.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::UiSystems;
use super::style::HIGHLIGHT;
use crate::app::model::{CityModel, ViewOptions};
use crate::app::names::GroupNames;
use crate::app::time::DisplayedFrame;
use crate::app::tour::{Step, Tour, top_grower};
use crate::app::viewport::CityCamera;

pub struct LabelsPlugin;

impl Plugin for LabelsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Labelled>()
            .add_systems(PreUpdate, choose_labelled.after(crate::app::model::ModelSystems::Load))
            .add_systems(EguiPrimaryContextPass, labels.in_set(UiSystems::Panes));
    }
}

/// Labels at most this many buildings.
const LABELS: usize = 12;
/// Longer names are cut (the tooltip has them whole).
const MAX_CHARS: usize = 36;

/// The buildings to label, strongest grower first, for one model generation.
#[derive(Resource, Default)]
pub struct Labelled {
    pub buildings: Vec<usize>,
    generation: Option<u64>,
}

fn choose_labelled(model: Res<CityModel>, mut labelled: ResMut<Labelled>) {
    if labelled.generation != Some(model.generation) {
        *labelled = Labelled { buildings: model.top_growers(LABELS), generation: Some(model.generation) };
    }
}

fn cut(name: &str) -> String {
    if name.chars().count() <= MAX_CHARS {
        return name.to_string();
    }
    let head: String = name.chars().take(MAX_CHARS - 1).collect();
    format!("{head}…")
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn labels(
    mut contexts: EguiContexts,
    options: Res<ViewOptions>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    labelled: Res<Labelled>,
    frame: Res<DisplayedFrame>,
    tour: Option<Res<Tour>>,
    city: Option<Res<crate::app::viewport::CityViewport>>,
    cameras: Query<(&Camera, &GlobalTransform), With<CityCamera>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let Ok((camera, transform)) = cameras.single() else { return Ok(()) };
    // Another tab in front of the city (the Tree tab shares its group) hides its labels too.
    if city.as_ref().is_some_and(|c| !c.shown) {
        return Ok(());
    }
    if frame.frame.states.len() != model.layout.buildings.len() {
        return Ok(());
    }
    let layout = &model.layout;
    // The tour's target goes first so nothing hides it.
    let target = tour
        .filter(|t| matches!(t.step, Step::Spot | Step::Select) && t.waiting.is_none())
        .and_then(|_| top_grower(&model))
        .and_then(|g| layout.building(g));
    if !options.labels && target.is_none() {
        return Ok(());
    }
    let shown: Vec<usize> = if options.labels { labelled.buildings.clone() } else { Vec::new() };
    let painter = ctx.layer_painter(egui::LayerId::background());
    // Headless screenshots have no workspace: the city fills the image.
    let room = city.map_or_else(|| ctx.content_rect(), |c| c.egui_rect(ctx.content_rect()));
    let mut placed: Vec<egui::Rect> = Vec::new();
    // Two compared runs: each side's name on its ground, at the front edge of its district.
    for side in memcity_model::compare::SIDES {
        let Some(d) = model.timeline.group(side).and_then(|g| layout.district(g)) else { continue };
        let district = &layout.districts[d];
        let (x, _) = district.rect.center();
        let front = Vec3::new(x as f32, district.top() as f32, (district.rect.z + district.rect.d) as f32);
        let Ok(screen) = camera.world_to_viewport(transform, front) else { continue };
        let galley = painter.layout_no_wrap(
            cut(&model.timeline.groups[district.group as usize].name),
            egui::FontId::proportional(15.0),
            egui::Color32::BLACK,
        );
        let rect = egui::Rect::from_center_size(
            egui::pos2(screen.x, screen.y + 14.0),
            galley.size() + egui::vec2(10.0, 6.0),
        );
        if room.contains_rect(rect) {
            painter.rect_filled(rect, 3.0, egui::Color32::from_rgb(230, 230, 230));
            painter.galley(rect.min + egui::vec2(5.0, 3.0), galley, egui::Color32::BLACK);
            placed.push(rect);
        }
    }
    for b in target.into_iter().chain(shown.into_iter().filter(|&b| Some(b) != target)) {
        let (building, state) = (&layout.buildings[b], frame.frame.states[b]);
        if !memcity_layout::frame::visible(state) {
            continue;
        }
        let (x, z) = building.cell.center();
        let roof = Vec3::new(
            x as f32,
            (building.base + memcity_layout::frame::height(building, state)) as f32,
            z as f32,
        );
        let Ok(screen) = camera.world_to_viewport(transform, roof) else { continue };
        let is_target = Some(b) == target;
        let text = if is_target {
            format!("▼ {}", cut(names.get(building.group)))
        } else {
            cut(names.get(building.group))
        };
        let color = if is_target { egui::Color32::BLACK } else { egui::Color32::WHITE };
        let galley = painter.layout_no_wrap(text, egui::FontId::proportional(13.0), color);
        let size = galley.size() + egui::vec2(8.0, 4.0);
        let rect = egui::Rect::from_center_size(egui::pos2(screen.x, screen.y - size.y), size);
        // A little air between labels, and none outside the city's tab.
        if !room.contains_rect(rect) || placed.iter().any(|p| p.expand(3.0).intersects(rect)) {
            continue;
        }
        let fill = if is_target { HIGHLIGHT } else { egui::Color32::from_black_alpha(170) };
        painter.rect_filled(rect, 3.0, fill);
        painter.galley(rect.min + egui::vec2(4.0, 2.0), galley, color);
        placed.push(rect);
    }
    Ok(())
}
