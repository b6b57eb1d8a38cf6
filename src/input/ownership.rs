//! Reading an input into an ownership series (docs/ownership.md): every snapshot's typed heap,
//! one at a time, becomes its ownership tree, paired with the previous one.

use anyhow::Result;
use memcity_hprof::Layout;
use memcity_ownership::Series;
use memcity_structures::Descriptions;

use super::{Snapshots, each_typed_heap};

/// Adds to `series` the snapshots of `specs` it does not have yet — all at first, a live
/// input's new ones later — and returns how many it added. No heap is kept.
pub fn extend_series(specs: &[String], series: &mut Series, descriptions: &Descriptions) -> Result<usize> {
    let first = series.snapshots().len();
    let mut added = 0;
    each_typed_heap(specs, Snapshots::From(first), &Layout::default(), &mut |snapshot| {
        series.push(&snapshot, descriptions);
        added += 1;
        Ok(())
    })?;
    Ok(added)
}
