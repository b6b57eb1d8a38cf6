//! A group in words: its name, path, size, growth and share of the heap at the current
//! snapshot. Shared by the Selection pane and the hover tooltip.

use crate::app::model::CityModel;
use crate::app::names::GroupNames;

/// The group's unique name, then its full path and figures, one line each.
pub fn describe(model: &CityModel, names: &GroupNames, snapshot: usize, group: u32) -> Vec<String> {
    let t = &model.timeline;
    let (s, g) = (snapshot.min(t.snapshot_count().saturating_sub(1)), group as usize);
    let metric_names = &model.history.metric_names;
    let (objects, bytes) = (t.values[s].objects[g], t.values[s].bytes[g]);
    let grown_o = objects as i64 - t.values[0].objects[g] as i64;
    let grown_b = bytes as i64 - t.values[0].bytes[g] as i64;
    let heap = t.values[s].bytes[0].max(1);
    let mut lines = vec![
        names.get(group).to_string(),
        t.path_label(group),
        // One line for size and share: the panes that show it keep their entries in view.
        format!(
            "{}: {objects}   {}: {bytes} ({:.1}% of the heap)",
            metric_names.objects,
            metric_names.bytes,
            100.0 * bytes as f64 / heap as f64
        ),
        format!(
            "growth since the first snapshot: {grown_o:+} {}, {grown_b:+} {}",
            metric_names.objects, metric_names.bytes
        ),
    ];
    if let Some(r) = t.retained[s].get(&group) {
        lines.push(format!("retained (what its objects dominate): {r} bytes"));
    }
    lines
}
