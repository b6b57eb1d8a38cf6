//! The camera: pan/orbit with the mouse (bevy_panorbit_camera: wheel zoom, right-drag rotate,
//! middle-drag pan) plus keys W/A/S/D/Q/E move, B bird's-eye view, R reset, F frame the
//! selection. Anything that wants the camera somewhere says what to show ([`FlyTo`]); the camera
//! frames it for the current view direction, window shape and UI (docs/design.md, "Camera").

mod orbit;

use bevy::prelude::*;
use bevy_panorbit_camera::PanOrbitCamera;
use memcity_layout::city::CITY_SIZE;
use orbit::FOV;
pub use orbit::{Orbit, marked_bounds, target_bounds};

use crate::app::inspect::{Marked, Selection, Target};
use crate::app::model::CityModel;
use crate::app::time::{DisplayedFrame, TimeCursor};
use crate::app::viewport::{CityCamera, CityViewport, UiFocus};

/// What to bring into view.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub enum FlyTo {
    /// The whole city at its largest.
    City,
    /// A building or district; with references, the buildings they lead to as well.
    Target { target: Target, with_references: bool },
    /// Every building marked beside the selection ([`Marked`]: what a data structure holds).
    Marked,
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
        // Framed as shown this frame: after time moved the towers (a jump to the end grows them).
        app.add_systems(
            Update,
            (frame_new_city, fly_to).chain().after(crate::app::time::update_displayed_frame),
        );
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

/// The share of the city view the UI covers at the bottom: none, the city has a tab of its own.
const COVERED: f32 = 0.0;

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
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn fly_to(
    mut messages: MessageReader<FlyTo>,
    mut pending: ResMut<PendingFlight>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    cursor: Res<TimeCursor>,
    marked: Res<Marked>,
    city: Option<Res<CityViewport>>,
    mut cameras: Query<(&Camera, &mut Transform, Option<&mut PanOrbitCamera>), With<CityCamera>>,
) {
    if let Some(last) = messages.read().last() {
        pending.0 = Some(*last);
    }
    let Some(flight) = pending.0 else { return };
    let Ok((camera, mut transform, panorbit)) = cameras.single_mut() else { return };
    // The screen's shape: in a workspace the city tab as last drawn (the camera's own viewport
    // follows it a frame later), else the camera's. The first frames have none yet; the flight
    // waits for it.
    let size = match city.as_deref() {
        Some(CityViewport { rect, .. }) => rect.map(|r| r.size()),
        None => camera.logical_viewport_size(),
    };
    let Some(size) = size.filter(|s| s.x > 0.0 && s.y > 0.0) else { return };
    pending.0 = None;
    let (yaw, pitch) = match &panorbit {
        Some(cam) => (cam.target_yaw, cam.target_pitch.clamp(0.25, 1.4)),
        None => (0.55, 0.6),
    };
    let aspect = size.x / size.y;
    let orbit = match flight {
        FlyTo::City => Orbit::overview(Orbit::tallest(&model.layout), aspect, COVERED),
        FlyTo::Target { .. } | FlyTo::Marked => {
            let bounds = match flight {
                FlyTo::Target { target, with_references } => {
                    target_bounds(&model, &frame, cursor.current, target, with_references)
                }
                _ => marked_bounds(&model, &frame, &marked),
            };
            let Some((min, max)) = bounds else { return };
            // Seen whole and unobstructed: from above the towers between the camera and it.
            let towers = orbit::towers(&model, &frame);
            let framed = |pitch| Orbit::framing(min, max, yaw, pitch, aspect, COVERED);
            let orbit = framed(pitch.max(0.45)).clear_of(&towers, min, max, framed);
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
