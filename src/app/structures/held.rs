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
    /// Empty where no structure holds the group's type.
    Held(Vec<HeldLine>),
}

/// One structure holding the selected group's objects.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldLine {
    /// Its row in the measurement.
    pub row: usize,
    pub text: String,
    /// Why it grows ("cause duplicate-keys: …"), where memcity can tell.
    pub causes: Vec<String>,
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
            HeldIn::Held(held_lines(&model, measured, g))
        }
        (Some(_), Analysis::Failed(..)) => HeldIn::Nothing,
        (Some(_), _) => HeldIn::Measuring,
    };
    set(&mut held, now);
}

/// The structures holding the group's type; where none holds it (a string inside the objects
/// a list holds), those holding the nearest group up its retainer path, "through" that group.
fn held_lines(model: &CityModel, measured: &super::measured::Measured, group: u32) -> Vec<HeldLine> {
    let timeline = &model.timeline;
    let Some(own) = type_of_group(timeline, group) else { return Vec::new() };
    // Structures are known by the types they hold, groups by their objects: a holder must hold
    // at least half as many objects of the type as the group has (a map of a few strings
    // holds none of a site's thousand).
    let objects =
        |g: u32| timeline.values.last().map_or(0, |v| v.objects.get(g as usize).copied().unwrap_or(0));
    let holding = |type_name: &str, g: u32| -> Vec<(usize, u64)> {
        let mut holders = holders_of(measured, type_name);
        holders.retain(|&(_, held)| held.saturating_mul(2) >= objects(g));
        holders
    };
    let direct = holding(own, group);
    let lines = |holders: Vec<(usize, u64)>, through: Option<&str>| -> Vec<HeldLine> {
        let shown = holders.into_iter().take(SHOWN);
        shown
            .map(|(row, objects)| {
                let r = &measured.rows[row];
                let causes = r.causes.iter().map(|c| format!("cause {}: {}", c.kind, c.message)).collect();
                HeldLine { row, text: line(r, own, objects, through), causes }
            })
            .collect()
    };
    if !direct.is_empty() {
        return lines(direct, None);
    }
    let key = &timeline.groups[group as usize].key;
    let path = model.history.snapshots.last().and_then(|s| s.retainers.get(key));
    let holders = path.into_iter().flat_map(|p| p.steps.iter().skip(1)).find_map(|step| {
        let g = timeline.group(&step.key)?;
        let up = type_of_group(timeline, g)?;
        let holders = holding(up, g);
        (!holders.is_empty()).then_some((up, holders))
    });
    match holders {
        Some((up, holders)) => lines(holders, Some(up)),
        None => Vec::new(),
    }
}

fn set(held: &mut HeldIn, now: HeldIn) {
    if *held != now {
        *held = now;
    }
}

/// "held in static App.cache (HashMap, +35.4 MB) · 80000 Location objects", or for a group
/// held through another "… · through Person".
fn line(row: &super::measured::Row, type_name: &str, objects: u64, through: Option<&str>) -> String {
    let growth = row.growth[0];
    let sign = if growth >= 0 { "+" } else { "−" };
    let what = match through {
        Some(up) => format!("through {}", short(up)),
        None => format!("{objects} {} objects", short(type_name)),
    };
    format!(
        "held in {} ({}, {sign}{}) · {what}",
        row.path,
        short(&row.type_name),
        bytes(growth.unsigned_abs())
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
            for HeldLine { row, text, causes } in shown {
                let link = line(ui, text, true)
                    .on_hover_text(format!("{text}\nclick: pick it in the Data structures tab"));
                if link.clicked() {
                    pick.write(PickStructure(*row));
                    ui.ctx().request_repaint();
                }
                // The cause is what a leak hunter looks for next; the Why pane spells it out.
                for cause in causes.iter().filter(|_| !one_line) {
                    ui.add(egui::Label::new(egui::RichText::new(cause).color(super::pane::CAUSE)).wrap());
                }
            }
        }
    }
}
