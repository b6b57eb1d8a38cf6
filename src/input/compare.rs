//! Two runs to compare (`memcity diff`, `memcity --compare BEFORE AFTER`, the Open pane): each
//! read as any input, then joined into one pair history (`memcity_model::compare`) that the app
//! lays out as one city.

use anyhow::{Result, bail};
use memcity_model::History;

/// One run, any input memcity reads, refused when it has no snapshot.
pub fn load_run(spec: &str) -> Result<History> {
    let history = super::load_all(&[spec.to_string()], &memcity_heapgraph::Silent)?;
    if history.snapshots.is_empty() {
        bail!("{spec}: the input has no snapshot");
    }
    Ok(history)
}

/// The pair of the two runs, each named by its input as given.
pub fn pair(before: &str, after: &str) -> Result<History> {
    let (a, b) = (load_run(before)?, load_run(after)?);
    if a.metric_names != b.metric_names {
        // Objects of one and instances of another are still counts: say so instead of refusing.
        shout!(
            "--compare: {before} counts {} and {}, {after} {} and {}; shown under the first names",
            a.metric_names.objects,
            a.metric_names.bytes,
            b.metric_names.objects,
            b.metric_names.bytes
        );
    }
    let sides = memcity_model::compare::SIDE_NAMES;
    let labels =
        [format!("{} · {}", sides[0], run_name(before)), format!("{} · {}", sides[1], run_name(after))];
    Ok(memcity_model::compare::pair(&a, &b, [&labels[0], &labels[1]]))
}

/// `--select KEY` with a pair: a key of the pair as it is, a run's own key on the after side.
pub fn select_key(pair: &History, key: String) -> String {
    let mut known = false;
    for snapshot in &pair.snapshots {
        snapshot.tree.walk(&mut |node, _| known |= node.key == key);
    }
    if known { key } else { memcity_model::compare::side_key(1, &key) }
}

/// A run's short name: its file or folder's name (`…/runs/after` → `after`), a scenario's name.
fn run_name(spec: &str) -> &str {
    let spec = spec.trim_end_matches('/');
    let name = spec.rsplit('/').next().unwrap_or(spec);
    name.strip_prefix("scenario:").unwrap_or(name)
}
