//! The built-in layouts: the default one (the city large with the Tree tab behind it, a right column with the Selection
//! and the Data structures above "Why is it alive?", the timeline along the bottom) and the teaching one tours switch
//! to (the Tour on top of the right column).

use egui_dock::{DockState, NodeIndex, SurfaceIndex};

use super::{CITY, TabId};

/// Tab names of the panes that come with the app. A view of its own plugin needs none of
/// these: a tab missing from a layout opens beside the panes when shown.
pub mod tabs {
    pub const SELECTION: &str = "selection";
    pub const WHY: &str = "why";
    pub const SUSPECTS: &str = "suspects";
    pub const SEARCH: &str = "search";
    pub const OPEN: &str = "open";
    pub const SETTINGS: &str = "settings";
    pub const CONTROLS: &str = "controls";
    pub const TOUR: &str = "tour";
    pub const TIMELINE: &str = "timeline";
    pub const STRUCTURES: &str = "structures";
    pub const TREE: &str = "tree";
    pub const OWNERSHIP: &str = "ownership";
    pub const OBJECTS: &str = "objects";
}

use tabs::*;

fn ids(names: &[&str]) -> Vec<TabId> {
    names.iter().map(|n| TabId::new(n)).collect()
}

/// The share of the height the timeline takes.
const TIMELINE_SHARE: f32 = 0.25;

/// City large, panes in a column on the right, the timeline along the bottom.
pub fn default_layout() -> DockState<TabId> {
    let mut dock = DockState::new(ids(&[CITY, TREE, OWNERSHIP]));
    let tree = dock.main_surface_mut();
    let [city, _timeline] = tree.split_below(NodeIndex::root(), 1.0 - TIMELINE_SHARE, ids(&[TIMELINE]));
    let [_city, right] = tree.split_right(city, 0.68, ids(&[SELECTION, STRUCTURES, SEARCH, OPEN, SETTINGS]));
    tree.split_below(right, 0.5, ids(&[WHY, SUSPECTS, CONTROLS]));
    dock
}

/// For teaching: the default layout with the Tour on top of the right column, above the
/// Selection and "Why is it alive?": the city keeps its size (over a third of the window at
/// 1024×600) and the tour's few lines sit beside the panes its steps point at.
pub fn teaching_layout() -> DockState<TabId> {
    let mut dock = DockState::new(ids(&[CITY, TREE, OWNERSHIP]));
    let tree = dock.main_surface_mut();
    let [city, _timeline] = tree.split_below(NodeIndex::root(), 1.0 - TIMELINE_SHARE, ids(&[TIMELINE]));
    let [_city, right] = tree.split_right(city, 0.68, ids(&[TOUR]));
    let [_tour, panes] =
        tree.split_below(right, TOUR_SHARE, ids(&[SELECTION, STRUCTURES, SEARCH, OPEN, SETTINGS]));
    tree.split_below(panes, 0.55, ids(&[WHY, SUSPECTS, CONTROLS]));
    dock
}

/// The share of the right column the tour takes.
const TOUR_SHARE: f32 = 0.3;

/// Opens `tab` in the group of the first pane found open (the Selection's column in the
/// built-in layouts), or split off the right of the city where only the city is open.
pub fn open_beside_panes(dock: &mut DockState<TabId>, tab: TabId) {
    // Not in the city's own group (the Tree tab sits behind the city).
    let city = dock.find_tab(&TabId::new(CITY)).map(|p| p.node_path());
    let beside = dock
        .iter_all_tabs()
        .find(|(at, t)| at.surface == SurfaceIndex::main() && Some(at.node_path()) != city && t.0 != TIMELINE)
        .map(|(at, _)| at.node_path());
    match beside {
        Some(path) => {
            dock.set_focused_node_and_surface(path);
            dock.push_to_focused_leaf(tab);
        }
        None => {
            let tree = dock.main_surface_mut();
            match city {
                Some(path) if path.surface == SurfaceIndex::main() => {
                    tree.split_right(path.node, 0.68, vec![tab]);
                }
                _ => tree.push_to_first_leaf(tab),
            }
        }
    }
}

/// Keeps the layout's tabs that exist (a file may name tabs of another version) and makes
/// sure the city is in it.
pub fn sanitized(mut dock: DockState<TabId>, known: &dyn Fn(&TabId) -> bool) -> DockState<TabId> {
    dock.retain_tabs(|t| known(t));
    if dock.find_tab(&TabId::new(CITY)).is_none() {
        dock.main_surface_mut().push_to_first_leaf(TabId::new(CITY));
    }
    dock
}

#[cfg(test)]
mod tests;
