//! The camera: pan/orbit with the mouse (bevy_panorbit_camera: wheel zoom, right-drag rotate,
//! middle-drag pan) plus keys W/A/S/D/Q/E move, B bird's-eye view, R reset, F focus selected.

use bevy::prelude::*;
use bevy_panorbit_camera::PanOrbitCamera;
use memcity_layout::city::CITY_SIZE;

use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::time::DisplayedFrame;

/// Where the camera looks from: an orbit around `focus`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    pub focus: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub radius: f32,
}

impl Orbit {
    /// The whole city from above at an angle; `tallest` is the height of the tallest building
    /// at its largest, so it stays in view.
    pub fn overview(tallest: f32) -> Orbit {
        let c = CITY_SIZE as f32 / 2.0;
        let extent = (CITY_SIZE as f32).max(tallest * 1.2);
        Orbit { focus: Vec3::new(c, tallest * 0.3, c), yaw: 0.55, pitch: 0.6, radius: 1.55 * extent }
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
        let offset = Vec3::new(
            self.radius * self.pitch.cos() * self.yaw.sin(),
            self.radius * self.pitch.sin(),
            self.radius * self.pitch.cos() * self.yaw.cos(),
        );
        Transform::from_translation(self.focus + offset).looking_at(self.focus, Vec3::Y)
    }
}

/// Move the camera's orbit somewhere (focus selected, search results).
#[derive(Message, Clone, Copy, Debug)]
pub struct FlyTo(pub Orbit);

/// Set while the UI uses the pointer or the keyboard, so the city ignores them.
#[derive(Resource, Default, Clone, Copy, PartialEq, Eq)]
pub struct UiFocus {
    pub pointer: bool,
    pub keyboard: bool,
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

impl View {
    pub fn orbit(self, layout: &memcity_layout::CityLayout) -> Orbit {
        let tallest = Orbit::tallest(layout);
        match self {
            View::Overview => Orbit::overview(tallest),
            View::Bird => Orbit::bird(tallest),
            View::Street => Orbit::street(tallest),
        }
    }
}

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<FlyTo>()
            .init_resource::<UiFocus>()
            .add_plugins(bevy::render::extract_component::ExtractComponentPlugin::<CityCamera>::default());
        let (view, interactive) = (self.view, self.interactive);
        app.add_systems(Startup, move |mut commands: Commands, model: Res<CityModel>| {
            spawn_camera(&mut commands, view.orbit(&model.layout), interactive)
        });
        if interactive {
            app.add_plugins(bevy_panorbit_camera::PanOrbitCameraPlugin)
                .add_systems(Update, (camera_keys, focus_selected, fly_to, ui_blocks_camera).chain());
        }
    }
}

/// The main 3D camera (extracted, so the city's pipeline draws with this view's matrices and
/// not, say, the UI's).
#[derive(Component, Clone, Copy, bevy::render::extract_component::ExtractComponent)]
pub struct CityCamera;

fn spawn_camera(commands: &mut Commands, start: Orbit, interactive: bool) {
    let mut camera = commands.spawn((
        CityCamera,
        Camera3d::default(),
        start.transform(),
        bevy::core_pipeline::tonemapping::Tonemapping::None,
        Projection::Perspective(PerspectiveProjection { near: 1.0, ..default() }),
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
            zoom_upper_limit: Some(4.0 * CITY_SIZE as f32),
            zoom_lower_limit: 2.0,
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

/// W/A/S/D move on the ground relative to the view, Q/E down/up, B bird's-eye, R reset.
pub fn camera_keys(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    ui: Res<UiFocus>,
    model: Res<CityModel>,
    mut cameras: Query<&mut PanOrbitCamera>,
) {
    let Ok(mut cam) = cameras.single_mut() else { return };
    if ui.keyboard {
        // Typing into the search box must not fly the camera.
        return;
    }
    if keys.just_pressed(KeyCode::KeyB) {
        let focus = cam.target_focus;
        apply_orbit(&mut cam, Orbit { focus, ..View::Bird.orbit(&model.layout) });
    }
    if keys.just_pressed(KeyCode::KeyR) {
        apply_orbit(&mut cam, View::Overview.orbit(&model.layout));
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
        let speed = 0.8 * cam.target_radius.max(20.0);
        cam.target_focus += motion.normalize() * speed * time.delta_secs();
    }
}

/// F flies to the selection.
fn focus_selected(
    keys: Res<ButtonInput<KeyCode>>,
    selection: Res<Selection>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    cameras: Query<&PanOrbitCamera>,
    mut fly: MessageWriter<FlyTo>,
) {
    if !keys.just_pressed(KeyCode::KeyF) {
        return;
    }
    let (Some(target), Ok(cam)) = (selection.target(&model), cameras.single()) else { return };
    if let Some(orbit) = crate::app::inspect::orbit_for(&model, &frame, target, cam.target_yaw) {
        fly.write(FlyTo(orbit));
    }
}

fn fly_to(mut messages: MessageReader<FlyTo>, mut cameras: Query<&mut PanOrbitCamera>) {
    if let (Some(FlyTo(orbit)), Ok(mut cam)) = (messages.read().last(), cameras.single_mut()) {
        apply_orbit(&mut cam, *orbit);
    }
}

fn ui_blocks_camera(ui: Res<UiFocus>, mut cameras: Query<&mut PanOrbitCamera>) {
    if let Ok(mut cam) = cameras.single_mut()
        && cam.enabled == ui.pointer
    {
        cam.enabled = !ui.pointer;
    }
}
