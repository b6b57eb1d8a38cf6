//! Where the city is seen, shared by the camera, picking, rendering and the UI: the city's
//! camera, whether the UI has the pointer or the keyboard, and the rectangle of the workspace's
//! city tab.

use bevy::prelude::*;

/// The main 3D camera (extracted, so the city's pipeline draws with this view's matrices and
/// not, say, the UI's).
#[derive(Component, Clone, Copy, bevy::render::extract_component::ExtractComponent)]
pub struct CityCamera;

/// Set while the UI uses the pointer or the keyboard, so the city ignores them.
#[derive(Resource, Default, Clone, Copy, PartialEq, Eq)]
pub struct UiFocus {
    pub pointer: bool,
    pub keyboard: bool,
}

/// Where the city is drawn: the city tab's rectangle in logical window pixels (`None`: the
/// whole window, as in headless renders), and whether the tab is shown this frame (a tab in
/// front of it in its group hides it).
#[derive(Resource, Default, Clone, Copy, PartialEq)]
pub struct CityViewport {
    pub rect: Option<Rect>,
    pub shown: bool,
}

impl CityViewport {
    /// The city's rectangle as egui sees it, or `screen` where the city fills the window.
    pub fn egui_rect(&self, screen: bevy_egui::egui::Rect) -> bevy_egui::egui::Rect {
        self.rect.map_or(screen, |r| {
            bevy_egui::egui::Rect::from_min_max(
                bevy_egui::egui::pos2(r.min.x, r.min.y),
                bevy_egui::egui::pos2(r.max.x, r.max.y),
            )
        })
    }
}
