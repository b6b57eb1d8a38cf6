//! Where the city's data comes from, in the UI: the Open box (any input `memcity [INPUT]`
//! takes), the progress of a load, why the last one failed, and the live server's state.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::app::live::LiveServer;
use crate::app::load::{Loading, OpenInput};
use crate::app::model::CityModel;

pub struct SourcesPlugin;

impl Plugin for SourcesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OpenBox>().add_systems(EguiPrimaryContextPass, (open_window, progress_window));
    }
}

#[derive(Resource, Default)]
struct OpenBox {
    text: String,
}

fn open_window(
    mut contexts: EguiContexts,
    mut open: ResMut<OpenBox>,
    loading: Res<Loading>,
    live: Option<Res<LiveServer>>,
    model: Res<CityModel>,
    mut requests: MessageWriter<OpenInput>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let empty = model.snapshot_count() == 0;
    egui::Window::new("Open")
        .anchor(egui::Align2::CENTER_TOP, [0.0, 8.0])
        .resizable(false)
        .default_open(empty || loading.error.is_some())
        .show(ctx, |ui| {
            ui.label("A history file or folder, heap dumps (.hprof, .hprof.gz) or scenario:NAME");
            let mut go = false;
            ui.horizontal(|ui| {
                let field = ui.add(egui::TextEdit::singleline(&mut open.text).desired_width(320.0));
                go |= field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                go |= ui.add_enabled(!loading.is_busy(), egui::Button::new("Open")).clicked();
            });
            if go && !open.text.trim().is_empty() {
                requests.write(OpenInput(vec![open.text.clone()]));
            }
            if let Some(error) = &loading.error {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 90), error);
                ui.label("The city shown is unchanged.");
            }
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
        });
    Ok(())
}

fn progress_window(mut contexts: EguiContexts, loading: Res<Loading>) -> Result {
    let Some((spec, fraction, seconds)) = loading.status() else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Loading")
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .resizable(false)
        .collapsible(false)
        .show(ctx, |ui| {
            ui.label(format!("loading {spec} ({seconds:.0} s)"));
            let bar = match fraction {
                Some(f) => egui::ProgressBar::new(f).show_percentage(),
                None => egui::ProgressBar::new(0.0).animate(true),
            };
            ui.add(bar.desired_width(360.0));
        });
    // Keep repainting while the bar moves.
    ctx.request_repaint();
    Ok(())
}
