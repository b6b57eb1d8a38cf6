//! Where the city is seen, shared by the camera, picking, rendering and the UI: the city's
//! camera, whether the UI has the pointer or the keyboard, and how much of the screen the UI
//! covers at the bottom (framing keeps targets above it).

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

/// The fraction of the screen's height the UI covers at the bottom (the timeline).
#[derive(Resource, Default, Clone, Copy, PartialEq)]
pub struct UiInsets {
    pub bottom: f32,
}
