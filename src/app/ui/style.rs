//! What panes share in how they look and write: the highlight colour and byte counts in words.
//! Panes take these from here rather than from each other, so no pane depends on another.

use bevy_egui::egui;

/// What a tour step points at, and what a pane picked.
pub const HIGHLIGHT: egui::Color32 = egui::Color32::from_rgb(255, 225, 60);

/// Bytes in the largest unit that keeps them ≥ 1 ("12.6 MB").
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}
