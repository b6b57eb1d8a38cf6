//! The toolbar along the top: one button per pane (its title: a click opens or closes it) and
//! the first thing to try.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::{Panes, Room, UiSystems, screen_ui};

pub struct ToolbarPlugin;

impl Plugin for ToolbarPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, toolbar.in_set(UiSystems::Panels));
    }
}

fn toolbar(mut contexts: EguiContexts, mut panes: ResMut<Panes>, mut room: ResMut<Room>) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut now = panes.clone();
    let mut screen = screen_ui(ctx, "memcity_toolbar_ui");
    let panel = egui::Panel::top("memcity_toolbar").show(&mut screen, |ui| {
        pane_buttons(ui, &mut now);
    });
    if now != *panes {
        *panes = now;
    }
    let top = panel.response.rect.height();
    if room.top != top {
        room.top = top;
    }
    Ok(())
}

/// The pane titles as toggle buttons, and a hint for the first action; where each title is.
pub fn pane_buttons(ui: &mut egui::Ui, panes: &mut Panes) -> Vec<(&'static str, egui::Rect)> {
    let mut titles = Vec::new();
    ui.horizontal(|ui| {
        for (open, title) in [
            (&mut panes.open, "Open"),
            (&mut panes.search, "Search"),
            (&mut panes.settings, "Settings"),
            (&mut panes.tour, "Tour"),
            (&mut panes.controls, "Controls"),
        ] {
            titles.push((title, ui.toggle_value(open, title).rect));
        }
        ui.separator();
        ui.label("Space plays the history · click a tower to see what keeps it alive");
    });
    titles
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One egui pass of the toolbar with `events` as input.
    fn pass(
        ctx: &egui::Context,
        panes: &mut Panes,
        events: Vec<egui::Event>,
    ) -> Vec<(&'static str, egui::Rect)> {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0))),
            events,
            ..Default::default()
        };
        let mut titles = Vec::new();
        ctx.run_ui(input, |ui| {
            egui::Panel::top("toolbar").show(ui, |ui| titles = pane_buttons(ui, panes));
        })
        .drop_without_applying_deltas();
        titles
    }

    fn button(pos: egui::Pos2, pressed: bool) -> egui::Event {
        egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        }
    }

    #[test]
    fn a_click_on_a_pane_title_opens_and_closes_it() {
        let ctx = egui::Context::default();
        let mut panes = Panes::default();
        let titles = pass(&ctx, &mut panes, Vec::new());
        let names: Vec<&str> = titles.iter().map(|t| t.0).collect();
        assert_eq!(names, ["Open", "Search", "Settings", "Tour", "Controls"]);
        let search = titles[1].1.center();
        assert!(!panes.search);
        for round in [true, false] {
            pass(&ctx, &mut panes, vec![egui::Event::PointerMoved(search), button(search, true)]);
            pass(&ctx, &mut panes, vec![button(search, false)]);
            assert_eq!(panes.search, round, "clicking the title toggles the pane");
        }
        assert_eq!(Panes { search: false, ..Panes::default() }, panes, "no other pane changed");
    }
}
