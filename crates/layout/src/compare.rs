//! Two runs in one city (docs/design.md, "Comparing two runs"). A pair history
//! (`memcity_model::compare`) has the same tree on both sides; here each group and its twin on the
//! other side get the larger of their two max values, so both sides are laid out alike — two
//! cities with every building at the same place — or only the after side is laid out and coloured
//! by its difference to the before side at the same time.

use memcity_model::compare::{SIDES, side_key, split_key};
use memcity_model::{Metric, Timeline};

use crate::city::NONE;

/// How a pair of runs is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompareView {
    /// Two cities on one ground, before on one side and after on the other.
    #[default]
    Sides,
    /// One city, the after run, coloured by how much more each group has than before.
    Difference,
}

impl std::str::FromStr for CompareView {
    type Err = String;
    fn from_str(s: &str) -> Result<CompareView, String> {
        match s {
            "sides" => Ok(CompareView::Sides),
            "difference" => Ok(CompareView::Difference),
            _ => Err(format!("unknown compare view \"{s}\" (expected sides or difference)")),
        }
    }
}

/// Per group of a pair, its twin on the other side (`NONE` for the root and where none);
/// `None` when `timeline` is not a pair.
pub fn twins(timeline: &Timeline) -> Option<Vec<u32>> {
    if SIDES.iter().any(|key| timeline.group(key).is_none()) {
        return None;
    }
    Some((0..timeline.groups.len() as u32).map(|g| twin_of(timeline, g).unwrap_or(NONE)).collect())
}

/// The twin of one group of a pair on the other side (the side districts twin each other);
/// `None` for the root, a group without one and groups of other histories.
pub fn twin_of(timeline: &Timeline, group: u32) -> Option<u32> {
    let key = &timeline.groups.get(group as usize)?.key;
    match split_key(key) {
        Some((side, key)) => timeline.group(&side_key(1 - side, key)),
        None => SIDES.iter().position(|s| s == key).and_then(|side| timeline.group(SIDES[1 - side])),
    }
}

/// The side (0 before, 1 after) a group of a pair belongs to; `None` for the root and groups
/// of other histories.
pub fn side_of(timeline: &Timeline, group: u32) -> Option<usize> {
    let key = &timeline.groups.get(group as usize)?.key;
    split_key(key).map(|(side, _)| side).or_else(|| SIDES.iter().position(|s| s == key))
}

/// The max tree with each group at the larger of its own and its twin's max.
pub fn shared_max(timeline: &Timeline, twins: &[u32], metric: Metric) -> Vec<u64> {
    let max = timeline.max.get(metric);
    max.iter()
        .zip(twins)
        .map(|(&own, &twin)| if twin == NONE { own } else { own.max(max[twin as usize]) })
        .collect()
}

/// Sort positions for the tree views of a pair: a group and its twin sorted by what they have
/// together, so both sides show their groups in the same order.
pub fn shared_order(
    timeline: &Timeline,
    twins: &[u32],
    metric: Metric,
    by: crate::partition::SortBy,
    from: usize,
    to: usize,
) -> Vec<u32> {
    let value = crate::partition::sort_value(timeline, metric, by, from, to);
    crate::partition::sort_order_by(timeline, |g| {
        let twin = twins.get(g as usize).copied().unwrap_or(NONE);
        value(g) + if twin == NONE { 0 } else { value(twin) }
    })
}

/// The after side's district, the only one a difference city shows.
pub fn after_side(timeline: &Timeline) -> Option<u32> {
    timeline.group(SIDES[1])
}

#[cfg(test)]
mod tests;
