//! The hover card: what the pointer is over in the city. Kept inside the city's tab, so it never
//! covers another pane.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::UiSystems;
use super::describe::describe;
use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::names::GroupNames;
use crate::app::time::TimeCursor;
use crate::app::viewport::CityViewport;

pub struct TooltipPlugin;

impl Plugin for TooltipPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, hover_tooltip.in_set(UiSystems::Panes));
    }
}

fn hover_tooltip(
    mut contexts: EguiContexts,
    selection: Res<Selection>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    cursor: Res<TimeCursor>,
    city: Res<CityViewport>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let (Some(target), Some(pos)) = (selection.hovered, ctx.pointer_hover_pos()) else { return Ok(()) };
    let room = city.egui_rect(ctx.content_rect());
    egui::Area::new(egui::Id::new("memcity_hover"))
        .fixed_pos(pos + egui::vec2(16.0, 16.0))
        .constrain_to(room)
        // Above the city tab, below menus.
        .order(egui::Order::Middle)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(420.0);
                for (i, line) in
                    describe(&model, &names, cursor.current, target.group()).into_iter().enumerate()
                {
                    if i == 0 {
                        ui.strong(line);
                    } else {
                        ui.label(line);
                    }
                }
            });
        });
    Ok(())
}
