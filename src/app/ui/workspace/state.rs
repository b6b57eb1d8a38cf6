//! Which layout the workspace starts with, switches to and keeps: `--layout`, the layout saved
//! on the last exit (in the user's config directory), the teaching layout while a tour runs.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use egui_dock::DockState;
use serde::{Deserialize, Serialize};

use super::layouts::{default_layout, sanitized, teaching_layout};
use super::{TabId, TabRegistry, Workspace};

/// The layout to start with.
#[derive(Clone, Debug, Default)]
pub enum LayoutChoice {
    /// The one saved on the last exit, else the default.
    #[default]
    Saved,
    Default,
    Teaching,
    /// A layout read from a file (`--layout FILE`).
    Given(Box<DockState<TabId>>),
}

/// What a layout file holds.
#[derive(Serialize, Deserialize)]
struct LayoutFile {
    memcity_layout: u32,
    dock: DockState<TabId>,
}

const VERSION: u32 = 1;
/// Layout files are a few kilobytes; anything far larger is not one.
const MAX_BYTES: u64 = 1 << 20;

/// Reads a layout file; the error is one line naming the file.
pub fn read_layout(path: &Path) -> Result<DockState<TabId>, String> {
    let shown = memcity_model::escape::terminal(&path.display().to_string()).into_owned();
    let size = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?.len();
    if size > MAX_BYTES {
        return Err(format!("{shown}: {size} bytes is too large for a layout file (at most {MAX_BYTES})"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let file: LayoutFile =
        serde_json::from_str(&text).map_err(|e| format!("{shown}: not a memcity layout file: {e}"))?;
    if file.memcity_layout != VERSION {
        return Err(format!("{shown}: layout version {} is not {VERSION}", file.memcity_layout));
    }
    Ok(file.dock)
}

/// Writes a layout file through a temporary file, so a crash never leaves half a layout.
pub fn write_layout(path: &Path, dock: &DockState<TabId>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(&LayoutFile { memcity_layout: VERSION, dock: finite(dock) })
        .map_err(std::io::Error::other)?;
    let partial = path.with_extension("json.partial");
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, path)
}

/// The dock without the rectangles of its last drawing: they are drawn anew, and a node never
/// drawn has an infinite one, which JSON cannot hold.
fn finite(dock: &DockState<TabId>) -> DockState<TabId> {
    let mut dock = dock.clone();
    for node in dock.main_surface_mut().iter_mut() {
        match node {
            egui_dock::Node::Leaf(leaf) => {
                leaf.rect = egui_dock::egui::Rect::ZERO;
                leaf.viewport = egui_dock::egui::Rect::ZERO;
            }
            egui_dock::Node::Vertical(split) | egui_dock::Node::Horizontal(split) => {
                split.rect = egui_dock::egui::Rect::ZERO;
            }
            egui_dock::Node::Empty => {}
        }
    }
    dock
}

/// Where the layout is kept between runs: `MEMCITY_CONFIG_DIR` if set (tests, portable
/// installs), else the platform's config directory for memcity.
pub fn saved_layout_path() -> Option<PathBuf> {
    let dir = match std::env::var_os("MEMCITY_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => directories::ProjectDirs::from("", "", "memcity")?.config_dir().to_path_buf(),
    };
    Some(dir.join("layout.json"))
}

/// Whether and where the workspace is saved on exit, and the layout to go back to when a
/// tour ends.
#[derive(Resource, Clone, Default)]
pub struct LayoutSaving {
    pub path: Option<PathBuf>,
    pub before_tour: Option<DockState<TabId>>,
}

pub struct Start {
    pub workspace: Workspace,
    pub saving: LayoutSaving,
}

/// The workspace to start with; a saved layout that cannot be read gives the default and one
/// warning line.
pub fn starting_workspace(choice: &LayoutChoice, save: bool) -> Start {
    let path = saved_layout_path();
    let dock = match choice {
        LayoutChoice::Default => default_layout(),
        LayoutChoice::Teaching => teaching_layout(),
        LayoutChoice::Given(dock) => (**dock).clone(),
        LayoutChoice::Saved => match path.as_deref().filter(|p| p.exists()).map(read_layout) {
            Some(Ok(dock)) => dock,
            Some(Err(e)) => {
                shout!("memcity: the saved layout is not used: {e}; starting with the default layout");
                default_layout()
            }
            None => default_layout(),
        },
    };
    Start {
        workspace: Workspace { dock },
        saving: LayoutSaving { path: path.filter(|_| save), before_tour: None },
    }
}

/// Layout changes asked for by the menus and by tours.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub enum LayoutCommand {
    Default,
    /// The teaching layout; the layout before it is kept for [`LayoutCommand::Restore`].
    Teaching,
    /// Back to the layout before [`LayoutCommand::Teaching`].
    Restore,
}

pub fn apply_layout_commands(
    mut commands: MessageReader<LayoutCommand>,
    mut workspace: ResMut<Workspace>,
    mut saving: ResMut<LayoutSaving>,
    registry: Res<TabRegistry>,
) {
    for command in commands.read() {
        let dock = match command {
            LayoutCommand::Default => default_layout(),
            LayoutCommand::Teaching => {
                let before = std::mem::replace(&mut workspace.dock, teaching_layout());
                saving.before_tour.get_or_insert(before);
                continue;
            }
            LayoutCommand::Restore => match saving.before_tour.take() {
                Some(before) => before,
                None => continue,
            },
        };
        workspace.dock = dock;
    }
    if registry.is_changed() || workspace.is_changed() {
        let known = |t: &TabId| registry.get(t).is_some();
        let dock = std::mem::replace(&mut workspace.bypass_change_detection().dock, DockState::new(vec![]));
        workspace.bypass_change_detection().dock = sanitized(dock, &known);
    }
}

/// On exit, the workspace as the user left it (the one before a running tour) is saved.
pub fn save_on_exit(exits: MessageReader<AppExit>, workspace: Res<Workspace>, saving: Res<LayoutSaving>) {
    if exits.is_empty() {
        return;
    }
    let Some(path) = &saving.path else { return };
    let dock = saving.before_tour.as_ref().unwrap_or(&workspace.dock);
    if let Err(e) = write_layout(path, dock) {
        let shown = memcity_model::escape::terminal(&path.display().to_string()).into_owned();
        shout!("memcity: the layout was not saved to {shown}: {e}");
    }
}
