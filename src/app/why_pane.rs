//! The panes of "why is it alive?": the selected building's retainer path (each entry flies to
//! its building) with its retained sizes and exact GC closure, and the leak suspects.

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy_egui::egui;

use crate::app::camera::FlyTo;
use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::names::GroupNames;
use crate::app::names::short;
use crate::app::render::retainer_arcs::RETAINER;
use crate::app::structures::held::{HeldIn, PickStructure, held_in_ui};
use crate::app::structures::pane::CAUSE;
use crate::app::structures::{Analysis, PickedStructure, StructureAnalysis};
use crate::app::time::TimeCursor;
use crate::app::ui::style::bytes;
use crate::app::ui::workspace::layouts::tabs::{SUSPECTS, WHY};
use crate::app::ui::workspace::{AddTab, ShowTab};
use crate::app::why::{
    Closure, Closures, LeakSuspects, PathLines, RetainerView, Suspect, SuspectFolds, SuspectLine, step_lines,
    target_of,
};

pub struct WhyPanePlugin;

impl Plugin for WhyPanePlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<PickStructure>()
            .init_resource::<SuspectFolds>()
            .add_tab(WHY, "Why is it alive?", retainer_pane)
            .add_tab(SUSPECTS, "Leak suspects", suspects_pane)
            .add_systems(Update, show_on_path)
            .add_systems(Last, redraw_while_computing);
    }
}

fn gold() -> egui::Color32 {
    let [r, g, b] = RETAINER.map(|c| (c * 255.0) as u8);
    egui::Color32::from_rgb(r, g, b)
}

/// The window rests when idle: a closure computed in the background must still show up.
fn redraw_while_computing(closures: Res<Closures>, mut redraw: MessageWriter<RequestRedraw>) {
    if closures.is_computing() {
        redraw.write(RequestRedraw);
    }
}

/// The path of a newly selected group brings the pane to the front of its group.
fn show_on_path(view: Res<RetainerView>, mut last: Local<Option<String>>, mut show: MessageWriter<ShowTab>) {
    if view.is_changed() && view.key != *last {
        last.clone_from(&view.key);
        if view.key.is_some() {
            show.write(ShowTab::named(WHY));
        }
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn retainer_pane(
    InMut(ui): InMut<egui::Ui>,
    names: Res<GroupNames>,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    (view, closures): (Res<RetainerView>, Res<Closures>),
    picked: Option<Res<PickedStructure>>,
    mut fly: MessageWriter<FlyTo>,
    (held, mut pick): (Option<Res<HeldIn>>, MessageWriter<PickStructure>),
) {
    let Some(key) = &view.key else {
        ui.label("Select a building to see the chain of groups that keeps its objects alive.");
        return;
    };
    if let Some(held) = &held {
        held_in_ui(ui, held, &mut pick, false);
    }
    // A data structure picked in its tab is named by the references that lead to it.
    if let Some(p) =
        picked.as_ref().and_then(|p| p.picked.as_ref()).filter(|p| p.selected.as_ref() == Some(key))
    {
        ui.colored_label(gold(), "the data structure picked is held by:");
        ui.add(
            egui::Label::new(egui::RichText::new(format!("{}  ({})", p.path, p.type_name)).monospace())
                .wrap(),
        );
        ui.separator();
    }
    let Some(PathLines { lines, roots, references }) = step_lines(&model, &view, cursor.current) else {
        ui.label(
            "This input has no retainer paths (heap dumps, V8 heap snapshots, heap files, traces and scenarios have them).",
        );
        return;
    };
    ui.colored_label(gold(), "kept alive by (gold arcs), up to the GC roots:");
    for (i, line) in lines.iter().enumerate() {
        let text = format!(
            "{}{}  {} obj, retains {} ({:.1}% of heap)",
            if i == 0 { "" } else { "← " },
            line.group.map_or(line.name.as_str(), |g| names.get(g)),
            line.objects,
            bytes(line.retained_bytes),
            100.0 * line.share
        );
        let clicked = ui.add(egui::Button::new(text).frame(false)).on_hover_text("fly there").clicked();
        if clicked && let Some(target) = line.group.and_then(|g| target_of(&model, g)) {
            fly.write(FlyTo::Target { target, with_references: false });
        }
    }
    if !roots.is_empty() {
        ui.label(format!("← GC roots: {}", roots.join("; ")));
    }
    if let Some(references) = references {
        ui.label("through the references:").on_hover_text(
            "from the GC root down to one object of the selected group, as the heap names them",
        );
        ui.add(egui::Label::new(egui::RichText::new(references).monospace()).wrap());
    }
    ui.separator();
    ui.label("retained = what these objects dominate (one dominator tree per snapshot)");
    match closures.get(cursor.current, key) {
        Some(Closure::Done(objects, b)) => {
            ui.label(format!(
                "exact GC closure: {objects} objects, {} (shared ownership counted)",
                bytes(*b)
            ));
        }
        Some(Closure::Computing) => {
            ui.label("exact GC closure: computing…");
        }
        Some(Closure::Failed(e)) => {
            ui.label(format!("exact GC closure: {e}"));
        }
        None => {}
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn suspects_pane(
    InMut(ui): InMut<egui::Ui>,
    names: Res<GroupNames>,
    model: Res<CityModel>,
    (suspects, folds): (Res<LeakSuspects>, Res<SuspectFolds>),
    analysis: Option<Res<StructureAnalysis>>,
    mut selection: ResMut<Selection>,
    mut fly: MessageWriter<FlyTo>,
    mut pick: MessageWriter<PickStructure>,
) {
    let names = Named { shown: &names, model: &model };
    let lines = &suspects.ranked;
    if lines.is_empty() {
        ui.label("No group's retained bytes grow (or this input has no retained sizes).");
        return;
    }
    ui.label("what grows most (retained bytes):");
    let mut chosen = None;
    for line in lines {
        match line {
            SuspectLine::Group(s) => chosen = suspect_button(ui, &names, s, false).or(chosen),
            SuspectLine::Structure { structure, folded } => {
                let Some(f) = folds.structures.get(*structure) else { continue };
                let text = format!(
                    "{} ({}): +{} retained, holding the growth of {} group{}",
                    f.path,
                    short(&f.type_name),
                    bytes(f.growth.max(0) as u64),
                    folded.len(),
                    if folded.len() == 1 { "" } else { "s" }
                );
                let hover = "one leak, one line: this data structure holds at least 80% of the growth \
                             of the groups under it\nclick: pick it in the Data structures tab";
                let clicked = ui.add(egui::Button::new(egui::RichText::new(text).strong()).frame(false));
                if clicked.on_hover_text(hover).clicked() {
                    pick_by_path(analysis.as_deref(), &f.path, &mut pick);
                    ui.ctx().request_repaint();
                }
                for cause in &f.causes {
                    ui.add(egui::Label::new(egui::RichText::new(cause).color(CAUSE)).wrap());
                }
                ui.indent(("folded", structure), |ui| {
                    for s in folded {
                        chosen = suspect_button(ui, &names, s, true).or(chosen);
                    }
                });
            }
        }
    }
    if let Some(group) = chosen {
        selection.selected = Some(model.timeline.groups[group as usize].key.clone());
        if let Some(target) = target_of(&model, group) {
            fly.write(FlyTo::Target { target, with_references: true });
        }
    }
}

/// A suspect group's line (smaller when folded under a structure); the group when clicked.
fn suspect_button(ui: &mut egui::Ui, names: &Named, s: &Suspect, folded: bool) -> Option<u32> {
    let name = names.get(s.group);
    let holder = s.holder.filter(|_| !folded).map(|(h, share)| {
        let name = names.get(h);
        format!(", held by {name} (retains {:.0}% of the heap)", 100.0 * share)
    });
    let text = format!(
        "{name}: +{} retained ({:.1}% of heap){}",
        bytes(s.growth as u64),
        100.0 * s.share,
        holder.unwrap_or_default()
    );
    let text = if folded { egui::RichText::new(text).small() } else { egui::RichText::new(text) };
    let clicked =
        ui.add(egui::Button::new(text).frame(false)).on_hover_text("select and fly there").clicked();
    clicked.then_some(s.group)
}

/// Names groups as the city shows them; a group the layout prunes (a small one) has no shown
/// name and is named by its own.
struct Named<'a> {
    shown: &'a GroupNames,
    model: &'a CityModel,
}

impl Named<'_> {
    fn get(&self, group: u32) -> String {
        match self.shown.get(group) {
            "" => self
                .model
                .timeline
                .groups
                .get(group as usize)
                .map_or(String::new(), |g| short(&g.name).to_string()),
            name => name.to_string(),
        }
    }
}

/// Picks the structure at `path` in the Data structures tab, where its measurement lists it.
fn pick_by_path(analysis: Option<&StructureAnalysis>, path: &str, pick: &mut MessageWriter<PickStructure>) {
    let Some(Analysis::Done(_, measured)) = analysis.map(|a| &a.state) else { return };
    if let Some(row) = measured.rows.iter().position(|r| r.path == path) {
        pick.write(PickStructure(row));
    }
}
