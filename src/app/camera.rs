//! The camera: pan/orbit with the mouse (bevy_panorbit_camera: wheel zoom, right-drag rotate,
//! middle-drag pan) plus keys W/A/S/D/Q/E move, B bird's-eye view, R reset, F frame the
//! selection. Anything that wants the camera somewhere says what to show ([`FlyTo`]); the camera
//! frames it for the current view direction, window shape and UI (docs/design.md, "Camera").

use bevy::prelude::*;
use bevy_panorbit_camera::PanOrbitCamera;
use memcity_layout::city::CITY_SIZE;
use memcity_layout::frame::height;
use memcity_layout::references::{frustum, references};

use crate::app::inspect::{Selection, Target};
use crate::app::model::CityModel;
use crate::app::time::{DisplayedFrame, TimeCursor};
use crate::app::viewport::{CityCamera, UiFocus, UiInsets};

/// Where the camera looks from: an orbit around `focus`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    pub focus: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub radius: f32,
}

/// The vertical field of view (Bevy's default perspective).
const FOV: f32 = std::f32::consts::FRAC_PI_4;
/// Space left around what is framed.
const MARGIN: f32 = 1.08;

impl Orbit {
    /// The eye's offset from the focus.
    fn offset(yaw: f32, pitch: f32) -> Vec3 {
        Vec3::new(pitch.cos() * yaw.sin(), pitch.sin(), pitch.cos() * yaw.cos())
    }

    /// The closest orbit looking from (`yaw`, `pitch`) that shows the box `min..max` whole on a
    /// screen of `aspect` (width / height) whose bottom `bottom` fraction is covered by the UI:
    /// every corner lands inside the part above it.
    pub fn framing(min: Vec3, max: Vec3, yaw: f32, pitch: f32, aspect: f32, bottom: f32) -> Orbit {
        let center = (min + max) / 2.0;
        let back = Orbit::offset(yaw, pitch);
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        let up = back.cross(right);
        let bottom = bottom.clamp(0.0, 0.6);
        let (tan_v, tan_h) = ((FOV / 2.0).tan(), (FOV / 2.0).tan() * aspect.max(0.1));
        let mut distance: f32 = 1.0;
        for corner in 0..8 {
            let pick = |bit: usize, a: f32, b: f32| if corner >> bit & 1 == 0 { a } else { b };
            let p = Vec3::new(pick(0, min.x, max.x), pick(1, min.y, max.y), pick(2, min.z, max.z)) - center;
            let (x, y, z) = (p.dot(right), p.dot(up), p.dot(back));
            distance = distance.max(z + (x.abs() / tan_h).max(y.abs() / (tan_v * (1.0 - bottom))));
        }
        let radius = distance * MARGIN;
        // Lift the framed box into the middle of the part of the screen above the UI.
        let focus = center - up * bottom * radius * tan_v;
        Orbit { focus, yaw, pitch, radius }
    }

    /// The whole city at its largest (the max tree's tallest building included).
    pub fn overview(tallest: f32, aspect: f32, bottom: f32) -> Orbit {
        let (min, max) = city_bounds(tallest);
        Orbit::framing(min, max, 0.55, 0.6, aspect, bottom)
    }

    pub fn bird(tallest: f32) -> Orbit {
        let c = CITY_SIZE as f32 / 2.0;
        Orbit { focus: Vec3::new(c, 0.0, c), pitch: 1.5, yaw: 0.0, radius: 1.3 * CITY_SIZE as f32 + tallest }
    }

    /// Low over the city's front edge, looking along the streets.
    pub fn street(tallest: f32) -> Orbit {
        let c = CITY_SIZE as f32 / 2.0;
        Orbit {
            focus: Vec3::new(c, tallest * 0.25, c),
            yaw: 0.35,
            pitch: 0.22,
            radius: 1.2 * (CITY_SIZE as f32).max(tallest),
        }
    }

    /// Height of the tallest building of a layout at its largest.
    pub fn tallest(layout: &memcity_layout::CityLayout) -> f32 {
        layout.buildings.iter().map(|b| (b.base + 2.0 * b.cell.area().sqrt()) as f32).fold(0.0, f32::max)
    }

    pub fn transform(&self) -> Transform {
        Transform::from_translation(self.focus + self.radius * Orbit::offset(self.yaw, self.pitch))
            .looking_at(self.focus, Vec3::Y)
    }
}

fn city_bounds(tallest: f32) -> (Vec3, Vec3) {
    (Vec3::ZERO, Vec3::new(CITY_SIZE as f32, tallest.max(1.0), CITY_SIZE as f32))
}

/// The box around `target` as shown now, and with `with_references` around the buildings its
/// references lead to.
pub fn target_bounds(
    model: &CityModel,
    frame: &DisplayedFrame,
    snapshot: usize,
    target: Target,
    with_references: bool,
) -> Option<(Vec3, Vec3)> {
    let layout = &model.layout;
    let (rect, top, building) = match target {
        Target::Building(g) => {
            let b = layout.building(g)?;
            let building = &layout.buildings[b];
            let state = frame.frame.states.get(b).copied().unwrap_or_default();
            (building.cell, building.base + height(building, state).max(1.0), Some(b))
        }
        Target::District(g) => {
            let d = &layout.districts[layout.district(g)?];
            (d.rect, d.top(), None)
        }
    };
    let mut min = Vec3::new(rect.x as f32, 0.0, rect.z as f32);
    let mut max = Vec3::new((rect.x + rect.w) as f32, top as f32, (rect.z + rect.d) as f32);
    if let (Some(b), true) = (building, with_references)
        && frame.frame.states.len() == layout.buildings.len()
        && snapshot < model.timeline.pointers.len()
    {
        for r in references(layout, &model.timeline, snapshot, b) {
            if let Some(f) = frustum(layout, &frame.frame, &r) {
                for p in [f.from, f.to] {
                    let p = Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32);
                    (min, max) = (min.min(p), max.max(p));
                }
            }
        }
    }
    Some((min, max))
}

/// What to bring into view.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub enum FlyTo {
    /// The whole city at its largest.
    City,
    /// A building or district; with references, the buildings they lead to as well.
    Target { target: Target, with_references: bool },
}

pub struct CameraPlugin {
    /// Interactive (panorbit) or fixed (headless screenshots).
    pub interactive: bool,
    pub view: View,
}

/// The named camera views (`--view`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Overview,
    Bird,
    Street,
}

/// A flight waiting for the camera to know its screen (the first frames).
#[derive(Resource, Default)]
struct PendingFlight(Option<FlyTo>);

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<FlyTo>()
            .init_resource::<UiFocus>()
            .init_resource::<UiInsets>()
            .init_resource::<PendingFlight>()
            .add_plugins(bevy::render::extract_component::ExtractComponentPlugin::<CityCamera>::default());
        let (view, interactive) = (self.view, self.interactive);
        app.add_systems(Startup, move |mut commands: Commands, model: Res<CityModel>| {
            let tallest = Orbit::tallest(&model.layout);
            let start = match view {
                View::Overview => Orbit::overview(tallest, 16.0 / 9.0, 0.0),
                View::Bird => Orbit::bird(tallest),
                View::Street => Orbit::street(tallest),
            };
            spawn_camera(&mut commands, start, interactive);
            if view == View::Overview {
                commands.insert_resource(PendingFlight(Some(FlyTo::City)));
            }
        });
        app.add_systems(Update, (frame_new_city, fly_to).chain());
        if interactive {
            app.add_plugins(bevy_panorbit_camera::PanOrbitCameraPlugin).add_systems(
                Update,
                (camera_keys, focus_selected, ui_blocks_camera).chain().before(frame_new_city),
            );
        }
    }
}

fn spawn_camera(commands: &mut Commands, start: Orbit, interactive: bool) {
    let mut camera = commands.spawn((
        CityCamera,
        Camera3d::default(),
        start.transform(),
        bevy::core_pipeline::tonemapping::Tonemapping::None,
        Projection::Perspective(PerspectiveProjection { near: 1.0, fov: FOV, ..default() }),
        Camera { clear_color: ClearColorConfig::Custom(Color::srgb(0.07, 0.08, 0.11)), ..default() },
    ));
    if interactive {
        camera.insert(PanOrbitCamera {
            focus: start.focus,
            yaw: Some(start.yaw),
            pitch: Some(start.pitch),
            radius: Some(start.radius),
            button_orbit: MouseButton::Right,
            button_pan: MouseButton::Middle,
            zoom_upper_limit: Some(6.0 * CITY_SIZE as f32),
            zoom_lower_limit: 2.0,
            // One wheel notch is a small step, not a jump.
            zoom_sensitivity: 0.35,
            ..default()
        });
    }
}

fn apply_orbit(cam: &mut PanOrbitCamera, orbit: Orbit) {
    cam.target_focus = orbit.focus;
    cam.target_yaw = orbit.yaw;
    cam.target_pitch = orbit.pitch;
    cam.target_radius = orbit.radius;
    cam.force_update = true;
}

/// Fastest frame time the keys move with, so one slow frame is no leap.
const MAX_STEP_SECONDS: f32 = 0.05;
/// Ground covered per second while a move key is held, as a fraction of the orbit radius: the
/// city crosses the screen in a few seconds at any zoom.
const MOVE_SPEED: f32 = 0.3;

/// W/A/S/D move on the ground relative to the view, Q/E down/up, B bird's-eye, R reset.
fn camera_keys(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    ui: Res<UiFocus>,
    model: Res<CityModel>,
    mut cameras: Query<&mut PanOrbitCamera>,
    mut fly: MessageWriter<FlyTo>,
) {
    let Ok(mut cam) = cameras.single_mut() else { return };
    if ui.keyboard {
        // Typing into the search box must not fly the camera.
        return;
    }
    if keys.just_pressed(KeyCode::KeyB) {
        let focus = cam.target_focus;
        apply_orbit(&mut cam, Orbit { focus, ..Orbit::bird(Orbit::tallest(&model.layout)) });
    }
    if keys.just_pressed(KeyCode::KeyR) {
        fly.write(FlyTo::City);
    }
    let forward = Vec3::new(-cam.target_yaw.sin(), 0.0, -cam.target_yaw.cos());
    let right = Vec3::new(-forward.z, 0.0, forward.x);
    let mut motion = Vec3::ZERO;
    for (key, dir) in [
        (KeyCode::KeyW, forward),
        (KeyCode::KeyS, -forward),
        (KeyCode::KeyD, right),
        (KeyCode::KeyA, -right),
        (KeyCode::KeyE, Vec3::Y),
        (KeyCode::KeyQ, -Vec3::Y),
    ] {
        if keys.pressed(key) {
            motion += dir;
        }
    }
    if motion != Vec3::ZERO {
        let speed = MOVE_SPEED * cam.target_radius.max(20.0);
        cam.target_focus += motion.normalize() * speed * time.delta_secs().min(MAX_STEP_SECONDS);
    }
}

/// F frames the selection and the buildings its references lead to.
fn focus_selected(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiFocus>,
    selection: Res<Selection>,
    model: Res<CityModel>,
    mut fly: MessageWriter<FlyTo>,
) {
    if ui.keyboard || !keys.just_pressed(KeyCode::KeyF) {
        return;
    }
    if let Some(target) = selection.target(&model) {
        fly.write(FlyTo::Target { target, with_references: true });
    }
}

/// Another city is framed whole when it opens.
fn frame_new_city(model: Res<CityModel>, mut pending: ResMut<PendingFlight>, mut seen: Local<Option<u64>>) {
    if seen.replace(model.city).is_some_and(|city| city != model.city) {
        pending.0 = Some(FlyTo::City);
    }
}

/// Frames what was asked for with the camera's view direction, screen shape and the UI's inset.
fn fly_to(
    mut messages: MessageReader<FlyTo>,
    mut pending: ResMut<PendingFlight>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    cursor: Res<TimeCursor>,
    insets: Res<UiInsets>,
    mut cameras: Query<(&Camera, &mut Transform, Option<&mut PanOrbitCamera>), With<CityCamera>>,
) {
    if let Some(last) = messages.read().last() {
        pending.0 = Some(*last);
    }
    let Some(flight) = pending.0 else { return };
    let Ok((camera, mut transform, panorbit)) = cameras.single_mut() else { return };
    // The first frames have no screen size yet; the flight waits for it.
    let Some(size) = camera.logical_viewport_size().filter(|s| s.x > 0.0 && s.y > 0.0) else { return };
    pending.0 = None;
    let (yaw, pitch) = match &panorbit {
        Some(cam) => (cam.target_yaw, cam.target_pitch.clamp(0.25, 1.4)),
        None => (0.55, 0.6),
    };
    let aspect = size.x / size.y;
    let orbit = match flight {
        FlyTo::City => Orbit::overview(Orbit::tallest(&model.layout), aspect, insets.bottom),
        FlyTo::Target { target, with_references } => {
            let Some((min, max)) = target_bounds(&model, &frame, cursor.current, target, with_references)
            else {
                return;
            };
            let orbit = Orbit::framing(min, max, yaw, pitch.max(0.45), aspect, insets.bottom);
            Orbit { radius: orbit.radius.max(30.0), ..orbit }
        }
    };
    match panorbit {
        Some(mut cam) => apply_orbit(&mut cam, orbit),
        None => *transform = orbit.transform(),
    }
}

fn ui_blocks_camera(ui: Res<UiFocus>, mut cameras: Query<&mut PanOrbitCamera>) {
    if let Ok(mut cam) = cameras.single_mut()
        && cam.enabled == ui.pointer
    {
        cam.enabled = !ui.pointer;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a world point lands in normalized device coordinates for an orbit.
    fn ndc(orbit: &Orbit, aspect: f32, p: Vec3) -> Vec2 {
        let view = orbit.transform().to_matrix().inverse();
        let clip = Mat4::perspective_rh(FOV, aspect, 1.0, 1e6) * view * p.extend(1.0);
        Vec2::new(clip.x / clip.w, clip.y / clip.w)
    }

    #[test]
    fn framing_keeps_every_corner_on_screen_and_above_the_timeline() {
        let (min, max) = city_bounds(900.0);
        for (aspect, bottom) in [(16.0 / 9.0, 0.0), (16.0 / 9.0, 0.2), (0.7, 0.15), (3.0, 0.3)] {
            let orbit = Orbit::framing(min, max, 0.55, 0.6, aspect, bottom);
            let mut lowest: f32 = 1.0;
            for corner in 0..8 {
                let pick = |bit: usize, a: f32, b: f32| if corner >> bit & 1 == 0 { a } else { b };
                let p = Vec3::new(pick(0, min.x, max.x), pick(1, min.y, max.y), pick(2, min.z, max.z));
                let q = ndc(&orbit, aspect, p);
                assert!(q.x.abs() <= 1.0 && q.y <= 1.0, "{aspect} {bottom}: corner {p} at {q}");
                // The timeline covers ndc y below -1 + 2·bottom.
                assert!(
                    q.y >= -1.0 + 2.0 * bottom - 1e-3,
                    "{aspect} {bottom}: corner {p} under the UI at {q}"
                );
                lowest = lowest.min(q.y);
            }
            // Tight: some corner comes close to the usable bottom edge or a side.
            assert!(lowest < -1.0 + 2.0 * bottom + 0.3, "{aspect} {bottom}: loose framing ({lowest})");
        }
    }

    #[test]
    fn the_overview_frames_the_tallest_building_at_its_largest() {
        let low = Orbit::overview(50.0, 16.0 / 9.0, 0.1);
        let high = Orbit::overview(2000.0, 16.0 / 9.0, 0.1);
        assert!(high.radius > low.radius * 1.3, "a taller city is seen from further away");
        let top = Vec3::new(500.0, 2000.0, 500.0);
        assert!(ndc(&high, 16.0 / 9.0, top).y <= 1.0, "the roof is not cut");
    }
}
