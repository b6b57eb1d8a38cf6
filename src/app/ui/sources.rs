//! Where the city's data comes from, in the UI: the Open pane (any input `memcity [INPUT]`
//! takes, and a menu of the built-in scenarios and their tours), the progress of a load, why
//! the last one failed, and the live server's state.

use bevy::prelude::*;
use bevy_egui::egui;

use super::search::CTRL;
use super::workspace::layouts::tabs::OPEN;
use super::workspace::{AddTab, ShowTab};
use crate::app::live::LiveServer;
use crate::app::load::{CompareInputs, Loading, OpenInput};
use crate::app::model::CityModel;
use crate::app::tour::TourCommand;
use crate::app::viewport::UiFocus;

pub struct SourcesPlugin;

impl Plugin for SourcesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OpenBox>().add_tab(OPEN, "Open", open_pane).add_systems(Update, show_when_needed);
    }
}

#[derive(Resource, Default)]
struct OpenBox {
    text: String,
    /// The two runs of "Compare two runs": before, after.
    runs: [String; 2],
    /// The path field takes the keyboard the next time the pane is drawn.
    focus: bool,
    /// Whether "Compare two runs" was open when last drawn.
    compare_open: bool,
}

/// The Open pane comes to the front where it is needed (an empty city, a failed load) and on
/// Ctrl+O, with the cursor in its path field.
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn show_when_needed(
    keys: Res<ButtonInput<KeyCode>>,
    ui: Res<UiFocus>,
    loading: Res<Loading>,
    live: Option<Res<LiveServer>>,
    model: Res<CityModel>,
    mut open: ResMut<OpenBox>,
    mut needed_before: Local<bool>,
    mut show: MessageWriter<ShowTab>,
) {
    let empty = model.snapshot_count() == 0 && !loading.is_busy() && live.is_none();
    let needed = empty || loading.error.is_some();
    // Held, or pressed and let go within this frame (as fast typists and xdotool do).
    let ctrl = keys.any_pressed(CTRL) || keys.any_just_pressed(CTRL) || keys.any_just_released(CTRL);
    let asked = !ui.keyboard && ctrl && keys.just_pressed(KeyCode::KeyO);
    if asked || (needed && !*needed_before) {
        open.focus = true;
        show.write(ShowTab::named(OPEN));
    }
    *needed_before = needed;
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it reads
fn open_pane(
    InMut(ui): InMut<egui::Ui>,
    mut open: ResMut<OpenBox>,
    mut loading: ResMut<Loading>,
    live: Option<Res<LiveServer>>,
    model: Res<CityModel>,
    mut requests: MessageWriter<OpenInput>,
    mut compares: MessageWriter<CompareInputs>,
    mut tours: MessageWriter<TourCommand>,
) {
    let empty = model.snapshot_count() == 0;
    ui.label(crate::input::INPUTS_HELP);
    let busy = loading.is_busy();
    let focus = std::mem::take(&mut open.focus);
    let (go, field) = path_field(ui, &mut open.text, &mut loading.error, busy);
    if focus {
        // Ctrl+O selects the path there, so what is typed replaces it (as a browser's Ctrl+L).
        ui.memory_mut(|m| m.request_focus(field.id));
        select_all(ui.ctx(), field.id, open.text.chars().count());
    }
    if go && !open.text.trim().is_empty() {
        requests.write(OpenInput(vec![open.text.clone()]));
    }
    if let Some((spec, fraction, seconds)) = loading.status() {
        ui.label(format!("loading {spec} ({seconds:.0} s)"));
        let (done, total) = loading.bytes();
        let line = crate::progress::line(done, total, seconds as f64, loading.phase());
        if !line.is_empty() {
            ui.label(line);
        }
        let bar = match fraction {
            Some(f) => egui::ProgressBar::new(f).show_percentage(),
            None => egui::ProgressBar::new(0.0).animate(true),
        };
        ui.add(bar);
        // Keep repainting while the bar moves.
        ui.ctx().request_repaint();
    }
    if let Some(error) = &loading.error {
        ui.colored_label(egui::Color32::from_rgb(255, 110, 90), error);
        ui.label("The city shown is unchanged.");
    }
    let compare = ui.collapsing("Compare two runs", |ui| {
        ui.small(
            "Both runs in one city, laid out alike (Settings: side by side or difference); any input above.",
        );
        for (n, (run, hint)) in open
            .runs
            .iter_mut()
            .zip(["before (e.g. the leaking run)", "after (e.g. the fixed run)"])
            .enumerate()
        {
            let field = ui.add(egui::TextEdit::singleline(run).hint_text(hint).desired_width(280.0));
            if field.gained_focus() {
                // Tests type only once the field has the keyboard: a "/" typed before would
                // open the search.
                debug!("Compare two runs: field {} has the keyboard", n + 1);
            }
        }
        let ready = open.runs.iter().all(|r| !r.trim().is_empty());
        if ui.add_enabled(ready && !busy, egui::Button::new("Compare")).clicked() {
            compares.write(CompareInputs(open.runs.clone()));
        }
    });
    if compare.fully_open() != open.compare_open {
        open.compare_open = compare.fully_open();
        // Tests driving the window with a mouse wait for this before they type.
        debug!("Compare two runs is {}", if open.compare_open { "open" } else { "closed" });
    }
    ui.collapsing("Built-in scenarios and tours", |ui| {
        egui::Grid::new("memcity_scenarios").striped(true).show(ui, |ui| {
            for s in memcity_analysis::scenarios::SCENARIOS {
                if ui.add_enabled(!loading.is_busy(), egui::Button::new(s.name)).clicked() {
                    requests.write(OpenInput(vec![format!("scenario:{}", s.name)]));
                }
                if s.lesson.is_some() && ui.button("tour").clicked() {
                    tours.write(TourCommand::Start(s.name.into()));
                } else if s.lesson.is_none() {
                    ui.label("");
                }
                ui.small(s.summary);
                ui.end_row();
            }
        });
    });
    if let Some(live) = &live {
        ui.separator();
        ui.label(format!("listening on {} · {} client(s)", live.url, live.clients()));
        match (live.last, live.latency) {
            (Some((kind, version)), Some(latency)) => ui.label(format!(
                "last change: {kind} (version {version}), on screen after {:.1} ms",
                latency.as_secs_f64() * 1e3
            )),
            _ => ui.label(format!("nothing received yet: try `memcity push {} FILE`", live.url)),
        };
    } else if empty && !loading.is_busy() {
        ui.label("No city loaded yet.");
    }
}

/// Selects the whole text of the text field `id`.
fn select_all(ctx: &egui::Context, id: egui::Id, chars: usize) {
    use egui::text::{CCursor, CCursorRange};
    let mut state = egui::text_edit::TextEditState::load(ctx, id).unwrap_or_default();
    state.cursor.set_char_range(Some(CCursorRange::two(CCursor::new(0), CCursor::new(chars))));
    state.store(ctx, id);
}

/// The path field and its Open button: whether to open now (Enter or the button), and the
/// field. Typing clears the last failure: it was about the path that was there.
pub fn path_field(
    ui: &mut egui::Ui,
    text: &mut String,
    error: &mut Option<String>,
    busy: bool,
) -> (bool, egui::Response) {
    ui.horizontal(|ui| {
        let field = ui.add(egui::TextEdit::singleline(text).desired_width(280.0));
        if field.changed() {
            *error = None;
        }
        let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let button = ui.add_enabled(!busy, egui::Button::new("Open")).clicked();
        (enter || button, field)
    })
    .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(
        ctx: &egui::Context,
        text: &mut String,
        error: &mut Option<String>,
        events: Vec<egui::Event>,
    ) -> egui::Rect {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 600.0))),
            events,
            ..Default::default()
        };
        let mut rect = egui::Rect::NOTHING;
        ctx.run_ui(input, |ui| rect = path_field(ui, text, error, false).1.rect)
            .drop_without_applying_deltas();
        rect
    }

    #[test]
    fn a_selected_path_is_replaced_by_what_is_typed() {
        let ctx = egui::Context::default();
        let (mut text, mut error) = ("old/dump.hprof".to_string(), None);
        let mut id = egui::Id::NULL;
        ctx.run_ui(egui::RawInput::default(), |ui| id = path_field(ui, &mut text, &mut error, false).1.id)
            .drop_without_applying_deltas();
        // What Ctrl+O does: the field takes the keyboard with its path selected.
        ctx.memory_mut(|m| m.request_focus(id));
        select_all(&ctx, id, text.chars().count());
        pass(&ctx, &mut text, &mut error, vec![egui::Event::Text("new.hprof".into())]);
        assert_eq!(text, "new.hprof", "the selected path was replaced");
    }

    #[test]
    fn typing_a_new_path_clears_the_old_error() {
        let ctx = egui::Context::default();
        let (mut text, mut error) =
            ("no/such/file.json".to_string(), Some("no/such/file.json: no such file".to_string()));
        let field = pass(&ctx, &mut text, &mut error, Vec::new()).center();
        let click = |pressed| egui::Event::PointerButton {
            pos: field,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        pass(&ctx, &mut text, &mut error, vec![egui::Event::PointerMoved(field), click(true)]);
        pass(&ctx, &mut text, &mut error, vec![click(false)]);
        assert!(error.is_some(), "focusing the field keeps the message");
        pass(&ctx, &mut text, &mut error, vec![egui::Event::Text("x".into())]);
        assert!(text.ends_with('x'), "the field took the key: {text}");
        assert_eq!(error, None, "the old error is gone once the path changes");
    }
}
