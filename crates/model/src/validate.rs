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
        for (key, (parent, node_path)) in &keys {
            match parents.get(key) {
                Some((earlier, j)) if earlier != parent => {
                    return fail(
                        node_path.json(&tree_path),
                        format!(
                            "key \"{key}\" has parent {} here but parent {} in snapshot {j}",
                            show(*parent),
                            show(*earlier)
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    parents.insert(key, (*parent, i));
                }
            }
        }
        check_pointer_keys(&snapshot.points_to, &keys, &join(&prefix, "points_to")).map_err(error)?;
        check_pointer_keys(&snapshot.pointed_from, &keys, &join(&prefix, "pointed_from")).map_err(error)?;
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

/// key -> (parent key, index path from the root); the JSON path is spelled out only for errors.
type KeyTable<'a> = HashMap<&'a str, (Option<&'a str>, NodePath)>;

/// Child indices from the root to a node.
#[derive(Clone, Debug, Default)]
struct NodePath(Vec<u32>);

impl NodePath {
    fn json(&self, root_path: &str) -> String {
        let mut out = root_path.to_string();
        for i in &self.0 {
            out.push_str(&format!(".children[{i}]"));
        }
        out
    }
}

/// Returns every key of the tree with its parent key and position; rejects duplicates and empty
/// keys.
fn check_tree<'a>(root: &'a Node, root_path: &str) -> Result<KeyTable<'a>, (String, String)> {
    let mut keys: KeyTable<'a> = HashMap::new();
    let mut stack: Vec<(&'a Node, Option<&'a str>, NodePath)> = vec![(root, None, NodePath::default())];
    while let Some((node, parent, path)) = stack.pop() {
        if node.key.is_empty() {
            return Err((format!("{}.key", path.json(root_path)), "empty key".into()));
        }
        if let Some((_, other)) = keys.get(node.key.as_str()) {
            return Err((
                format!("{}.key", path.json(root_path)),
                format!("duplicate key \"{}\" (also at {})", node.key, other.json(root_path)),
            ));
        }
        for (c, child) in node.children.iter().enumerate().rev() {
            let mut child_path = path.clone();
            child_path.0.push(c as u32);
            stack.push((child, Some(&node.key), child_path));
        }
        keys.insert(&node.key, (parent, path));
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
