//! The rules a history must follow before the city uses it (docs/design.md, "Data model").

use std::collections::HashMap;

use crate::error::LoadError;
use crate::history::{History, Node, PointerMap, Snapshot};

/// Checks a whole history. `source(i)` names the file snapshot `i` came from and `path(i)` the
/// JSON path prefix of that snapshot inside it, so errors point at the right place.
pub fn validate_history(
    history: &History,
    source: &dyn Fn(usize) -> String,
    path: &dyn Fn(usize) -> String,
) -> Result<(), LoadError> {
    if history.snapshots.is_empty() {
        return Err(LoadError::new(source(0), "empty history: it has no snapshots"));
    }
    // key -> (parent key, snapshot where first seen), across snapshots.
    let mut parents: HashMap<&str, (Option<&str>, usize)> = HashMap::new();
    let root_key = &history.snapshots[0].tree.key;
    for (i, snapshot) in history.snapshots.iter().enumerate() {
        let error = |(p, m): (String, String)| LoadError::new(source(i), m).in_snapshot(i).at(p);
        let fail = |p: String, m: String| Err(error((p, m)));
        let prefix = path(i);
        if snapshot.tree.key != *root_key {
            return fail(
                join(&prefix, "tree.key"),
                format!(
                    "root key \"{}\" differs from snapshot 0's root key \"{root_key}\"",
                    snapshot.tree.key
                ),
            );
        }
        let tree_path = join(&prefix, "tree");
        let keys = check_tree(&snapshot.tree, &tree_path).map_err(error)?;
        for (key, (parent, _)) in &keys {
            match parents.get(key) {
                Some((earlier, j)) if earlier != parent => {
                    return fail(
                        json_path(&keys, key, &tree_path),
                        format!(
                            "key \"{key}\" has parent {} here but parent {} in snapshot {j}",
                            show(*parent),
                            show(*earlier)
                        ),
                    );
                }
                Some(_) => {}
                // Only later snapshots look keys up: the last one's need not be kept (for a
                // one-snapshot history that halves the memory validation takes).
                None if i + 1 < history.snapshots.len() => {
                    parents.insert(key, (*parent, i));
                }
                None => {}
            }
        }
        check_pointer_keys(&snapshot.points_to, &keys, &join(&prefix, "points_to")).map_err(error)?;
        check_pointer_keys(&snapshot.pointed_from, &keys, &join(&prefix, "pointed_from")).map_err(error)?;
        check_retainers(snapshot, &keys, &join(&prefix, "retainers")).map_err(error)?;
        if i > 0 && snapshot.time_ms < history.snapshots[i - 1].time_ms {
            return fail(
                join(&prefix, "time_ms"),
                format!(
                    "snapshots must be ordered by time: {} ms comes after {} ms",
                    snapshot.time_ms,
                    history.snapshots[i - 1].time_ms
                ),
            );
        }
    }
    Ok(())
}

/// `prefix.rest`, or `rest` at the top of a file.
fn join(prefix: &str, rest: &str) -> String {
    if prefix.is_empty() { rest.to_string() } else { format!("{prefix}.{rest}") }
}

fn show(parent: Option<&str>) -> String {
    parent.map_or("(none: it is the root)".to_string(), |p| format!("\"{p}\""))
}

/// key -> (parent key, index among the parent's children); the JSON path is spelled out only
/// for errors, by following parents up (a path per node would be quadratic in a deep tree).
type KeyTable<'a> = HashMap<&'a str, (Option<&'a str>, u32)>;

/// `root_path.children[i].children[j]…` of the node with `key`.
fn json_path(keys: &KeyTable<'_>, key: &str, root_path: &str) -> String {
    let mut indices = Vec::new();
    let mut at = key;
    while let Some(&(Some(parent), i)) = keys.get(at) {
        indices.push(i);
        at = parent;
    }
    let mut out = root_path.to_string();
    for i in indices.iter().rev() {
        out.push_str(&format!(".children[{i}]"));
    }
    out
}

/// Returns every key of the tree with its parent key and position; rejects duplicates and empty
/// keys. Iterative: trees may be deep.
fn check_tree<'a>(root: &'a Node, root_path: &str) -> Result<KeyTable<'a>, (String, String)> {
    let mut keys: KeyTable<'a> = HashMap::new();
    // (node, parent, index in parent); a node's path is known once its parent is in `keys`.
    let mut stack: Vec<(&'a Node, Option<&'a Node>, u32)> = vec![(root, None, 0)];
    while let Some((node, parent, index)) = stack.pop() {
        let here = || {
            let parent_path = parent.map_or(root_path.to_string(), |p| json_path(&keys, &p.key, root_path));
            if parent.is_some() { format!("{parent_path}.children[{index}]") } else { parent_path }
        };
        if node.key.is_empty() {
            return Err((format!("{}.key", here()), "empty key".into()));
        }
        if keys.contains_key(node.key.as_str()) {
            let other = json_path(&keys, &node.key, root_path);
            return Err((
                format!("{}.key", here()),
                format!("duplicate key \"{}\" (also at {other})", node.key),
            ));
        }
        keys.insert(&node.key, (parent.map(|p| p.key.as_str()), index));
        for (c, child) in node.children.iter().enumerate().rev() {
            stack.push((child, Some(node), c as u32));
        }
    }
    Ok(keys)
}

fn check_pointer_keys(map: &PointerMap, keys: &KeyTable<'_>, path: &str) -> Result<(), (String, String)> {
    for (from, targets) in map {
        if !keys.contains_key(from.as_str()) {
            return Err((
                format!("{path}[\"{from}\"]"),
                format!("pointer-map key \"{from}\" names no node of this snapshot"),
            ));
        }
        for to in targets.keys() {
            if !keys.contains_key(to.as_str()) {
                return Err((
                    format!("{path}[\"{from}\"][\"{to}\"]"),
                    format!("pointer-map key \"{to}\" names no node of this snapshot"),
                ));
            }
        }
    }
    Ok(())
}

/// A retainer path starts at its own group and names only leaves of its snapshot, each holding
/// no more objects than the leaf has.
fn check_retainers(snapshot: &Snapshot, keys: &KeyTable<'_>, path: &str) -> Result<(), (String, String)> {
    let mut leaves: HashMap<&str, &Node> = HashMap::new();
    snapshot.tree.walk(&mut |n, _| {
        if n.is_leaf() {
            leaves.insert(&n.key, n);
        }
    });
    for (key, retainer) in &snapshot.retainers {
        let at = format!("{path}[\"{key}\"]");
        match retainer.steps.first() {
            None => return Err((format!("{at}.steps"), "a retainer path needs at least one step".into())),
            Some(first) if first.key != *key => {
                return Err((
                    format!("{at}.steps[0].key"),
                    format!("a retainer path starts at its own group \"{key}\", not \"{}\"", first.key),
                ));
            }
            Some(_) => {}
        }
        for (i, step) in retainer.steps.iter().enumerate() {
            let step_at = format!("{at}.steps[{i}]");
            let Some(leaf) = leaves.get(step.key.as_str()) else {
                let what =
                    if keys.contains_key(step.key.as_str()) { "a district, not a leaf" } else { "no node" };
                return Err((
                    format!("{step_at}.key"),
                    format!("retainer-path key \"{}\" names {what} of this snapshot", step.key),
                ));
            };
            if step.objects > leaf.objects || step.bytes > leaf.bytes {
                return Err((
                    step_at,
                    format!(
                        "retainer-path step \"{}\" holds {} objects ({} bytes) but the group has only {} ({} bytes)",
                        step.key, step.objects, step.bytes, leaf.objects, leaf.bytes
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Convenience for a history read from one memcity/1 file.
pub fn validate_file_history(history: &History, file: &str) -> Result<(), LoadError> {
    validate_history(history, &|_| file.to_string(), &|i| format!("snapshots[{i}]"))
}

/// Checks one snapshot as an addition to an existing (valid) history: the same rules as if the
/// history had it appended.
pub fn validate_append(history: &History, snapshot: &Snapshot, source: &str) -> Result<(), LoadError> {
    let mut extended = History {
        format: history.format.clone(),
        metric_names: history.metric_names.clone(),
        snapshots: Vec::with_capacity(history.snapshots.len() + 1),
    };
    extended.snapshots.extend(history.snapshots.iter().cloned());
    extended.snapshots.push(snapshot.clone());
    let n = history.snapshots.len();
    validate_history(&extended, &|_| source.to_string(), &|i| {
        if i == n { "snapshot".to_string() } else { format!("snapshots[{i}]") }
    })
}
