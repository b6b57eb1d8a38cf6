//! One leak, one finding (docs/ci.md): a group whose growth a growing data structure retains
//! (at least 80 % of it, `memcity_structures::fold`) is that structure's detail, not a finding
//! of its own. The run's first and last snapshots are read once more, grouped as the input's
//! import groups them, and each group's dominated bytes are split into inside and outside each
//! structure's retained set.

use anyhow::Result;
use memcity_hprof::Layout;
use memcity_structures::fold::{dominated_inside, folds};
use memcity_structures::objects::leaf_groups;
use memcity_structures::{Options, measure_with};
use std::collections::HashMap as FxHashMap;

use super::{Snapshots, default_classifiers, each_typed_heap};

/// Per group key: `(dominated bytes, of them inside structure s)` for each structure s.
type Split = FxHashMap<String, Vec<(u64, u64)>>;

/// For each of `groups` (leaf group keys), the index among `structures` (root paths) of the
/// structure that folds it, if one does: the one holding the most of its growth. Inputs whose
/// default grouping typed heaps cannot reproduce, and whose keys do not end with the type,
/// fold nothing.
pub fn fold(specs: &[String], structures: &[String], groups: &[String]) -> Result<Vec<Option<usize>>> {
    if structures.is_empty() || groups.is_empty() {
        return Ok(vec![None; groups.len()]);
    }
    let mut classifiers = default_classifiers(specs);
    // A dump's import groups arrays by the JVM's names (`[B`, `[Ljava.lang.Object;`), its
    // typed heap by Java's (`byte[]`); a V8 snapshot's groups start with a node type typed
    // heaps do not know. Both are matched by the type their key ends with.
    let dumps = specs.iter().all(|s| super::is_heap_dumps(std::path::Path::new(s)));
    let node_types = memcity_structures::city::check(&classifiers).is_err()
        && classifiers.last() == Some(&memcity_heapgraph::Classifier::Type);
    if node_types {
        classifiers = vec![memcity_heapgraph::Classifier::Type];
    }
    let by_type = dumps || node_types;
    let mut typed_key: FxHashMap<String, String> = FxHashMap::new();
    let descriptions = memcity_structures::builtin();
    let mut ends: Vec<Split> = Vec::new();
    let mut unsupported = false;
    each_typed_heap(specs, Snapshots::Window { from: None, to: None }, &Layout::default(), &mut |mut s| {
        let Ok((grouper, leaves)) = leaf_groups(&s.heap, &classifiers) else {
            unsupported = true;
            return Ok(());
        };
        let measured = measure_with(&s.heap, &descriptions, Options { deep: false, leaves: false });
        let group_count = grouper.group_count();
        for (o, &leaf) in leaves.iter().enumerate().filter(|_| by_type) {
            let name = s.heap.objects.type_name(o as u32);
            if !typed_key.contains_key(name) {
                typed_key.insert(name.to_string(), grouper.leaf_key(leaf));
            }
        }
        s.heap.graph.group = leaves.into();
        let tree = s.heap.dominators();
        let mut split: Split = FxHashMap::new();
        for (k, path) in structures.iter().enumerate() {
            let head = measured.instances.iter().find(|m| &m.path == path).map_or(u32::MAX, |m| m.head);
            for (g, sizes) in
                dominated_inside(&s.heap.graph, &tree, group_count, head).into_iter().enumerate()
            {
                if sizes.0 > 0 {
                    let entry = split
                        .entry(grouper.leaf_key(g as u32))
                        .or_insert_with(|| vec![(0, 0); structures.len()]);
                    entry[k] = sizes;
                }
            }
        }
        ends.push(split);
        Ok(())
    })?;
    let (Some(start), Some(end), false) = (ends.first(), ends.last(), unsupported) else {
        return Ok(vec![None; groups.len()]);
    };
    let none = vec![(0, 0); structures.len()];
    let typed = |key: &String| -> String {
        let named = key.rsplit_once("#Type:").map(|(_, t)| t);
        let raw = named.map(|t| if dumps { memcity_hprof::typed::source_name(t) } else { t.to_string() });
        raw.and_then(|t| typed_key.get(&t).cloned()).unwrap_or_else(|| key.clone())
    };
    Ok(groups
        .iter()
        .map(|key| if by_type { typed(key) } else { key.clone() })
        .map(|key| {
            let (a, b) = (start.get(&key).unwrap_or(&none), end.get(&key).unwrap_or(&none));
            (0..structures.len())
                .filter(|&k| folds(a[k], b[k]))
                .max_by_key(|&k| b[k].1 as i64 - a[k].1 as i64)
        })
        .collect())
}
