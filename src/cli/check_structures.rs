//! The data structures' part of `memcity check` (docs/ci.md): every snapshot's structures
//! measured (retained size alone: the cheapest metric, and the one that says what freeing the
//! structure would free), each instance followed by identity over the run and judged by the
//! rule groups are judged by ([`grew_past`]). Heap dumps are measured in the import's own read
//! ([`load`]); other inputs are read again ([`findings`]).

use std::path::Path;

use anyhow::Result;
use memcity_analysis::check::{Grew, Limits, grew_past};
use memcity_hprof::Layout;
use memcity_model::History;
use memcity_structures::unbounded::{entry_counts, unbounded_cache};
use memcity_structures::{Cause, Options, RetainedSeries, causes_at_paths, heads_retained, measure_with};

use crate::input::{Snapshots, carries_objects, dump_paths, each_typed_heap, is_heap_dumps};

/// The run's history and, for a series of heap dumps whose structures are wanted (`limits`
/// given), each dump's structures measured in the same read: the import's dominator tree
/// gives their retained sizes, and only those that could be findings are named. Other inputs
/// have theirs measured by [`findings`] in a read of their own.
pub fn load(specs: &[String], limits: Option<Limits>) -> Result<(History, Option<RetainedSeries>)> {
    let dumps = specs.iter().all(|s| is_heap_dumps(Path::new(s)));
    let Some(limits) = limits.filter(|_| dumps && !specs.is_empty()) else {
        return Ok((crate::input::load_all(specs, &memcity_heapgraph::Silent)?, None));
    };
    for spec in specs {
        crate::cli::paths::check_input(Path::new(spec))?;
    }
    let paths = dump_paths(specs)?;
    // With fewer steps than a finding must grow in, none can be one: nothing to measure.
    if memcity_hprof::source::expand(&paths)?.len().saturating_sub(1) < limits.min_steps {
        return Ok((crate::input::load_all(specs, &memcity_heapgraph::Silent)?, None));
    }
    let descriptions = memcity_structures::builtin();
    let inspect = move |heap: &memcity_heapgraph::TypedHeap, retained: &(dyn Fn() -> Vec<u64> + Sync)| {
        heads_retained(heap, &descriptions, retained, limits.max_growth_bytes)
    };
    let (history, heaps) = memcity_hprof::import_inspecting(
        &paths,
        &crate::input::hprof_options(),
        &memcity_heapgraph::Silent,
        &inspect,
    )?;
    let mut series = RetainedSeries::default();
    for heads in &heaps {
        series.push_heads(heads);
    }
    Ok((history, Some(series)))
}

/// One data structure that grew past the limits.
pub struct StructureFinding {
    pub type_name: String,
    /// Its root path, which names what holds it (`static app.Registry.people`).
    pub path: String,
    pub grew: Grew,
    /// Why it grows, where memcity can tell (docs/objects.md, "Causes").
    pub causes: Vec<Cause>,
}

impl StructureFinding {
    /// What a baseline knows it by: its type and path, which stay the same from one run of a
    /// program to the next (object ids do not).
    pub fn key(&self) -> String {
        format!("structure:{} {}", self.type_name, self.path)
    }
}

/// The structures of `specs` (a run of `snapshots` snapshots) that grew past `limits`, the
/// largest growth first; those whose type or path matches `ignored` are left out. Inputs that
/// carry groups, not objects, have none.
/// `measured` is what [`load`] measured already, if anything.
pub fn findings(
    specs: &[String],
    snapshots: usize,
    limits: Limits,
    ignored: &dyn Fn(&str) -> bool,
    measured: Option<RetainedSeries>,
) -> Result<Vec<StructureFinding>> {
    // With fewer steps than a finding must grow in, none can be one: nothing to read.
    if snapshots.saturating_sub(1) < limits.min_steps || !carries_objects(specs) {
        return Ok(Vec::new());
    }
    let series = match measured {
        Some(series) => series,
        None => {
            let descriptions = memcity_structures::builtin();
            let options = Options { deep: false, leaves: false };
            let mut series = RetainedSeries::default();
            each_typed_heap(specs, Snapshots::All, &Layout::default(), &mut |snapshot| {
                series.push(&measure_with(&snapshot.heap, &descriptions, options));
                Ok(())
            })?;
            series
        }
    };
    let heap_end = series.heap_bytes().last().copied().unwrap_or(0);
    let mut found: Vec<StructureFinding> = series
        .instances()
        .iter()
        .filter_map(|t| {
            // A finding retains more than --max-growth-bytes at the end, so its path is named.
            let grew = grew_past(&t.retained, heap_end, limits)?;
            if ignored(&t.type_name) || ignored(&t.path) {
                return None;
            }
            Some(StructureFinding {
                type_name: t.type_name.clone(),
                path: t.path.clone(),
                grew,
                causes: Vec::new(),
            })
        })
        .collect();
    let mut found = innermost(&mut found);
    add_causes(specs, &mut found)?;
    Ok(found)
}

/// The causes of the findings: `unbounded-cache` from each finding's entry count in every
/// snapshot (read once more), `duplicate-keys` from the last snapshot's values (read once
/// more: a dump's fields, elsewhere what the source knows, a value it does not know never
/// equal to another). Nothing is read where there is no finding.
fn add_causes(specs: &[String], found: &mut [StructureFinding]) -> Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    let paths: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
    let descriptions = memcity_structures::builtin();
    let mut counts = vec![Vec::new(); paths.len()];
    each_typed_heap(specs, Snapshots::All, &Layout::default(), &mut |s| {
        for (k, count) in entry_counts(&s.heap, &descriptions, &paths).into_iter().enumerate() {
            counts[k].push(count);
        }
        Ok(())
    })?;
    let end = crate::input::valued_snapshot(specs, None)?;
    let duplicates =
        end.with_values(|values| causes_at_paths(&end.snapshot.heap, &descriptions, values, &paths));
    for ((f, counts), duplicates) in found.iter_mut().zip(&counts).zip(duplicates) {
        f.causes = duplicates;
        f.causes.extend(unbounded_cache(&f.type_name, counts));
    }
    Ok(())
}

/// A structure's retained size includes those it holds: where a structure inside another
/// (its path goes on from the other's) grew by at least half as much, the inner one is what
/// grows and the outer one is left out.
fn innermost(found: &mut Vec<StructureFinding>) -> Vec<StructureFinding> {
    found.sort_by(|a, b| b.path.len().cmp(&a.path.len()).then_with(|| a.path.cmp(&b.path)));
    let mut kept: Vec<StructureFinding> = Vec::new();
    for f in found.drain(..) {
        let inside = |k: &StructureFinding| {
            k.path.len() > f.path.len()
                && k.path.starts_with(&f.path)
                && k.path[f.path.len()..].starts_with(' ')
                && 2 * k.grew.growth_bytes >= f.grew.growth_bytes
        };
        if !kept.iter().any(inside) {
            kept.push(f);
        }
    }
    kept.sort_by(|a, b| b.grew.growth_bytes.cmp(&a.grew.growth_bytes).then_with(|| a.path.cmp(&b.path)));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, growth: i64) -> StructureFinding {
        let grew = Grew { growth_bytes: growth, growth_per_step: 0.0, retained_bytes: 0, steps_grown: 3 };
        StructureFinding {
            type_name: "java.util.HashMap".into(),
            path: path.into(),
            grew,
            causes: Vec::new(),
        }
    }

    /// What a series of dumps shows when measured in the import's read is what a read of its
    /// own with every instance named shows: the same structures, paths and sizes.
    #[test]
    fn dumps_measured_in_the_import_read_find_what_a_read_of_their_own_finds() {
        let specs = [concat!(env!("CARGO_MANIFEST_DIR"), "/data/hprof").to_string()];
        let limits = Limits { max_growth_bytes: 100, max_growth_percent: 0.0, min_steps: 1 };
        let (history, measured) = load(&specs, Some(limits)).unwrap();
        assert!(measured.is_some(), "dumps are measured in the import");
        let n = history.snapshots.len();
        let shown = |found: Vec<StructureFinding>| -> Vec<(String, String, i64, u64)> {
            found
                .into_iter()
                .map(|f| (f.type_name, f.path, f.grew.growth_bytes, f.grew.retained_bytes))
                .collect()
        };
        let shared = shown(findings(&specs, n, limits, &|_| false, measured).unwrap());
        let own = shown(findings(&specs, n, limits, &|_| false, None).unwrap());
        assert!(
            shared.iter().any(|(t, p, _, _)| t == "java.util.LinkedList" && p.contains("LeakApp")),
            "{shared:?}"
        );
        assert_eq!(shared, own);
    }

    #[test]
    fn a_structure_inside_a_growing_one_stands_for_it() {
        let mut found = vec![
            finding("static A.sessions", 1000),
            finding("static A.sessions [3] .value", 900),
            finding("static A.sessionsOld", 5000),
            finding("static B.cache", 800),
            finding("static B.cache .small", 100),
        ];
        let kept: Vec<String> = innermost(&mut found).into_iter().map(|f| f.path).collect();
        // The inner map took the outer's place; a small inner one does not; a path that only
        // starts with the same letters is no inner one.
        assert_eq!(
            kept,
            [
                "static A.sessionsOld",
                "static A.sessions [3] .value",
                "static B.cache",
                "static B.cache .small"
            ]
        );
    }
}
