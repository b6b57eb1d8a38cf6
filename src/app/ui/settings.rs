//! The Settings pane: layout settings (a change relayouts the city) and view options.

use bevy::prelude::*;
use bevy_egui::egui;
use memcity_layout::{AreaMode, CompareView, GrowthScale};
use memcity_model::Metric;

use super::workspace::AddTab;
use super::workspace::layouts::tabs::SETTINGS;
use crate::app::model::{CityModel, LayoutSettings, ViewOptions};
use crate::app::time::TimeCursor;

pub struct SettingsPlugin;

impl Plugin for SettingsPlugin {
    fn build(&self, app: &mut App) {
        app.add_tab(SETTINGS, "Settings", settings_pane);
    }
}

fn settings_pane(
    InMut(ui): InMut<egui::Ui>,
    mut settings: ResMut<LayoutSettings>,
    mut options: ResMut<ViewOptions>,
    mut cursor: ResMut<TimeCursor>,
    model: Res<CityModel>,
) {
    let (mut s, mut o, mut period) = (settings.0.clone(), options.clone(), cursor.period);
    egui::ComboBox::from_label("metric").selected_text(format!("{:?}", s.metric).to_lowercase()).show_ui(
        ui,
        |ui| {
            ui.selectable_value(&mut s.metric, Metric::Objects, "objects");
            ui.selectable_value(&mut s.metric, Metric::Bytes, "bytes");
        },
    );
    egui::ComboBox::from_label("area mode").selected_text(format!("{:?}", s.area).to_lowercase()).show_ui(
        ui,
        |ui| {
            ui.selectable_value(&mut s.area, AreaMode::Sqrt, "sqrt");
            ui.selectable_value(&mut s.area, AreaMode::Linear, "linear");
        },
    );
    egui::ComboBox::from_label("growth color")
        .selected_text(match s.growth {
            GrowthScale::Heap => "against the heap",
            GrowthScale::Relative => "against the top grower",
        })
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut s.growth, GrowthScale::Heap, "against the heap")
                .on_hover_text("red: growth of 10% of the peak heap or more; a flat program stays gray");
            ui.selectable_value(&mut s.growth, GrowthScale::Relative, "against the top grower")
                .on_hover_text("the paper's: the strongest grower is always red");
        });
    if memcity_model::compare::is_pair(&model.history) {
        egui::ComboBox::from_label("compared runs")
            .selected_text(match s.compare {
                CompareView::Sides => "side by side",
                CompareView::Difference => "difference",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut s.compare, CompareView::Sides, "side by side")
                    .on_hover_text("two cities on one ground, every group at the same place in both");
                ui.selectable_value(&mut s.compare, CompareView::Difference, "difference").on_hover_text(
                    "the after run, red where a group has more than in the before run at the same time",
                );
            });
    }
    ui.add(egui::Slider::new(&mut s.children, 1..=200).logarithmic(true).text("child count"));
    ui.add(egui::Slider::new(&mut s.solid, 0..=100).text("solid buildings"));
    ui.add(egui::Slider::new(&mut s.opacity, 0.05..=1.0).text("non-solid opacity"));
    ui.separator();
    ui.checkbox(&mut o.show_pointers, "show references of the selection");
    ui.checkbox(&mut o.routed, "route references over the city");
    ui.checkbox(&mut o.growth_color, "growth color");
    ui.checkbox(&mut o.labels, "labels on top growers");
    ui.add(egui::Slider::new(&mut period, 0.05..=3.0).text("seconds per snapshot"));
    if s != settings.0 {
        settings.0 = s;
    }
    if o != *options {
        *options = o;
    }
    if period != cursor.period {
        cursor.period = period;
    }
}
