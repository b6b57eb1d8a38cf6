//! Where a selected group's objects are kept: the data structures that hold most of them, by
//! field path, type and growth ("held in static TravelApp.SERVICE .locationCache
//! (ConcurrentHashMap, +35.4 MB)"). The first click on a red tower names the leaking field;
//! a click on the line picks that structure in the Data structures tab. Measured once per
//! city in the background, by the same detection the tab shows.

use bevy::prelude::*;
use bevy_egui::egui;

use super::measured::{holders_of, type_of_group};
use super::{Analysis, StructureAnalysis};
use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::names::short;
use crate::app::ui::style::bytes;
use crate::app::why::CitySource;

/// Lines shown at most.
const SHOWN: usize = 3;

/// What the Selection and Why panes say of where the selected group's objects are kept.
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub enum HeldIn {
    /// Nothing selected, or an input without a heap to read again.
    #[default]
    Nothing,
    Measuring,
    /// (row of the measurement, line); empty where no structure holds the group's type.
    Held(Vec<(usize, String)>),
}

/// Pick the instance of this row of the measurement shown, as a click on its bar does.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct PickStructure(pub usize);

/// The lines for the selected group, from the measurement of this city.
pub fn update_held_in(
    model: Res<CityModel>,
    selection: Res<Selection>,
    source: Res<CitySource>,
    analysis: Res<StructureAnalysis>,
    mut held: ResMut<HeldIn>,
) {
    if !(model.is_changed() || selection.is_changed() || analysis.is_changed()) {
        return;
    }
    let group = selection.selected.as_deref().and_then(|k| model.timeline.group(k));
    let now = match (group, &analysis.state) {
        (None, _) => HeldIn::Nothing,
        (Some(_), _) if source.0.is_empty() => HeldIn::Nothing,
        (Some(g), Analysis::Done((_, city), measured)) if *city == model.city => {
            let Some(type_name) = type_of_group(&model.timeline, g) else {
                return set(&mut held, HeldIn::Held(Vec::new()));
            };
            let lines = holders_of(measured, type_name)
                .into_iter()
                .take(SHOWN)
                .map(|(row, objects)| (row, line(&measured.rows[row], type_name, objects)))
                .collect();
            HeldIn::Held(lines)
        }
        (Some(_), Analysis::Failed(..)) => HeldIn::Nothing,
        (Some(_), _) => HeldIn::Measuring,
    };
    set(&mut held, now);
}

fn set(held: &mut HeldIn, now: HeldIn) {
    if *held != now {
        *held = now;
    }
}

/// "held in static App.cache (HashMap, +35.4 MB) · 80,000 Location objects".
fn line(row: &super::measured::Row, type_name: &str, objects: u64) -> String {
    let growth = row.growth[0];
    let sign = if growth >= 0 { "+" } else { "−" };
    format!(
        "held in {} ({}, {sign}{}) · {objects} {} objects",
        row.path,
        short(&row.type_name),
        bytes(growth.unsigned_abs()),
        short(type_name)
    )
}

/// The lines as links; a click picks that structure. `one_line`: the strongest holder alone,
/// cut to one line (its whole text on hover), so the pane's layout stays put while the
/// measurement arrives (the Selection pane, whose entries a tour scrolls to).
pub fn held_in_ui(ui: &mut egui::Ui, held: &HeldIn, pick: &mut MessageWriter<PickStructure>, one_line: bool) {
    let line = |ui: &mut egui::Ui, text: &str, link: bool| {
        let rich = egui::RichText::new(text);
        let label = if link {
            egui::Label::new(rich.strong()).sense(egui::Sense::click())
        } else {
            egui::Label::new(rich)
        };
        let label = if one_line { label.truncate() } else { label.wrap() };
        ui.add(label)
    };
    match held {
        HeldIn::Nothing => {}
        HeldIn::Measuring => {
            line(ui, "data structures holding it: measuring…", false);
        }
        HeldIn::Held(lines) if lines.is_empty() => {
            line(ui, "held in no data structure that lives through the history", false);
        }
        HeldIn::Held(lines) => {
            let shown = if one_line { &lines[..1] } else { &lines[..] };
            for (row, text) in shown {
                let link = line(ui, text, true)
                    .on_hover_text(format!("{text}\nclick: pick it in the Data structures tab"));
                if link.clicked() {
                    pick.write(PickStructure(*row));
                }
            }
        }
    }
}
