//! The egui interface: settings, the selection's info, the hover tooltip, the heap timeline,
//! search, labels over the top growers and the navigation hints.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use memcity_analysis::windows::WindowKind;
use memcity_layout::AreaMode;
use memcity_model::Metric;

use crate::app::camera::{CityCamera, FlyTo, UiFocus};
use crate::app::inspect::{Selection, Target, orbit_for};
use crate::app::model::{CityModel, LayoutSettings, ViewOptions};
use crate::app::time::{DisplayedFrame, TimeCommand, TimeCursor};

pub struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SearchBox>().add_plugins(crate::app::sources::SourcesPlugin).add_systems(
            EguiPrimaryContextPass,
            (
                settings_window,
                info_window,
                timeline_window,
                search_window,
                hints,
                hover_tooltip,
                labels,
                ui_focus,
            ),
        );
    }
}

#[derive(Resource, Default)]
struct SearchBox {
    text: String,
}

fn ui_focus(mut contexts: EguiContexts, mut focus: ResMut<UiFocus>) -> Result {
    let ctx = contexts.ctx_mut()?;
    let now = UiFocus {
        pointer: ctx.egui_wants_pointer_input() || ctx.is_pointer_over_egui(),
        keyboard: ctx.egui_wants_keyboard_input(),
    };
    if *focus != now {
        *focus = now;
    }
    Ok(())
}

fn settings_window(
    mut contexts: EguiContexts,
    mut settings: ResMut<LayoutSettings>,
    mut options: ResMut<ViewOptions>,
    mut cursor: ResMut<TimeCursor>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut s = settings.0.clone();
    let mut o = options.clone();
    let mut period = cursor.period;
    egui::Window::new("Settings")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .default_open(true)
        .show(ctx, |ui| {
            egui::ComboBox::from_label("metric")
                .selected_text(format!("{:?}", s.metric).to_lowercase())
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.metric, Metric::Objects, "objects");
                    ui.selectable_value(&mut s.metric, Metric::Bytes, "bytes");
                });
            egui::ComboBox::from_label("area mode")
                .selected_text(format!("{:?}", s.area).to_lowercase())
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.area, AreaMode::Sqrt, "sqrt");
                    ui.selectable_value(&mut s.area, AreaMode::Linear, "linear");
                });
            ui.add(egui::Slider::new(&mut s.children, 1..=200).logarithmic(true).text("child count"));
            ui.add(egui::Slider::new(&mut s.solid, 0..=100).text("solid buildings"));
            ui.add(egui::Slider::new(&mut s.opacity, 0.05..=1.0).text("non-solid opacity"));
            ui.separator();
            ui.checkbox(&mut o.show_pointers, "show pointers");
            ui.checkbox(&mut o.routed, "route pointers over the city");
            ui.checkbox(&mut o.growth_color, "growth color");
            ui.checkbox(&mut o.labels, "labels on top growers");
            ui.add(egui::Slider::new(&mut period, 0.05..=3.0).text("seconds per snapshot"));
        });
    if s != settings.0 {
        settings.0 = s;
    }
    if o != *options {
        *options = o;
    }
    if period != cursor.period {
        cursor.period = period;
    }
    Ok(())
}

/// objects, bytes and growth of a group at the current snapshot, as lines of text.
fn describe(model: &CityModel, cursor: &TimeCursor, group: u32) -> Vec<String> {
    let t = &model.timeline;
    let (s, g) = (cursor.current, group as usize);
    let names = &model.history.metric_names;
    let (objects, bytes) = (t.values[s].objects[g], t.values[s].bytes[g]);
    let grown_o = objects as i64 - t.values[0].objects[g] as i64;
    let grown_b = bytes as i64 - t.values[0].bytes[g] as i64;
    let heap = t.values[s].bytes[0].max(1);
    let mut lines = vec![
        // egui's default font has no arrow glyph.
        t.path_label(group).replace(" → ", " > "),
        format!("{}: {objects}   {}: {bytes}", names.objects, names.bytes),
        format!("growth since first snapshot: {grown_o:+} {}, {grown_b:+} {}", names.objects, names.bytes),
        format!("share of the heap: {:.1}% of {}", 100.0 * bytes as f64 / heap as f64, names.bytes),
    ];
    if let Some(r) = t.retained[s].get(&group) {
        lines.push(format!("retained (GC closure): {r} bytes"));
    }
    lines
}

fn info_window(
    mut contexts: EguiContexts,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    mut selection: ResMut<Selection>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let Some(target) = selection.target(&model) else { return Ok(()) };
    let mut deselect = false;
    egui::Window::new("Selection").anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0]).resizable(false).show(
        ctx,
        |ui| {
            for line in describe(&model, &cursor, target.group()) {
                ui.label(line);
            }
            if let Target::Building(g) = target {
                let maps = &model.timeline.pointers[cursor.current];
                let list = |ui: &mut egui::Ui, title: &str, edges: Option<&Vec<(u32, u64)>>, color| {
                    let mut edges: Vec<(u32, u64)> = edges.cloned().unwrap_or_default();
                    edges.sort_by_key(|e| std::cmp::Reverse(e.1));
                    if !edges.is_empty() {
                        ui.colored_label(color, title);
                        for (other, n) in edges.iter().take(6) {
                            ui.label(format!("  {} ({n})", model.timeline.groups[*other as usize].name));
                        }
                    }
                };
                list(
                    ui,
                    "kept alive by (purple):",
                    maps.pointed_from.get(&g),
                    egui::Color32::from_rgb(170, 80, 230),
                );
                list(
                    ui,
                    "keeps alive (green):",
                    maps.points_to.get(&g),
                    egui::Color32::from_rgb(60, 210, 90),
                );
            }
            deselect = ui.button("Deselect (Esc)").clicked();
        },
    );
    if deselect {
        selection.selected = None;
    }
    Ok(())
}

fn timeline_window(
    mut contexts: EguiContexts,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    settings: Res<LayoutSettings>,
    mut commands: MessageWriter<TimeCommand>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let count = model.snapshot_count();
    let Some(snapshot) = model.history.snapshots.get(cursor.current) else { return Ok(()) };
    egui::Window::new("Time")
        .anchor(egui::Align2::CENTER_BOTTOM, [0.0, -8.0])
        .resizable(false)
        .title_bar(false)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                if ui.button("◀ P").clicked() {
                    commands.write(TimeCommand::Step(-1));
                }
                if ui.button(if cursor.playing { "⏸ Space" } else { "▶ Space" }).clicked() {
                    commands.write(TimeCommand::TogglePlay);
                }
                if ui.button("N ▶").clicked() {
                    commands.write(TimeCommand::Step(1));
                }
                let mut index = cursor.current;
                if ui
                    .add(egui::Slider::new(&mut index, 0..=count.saturating_sub(1)).text("snapshot"))
                    .changed()
                {
                    commands.write(TimeCommand::GoTo(index));
                }
                ui.label(format!("{}  ·  {} ms", snapshot.display_label(), snapshot.time_ms));
            });
            // Total heap per snapshot in the chosen metric, with the current time and detected windows.
            let totals =
                model.timeline.values.iter().map(|v| v.get(settings.metric)[0] as f32).collect::<Vec<_>>();
            let max = totals.iter().copied().fold(1.0, f32::max);
            let (response, painter) = ui.allocate_painter(egui::vec2(520.0, 70.0), egui::Sense::click());
            let r = response.rect;
            painter.rect_filled(r, 2.0, egui::Color32::from_gray(25));
            let x = |i: usize| r.left() + r.width() * i as f32 / (count.max(2) - 1) as f32;
            // Detected suspicious time windows, one band per kind so overlapping ones stay legible.
            let hover = response.hover_pos();
            let mut tip = None;
            for (i, w) in model.windows.iter().enumerate() {
                let band = r.height() / model.windows.len().max(1) as f32;
                let (top, color) = (r.top() + band * i as f32, window_color(w.kind));
                let span = egui::Rect::from_x_y_ranges(
                    x(w.first)..=x(w.last).max(x(w.first) + 2.0),
                    top..=top + band,
                );
                painter.rect_filled(span, 0.0, color.gamma_multiply(0.35));
                painter.text(
                    span.left_top() + egui::vec2(2.0, 0.0),
                    egui::Align2::LEFT_TOP,
                    w.kind.label(),
                    egui::FontId::proportional(10.0),
                    color,
                );
                if hover.is_some_and(|p| span.contains(p)) {
                    tip = Some(format!(
                        "{}: snapshots {}..{} ({} .. {}), score {:.3}",
                        w.kind.label(),
                        w.first,
                        w.last,
                        model.history.snapshots[w.first].display_label(),
                        model.history.snapshots[w.last].display_label(),
                        w.score
                    ));
                }
            }
            if let Some(tip) = tip {
                response.clone().on_hover_text(tip);
            }
            let points: Vec<egui::Pos2> = totals
                .iter()
                .enumerate()
                .map(|(i, v)| egui::pos2(x(i), r.bottom() - 4.0 - (r.height() - 8.0) * v / max))
                .collect();
            painter.add(egui::Shape::line(
                points,
                egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 150, 40)),
            ));
            painter.line_segment(
                [egui::pos2(x(cursor.current), r.top()), egui::pos2(x(cursor.current), r.bottom())],
                egui::Stroke::new(1.5, egui::Color32::WHITE),
            );
            painter.text(
                r.right_top() + egui::vec2(-4.0, 2.0),
                egui::Align2::RIGHT_TOP,
                format!("heap {}: max {max:.0}", model.history.metric_names.get(settings.metric)),
                egui::FontId::proportional(10.0),
                egui::Color32::GRAY,
            );
            if response.clicked()
                && let Some(p) = response.interact_pointer_pos()
            {
                let i = ((p.x - r.left()) / r.width() * (count.max(2) - 1) as f32).round().max(0.0) as usize;
                commands.write(TimeCommand::GoTo(i));
            }
        });
    Ok(())
}

fn window_color(kind: WindowKind) -> egui::Color32 {
    match kind {
        WindowKind::Leak | WindowKind::LeakRegression => egui::Color32::from_rgb(235, 70, 50),
        WindowKind::FastestGrowth => egui::Color32::from_rgb(255, 160, 40),
        WindowKind::GcOverhead => egui::Color32::from_rgb(120, 170, 255),
        WindowKind::Churn => egui::Color32::from_rgb(190, 120, 255),
    }
}

fn search_window(
    mut contexts: EguiContexts,
    mut search: ResMut<SearchBox>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    mut selection: ResMut<Selection>,
    mut fly: MessageWriter<FlyTo>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut chosen = None;
    egui::Window::new("Search")
        .anchor(egui::Align2::RIGHT_BOTTOM, [-8.0, -8.0])
        .resizable(false)
        .default_open(false)
        .show(ctx, |ui| {
            let response = ui.text_edit_singleline(&mut search.text);
            let hits = search_groups(&model, &search.text, 8);
            for &(group, ref label) in &hits {
                if ui.button(label).clicked() {
                    chosen = Some(group);
                }
            }
            if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                chosen = hits.first().map(|h| h.0);
            }
        });
    if let Some(group) = chosen {
        let target = if model.layout.building(group).is_some() {
            Target::Building(group)
        } else {
            Target::District(group)
        };
        selection.selected = Some(model.timeline.groups[group as usize].key.clone());
        if let Some(orbit) = orbit_for(&model, &frame, target, 0.55) {
            fly.write(FlyTo(orbit));
        }
    }
    Ok(())
}

/// Shown groups whose name contains `text` (case-insensitive), buildings first.
pub fn search_groups(model: &CityModel, text: &str, limit: usize) -> Vec<(u32, String)> {
    let needle = text.trim().to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    let shown = |g: u32| model.layout.building(g).is_some() || model.layout.district(g).is_some();
    let mut hits: Vec<(u32, String)> = model
        .timeline
        .groups
        .iter()
        .enumerate()
        .filter(|(g, group)| shown(*g as u32) && group.name.to_lowercase().contains(&needle))
        .map(|(g, _)| (g as u32, model.timeline.path_label(g as u32).replace(" → ", " > ")))
        .collect();
    hits.sort_by_key(|(g, _)| model.layout.building(*g).is_none());
    hits.truncate(limit);
    hits
}

fn hints(mut contexts: EguiContexts) -> Result {
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Controls")
        .anchor(egui::Align2::LEFT_BOTTOM, [8.0, -8.0])
        .default_open(false)
        .resizable(false)
        .show(ctx, |ui| {
            for line in HINTS {
                ui.label(*line);
            }
        });
    Ok(())
}

pub const HINTS: &[&str] = &[
    "wheel: zoom · right-drag: rotate · middle-drag: pan",
    "left-click: select / deselect · Esc: deselect",
    "W/A/S/D: move · Q/E: down/up",
    "B: bird's-eye · R: reset camera · F: focus selection",
    "P/N or ←/→: previous/next snapshot · Space: play/pause",
    "F12: screenshot",
];

fn hover_tooltip(
    mut contexts: EguiContexts,
    selection: Res<Selection>,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let (Some(target), Some(pos)) = (selection.hovered, ctx.pointer_hover_pos()) else { return Ok(()) };
    egui::Area::new(egui::Id::new("memcity_hover"))
        .fixed_pos(pos + egui::vec2(16.0, 16.0))
        .order(egui::Order::Tooltip)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                for line in describe(&model, &cursor, target.group()) {
                    ui.label(line);
                }
            });
        });
    Ok(())
}

/// Names over the strongest growers, skipping any that would overlap one already placed.
fn labels(
    mut contexts: EguiContexts,
    options: Res<ViewOptions>,
    model: Res<CityModel>,
    frame: Res<DisplayedFrame>,
    cameras: Query<(&Camera, &GlobalTransform), With<CityCamera>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let Ok((camera, transform)) = cameras.single() else { return Ok(()) };
    if !options.labels || frame.frame.states.len() != model.layout.buildings.len() {
        return Ok(());
    }
    let layout = &model.layout;
    let growth = model.timeline.growth.get(layout.settings.metric);
    let mut top: Vec<usize> =
        (0..layout.buildings.len()).filter(|&b| growth[layout.buildings[b].group as usize] > 0).collect();
    top.sort_by_key(|&b| std::cmp::Reverse(growth[layout.buildings[b].group as usize]));
    let painter = ctx.layer_painter(egui::LayerId::background());
    let mut placed: Vec<egui::Rect> = Vec::new();
    for &b in top.iter().take(12) {
        let (building, state) = (&layout.buildings[b], frame.frame.states[b]);
        if !memcity_layout::frame::visible(state) {
            continue;
        }
        let (x, z) = building.cell.center();
        let roof = Vec3::new(
            x as f32,
            (building.base + memcity_layout::frame::height(building, state)) as f32,
            z as f32,
        );
        let Ok(screen) = camera.world_to_viewport(transform, roof) else { continue };
        let name = &model.timeline.groups[building.group as usize].name;
        let galley =
            painter.layout_no_wrap(name.clone(), egui::FontId::proportional(13.0), egui::Color32::WHITE);
        let size = galley.size() + egui::vec2(8.0, 4.0);
        let rect = egui::Rect::from_center_size(egui::pos2(screen.x, screen.y - size.y), size);
        if placed.iter().any(|p| p.intersects(rect)) {
            continue;
        }
        painter.rect_filled(rect, 3.0, egui::Color32::from_black_alpha(170));
        painter.galley(rect.min + egui::vec2(4.0, 2.0), galley, egui::Color32::WHITE);
        placed.push(rect);
    }
    Ok(())
}
