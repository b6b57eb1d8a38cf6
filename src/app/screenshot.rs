//! F12: a screenshot of the window, saved under the user's pictures folder (or the temporary
//! folder where there is none) with a notice in the window saying where. `--ui-state FILE`:
//! with `--screenshot`, the workspace as drawn in the captured frame, as JSON.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use serde::Serialize;

use crate::app::headless::{Offscreen, ScreenshotJob};
use crate::app::ui::tour_target::TourTarget;
use crate::app::ui::workspace::{CITY, DrawnTabs};
use crate::app::viewport::UiFocus;

pub struct ScreenshotKeyPlugin;

impl Plugin for ScreenshotKeyPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Notice>()
            .add_systems(Update, save_on_f12)
            .add_systems(EguiPrimaryContextPass, show_notice);
    }
}

/// A line shown for a few seconds at the top of the window.
#[derive(Resource, Default)]
pub struct Notice(Option<(String, Instant)>);

/// Where screenshots go: `$XDG_PICTURES_DIR`, else `~/Pictures`, else the temporary folder,
/// in a `memcity` folder.
pub fn screenshot_folder(env: impl Fn(&str) -> Option<String>) -> PathBuf {
    let existing = |p: PathBuf| p.is_dir().then_some(p);
    let pictures = env("XDG_PICTURES_DIR")
        .map(PathBuf::from)
        .and_then(existing)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join("Pictures")).and_then(existing))
        .unwrap_or_else(std::env::temp_dir);
    pictures.join("memcity")
}

fn save_on_f12(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiFocus>,
    mut notice: ResMut<Notice>,
    mut commands: Commands,
) {
    if ui.keyboard || !keys.just_pressed(KeyCode::F12) {
        return;
    }
    let folder = screenshot_folder(|k| std::env::var(k).ok());
    let stamp =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    let path = folder.join(format!("memcity-{stamp}.png"));
    let text = match std::fs::create_dir_all(&folder) {
        Ok(()) => {
            commands.spawn(Screenshot::primary_window()).observe(save_to_disk(path.clone()));
            format!("screenshot saved to {}", path.display())
        }
        Err(e) => format!("no screenshot: cannot create {}: {e}", folder.display()),
    };
    info!("{text}");
    notice.0 = Some((text, Instant::now()));
}

fn show_notice(mut contexts: EguiContexts, mut notice: ResMut<Notice>) -> Result {
    let Some((text, since)) = &notice.0 else { return Ok(()) };
    if since.elapsed() > Duration::from_secs(6) {
        notice.0 = None;
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Area::new(egui::Id::new("memcity_notice"))
        .anchor(egui::Align2::CENTER_TOP, [0.0, 40.0])
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| ui.label(text.as_str()));
        });
    // Come back to take the notice down.
    ctx.request_repaint_after(Duration::from_secs(1));
    Ok(())
}

/// The workspace as drawn: the window's size, every shown tab with the rectangle of its body
/// that shows, and what the tour step asks the user to act on (`null` when nothing is), all in
/// logical pixels from the window's top left, rectangles as `[x0, y0, x1, y1]`.
#[derive(Serialize, Debug, PartialEq)]
pub struct UiState {
    pub window: [f32; 2],
    pub panes: Vec<Pane>,
    pub target: Option<Target>,
}

#[derive(Serialize, Debug, PartialEq)]
pub struct Pane {
    pub name: String,
    pub rect: [f32; 4],
}

#[derive(Serialize, Debug, PartialEq)]
pub struct Target {
    pub pane: String,
    pub rect: [f32; 4],
}

fn corners(r: egui::Rect) -> [f32; 4] {
    [r.min.x, r.min.y, r.max.x, r.max.y]
}

impl UiState {
    /// A window's workspace, or (without one) a headless render where the city fills the
    /// image.
    pub fn new(window: [f32; 2], drawn: Option<&DrawnTabs>, target: Option<&TourTarget>) -> UiState {
        let panes = match drawn {
            Some(drawn) => {
                drawn.tabs.iter().map(|(tab, r)| Pane { name: tab.0.clone(), rect: corners(*r) }).collect()
            }
            None => vec![Pane { name: CITY.into(), rect: [0.0, 0.0, window[0], window[1]] }],
        };
        let target = target
            .and_then(|t| t.drawn.as_ref())
            .map(|(tab, r)| Target { pane: tab.0.clone(), rect: corners(*r) });
        UiState { window, panes, target }
    }
}

/// Writes the UI state of the screenshot being taken, in the frame it is taken of (the panes
/// drew this frame's rectangles before `Last`); a failure ends the app with an error.
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
pub fn write_ui_state(
    job: Res<ScreenshotJob>,
    mut written: Local<Option<PathBuf>>,
    drawn: Option<Res<DrawnTabs>>,
    target: Option<Res<TourTarget>>,
    windows: Query<&Window, With<PrimaryWindow>>,
    offscreen: Option<Res<Offscreen>>,
    images: Res<Assets<Image>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = job.ui_state.as_ref().filter(|p| job.requested && written.as_ref() != Some(*p)) else {
        return;
    };
    *written = Some(path.clone());
    let window = match (windows.single(), offscreen.and_then(|o| images.get(&o.0))) {
        (Ok(w), _) => [w.width(), w.height()],
        (Err(_), Some(image)) => image.size_f32().to_array(),
        (Err(_), None) => [0.0, 0.0],
    };
    let state = UiState::new(window, drawn.as_deref(), target.as_deref());
    let text = serde_json::to_string_pretty(&state).expect("plain data serializes");
    if let Err(e) = std::fs::write(path, text + "\n") {
        let shown = memcity_model::escape::terminal(&path.display().to_string()).into_owned();
        error!("--ui-state {shown}: {e}");
        exit.write(AppExit::error());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screenshots_go_to_the_pictures_folder_not_the_working_directory() {
        let home = std::env::temp_dir().join(format!("memcity-home-{}", std::process::id()));
        std::fs::create_dir_all(home.join("Pictures")).unwrap();
        let home_str = home.to_str().unwrap().to_string();
        let folder = screenshot_folder(|k| (k == "HOME").then(|| home_str.clone()));
        assert_eq!(folder, home.join("Pictures").join("memcity"));
        let nowhere = screenshot_folder(|_| None);
        assert_eq!(nowhere, std::env::temp_dir().join("memcity"));
        assert!(folder.is_absolute() && nowhere.is_absolute());
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn the_ui_state_names_every_drawn_tab_and_the_target() {
        use crate::app::ui::workspace::TabId;
        let rect = |x0, y0, x1, y1| egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1));
        let drawn = DrawnTabs {
            tabs: vec![
                (TabId::new(CITY), rect(6.0, 50.0, 800.0, 560.0)),
                (TabId::new("a \"quoted\" tab"), rect(810.0, 50.0, 1280.0, 700.0)),
            ],
            area: Some(rect(0.0, 24.0, 1280.0, 720.0)),
        };
        let mut target = TourTarget::default();
        target.drawn = Some((TabId::new(CITY), rect(300.0, 200.0, 340.0, 320.0)));
        let state = UiState::new([1280.0, 720.0], Some(&drawn), Some(&target));
        let json: serde_json::Value = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
        assert_eq!(json["window"], serde_json::json!([1280.0, 720.0]));
        assert_eq!(json["panes"][0]["name"], "city");
        assert_eq!(json["panes"][0]["rect"], serde_json::json!([6.0, 50.0, 800.0, 560.0]));
        assert_eq!(json["panes"][1]["name"], "a \"quoted\" tab", "names are JSON strings, escaped");
        assert_eq!(json["target"], serde_json::json!({"pane": "city", "rect": [300.0, 200.0, 340.0, 320.0]}));
        // Without a tour target: null. Without a workspace (headless): the city is the image.
        let headless = UiState::new([640.0, 400.0], None, Some(&TourTarget::default()));
        let json = serde_json::to_value(&headless).unwrap();
        assert_eq!(json["target"], serde_json::Value::Null);
        assert_eq!(json["panes"], serde_json::json!([{"name": "city", "rect": [0.0, 0.0, 640.0, 400.0]}]));
    }
}
