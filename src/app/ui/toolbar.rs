//! The menu bar along the top: the View menu (every tab, to show or reopen it; the layouts),
//! buttons for the panes a newcomer looks for first, the load's progress, and the first thing
//! to try.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use super::workspace::layouts::tabs::{OPEN, SEARCH, TOUR};
use super::workspace::state::LayoutCommand;
use super::workspace::{MenuBarHeight, ShowTab, TabId, TabRegistry, Workspace};
use super::{UiSystems, screen_ui};
use crate::app::load::Loading;
use crate::app::trees::CycleView;

pub struct ToolbarPlugin;

impl Plugin for ToolbarPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<CycleView>().add_systems(EguiPrimaryContextPass, toolbar.in_set(UiSystems::Panels));
    }
}

/// What the user asked for in the menu bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuChoice {
    Show(TabId),
    Layout(LayoutCommand),
    /// City → Icicle → Sunburst → Timeline (V).
    CycleView,
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn toolbar(
    mut contexts: EguiContexts,
    registry: Res<TabRegistry>,
    workspace: Res<Workspace>,
    loading: Res<Loading>,
    model: Res<crate::app::model::CityModel>,
    mut height: ResMut<MenuBarHeight>,
    mut show: MessageWriter<ShowTab>,
    mut layout: MessageWriter<LayoutCommand>,
    mut cycle: MessageWriter<CycleView>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut screen = screen_ui(ctx, "memcity_toolbar_ui");
    let tabs: Vec<(&'static str, &'static str, bool)> = registry
        .tabs
        .iter()
        .map(|t| (t.id, t.title, workspace.dock.find_tab(&TabId::new(t.id)).is_some()))
        .collect();
    let mut choice = None;
    let panel = egui::Panel::top("memcity_toolbar").show(&mut screen, |ui| {
        choice = menu_bar(ui, &tabs, loading.status(), loading.phase(), status_line(&model)).0;
    });
    match choice {
        Some(MenuChoice::Show(tab)) => {
            show.write(ShowTab(tab));
        }
        Some(MenuChoice::Layout(command)) => {
            layout.write(command);
        }
        Some(MenuChoice::CycleView) => {
            cycle.write(CycleView);
        }
        None => {}
    }
    let top = panel.response.rect.height();
    if height.0 != top {
        height.0 = top;
    }
    Ok(())
}

/// What the bar says when nothing loads: how to start, and why a city that did not grow
/// still shows solid towers.
pub fn status_line(model: &crate::app::model::CityModel) -> &'static str {
    if model.snapshot_count() == 0 {
        "No city yet: Ctrl+O opens a heap dump, a snapshot, a trace or a scenario"
    } else if model.layout.solid_by_size {
        "Nothing grew, so the solid towers are the largest groups · click one to see what keeps it alive"
    } else {
        "Space plays the history · click a tower to see what keeps it alive"
    }
}

/// The bar's contents: `tabs` as (name, title, open), and while a load runs, its progress and
/// the phase its importer named. Returns what was chosen, and where each quick button is (by
/// tab name).
pub fn menu_bar(
    ui: &mut egui::Ui,
    tabs: &[(&'static str, &'static str, bool)],
    loading: Option<(&str, Option<f32>, f32)>,
    phase: Option<memcity_heapgraph::Phase>,
    status: &str,
) -> (Option<MenuChoice>, Vec<(&'static str, egui::Rect)>) {
    let (mut choice, mut buttons) = (None, Vec::new());
    ui.horizontal(|ui| {
        ui.menu_button("View", |ui| {
            for &(id, title, open) in tabs {
                let text = if open { format!("✔ {title}") } else { format!("   {title}") };
                if ui.button(text).clicked() {
                    choice = Some(MenuChoice::Show(TabId::new(id)));
                }
            }
            ui.separator();
            if ui.button("Reset the layout").clicked() {
                choice = Some(MenuChoice::Layout(LayoutCommand::Default));
            }
            if ui.button("Teaching layout").clicked() {
                choice = Some(MenuChoice::Layout(LayoutCommand::Teaching));
            }
        });
        for (id, title) in [(OPEN, "Open (Ctrl+O)"), (SEARCH, "Search (Ctrl+F)"), (TOUR, "Tour")] {
            let button = ui.button(title);
            if button.clicked() {
                choice = Some(MenuChoice::Show(TabId::new(id)));
            }
            buttons.push((id, button.rect));
        }
        let views = ui.button("City ▸ Icicle ▸ Sunburst ▸ Timeline (V)");
        let hint = "the city, then the tree as an icicle, as a sunburst, then the timeline of small trees";
        if views.on_hover_text(hint).clicked() {
            choice = Some(MenuChoice::CycleView);
        }
        ui.separator();
        match loading {
            Some((spec, fraction, seconds)) => {
                ui.label(loading_label(spec, fraction, phase, seconds));
                let bar = match fraction {
                    Some(f) => egui::ProgressBar::new(f).show_percentage(),
                    None => egui::ProgressBar::new(0.0).animate(true),
                };
                ui.add(bar.desired_width(160.0));
                ui.ctx().request_repaint();
            }
            None => {
                ui.label(status);
            }
        }
    });
    (choice, buttons)
}

/// "loading SPEC (12 s)" while it reads, "loading SPEC: PHASE (12 s)" once a phase after the
/// reading is named (`fraction` None).
fn loading_label(
    spec: &str,
    fraction: Option<f32>,
    phase: Option<memcity_heapgraph::Phase>,
    seconds: f32,
) -> String {
    let spec = memcity_model::escape::terminal(spec);
    let doing = phase.filter(|_| fraction.is_none()).map(|p| format!(": {}", p.describe()));
    format!("loading {spec}{} ({seconds:.0} s)", doing.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One egui pass of the menu bar with `events` as input.
    fn pass(
        ctx: &egui::Context,
        events: Vec<egui::Event>,
    ) -> (Option<MenuChoice>, Vec<(&'static str, egui::Rect)>) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0))),
            events,
            ..Default::default()
        };
        let tabs = [("city", "City", true), ("search", "Search", false)];
        let mut out = (None, Vec::new());
        ctx.run_ui(input, |ui| {
            egui::Panel::top("toolbar").show(ui, |ui| out = menu_bar(ui, &tabs, None, None, ""));
        })
        .drop_without_applying_deltas();
        out
    }

    fn click(pos: egui::Pos2, pressed: bool) -> egui::Event {
        egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        }
    }

    #[test]
    fn each_quick_button_asks_for_its_tab() {
        let ctx = egui::Context::default();
        let (_, buttons) = pass(&ctx, Vec::new());
        assert_eq!(buttons.iter().map(|b| b.0).collect::<Vec<_>>(), [OPEN, SEARCH, TOUR]);
        for (id, rect) in buttons {
            let at = rect.center();
            pass(&ctx, vec![egui::Event::PointerMoved(at), click(at, true)]);
            let (choice, _) = pass(&ctx, vec![click(at, false)]);
            assert_eq!(choice, Some(MenuChoice::Show(TabId::new(id))));
        }
        assert_eq!(pass(&ctx, Vec::new()).0, None, "nothing chosen without a click");
    }

    #[test]
    fn a_load_says_its_phase_once_the_reading_is_over() {
        use memcity_heapgraph::Phase;
        assert_eq!(
            loading_label("big.hprof", Some(0.5), Some(Phase::Resolving), 3.2),
            "loading big.hprof (3 s)"
        );
        assert_eq!(
            loading_label("big.hprof", None, Some(Phase::RetainedAndPaths), 12.0),
            "loading big.hprof: retained sizes and retainer paths (12 s)"
        );
        assert_eq!(loading_label("a\x1b[2Jb", None, None, 1.0), "loading a\\x1b[2Jb (1 s)", "escaped");
    }

    #[test]
    fn the_status_line_says_why_a_city_without_growth_has_solid_towers() {
        use crate::app::model::CityModel;
        let settings = memcity_layout::Settings::default();
        let mut one = crate::input::load("scenario:easytravel").unwrap();
        one.snapshots.drain(..one.snapshots.len() - 1);
        assert!(status_line(&CityModel::new(one, &settings)).starts_with("Nothing grew"));
        let grown = CityModel::new(crate::input::load("scenario:easytravel").unwrap(), &settings);
        assert!(status_line(&grown).starts_with("Space plays"));
        let empty = memcity_model::History {
            format: memcity_model::FORMAT.into(),
            metric_names: Default::default(),
            snapshots: Vec::new(),
        };
        assert!(status_line(&CityModel::new(empty, &settings)).starts_with("No city yet"));
    }
}
