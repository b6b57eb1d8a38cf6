//! The Selection pane: the selected group in words and, for a building, what keeps it alive
//! (purple) and what it keeps alive (green). A click on an entry selects that building and
//! flies there with its references in view. Sections are separate functions, so more (a
//! retainer path) can be added below.

use bevy::prelude::*;
use bevy_egui::egui;

use crate::app::objects::LookInside;
use crate::app::structures::PickedStructure;
use crate::app::structures::held::{HeldIn, PickStructure, held_in_ui};
use crate::app::ui::style::HIGHLIGHT;

use super::describe::describe;
use super::tour_target::TourTarget;
use super::workspace::layouts::tabs::SELECTION;
use super::workspace::{AddTab, ShowTab};
use crate::app::camera::FlyTo;
use crate::app::inspect::{Selection, Target};
use crate::app::model::CityModel;
use crate::app::names::GroupNames;
use crate::app::time::TimeCursor;
use crate::app::tour::{Step, Tour, strongest_first};

pub struct SelectionPlugin;

impl Plugin for SelectionPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<PickStructure>()
            .add_message::<LookInside>()
            .add_tab(SELECTION, "Selection", selection_pane)
            .add_systems(Update, show_on_select);
    }
}

pub const INCOMING: egui::Color32 = egui::Color32::from_rgb(170, 80, 230);
pub const OUTGOING: egui::Color32 = egui::Color32::from_rgb(60, 210, 90);

/// What the user chose in the pane.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    Deselect,
    Go(u32),
}

/// A new selection brings the pane to the front of its group (hovering changes nothing),
/// unless it is a data structure picked in its tab: that tab stays in front to pick the next.
fn show_on_select(
    selection: Res<Selection>,
    picked: Option<Res<PickedStructure>>,
    mut last: Local<Option<String>>,
    mut show: MessageWriter<ShowTab>,
) {
    if selection.is_changed() && selection.selected != *last {
        last.clone_from(&selection.selected);
        let from_structures =
            picked.as_ref().and_then(|p| p.picked.as_ref()).is_some_and(|p| p.selected == selection.selected);
        if selection.selected.is_some() && !from_structures {
            show.write(ShowTab::named(SELECTION));
        }
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn selection_pane(
    InMut(ui): InMut<egui::Ui>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    cursor: Res<TimeCursor>,
    tour: Option<Res<Tour>>,
    mut tour_target: ResMut<TourTarget>,
    mut selection: ResMut<Selection>,
    mut fly: MessageWriter<FlyTo>,
    (held, mut pick): (Option<Res<HeldIn>>, MessageWriter<PickStructure>),
    mut look: MessageWriter<LookInside>,
) {
    let Some(target) = selection.target(&model) else {
        ui.label("Nothing selected: click a building or a district in the city, or choose one in Search.");
        return;
    };
    let point_at_references = tour.is_some_and(|t| t.step == Step::KeptAlive);
    let mut choice = None;
    for (i, line) in describe(&model, &names, cursor.current, target.group()).into_iter().enumerate() {
        match i {
            0 => ui.heading(line),
            1 => {
                // Where its objects are kept comes first: the leaking field, one click away.
                if let Some(held) = &held {
                    held_in_ui(ui, held, &mut pick, true);
                }
                ui.small(line)
            }
            _ => ui.label(line),
        };
    }
    if let Target::Building(g) = target {
        let mut entries = Vec::new();
        let tour_target = point_at_references.then_some(&mut *tour_target);
        choice = references(ui, &model, &names, cursor.current, g, tour_target, &mut entries).or(choice);
    }
    ui.horizontal(|ui| {
        if ui.button("Deselect (Esc)").clicked() {
            choice = Some(Choice::Deselect);
        }
        let group = &model.timeline.groups[target.group() as usize];
        if held.is_some() && group.is_leaf() && ui.button("Look inside: its objects ▸").clicked() {
            look.write(LookInside(memcity_structures::Target::Group(group.key.clone())));
            ui.ctx().request_repaint();
        }
    });
    match choice {
        Some(Choice::Deselect) => selection.selected = None,
        Some(Choice::Go(group)) => {
            selection.selected = Some(model.timeline.groups[group as usize].key.clone());
            if model.layout.building(group).is_some() {
                fly.write(FlyTo::Target { target: Target::Building(group), with_references: true });
            }
        }
        None => {}
    }
}

/// The "kept alive by" and "keeps alive" lists of building group `g`, largest first; what was
/// clicked, and where each entry is (`entries`). With a tour's `target` (its step is to follow
/// what keeps `g` alive) the list is outlined and its first entry is the target.
fn references(
    ui: &mut egui::Ui,
    model: &CityModel,
    names: &GroupNames,
    snapshot: usize,
    g: u32,
    mut target: Option<&mut TourTarget>,
    entries: &mut Vec<(u32, egui::Rect)>,
) -> Option<Choice> {
    let maps = model.timeline.pointers.get(snapshot)?;
    let mut choice = None;
    for (title, edges, color) in [
        ("kept alive by (purple):", maps.pointed_from.get(&g), INCOMING),
        ("keeps alive (green):", maps.points_to.get(&g), OUTGOING),
    ] {
        let edges = strongest_first(edges.cloned().unwrap_or_default());
        if edges.is_empty() {
            continue;
        }
        ui.separator();
        let title = ui.colored_label(color, title);
        let keepers = color == INCOMING;
        if target.is_some() && keepers {
            ui.painter().rect_stroke(
                title.rect.expand(3.0),
                3.0,
                (2.0, HIGHLIGHT),
                egui::StrokeKind::Outside,
            );
        }
        for (i, (other, n)) in edges.iter().take(6).enumerate() {
            let name = names.get(*other);
            let name =
                if name.is_empty() { model.timeline.groups[*other as usize].name.as_str() } else { name };
            let entry =
                ui.button(format!("{name}  ({n} objects)")).on_hover_text(model.timeline.path_label(*other));
            if keepers
                && i == 0
                && let Some(target) = target.as_deref_mut()
            {
                target.drawn(SELECTION, &entry, true);
            }
            if entry.clicked() {
                choice = Some(Choice::Go(*other));
            }
            entries.push((*other, entry.rect));
        }
    }
    choice
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_on_a_kept_alive_by_entry_goes_to_that_building() {
        let model = CityModel::new(crate::app::tests::sample(), &Default::default());
        let names = GroupNames::of(&model);
        let person = model.timeline.group("Heap#com.example.app#Person").unwrap();
        let last = model.snapshot_count() - 1;
        let keeper =
            model.timeline.pointers[last].pointed_from[&person].iter().max_by_key(|e| e.1).unwrap().0;
        let ctx = egui::Context::default();
        let pass = |events: Vec<egui::Event>| {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 600.0))),
                events,
                ..Default::default()
            };
            let (mut choice, mut entries) = (None, Vec::new());
            ctx.run_ui(input, |ui| choice = references(ui, &model, &names, last, person, None, &mut entries))
                .drop_without_applying_deltas();
            (choice, entries)
        };
        let (_, entries) = pass(Vec::new());
        assert_eq!(entries[0].0, keeper, "the strongest keeper is listed first");
        let at = entries[0].1.center();
        let button = |pressed| egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        pass(vec![egui::Event::PointerMoved(at), button(true)]);
        let (choice, _) = pass(vec![button(false)]);
        assert_eq!(choice, Some(Choice::Go(keeper)));
    }
}
