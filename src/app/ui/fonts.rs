//! DejaVu Sans as a fallback font: egui's default fonts have no arrow glyphs (← → ‹), which
//! the hints and group names use. The font and its license are in assets/fonts/.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

const DEJAVU: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

pub struct FontsPlugin;

impl Plugin for FontsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, install.before(super::UiSystems::Panels));
    }
}

fn install(mut contexts: EguiContexts, mut done: Local<bool>) -> Result {
    if *done {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    ctx.set_fonts(fonts());
    *done = true;
    Ok(())
}

/// egui's default fonts with DejaVu Sans after them in every family.
pub fn fonts() -> egui::FontDefinitions {
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert("dejavu".into(), std::sync::Arc::new(egui::FontData::from_static(DEJAVU)));
    for family in fonts.families.values_mut() {
        family.push("dejavu".into());
    }
    fonts
}

#[cfg(test)]
mod tests {
    use bevy_egui::egui;

    /// Whether every character of `text` has a glyph in `fonts`.
    fn has_glyphs(fonts: egui::FontDefinitions, text: &str) -> bool {
        let ctx = egui::Context::default();
        ctx.set_fonts(fonts);
        let mut all = false;
        // New fonts take effect from the next pass.
        ctx.run_ui(egui::RawInput::default(), |_| {}).drop_without_applying_deltas();
        ctx.run_ui(egui::RawInput::default(), |ui| {
            ui.ctx().fonts_mut(|f| {
                let font = egui::FontId::proportional(14.0);
                all = text.chars().all(|c| f.has_glyph(&font, c));
            });
        })
        .drop_without_applying_deltas();
        all
    }

    #[test]
    fn arrows_have_glyphs_with_the_bundled_font() {
        assert!(!has_glyphs(egui::FontDefinitions::default(), "←→‹"), "egui's defaults lack arrows");
        assert!(has_glyphs(super::fonts(), "←→‹"), "the bundled font has them");
    }
}
