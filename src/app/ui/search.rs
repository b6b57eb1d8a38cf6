//! The Search pane: groups by name, best match first: an exact name before a prefix before a
//! substring, types (shallower groups) before allocation sites. Each hit shows its unique name
//! and path; choosing one selects it (districts too) and flies there.

use bevy::prelude::*;
use bevy_egui::egui;

use super::workspace::layouts::tabs::SEARCH;
use super::workspace::{AddTab, ShowTab};
use crate::app::camera::FlyTo;
use crate::app::inspect::{Selection, Target};
use crate::app::model::CityModel;
use crate::app::names::{GroupNames, short};
use crate::app::viewport::UiFocus;

pub struct SearchPlugin;

impl Plugin for SearchPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SearchBox>()
            .add_tab(SEARCH, "Search", search_pane)
            .add_systems(Update, search_keys);
    }
}

#[derive(Resource, Default)]
pub struct SearchBox {
    pub text: String,
    /// The text box takes the keyboard the next time the pane is drawn.
    pub focus: bool,
}

/// The control keys.
pub const CTRL: [KeyCode; 2] = [KeyCode::ControlLeft, KeyCode::ControlRight];

/// Ctrl+F or `/` (outside a text box): the Search pane, with the cursor in its box.
fn search_keys(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiFocus>,
    mut search: ResMut<SearchBox>,
    mut show: MessageWriter<ShowTab>,
) {
    // Held, or pressed and let go within this frame (as fast typists and xdotool do).
    let ctrl = keys.any_pressed(CTRL) || keys.any_just_pressed(CTRL) || keys.any_just_released(CTRL);
    if ui.keyboard || !(keys.just_pressed(KeyCode::Slash) || ctrl && keys.just_pressed(KeyCode::KeyF)) {
        return;
    }
    search.focus = true;
    show.write(ShowTab::named(SEARCH));
}

fn search_pane(
    InMut(ui): InMut<egui::Ui>,
    mut search: ResMut<SearchBox>,
    model: Res<CityModel>,
    names: Res<GroupNames>,
    mut selection: ResMut<Selection>,
    mut fly: MessageWriter<FlyTo>,
) {
    let mut chosen = None;
    let response = ui.add(
        egui::TextEdit::singleline(&mut search.text)
            .id(egui::Id::new("memcity_search_box"))
            .hint_text("type, site or package"),
    );
    if std::mem::take(&mut search.bypass_change_detection().focus) {
        response.request_focus();
    }
    let hits = search_groups(&model, &search.text, 8);
    for &group in &hits {
        let hit = ui.button(names.get(group)).on_hover_text(model.timeline.path_label(group));
        ui.small(model.timeline.path_label(group));
        if hit.clicked() {
            chosen = Some(group);
        }
    }
    if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
        chosen = hits.first().copied();
    }
    if let Some(group) = chosen {
        let target = if model.layout.building(group).is_some() {
            Target::Building(group)
        } else {
            Target::District(group)
        };
        selection.selected = Some(model.timeline.groups[group as usize].key.clone());
        fly.write(FlyTo::Target { target, with_references: false });
    }
}

/// Shown groups matching `text` (case-insensitive), best first.
pub fn search_groups(model: &CityModel, text: &str, limit: usize) -> Vec<u32> {
    let needle = text.trim().to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    let layout = &model.layout;
    let shown = |g: u32| layout.building(g).is_some() || layout.district(g).is_some();
    let depth = |mut g: u32| {
        let mut d = 0;
        while let Some(p) = model.timeline.groups[g as usize].parent {
            (g, d) = (p, d + 1);
        }
        d
    };
    let mut hits: Vec<(u8, usize, u32)> = model
        .timeline
        .groups
        .iter()
        .enumerate()
        .filter(|(g, _)| shown(*g as u32))
        .filter_map(|(g, group)| {
            let (full, simple) = (group.name.to_lowercase(), short(&group.name).to_lowercase());
            let rank = if full == needle || simple == needle {
                0
            } else if full.starts_with(&needle) || simple.starts_with(&needle) {
                1
            } else if full.contains(&needle) {
                2
            } else {
                return None;
            };
            Some((rank, depth(g as u32), g as u32))
        })
        .collect();
    hits.sort();
    hits.into_iter().take(limit).map(|h| h.2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_type_name_comes_first_then_prefixes_then_substrings() {
        let model = CityModel::new(crate::input::load("scenario:linked-list").unwrap(), &Default::default());
        let name = |g: u32| model.timeline.groups[g as usize].name.clone();
        let hits = search_groups(&model, "Person", 20);
        assert_eq!(name(hits[0]), "app.model.Person", "the type, not char[] or a site");
        assert!(model.layout.district(hits[0]).is_some() || model.layout.building(hits[0]).is_some());
        // Then sites whose simple name starts with Person (Person.<init>, Person.setEmail).
        assert!(short(&name(hits[1])).starts_with("Person"), "{}", name(hits[1]));
        let substring = search_groups(&model, "person", 20);
        assert_eq!(substring[0], hits[0], "case-insensitive");
        assert!(search_groups(&model, "no such thing", 5).is_empty());
    }
}
