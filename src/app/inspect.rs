//! Inspecting the city: what the pointer is over (hover) and what is selected (left-click;
//! click again or Esc deselects). The selection is kept by key, so it survives time steps,
//! relayouts and reloads of the same program.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use memcity_layout::frame::{footprint, height, visible};
use memcity_layout::pick::BuildingBox;

use crate::app::model::CityModel;
use crate::app::time::DisplayedFrame;
use crate::app::viewport::{CityCamera, UiFocus};

/// A building or a district, by group id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Building(u32),
    District(u32),
}

impl Target {
    pub fn group(self) -> u32 {
        match self {
            Target::Building(g) | Target::District(g) => g,
        }
    }
}

#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct Selection {
    /// Key of the selected group.
    pub selected: Option<String>,
    pub hovered: Option<Target>,
}

impl Selection {
    /// The selected group in the current model, if it is shown there.
    pub fn target(&self, model: &CityModel) -> Option<Target> {
        let group = model.timeline.group(self.selected.as_deref()?)?;
        if model.layout.building(group).is_some() {
            Some(Target::Building(group))
        } else {
            model.layout.district(group).map(|_| Target::District(group))
        }
    }

    /// Selects `target`, or deselects it if it is already selected.
    pub fn toggle(&mut self, model: &CityModel, target: Option<Target>) {
        let key = target.map(|t| model.timeline.groups[t.group() as usize].key.clone());
        self.selected = if key == self.selected { None } else { key };
    }
}

/// Groups a pane marks in the city beside the selection (what a picked data structure holds):
/// per group of the current timeline, empty when none. `version` changes with every new set.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub struct Marked {
    pub groups: Vec<bool>,
    pub version: u64,
}

impl Marked {
    pub fn has(&self, group: u32) -> bool {
        self.groups.get(group as usize).copied().unwrap_or(false)
    }
}

pub struct InspectPlugin;

impl Plugin for InspectPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Selection>()
            .init_resource::<Marked>()
            .init_resource::<ClickStart>()
            .init_resource::<UiFocus>()
            .add_systems(Update, (hover, click, deselect_on_escape));
    }
}

/// What the ray `origin + t·dir` hits first: a building, else the deepest district slab.
pub fn pick(model: &CityModel, frame: &DisplayedFrame, origin: Vec3, dir: Vec3) -> Option<Target> {
    let (o, d) = (origin.as_dvec3().to_array(), dir.as_dvec3().to_array());
    let layout = &model.layout;
    let states = &frame.frame.states;
    if states.len() == layout.buildings.len() {
        let hit = model.grid.pick(o, d, |b| {
            let (building, state) = (&layout.buildings[b], states[b]);
            visible(state).then(|| BuildingBox {
                footprint: footprint(building, state),
                base: building.base,
                height: height(building, state),
            })
        });
        if let Some((b, _)) = hit {
            return Some(Target::Building(layout.buildings[b].group));
        }
    }
    // Districts: the deepest slab whose top the ray crosses inside its rectangle.
    layout
        .districts
        .iter()
        .filter(|district| {
            let top = district.top();
            if d[1].abs() < 1e-9 {
                return false;
            }
            let t = (top - o[1]) / d[1];
            t > 0.0 && district.rect.contains(o[0] + t * d[0], o[2] + t * d[2])
        })
        .max_by_key(|district| district.depth)
        .map(|district| Target::District(district.group))
}

fn cursor_ray(
    windows: &Query<&Window, With<PrimaryWindow>>,
    cameras: &Query<(&Camera, &GlobalTransform), With<CityCamera>>,
) -> Option<Ray3d> {
    let cursor = windows.single().ok()?.cursor_position()?;
    let (camera, transform) = cameras.single().ok()?;
    camera.viewport_to_world(transform, cursor).ok()
}

/// What the pointer is over in the city (nothing while the UI has it).
pub fn hover(
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<CityCamera>>,
    ui: Res<UiFocus>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    mut selection: ResMut<Selection>,
) {
    let hovered = if ui.pointer {
        None
    } else {
        cursor_ray(&windows, &cameras).and_then(|ray| pick(&model, &frame, ray.origin, *ray.direction))
    };
    if selection.hovered != hovered {
        selection.hovered = hovered;
    }
}

/// Where the left button went down, to tell a click from a drag.
#[derive(Resource, Default)]
pub struct ClickStart(Option<Vec2>);

/// A click on the city (press and release close together, neither over the UI) selects what is
/// under the pointer. The release is checked too: a quick move onto a pane and click there
/// must not reach the city behind it.
pub fn click(
    buttons: Res<ButtonInput<MouseButton>>,
    windows: Query<&Window, With<PrimaryWindow>>,
    ui: Res<UiFocus>,
    model: Res<CityModel>,
    mut start: ResMut<ClickStart>,
    mut selection: ResMut<Selection>,
) {
    let cursor = windows.single().ok().and_then(|w| w.cursor_position());
    if buttons.just_pressed(MouseButton::Left) {
        start.0 = if ui.pointer { None } else { cursor };
    }
    if buttons.just_released(MouseButton::Left)
        && let (Some(down), Some(up)) = (start.0.take(), cursor)
        && down.distance(up) < 5.0
        && !ui.pointer
    {
        let hovered = selection.hovered;
        selection.toggle(&model, hovered);
    }
}

pub fn deselect_on_escape(keys: Res<ButtonInput<KeyCode>>, mut selection: ResMut<Selection>) {
    if keys.just_pressed(KeyCode::Escape) && selection.selected.is_some() {
        selection.selected = None;
    }
}
