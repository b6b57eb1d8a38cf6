//! What panes share in how they look and write: the highlight colour and byte counts in words.
//! Panes take these from here rather than from each other, so no pane depends on another.

use std::sync::Arc;

use bevy_egui::egui;
use egui::epaint::Galley;
use egui::text::{LayoutJob, TextFormat, TextWrapping};

/// What a tour step points at, and what a pane picked.
pub const HIGHLIGHT: egui::Color32 = egui::Color32::from_rgb(255, 225, 60);

/// Bytes in words ("12.6 MB"), as every output writes them.
pub use memcity_model::units::bytes;

/// `text` on one line in 11-point type cut to `width`, or nothing where not even a few letters
/// fit: a label inside a drawn block.
pub fn one_line(ui: &egui::Ui, text: String, width: f32, color: egui::Color32) -> Option<Arc<Galley>> {
    if width < 20.0 {
        return None;
    }
    let format = TextFormat::simple(egui::FontId::proportional(11.0), color);
    let mut job = LayoutJob::single_section(text, format);
    job.wrap = TextWrapping::truncate_at_width(width);
    Some(ui.painter().layout_job(job))
}
