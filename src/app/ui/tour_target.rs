//! What the running tour step asks the user to act on: the play button (Play, and Fixed), the
//! top grower's tower (Spot, Select), the first "kept alive by" entry of the Selection
//! (KeptAlive), the button that opens the fixed program (Cause). When a step begins, its target
//! is brought into view — its tab to the front, the widget scrolled into view and given the
//! keyboard (Enter does what a click does), the tower framed whole and unobstructed and outlined
//! — so no step needs more than the one action it names. Panes say where they drew the target
//! ([`TourTarget::drawn`]); `--ui-state` writes it.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use memcity_layout::frame::{footprint, height, visible};

use super::UiSystems;
use super::style::HIGHLIGHT;
use super::workspace::layouts::tabs::{SELECTION, TIMELINE, TOUR};
use super::workspace::{CITY, ShowTab, TabId};
use crate::app::camera::FlyTo;
use crate::app::inspect::Target;
use crate::app::model::CityModel;
use crate::app::time::DisplayedFrame;
use crate::app::tour::{Step, Tour, top_grower};
use crate::app::viewport::{CityCamera, CityViewport};

pub struct TourTargetPlugin {
    /// Whether targets are brought into view (a workspace to show tabs in; not in a headless
    /// render, where only the tower is drawn).
    pub bring_into_view: bool,
}

impl Plugin for TourTargetPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TourTarget>()
            .add_message::<FlyTo>()
            .add_systems(EguiPrimaryContextPass, forget_last_frame.before(UiSystems::Panels))
            .add_systems(EguiPrimaryContextPass, tower.after(UiSystems::Panes));
        if self.bring_into_view {
            app.add_systems(
                EguiPrimaryContextPass,
                bring_into_view.after(forget_last_frame).before(UiSystems::Panels),
            );
        }
    }
}

/// The current step's target as drawn this frame, and whether it still has to be brought into
/// view.
#[derive(Resource, Default, Debug)]
pub struct TourTarget {
    /// The tab the target was drawn in this frame, and its rectangle.
    pub drawn: Option<(TabId, egui::Rect)>,
    /// The step began and its target was not drawn since.
    pending: bool,
    /// The widget given the keyboard, taken back when the step moves on.
    focused: Option<egui::Id>,
    /// Frames the step's target may still be scrolled into view again where it is not wholly
    /// in view (a pane's content can grow above it just after the first scroll).
    settling: u32,
}

/// Frames after a step begins during which its target is kept in view.
const SETTLING_FRAMES: u32 = 30;

impl TourTarget {
    /// A pane drew the step's target. The first time in a step it is scrolled into view, and
    /// given the keyboard when `focus` (a button or entry to click).
    pub fn drawn(&mut self, tab: &str, response: &egui::Response, focus: bool) {
        self.drawn = Some((TabId::new(tab), response.rect));
        let first = std::mem::take(&mut self.pending);
        if first {
            self.settling = SETTLING_FRAMES;
        }
        // Not wholly in view: its pane clips it.
        let clipped = response.interact_rect != response.rect;
        if first || (self.settling > 0 && clipped) {
            response.scroll_to_me_animation(None, egui::style::ScrollAnimation::none());
        }
        self.settling = self.settling.saturating_sub(1);
        if first && focus {
            response.request_focus();
            self.focused = Some(response.id);
        }
    }
}

/// The tab of what `step` asks the user to act on.
pub fn target_tab(step: Step) -> &'static str {
    match step {
        Step::Play | Step::Fixed => TIMELINE,
        Step::Spot | Step::Select => CITY,
        Step::KeptAlive => SELECTION,
        Step::Cause => TOUR,
    }
}

fn forget_last_frame(mut target: ResMut<TourTarget>) {
    target.drawn = None;
}

/// When a step begins: the keyboard comes back from the last step's target, and the new
/// target's tab comes to the front.
fn bring_into_view(
    tour: Option<Res<Tour>>,
    mut contexts: EguiContexts,
    mut target: ResMut<TourTarget>,
    mut last: Local<Option<Step>>,
    mut show: MessageWriter<ShowTab>,
) {
    // A step begins once the city it is about is there.
    let now = tour.filter(|t| t.waiting.is_none()).map(|t| t.step);
    if now == *last {
        return;
    }
    *last = now;
    if let Some(id) = target.focused.take()
        && let Ok(ctx) = contexts.ctx_mut()
    {
        ctx.memory_mut(|m| m.surrender_focus(id));
    }
    target.pending = now.is_some();
    if let Some(step) = now {
        show.write(ShowTab::named(target_tab(step)));
    }
}

/// The top grower's tower while the step is to point at it or click it: framed whole and
/// unobstructed when the step begins (a neighbour in front of it would take the pointer), and
/// outlined, so it is the one tower pointed at.
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn tower(
    tour: Option<Res<Tour>>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    viewport: Option<Res<CityViewport>>,
    cameras: Query<(&Camera, &GlobalTransform), With<CityCamera>>,
    mut contexts: EguiContexts,
    mut target: ResMut<TourTarget>,
    mut fly: MessageWriter<FlyTo>,
) {
    if !tour.is_some_and(|t| matches!(t.step, Step::Spot | Step::Select) && t.waiting.is_none()) {
        return;
    }
    // Behind another tab the city is not drawn.
    if viewport.as_ref().is_some_and(|v| !v.shown) {
        return;
    }
    let (Ok(ctx), Ok((camera, transform))) = (contexts.ctx_mut(), cameras.single()) else { return };
    let Some((group, b)) = top_grower(&model).and_then(|g| Some((g, model.layout.building(g)?))) else {
        return;
    };
    if std::mem::take(&mut target.pending) {
        fly.write(FlyTo::Target { target: Target::Building(group), with_references: true });
    }
    let building = &model.layout.buildings[b];
    let Some(corners) = frame
        .frame
        .states
        .get(b)
        .filter(|&&state| visible(state))
        .and_then(|&state| tower_corners(camera, transform, building, state))
    else {
        return;
    };
    // Headless renders have no workspace: the city fills the image.
    let city = viewport.map_or_else(|| ctx.content_rect(), |v| v.egui_rect(ctx.content_rect()));
    let outline = convex_hull(&corners);
    ctx.layer_painter(egui::LayerId::background())
        .with_clip_rect(city)
        .add(egui::Shape::closed_line(outline, egui::Stroke::new(2.0, HIGHLIGHT)));
    target.drawn = Some((TabId::new(CITY), egui::Rect::from_points(&corners)));
}

/// Where the 8 corners of a building's box are on screen; `None` when one is behind the camera.
fn tower_corners(
    camera: &Camera,
    transform: &GlobalTransform,
    building: &memcity_layout::Building,
    state: memcity_layout::BuildingState,
) -> Option<Vec<egui::Pos2>> {
    let cell = footprint(building, state);
    let (bottom, top) = (building.base, building.base + height(building, state));
    [cell.x, cell.x + cell.w]
        .into_iter()
        .flat_map(|x| [bottom, top].map(|y| (x, y)))
        .flat_map(|(x, y)| [cell.z, cell.z + cell.d].map(|z| (x, y, z)))
        .map(|(x, y, z)| {
            let p = camera.world_to_viewport(transform, Vec3::new(x as f32, y as f32, z as f32)).ok()?;
            Some(egui::pos2(p.x, p.y))
        })
        .collect()
}

/// The convex hull of `points`, counter-clockwise on screen (Andrew's monotone chain): a box's
/// silhouette from its corners.
fn convex_hull(points: &[egui::Pos2]) -> Vec<egui::Pos2> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: egui::Pos2, a: egui::Pos2, b: egui::Pos2| (a - o).x * (b - o).y - (a - o).y * (b - o).x;
    let mut hull: Vec<egui::Pos2> = Vec::with_capacity(2 * sorted.len());
    for pass in [sorted.clone(), sorted.into_iter().rev().collect()] {
        let floor = hull.len();
        for p in pass {
            while hull.len() >= floor + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        // The last point of each half is the first of the other.
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_seen_at_an_angle_is_outlined_by_its_silhouette() {
        // A unit cube's corners after some projection: a hexagon around two inner corners.
        let p = |x, y| egui::pos2(x, y);
        let corners = [
            p(0.0, 2.0),
            p(2.0, 1.0),
            p(4.0, 2.0),
            p(2.0, 3.0),
            p(0.0, 6.0),
            p(2.0, 5.0),
            p(4.0, 6.0),
            p(2.0, 7.0),
        ];
        let hull = convex_hull(&corners);
        assert_eq!(hull.len(), 6, "{hull:?}");
        for inner in [p(2.0, 3.0), p(2.0, 5.0)] {
            assert!(!hull.contains(&inner), "{inner:?} lies inside the silhouette");
        }
        for outer in [p(0.0, 2.0), p(2.0, 1.0), p(4.0, 2.0), p(0.0, 6.0), p(4.0, 6.0), p(2.0, 7.0)] {
            assert!(hull.contains(&outer), "{outer:?} is on the silhouette");
        }
        // Counter-clockwise on screen (y down): every turn goes the same way.
        let n = hull.len();
        for i in 0..n {
            let (o, a, b) = (hull[i], hull[(i + 1) % n], hull[(i + 2) % n]);
            assert!((a - o).x * (b - o).y - (a - o).y * (b - o).x > 0.0);
        }
    }
}
