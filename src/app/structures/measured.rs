//! What the Data structures tab shows of one window, taken from the analysis on its own thread:
//! plain rows (no heap is kept), and which of the city's groups hold a picked instance.

use memcity_heapgraph::Classifier;
use memcity_model::Timeline;
use memcity_structures::{Cause, Descriptions, LeafChange, SortBy, Status, listed_causes, may_have_causes};

/// The instances a tab shows: the paper's "ten strongest".
pub const SHOWN: usize = 10;

/// What the user asked for: the metric to rank by and the window (`None`: first / last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub by: SortBy,
    pub from: Option<usize>,
    pub to: Option<usize>,
}

impl Default for Request {
    fn default() -> Request {
        Request { by: SortBy::Retained, from: None, to: None }
    }
}

/// One surviving instance over the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub type_name: String,
    /// Its reference path from a GC root in field names: what names it for a person.
    pub path: String,
    pub site: Option<String>,
    /// Heap growth portion of retained, deep, structure and deep-structure growth, in %.
    pub hgp: [Option<f64>; 4],
    /// The same growths in bytes.
    pub growth: [i64; 4],
    pub pattern: &'static str,
    /// Its objects (deep structure) and retained bytes at the window's start and end.
    pub objects: (u64, u64),
    pub retained: (u64, u64),
    pub leaves: Vec<LeafChange>,
    /// The types of everything it holds at the end (its parts and leaves), sorted.
    pub types: Vec<String>,
    /// How many objects of each of `types` it holds there.
    pub held: Vec<u64>,
    /// Why it grows, where memcity can tell (`duplicate-keys`).
    pub causes: Vec<Cause>,
}

/// One window, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub from: usize,
    pub to: usize,
    pub heap_growth: i64,
    pub survived: usize,
    pub appeared: usize,
    pub died: usize,
    /// The strongest survivors, ranked.
    pub rows: Vec<Row>,
    /// The groups (keys) whose growth a growing row holds, each with that row: what the leak
    /// suspects fold into (measured only when asked, for the whole history).
    pub folds: Vec<(String, usize)>,
}

/// Reads the input's heaps at the window's ends and measures them: the job the tab runs on a
/// thread of its own (inputs are read again, so the city's memory holds no heap). Where a
/// survivor grew, the window's end is read once more with its values for the causes (as
/// `memcity structures` does), after the two heaps are gone. `groups`: the leaf groups (keys)
/// to fold under the growing rows, as `memcity check` folds its findings.
pub fn measure(
    specs: &[String],
    request: Request,
    descriptions: &Descriptions,
    groups: &[String],
) -> anyhow::Result<Measured> {
    let mut heaps = crate::input::typed_heaps(specs, request.from, request.to)?.into_iter();
    let first = heaps.next().ok_or_else(|| anyhow::anyhow!("no heap in the window"))?;
    let last = heaps.next();
    let report = memcity_structures::report(&first, last.as_ref(), descriptions, request.by, SHOWN);
    let end_heap = last.as_ref().map_or(&first.heap, |l| &l.heap);
    let survivors: Vec<_> = report.survivors().collect();
    let heads: Vec<u32> = survivors.iter().map(|i| report.instance(i).head).collect();
    let types = memcity_structures::objects_held(end_heap, descriptions, &heads);
    let mut rows: Vec<Row> = survivors
        .iter()
        .zip(types)
        .filter_map(|(i, types)| {
            let (g, start, end) = (i.growth.as_ref()?, report.at_start(i)?, report.at_end(i)?);
            Some(Row {
                type_name: end.type_name.clone(),
                path: end.path.clone(),
                site: end.site.clone(),
                hgp: g.hgp,
                growth: [g.retained.bytes, g.deep.bytes, g.structure.bytes, g.deep_structure.bytes],
                pattern: g.pattern.name(),
                objects: (start.measure.deep_structure.objects, end.measure.deep_structure.objects),
                retained: (start.measure.retained.bytes, end.measure.retained.bytes),
                leaves: i.leaves.clone(),
                held: types.iter().map(|&(_, n)| n).collect(),
                types: types.into_iter().map(|(t, _)| t).collect(),
                causes: Vec::new(),
            })
        })
        .collect();
    drop((first, last));
    add_causes(specs, &report, descriptions, &mut rows)?;
    let folds = folds(specs, &rows, groups)?;
    Ok(Measured {
        from: report.from,
        to: report.to,
        heap_growth: report.window.heap_growth,
        survived: report.count(Status::Survived),
        appeared: report.count(Status::Appeared),
        died: report.count(Status::Died),
        rows,
        folds,
    })
}

/// Which growing row holds most of each group's growth (one home: `memcity check`'s fold).
fn folds(specs: &[String], rows: &[Row], groups: &[String]) -> anyhow::Result<Vec<(String, usize)>> {
    let growing: Vec<usize> = (0..rows.len()).filter(|&r| rows[r].growth[0] > 0).collect();
    if growing.is_empty() || groups.is_empty() {
        return Ok(Vec::new());
    }
    let paths: Vec<String> = growing.iter().map(|&r| rows[r].path.clone()).collect();
    let into = crate::input::fold::fold(specs, &paths, groups)?;
    Ok(groups.iter().zip(into).filter_map(|(key, k)| Some((key.clone(), growing[k?]))).collect())
}

/// Each row's causes, by its path among the report's listed instances.
fn add_causes(
    specs: &[String],
    report: &memcity_structures::Report,
    descriptions: &Descriptions,
    rows: &mut [Row],
) -> anyhow::Result<()> {
    if !may_have_causes(report) {
        return Ok(());
    }
    let end = crate::input::valued_snapshot(specs, Some(report.to))?;
    let causes = end.with_values(|values| listed_causes(report, &end.snapshot.heap, descriptions, values));
    for (i, causes) in report.listed().into_iter().zip(causes).filter(|(_, c)| !c.is_empty()) {
        let Some(path) = report.at_end(i).map(|m| &m.path) else { continue };
        if let Some(row) = rows.iter_mut().find(|r| &r.path == path) {
            row.causes = causes;
        }
    }
    Ok(())
}

/// The instances that hold objects of `type_name`, the most first: (row, objects held). What
/// a selected group's panes name as where its objects are kept.
pub fn holders_of(measured: &Measured, type_name: &str) -> Vec<(usize, u64)> {
    let mut holders: Vec<(usize, u64)> = measured
        .rows
        .iter()
        .enumerate()
        .filter_map(|(row, r)| {
            Some((row, r.held[r.types.binary_search_by(|t| t.as_str().cmp(type_name)).ok()?]))
        })
        .collect();
    holders.sort_by_key(|&(row, n)| (std::cmp::Reverse(n), row));
    holders
}

/// The type a group's objects are of: the group itself or its nearest Type ancestor.
pub fn type_of_group(timeline: &Timeline, group: u32) -> Option<&str> {
    let mut at = Some(group);
    while let Some(g) = at {
        let node = timeline.groups.get(g as usize)?;
        if node.role == Classifier::Type.role() {
            return Some(&node.name);
        }
        at = node.parent;
    }
    None
}

/// Per group of the city, whether it holds objects of one of `types`: a group of one of these
/// types (a Type level) and every group below it.
pub fn groups_of_types(timeline: &Timeline, types: &[String]) -> Vec<bool> {
    let direct: Vec<bool> = timeline
        .groups
        .iter()
        .map(|g| g.role == Classifier::Type.role() && types.binary_search(&g.name).is_ok())
        .collect();
    (0..timeline.groups.len())
        .map(|g| {
            let mut at = Some(g as u32);
            while let Some(i) = at {
                if direct[i as usize] {
                    return true;
                }
                at = timeline.groups[i as usize].parent;
            }
            false
        })
        .collect()
}

/// The group that stands for an instance in the city: the group of its head's type, or below
/// it the group of the head's allocation site where the city splits the type by site.
pub fn head_group(timeline: &Timeline, type_name: &str, site: Option<&str>) -> Option<u32> {
    let of_type =
        timeline.groups.iter().position(|g| g.role == Classifier::Type.role() && g.name == type_name)? as u32;
    let below: Vec<u32> = (0..timeline.groups.len() as u32)
        .filter(|&g| timeline.groups[g as usize].parent == Some(of_type))
        .collect();
    let named = |g: &&u32| site.is_some_and(|s| timeline.groups[**g as usize].name == s);
    Some(below.iter().find(named).or(below.first()).copied().unwrap_or(of_type))
}

#[cfg(test)]
mod tests;
