//! Rendering without a window: `--screenshot` renders one frame to a PNG and exits;
//! `--bench-render` animates a synthetic city offscreen and prints frame-time figures. Both draw
//! into an image (`RenderTarget::Image`), so they work under Xvfb and on GPU machines with no X.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

use crate::app::render::{CityDrawn, PipelinesIdle};
use crate::app::time::{TimeCommand, TimeCursor};
use crate::app::tour::TourReplay;
use crate::app::ui::workspace::TabBusy;
use crate::app::viewport::{CityCamera, CityViewport};
use crate::app::wake::gliding;
use bevy_panorbit_camera::PanOrbitCamera;

/// The offscreen image the camera renders into.
#[derive(Resource, Clone)]
pub struct Offscreen(pub Handle<Image>);

pub fn make_offscreen(images: &mut Assets<Image>, size: (u32, u32)) -> Handle<Image> {
    images.add(Image::new_target_texture(size.0, size.1, TextureFormat::Rgba8UnormSrgb, None))
}

/// Points every city camera at the offscreen image.
pub fn target_offscreen(
    mut commands: Commands,
    offscreen: Res<Offscreen>,
    cameras: Query<Entity, With<CityCamera>>,
) {
    for camera in &cameras {
        commands.entity(camera).insert(RenderTarget::Image(offscreen.0.clone().into()));
    }
}

#[derive(Resource)]
pub struct ScreenshotJob {
    pub path: PathBuf,
    /// Where to write the workspace as drawn in the captured frame (`--ui-state`).
    pub ui_state: Option<PathBuf>,
    /// The tour steps to capture after this one (`--step A-B`), in order.
    pub then: VecDeque<StepShot>,
    /// Frames rendered since the city was first drawn.
    pub after_drawn: u32,
    pub requested: bool,
    pub frames: u32,
    /// Frames to wait after the first draw (a window's UI needs a few to lay itself out).
    pub settle_frames: u32,
}

/// One more step of a tour to capture: the step (1-based), its picture and its UI state.
#[derive(Clone, Debug, PartialEq)]
pub struct StepShot {
    pub step: usize,
    pub png: PathBuf,
    pub ui_state: Option<PathBuf>,
}

impl ScreenshotJob {
    pub fn new(path: PathBuf, ui_state: Option<PathBuf>, then: Vec<StepShot>, settle_frames: u32) -> Self {
        ScreenshotJob {
            path,
            ui_state,
            then: then.into(),
            after_drawn: 0,
            requested: false,
            frames: 0,
            settle_frames,
        }
    }
}

/// Waits until the city has been drawn (and a couple more frames for the frustums), a `--step`
/// of a tour is reached and the camera rests, captures the image once, and exits when the PNG is on disk —
/// or, with more steps to capture, goes on to the next step.
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
pub fn screenshot(
    mut commands: Commands,
    mut job: ResMut<ScreenshotJob>,
    drawn: Res<CityDrawn>,
    idle: Res<PipelinesIdle>,
    offscreen: Option<Res<Offscreen>>,
    replaying: Option<Res<TourReplay>>,
    viewport: Option<Res<CityViewport>>,
    busy: Option<Res<TabBusy>>,
    cameras: Query<&PanOrbitCamera>,
    mut exit: MessageWriter<AppExit>,
) {
    job.frames += 1;
    if job.frames > 2000 {
        error!("the city was never drawn; giving up on the screenshot");
        exit.write(AppExit::error());
        return;
    }
    // A tour step replayed, the camera arrived where the step sent it; a window whose city tab
    // is behind another (`--mode icicle`) draws no city to wait for.
    let city_hidden = viewport.is_some_and(|v| !v.shown);
    let drawn = city_hidden || drawn.0.load(Ordering::Relaxed);
    let ready = drawn && replaying.is_none() && !cameras.iter().any(gliding) && !busy.is_some_and(|b| b.0);
    if !ready || (!job.requested && !idle.0.load(Ordering::Relaxed)) {
        return;
    }
    job.after_drawn += 1;
    if job.after_drawn == job.settle_frames && !job.requested {
        job.requested = true;
        let _ = std::fs::remove_file(&job.path);
        // Offscreen when there is no window; else the window, UI included.
        let shot = match offscreen {
            Some(image) => Screenshot::image(image.0.clone()),
            None => Screenshot::primary_window(),
        };
        commands.spawn(shot).observe(save_to_disk(job.path.clone()));
    }
    if job.requested && job.path.exists() && std::fs::metadata(&job.path).is_ok_and(|m| m.len() > 0) {
        // One more frame lets the writer finish the file.
        if job.after_drawn > job.settle_frames + 3 {
            match job.then.pop_front() {
                Some(next) => {
                    commands.insert_resource(TourReplay { to: next.step });
                    *job = ScreenshotJob {
                        then: std::mem::take(&mut job.then),
                        ..ScreenshotJob::new(next.png, next.ui_state, Vec::new(), job.settle_frames)
                    };
                }
                None => {
                    exit.write(AppExit::Success);
                }
            }
        }
    }
}

/// Frame-time measurement for `--bench-render`.
#[derive(Resource)]
pub struct RenderBench {
    pub frames: usize,
    pub warmup: usize,
    pub buildings: usize,
    pub size: (u32, u32),
    pub baseline: bool,
    pub last: Option<Instant>,
    pub times_ms: Vec<f64>,
    pub seen: usize,
    /// What else was drawn, for the summary (the tree views' parts).
    pub detail: String,
}

/// Steps time every frame (so every frame has new building data) and records frame times.
pub fn bench_step(
    mut bench: ResMut<RenderBench>,
    drawn: Option<Res<CityDrawn>>,
    cursor: Res<TimeCursor>,
    model: Res<crate::app::model::CityModel>,
    mut commands: MessageWriter<TimeCommand>,
    mut exit: MessageWriter<AppExit>,
) {
    // The instanced city waits for its pipeline; the baseline has none to wait for.
    if let Some(drawn) = drawn
        && !drawn.0.load(Ordering::Relaxed)
    {
        return;
    }
    let now = Instant::now();
    if let Some(last) = bench.last {
        bench.seen += 1;
        if bench.seen > bench.warmup {
            bench.times_ms.push((now - last).as_secs_f64() * 1000.0);
        }
    }
    bench.last = Some(now);
    let last_snapshot = cursor.current + 1 >= model.snapshot_count();
    commands.write(if last_snapshot { TimeCommand::GoTo(0) } else { TimeCommand::Step(1) });
    if bench.times_ms.len() >= bench.frames {
        say!("{}", bench.summary());
        exit.write(AppExit::Success);
    }
}

impl RenderBench {
    pub fn summary(&self) -> String {
        let mut sorted = self.times_ms.clone();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
        let p95 = sorted
            .get(((sorted.len() as f64 * 0.95) as usize).min(sorted.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0);
        format!(
            "bench-render{}: {} buildings{}, {} frames at {}x{}: mean {mean:.2} ms, p95 {p95:.2} ms, {:.2} FPS",
            if self.baseline { " (baseline: one entity + material per building)" } else { "" },
            self.buildings,
            self.detail,
            sorted.len(),
            self.size.0,
            self.size.1,
            1000.0 / mean.max(1e-9)
        )
    }
}
