//! F12: a screenshot of the window, saved under the user's pictures folder (or the temporary
//! folder where there is none) with a notice in the window saying where.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

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
}
