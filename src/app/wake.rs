//! A window that is quiet when nothing changes: it updates only on input (winit's reactive
//! mode) and asks for the next frame itself while something moves: playback, a transition
//! between snapshots, a layout morph, the camera gliding or a move key held, a load under way.
//! A live push wakes it from the server's thread (see [`LiveServer::wake_on_update`]).

use std::time::Duration;

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy::winit::{EventLoopProxyWrapper, UpdateMode, WinitSettings, WinitUserEvent};
use bevy_panorbit_camera::PanOrbitCamera;

use crate::app::live::LiveServer;
use crate::app::load::Loading;
use crate::app::model::{CityModel, LayoutMorph};
use crate::app::time::TimeCursor;

pub struct WakePlugin;

impl Plugin for WakePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(WinitSettings {
            // Without input the window still updates now and then (a clock in the UI stays right).
            focused_mode: UpdateMode::reactive(Duration::from_secs(5)),
            unfocused_mode: UpdateMode::reactive_low_power(Duration::from_secs(30)),
        })
        .add_systems(Startup, wake_on_live_pushes)
        .add_systems(Last, (keep_drawing_while_moving, count_frames));
    }
}

/// Whether anything on screen is still on its way.
pub fn moving(cursor: &TimeCursor, morph: &LayoutMorph, generation: u64, loading: bool) -> bool {
    cursor.playing || cursor.blend < 1.0 || morph.active(generation).is_some() || loading
}

/// Whether the camera is still on its way to where it was sent.
pub fn gliding(c: &PanOrbitCamera) -> bool {
    c.target_focus.distance(c.focus) > 1e-3
        || c.yaw.is_some_and(|y| (y - c.target_yaw).abs() > 1e-4)
        || c.pitch.is_some_and(|p| (p - c.target_pitch).abs() > 1e-4)
        || c.radius.is_some_and(|r| (r - c.target_radius).abs() > 1e-3)
}

const MOVE_KEYS: [KeyCode; 6] =
    [KeyCode::KeyW, KeyCode::KeyA, KeyCode::KeyS, KeyCode::KeyD, KeyCode::KeyQ, KeyCode::KeyE];

fn keep_drawing_while_moving(
    cursor: Res<TimeCursor>,
    morph: Res<LayoutMorph>,
    model: Res<CityModel>,
    loading: Res<Loading>,
    keys: Res<ButtonInput<KeyCode>>,
    cameras: Query<&PanOrbitCamera>,
    mut redraw: MessageWriter<RequestRedraw>,
) {
    let gliding = cameras.iter().any(gliding);
    if moving(&cursor, &morph, model.generation, loading.is_busy()) || gliding || keys.any_pressed(MOVE_KEYS)
    {
        redraw.write(RequestRedraw);
    }
}

fn wake_on_live_pushes(live: Option<ResMut<LiveServer>>, proxy: Option<Res<EventLoopProxyWrapper>>) {
    if let (Some(mut live), Some(proxy)) = (live, proxy) {
        let proxy = (**proxy).clone();
        live.wake_on_update(move || {
            let _ = proxy.send_event(WinitUserEvent::WakeUp);
        });
    }
}

/// Frames per 5 s at debug level, to see the window rest.
fn count_frames(mut frames: Local<(u32, Option<std::time::Instant>)>) {
    let (count, since) = &mut *frames;
    *count += 1;
    let since = since.get_or_insert_with(std::time::Instant::now);
    if since.elapsed() >= Duration::from_secs(5) {
        debug!("{count} frames in the last {:.1} s", since.elapsed().as_secs_f32());
        (*count, *since) = (0, std::time::Instant::now());
    }
}
