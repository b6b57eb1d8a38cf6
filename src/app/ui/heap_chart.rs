//! The heap over time as a line chart with the detected windows (leak, fastest growth, GC
//! overhead, churn) in bands behind it: drawn by the Timeline tab and by the Tree tab's
//! timeline of small multiples, so both read the same.

use bevy_egui::egui;
use memcity_analysis::windows::{Window, WindowKind};

use crate::app::model::CityModel;

/// Where a chart of `count` snapshots lies: snapshot `i` at `x(i)`, value `v` of `max` at `y(v)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeapChart {
    pub rect: egui::Rect,
    pub count: usize,
    pub max: f32,
}

impl HeapChart {
    pub fn new(rect: egui::Rect, totals: &[f32]) -> HeapChart {
        HeapChart { rect, count: totals.len(), max: totals.iter().copied().fold(1.0, f32::max) }
    }

    pub fn x(&self, i: usize) -> f32 {
        self.rect.left() + self.rect.width() * i as f32 / (self.count.max(2) - 1) as f32
    }

    pub fn y(&self, v: f32) -> f32 {
        self.rect.bottom() - 4.0 - (self.rect.height() - 8.0) * v / self.max
    }

    /// The snapshot nearest to `x`.
    pub fn snapshot_at(&self, x: f32) -> usize {
        let i = ((x - self.rect.left()) / self.rect.width() * (self.count.max(2) - 1) as f32).round();
        (i.max(0.0) as usize).min(self.count.saturating_sub(1))
    }
}

/// The heap's total per snapshot in the city's metric.
pub fn heap_totals(model: &CityModel, metric: memcity_model::Metric) -> Vec<f32> {
    model.timeline.values.iter().map(|v| v.get(metric)[0] as f32).collect()
}

/// Draws the background, one band per window (so overlapping ones stay legible), the heap's
/// line and the current snapshot's marker; returns the window under `hover`.
pub fn draw_heap_chart<'w>(
    painter: &egui::Painter,
    chart: &HeapChart,
    totals: &[f32],
    windows: &'w [Window],
    current: usize,
    hover: Option<egui::Pos2>,
) -> Option<&'w Window> {
    let r = chart.rect;
    painter.rect_filled(r, 2.0, egui::Color32::from_gray(25));
    let mut hovered = None;
    for (i, w) in windows.iter().enumerate() {
        let band = r.height() / windows.len().max(1) as f32;
        let top = r.top() + band * i as f32;
        let span = egui::Rect::from_x_y_ranges(
            chart.x(w.first)..=chart.x(w.last).max(chart.x(w.first) + 2.0),
            top..=top + band,
        );
        painter.rect_filled(span, 0.0, window_color(w.kind).gamma_multiply(0.35));
        if hover.is_some_and(|p| span.contains(p)) {
            hovered = Some(w);
        }
    }
    let points: Vec<egui::Pos2> =
        totals.iter().enumerate().map(|(i, &v)| egui::pos2(chart.x(i), chart.y(v))).collect();
    painter.add(egui::Shape::line(points, egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 150, 40))));
    painter.line_segment(
        [egui::pos2(chart.x(current), r.top()), egui::pos2(chart.x(current), r.bottom())],
        egui::Stroke::new(1.5, egui::Color32::WHITE),
    );
    hovered
}

/// The windows' names in their colours, for a legend.
pub fn window_legend(ui: &mut egui::Ui, windows: &[Window]) {
    for w in windows {
        ui.small(egui::RichText::new(format!("■ {}", w.kind.label())).color(window_color(w.kind)));
    }
}

/// A detected window in words, its score in its own unit.
pub fn window_text(model: &CityModel, w: &Window) -> String {
    let label = |i: usize| model.history.snapshots.get(i).map(|s| s.display_label()).unwrap_or_default();
    let score = match w.kind {
        WindowKind::GcOverhead => format!("{:.0}% of the time in GC", 100.0 * w.score),
        WindowKind::Churn => format!("frees {}/s", bytes(w.score)),
        _ => format!("grows {}/s", bytes(w.score)),
    };
    format!(
        "{}: snapshots {}..{} ({} .. {}), {score}",
        w.kind.label(),
        w.first,
        w.last,
        label(w.first),
        label(w.last)
    )
}

/// Bytes with a binary unit, one decimal.
fn bytes(n: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{value:.0} {}", units[0]) } else { format!("{value:.1} {}", units[unit]) }
}

pub fn window_color(kind: WindowKind) -> egui::Color32 {
    match kind {
        WindowKind::Leak | WindowKind::LeakRegression => egui::Color32::from_rgb(235, 70, 50),
        WindowKind::FastestGrowth => egui::Color32::from_rgb(255, 160, 40),
        WindowKind::GcOverhead => egui::Color32::from_rgb(120, 170, 255),
        WindowKind::Churn => egui::Color32::from_rgb(190, 120, 255),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_scores_read_in_their_units_without_stray_decimals() {
        let model = CityModel::new(crate::input::load("scenario:churn").unwrap(), &Default::default());
        let texts: Vec<String> = model.windows.iter().map(|w| window_text(&model, w)).collect();
        assert!(!texts.is_empty());
        for t in &texts {
            assert!(t.contains("/s") || t.contains("% of the time in GC"), "{t}");
            assert!(!t.contains("score"), "{t}");
        }
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.5 KiB");
    }

    #[test]
    fn snapshots_sit_evenly_from_the_left_edge_to_the_right_and_clicks_round_to_the_nearest() {
        let rect = egui::Rect::from_min_size(egui::pos2(10.0, 0.0), egui::vec2(100.0, 50.0));
        let chart = HeapChart::new(rect, &[1.0, 4.0, 2.0, 3.0, 0.0]);
        assert_eq!((chart.x(0), chart.x(4)), (10.0, 110.0));
        assert_eq!(chart.snapshot_at(36.0), 1);
        assert_eq!(chart.snapshot_at(-50.0), 0);
        assert_eq!(chart.snapshot_at(500.0), 4);
        assert_eq!(chart.y(4.0), 4.0, "the largest value at the top, inside the margin");
    }
}
