//! Time travel: the current snapshot, stepping and playback, and smooth transitions. The
//! displayed frame blends the previous and the current snapshot's frames while a step animates.

use bevy::prelude::*;
use memcity_layout::frame::lerp;
use memcity_layout::{BuildingState, Frame};

use crate::app::model::CityModel;
use crate::app::viewport::UiFocus;

#[derive(Resource, Clone, Debug, PartialEq)]
pub struct TimeCursor {
    pub current: usize,
    /// Where the running transition started.
    pub previous: usize,
    /// Transition progress, 0..1 (1 = arrived).
    pub blend: f32,
    pub playing: bool,
    /// Seconds per snapshot while playing.
    pub period: f32,
    since_step: f32,
}

impl Default for TimeCursor {
    fn default() -> Self {
        TimeCursor { current: 0, previous: 0, blend: 1.0, playing: false, period: 0.5, since_step: 0.0 }
    }
}

impl TimeCursor {
    /// Starts an animated move to snapshot `to` (clamped to `count`).
    pub fn go_to(&mut self, to: usize, count: usize) {
        let to = to.min(count.saturating_sub(1));
        if to != self.current {
            self.previous = self.current;
            self.current = to;
            self.blend = 0.0;
        }
        self.since_step = 0.0;
    }

    /// Jumps without animation (headless screenshots, reloads).
    pub fn jump_to(&mut self, to: usize, count: usize) {
        self.go_to(to, count);
        self.previous = self.current;
        self.blend = 1.0;
    }

    pub fn step(&mut self, delta: isize, count: usize) {
        let to = (self.current as isize + delta).clamp(0, count.saturating_sub(1) as isize) as usize;
        self.go_to(to, count);
    }

    fn transition_seconds(&self) -> f32 {
        (self.period * 0.8).clamp(0.05, 0.4)
    }
}

/// The building states on screen now (blended during a transition).
#[derive(Resource, Default, Clone)]
pub struct DisplayedFrame {
    pub frame: Frame,
    /// Which (generation, previous, current, blend) it shows, to skip recomputing.
    shown: Option<(u64, usize, usize, u32)>,
    pub version: u64,
}

/// Step through time from elsewhere (UI, timeline clicks, WebSocket).
#[derive(Message, Clone, Copy, Debug)]
pub enum TimeCommand {
    Step(isize),
    GoTo(usize),
    TogglePlay,
}

pub struct TimePlugin;

impl Plugin for TimePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TimeCursor>()
            .init_resource::<DisplayedFrame>()
            .init_resource::<UiFocus>()
            .add_message::<TimeCommand>()
            .add_systems(
                Update,
                (
                    time_keys,
                    apply_time_commands,
                    play,
                    animate,
                    new_city_opens_at_its_end,
                    clamp_to_model,
                    update_displayed_frame,
                )
                    .chain(),
            );
    }
}

/// P/N and ←/→ step, Space plays or pauses; not while the UI has the keyboard (typing "n" into
/// the search box is no step).
pub fn time_keys(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiFocus>,
    mut commands: MessageWriter<TimeCommand>,
) {
    if ui.keyboard {
        return;
    }
    if keys.any_just_pressed([KeyCode::KeyP, KeyCode::ArrowLeft]) {
        commands.write(TimeCommand::Step(-1));
    }
    if keys.any_just_pressed([KeyCode::KeyN, KeyCode::ArrowRight]) {
        commands.write(TimeCommand::Step(1));
    }
    if keys.just_pressed(KeyCode::Space) {
        commands.write(TimeCommand::TogglePlay);
    }
}

fn apply_time_commands(
    mut commands: MessageReader<TimeCommand>,
    mut cursor: ResMut<TimeCursor>,
    model: Res<CityModel>,
) {
    let count = model.snapshot_count();
    for command in commands.read() {
        match *command {
            TimeCommand::Step(d) => cursor.step(d, count),
            TimeCommand::GoTo(i) => cursor.go_to(i, count),
            TimeCommand::TogglePlay => {
                cursor.playing = !cursor.playing;
                // Playing from the end starts over.
                if cursor.playing && cursor.current + 1 >= count {
                    cursor.jump_to(0, count);
                }
            }
        }
    }
}

fn play(time: Res<Time>, mut cursor: ResMut<TimeCursor>, model: Res<CityModel>) {
    if !cursor.playing {
        return;
    }
    cursor.since_step += time.delta_secs();
    if cursor.since_step >= cursor.period {
        let count = model.snapshot_count();
        if cursor.current + 1 >= count {
            cursor.playing = false;
        } else {
            let next = cursor.current + 1;
            cursor.go_to(next, count);
        }
    }
}

fn animate(time: Res<Time>, mut cursor: ResMut<TimeCursor>) {
    if cursor.blend < 1.0 {
        let step = time.delta_secs() / cursor.transition_seconds();
        cursor.blend = (cursor.blend + step).min(1.0);
    }
}

/// Another city (opened, pushed) starts at its last snapshot, where its growth shows, instead of
/// at the previous city's index. The city the app started with keeps the cursor it was given.
fn new_city_opens_at_its_end(
    model: Res<CityModel>,
    mut cursor: ResMut<TimeCursor>,
    mut seen: Local<Option<u64>>,
) {
    if seen.replace(model.city).is_some_and(|city| city != model.city) {
        let count = model.snapshot_count();
        cursor.playing = false;
        cursor.jump_to(count.saturating_sub(1), count);
    }
}

/// A reload with fewer snapshots keeps the cursor in range.
fn clamp_to_model(model: Res<CityModel>, mut cursor: ResMut<TimeCursor>) {
    let count = model.snapshot_count();
    if cursor.current >= count || cursor.previous >= count {
        cursor.jump_to(count.saturating_sub(1), count);
    }
}

/// The building states at the cursor, blended between two snapshots while a step animates.
pub fn update_displayed_frame(
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    mut shown: ResMut<DisplayedFrame>,
) {
    let key = (model.generation, cursor.previous, cursor.current, cursor.blend.to_bits());
    if shown.shown == Some(key) || model.frames.is_empty() {
        return;
    }
    let to = &model.frames[cursor.current];
    let frame = if cursor.blend >= 1.0 || cursor.previous == cursor.current {
        to.clone()
    } else {
        let from = &model.frames[cursor.previous];
        // Ease in and out so growth reads as motion, not a jump.
        let t = cursor.blend * cursor.blend * (3.0 - 2.0 * cursor.blend);
        Frame {
            states: from
                .states
                .iter()
                .zip(&to.states)
                .map(|(&a, &b)| lerp(a, b, t))
                .collect::<Vec<BuildingState>>(),
        }
    };
    shown.frame = frame;
    shown.shown = Some(key);
    shown.version += 1;
}
