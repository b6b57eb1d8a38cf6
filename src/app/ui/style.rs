//! What panes share in how they look and write: the highlight colour and byte counts in words.
//! Panes take these from here rather than from each other, so no pane depends on another.

use bevy_egui::egui;

/// What a tour step points at, and what a pane picked.
pub const HIGHLIGHT: egui::Color32 = egui::Color32::from_rgb(255, 225, 60);

/// Bytes in words ("12.6 MB"), as every output writes them.
pub use memcity_model::units::bytes;
