//! The live history: a state machine that applies changes all-or-nothing and counts versions.
//! No I/O; the server shares one behind a lock.

use std::collections::HashMap;
use std::sync::Arc;

use memcity_model::validate::validate_history;
use memcity_model::{FORMAT, History, LoadError, MetricNames, Node, Snapshot};

use crate::protocol::{Change, Pointers, Reply, SOURCE, SnapshotRef};

/// The history clients have built so far. It starts empty (no snapshots) at version 0; every
/// change that is applied bumps the version. A rejected change leaves both as they were.
#[derive(Debug, Clone)]
pub struct LiveHistory {
    history: Arc<History>,
    version: u64,
    /// Every key seen so far, with its parent and the snapshot it first appeared in, so an
    /// append is checked in time proportional to its own tree rather than the whole history.
    parents: HashMap<String, (Option<String>, usize)>,
    /// The history's estimated size in memory ([`History::memory_estimate`]) plus that of
    /// `parents`, kept up to date change by change.
    bytes: u64,
    /// Changes that would make `bytes` larger than this are refused.
    budget: u64,
}

/// What applying a change did.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub reply: Reply,
    pub changed: bool,
}

impl Default for LiveHistory {
    fn default() -> Self {
        LiveHistory {
            history: Arc::new(empty_history()),
            version: 0,
            parents: HashMap::new(),
            bytes: 0,
            budget: u64::MAX,
        }
    }
}

fn empty_history() -> History {
    History { format: FORMAT.into(), metric_names: MetricNames::default(), snapshots: Vec::new() }
}

impl LiveHistory {
    pub fn new() -> LiveHistory {
        LiveHistory::default()
    }

    /// A live history that refuses changes which would make it take more than `bytes` of
    /// memory (estimated).
    pub fn with_budget(bytes: u64) -> LiveHistory {
        LiveHistory { budget: bytes, ..LiveHistory::default() }
    }

    /// The history's estimated size in memory.
    pub fn memory_bytes(&self) -> u64 {
        self.bytes
    }

    /// Refuses a change that would bring the history to `after` bytes.
    fn fits(&self, after: u64) -> Result<(), LoadError> {
        if after <= self.budget {
            return Ok(());
        }
        Err(LoadError::new(
            SOURCE,
            format!(
                "refused: the history would take about {} MiB of memory, over the server's budget of {} MiB \
                 (memcity serve --max-memory-mib)",
                crate::budget::mib(after),
                crate::budget::mib(self.budget)
            ),
        ))
    }

    /// The current history; it has no snapshots before the first change and after `clear`.
    pub fn history(&self) -> &Arc<History> {
        &self.history
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    /// Applies `change` if the history stays valid with it; otherwise changes nothing and
    /// replies with the error.
    pub fn apply(&mut self, change: Change) -> Applied {
        let kind = change_kind(&change);
        let result = match change {
            Change::History(history) => {
                // Checked before the index is built: a history refused for its size must not
                // first take the memory it is refused for.
                let bytes = history.memory_estimate() + keys_cost(&history);
                if let Err(error) = self.fits(bytes) {
                    return Applied { reply: Reply::error(Some(kind), error), changed: false };
                }
                self.parents.clear();
                for (i, snapshot) in history.snapshots.iter().enumerate() {
                    index_keys(&mut self.parents, &snapshot.tree, i);
                }
                self.bytes = bytes;
                self.history = Arc::new(history);
                Ok((None, true))
            }
            Change::Snapshot(snapshot) => self.append(*snapshot).map(|i| (Some(i), true)),
            Change::Pointers(pointers) => self.add_pointers(pointers).map(|i| (Some(i), true)),
            Change::Clear => {
                let changed = !self.history.snapshots.is_empty();
                if changed {
                    self.history = Arc::new(empty_history());
                    self.parents.clear();
                    self.bytes = 0;
                }
                Ok((None, changed))
            }
        };
        match result {
            Ok((index, changed)) => {
                if changed {
                    self.version += 1;
                }
                let mut reply = self.reply(kind);
                reply.index = index;
                Applied { reply, changed }
            }
            Err(error) => Applied { reply: Reply::error(Some(kind), error), changed: false },
        }
    }

    /// `{"ok":true, "type": kind, "version", "snapshots"}` for the current state.
    pub fn reply(&self, kind: &'static str) -> Reply {
        let mut reply = Reply::ok(kind);
        reply.version = Some(self.version);
        reply.snapshots = Some(self.history.snapshots.len());
        reply
    }

    /// The rules of `memcity_model::validate_append`, checked incrementally: the snapshot alone
    /// (keys, pointer maps), then against the history (root key, parents, time order).
    fn append(&mut self, snapshot: Snapshot) -> Result<usize, LoadError> {
        let n = self.history.snapshots.len();
        let fail =
            |path: String, message: String| Err(LoadError::new(SOURCE, message).in_snapshot(n).at(path));
        if let Some(first) = self.history.snapshots.first()
            && snapshot.tree.key != first.tree.key
        {
            return fail(
                "snapshot.tree.key".into(),
                format!(
                    "root key \"{}\" differs from snapshot 0's root key \"{}\"",
                    snapshot.tree.key, first.tree.key
                ),
            );
        }
        let alone = History { snapshots: vec![snapshot], ..empty_history() };
        validate_history(&alone, &|_| SOURCE.to_string(), &|_| "snapshot".into())
            .map_err(|e| e.in_snapshot(n))?;
        let [snapshot] = <[Snapshot; 1]>::try_from(alone.snapshots).expect("one snapshot");
        check_parents(&self.parents, &snapshot.tree, n)?;
        if let Some(last) = self.history.snapshots.last()
            && snapshot.time_ms < last.time_ms
        {
            return fail(
                "snapshot.time_ms".into(),
                format!(
                    "snapshots must be ordered by time: {} ms comes after {} ms",
                    snapshot.time_ms, last.time_ms
                ),
            );
        }
        let bytes = snapshot.memory_estimate() + new_keys_cost(&self.parents, &snapshot.tree);
        self.fits(self.bytes.saturating_add(bytes)).map_err(|e| e.in_snapshot(n))?;
        index_keys(&mut self.parents, &snapshot.tree, n);
        Arc::make_mut(&mut self.history).snapshots.push(snapshot);
        self.bytes += bytes;
        Ok(n)
    }

    fn add_pointers(&mut self, pointers: Pointers) -> Result<usize, LoadError> {
        let index = self.find(pointers.at)?;
        let mut snapshot = self.history.snapshots[index].clone();
        for (map, add) in [
            (&mut snapshot.points_to, pointers.points_to),
            (&mut snapshot.pointed_from, pointers.pointed_from),
        ] {
            for (from, targets) in add {
                map.entry(from).or_default().extend(targets);
            }
        }
        // The tree is unchanged, so only this snapshot's pointer keys need checking; paths are
        // those of the message (`points_to["a"]`).
        let alone = History { snapshots: vec![snapshot], ..empty_history() };
        validate_history(&alone, &|_| SOURCE.to_string(), &|_| String::new())
            .map_err(|e| LoadError { snapshot: Some(index), ..e })?;
        let [snapshot] = <[Snapshot; 1]>::try_from(alone.snapshots).expect("one snapshot");
        let before = self.history.snapshots[index].memory_estimate();
        let after = (self.bytes - before).saturating_add(snapshot.memory_estimate());
        self.fits(after).map_err(|e| e.in_snapshot(index))?;
        Arc::make_mut(&mut self.history).snapshots[index] = snapshot;
        self.bytes = after;
        Ok(index)
    }

    fn find(&self, at: SnapshotRef) -> Result<usize, LoadError> {
        let snapshots = &self.history.snapshots;
        match at {
            SnapshotRef::Index(i) if i < snapshots.len() => Ok(i),
            SnapshotRef::Index(i) => Err(LoadError::new(
                SOURCE,
                format!("no snapshot {i}: the history has {} snapshots", snapshots.len()),
            )
            .at("snapshot")),
            SnapshotRef::TimeMs(t) => snapshots.iter().position(|s| s.time_ms == t).ok_or_else(|| {
                LoadError::new(SOURCE, format!("no snapshot was taken at {t} ms")).at("time_ms")
            }),
        }
    }
}

/// Records the parent of every key of `tree` not seen before.
/// Records the parent of every key of `tree` not seen before; returns what the new entries
/// cost in memory (estimated).
fn index_keys(parents: &mut HashMap<String, (Option<String>, usize)>, tree: &Node, snapshot: usize) -> u64 {
    let mut cost = 0;
    tree.walk(&mut |node, parent| {
        if !parents.contains_key(&node.key) {
            cost += key_cost(&node.key, parent.map(|p| p.key.as_str()));
            parents.insert(node.key.clone(), (parent.map(|p| p.key.clone()), snapshot));
        }
    });
    cost
}

/// What [`index_keys`] would add for `tree`, without adding it.
fn new_keys_cost(parents: &HashMap<String, (Option<String>, usize)>, tree: &Node) -> u64 {
    let mut cost = 0;
    tree.walk(&mut |node, parent| {
        if !parents.contains_key(&node.key) {
            cost += key_cost(&node.key, parent.map(|p| p.key.as_str()));
        }
    });
    cost
}

/// What [`index_keys`] adds for every snapshot of `history` into an empty index.
fn keys_cost(history: &History) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut cost = 0;
    for snapshot in &history.snapshots {
        snapshot.tree.walk(&mut |node, parent| {
            if seen.insert(node.key.as_str()) {
                cost += key_cost(&node.key, parent.map(|p| p.key.as_str()));
            }
        });
    }
    cost
}

/// One entry of the parents index: two strings, the tuple, and the hash table's slack.
fn key_cost(key: &str, parent: Option<&str>) -> u64 {
    (key.len() + parent.map_or(0, str::len) + 128) as u64
}

/// Rejects the first key of `tree` (in pre-order) whose parent differs from the one it had
/// before; `n` is the index the snapshot would get.
fn check_parents(
    parents: &HashMap<String, (Option<String>, usize)>,
    tree: &Node,
    n: usize,
) -> Result<(), LoadError> {
    // (node, parent, depth, index in parent), pre-order without recursion (trees may be deep);
    // `at` holds the child indices down to the current node, the path string is built only on
    // error.
    let mut stack: Vec<(&Node, Option<&str>, usize, usize)> = vec![(tree, None, 0, 0)];
    let mut at: Vec<usize> = Vec::new();
    while let Some((node, parent, depth, index)) = stack.pop() {
        at.truncate(depth.saturating_sub(1));
        if depth > 0 {
            at.push(index);
        }
        if let Some((earlier, j)) = parents.get(&node.key)
            && earlier.as_deref() != parent
        {
            let path: String = at.iter().map(|i| format!(".children[{i}]")).collect();
            let message = format!(
                "key \"{}\" has parent {} here but parent {} in snapshot {j}",
                node.key,
                show(parent),
                show(earlier.as_deref())
            );
            return Err(LoadError::new(SOURCE, message).in_snapshot(n).at(format!("snapshot.tree{path}")));
        }
        for (c, child) in node.children.iter().enumerate().rev() {
            stack.push((child, Some(&node.key), depth + 1, c));
        }
    }
    Ok(())
}

fn show(parent: Option<&str>) -> String {
    parent.map_or("(none: it is the root)".to_string(), |p| format!("\"{p}\""))
}

fn change_kind(change: &Change) -> &'static str {
    match change {
        Change::History(_) => "history",
        Change::Snapshot(_) => "snapshot",
        Change::Pointers(_) => "pointers",
        Change::Clear => "clear",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memcity_model::{Node, PointerMap};

    fn snapshot(time_ms: u64, leaves: &[(&str, u64)]) -> Snapshot {
        let mut tree = Node::leaf("Heap", "Heap", "Root", 0, 0);
        for (name, bytes) in leaves {
            tree.children.push(Node::leaf(&format!("Heap#{name}"), name, "Type", 1, *bytes));
        }
        Snapshot::new(time_ms, tree)
    }

    fn append(live: &mut LiveHistory, s: Snapshot) -> Applied {
        live.apply(Change::Snapshot(Box::new(s)))
    }

    #[test]
    fn appends_count_versions() {
        let mut live = LiveHistory::new();
        assert_eq!((live.version(), live.history().snapshots.len()), (0, 0));
        let a = append(&mut live, snapshot(1, &[("A", 8)]));
        assert!(a.changed && a.reply.ok);
        assert_eq!((a.reply.version, a.reply.index, a.reply.snapshots), (Some(1), Some(0), Some(1)));
        let b = append(&mut live, snapshot(2, &[("A", 8), ("B", 4)]));
        assert_eq!((b.reply.version, b.reply.index), (Some(2), Some(1)));
        assert_eq!(live.history().snapshots[1], snapshot(2, &[("A", 8), ("B", 4)]));
    }

    #[test]
    fn rejected_append_changes_nothing() {
        let mut live = LiveHistory::new();
        append(&mut live, snapshot(5, &[("A", 8)]));
        let before = live.history().clone();
        let early = append(&mut live, snapshot(4, &[("A", 8)]));
        assert!(!early.changed && !early.reply.ok);
        let error = early.reply.error.unwrap();
        assert!(
            error.contains("snapshot 1: at snapshot.time_ms: snapshots must be ordered by time"),
            "{error}"
        );
        let mut moved = snapshot(6, &[]);
        let mut group = Node::leaf("Heap#G", "G", "Package", 1, 8);
        group.children.push(Node::leaf("Heap#A", "A", "Type", 1, 8));
        moved.tree.children.push(group);
        let error = append(&mut live, moved).reply.error.unwrap();
        assert!(
            error.contains("at snapshot.tree.children[0].children[0]: key \"Heap#A\" has parent"),
            "{error}"
        );
        let mut other_root = snapshot(7, &[]);
        other_root.tree.key = "Other".into();
        assert!(append(&mut live, other_root).reply.error.unwrap().contains("root key"));
        assert_eq!(live.version(), 1);
        assert_eq!(live.history(), &before);
    }

    #[test]
    fn retainer_paths_travel_and_bad_ones_are_refused_whole() {
        use memcity_model::{RetainerPath, RetainerStep};
        let step = |key: &str, objects| RetainerStep {
            key: key.into(),
            objects,
            bytes: 8,
            retained_bytes: 8,
            via: None,
        };
        let mut live = LiveHistory::new();
        let mut good = snapshot(1, &[("A", 8), ("B", 8)]);
        let path =
            RetainerPath { steps: vec![step("Heap#A", 1), step("Heap#B", 1)], roots: vec!["Global".into()] };
        good.retainers.insert("Heap#A".into(), path);
        assert!(append(&mut live, good.clone()).reply.ok);
        assert_eq!(live.history().snapshots[0].retainers, good.retainers);
        let before = live.history().clone();
        for (steps, needle) in [
            (vec![step("Heap#B", 1)], "starts at its own group"),
            (vec![step("Heap#A", 1), step("Heap#Z", 1)], "names no node"),
            (vec![step("Heap#A", 5)], "holds 5 objects"),
        ] {
            let mut bad = snapshot(2, &[("A", 8), ("B", 8)]);
            bad.retainers.insert("Heap#A".into(), RetainerPath { steps, roots: vec![] });
            let refused = append(&mut live, bad);
            assert!(!refused.changed, "{needle}");
            let error = refused.reply.error.unwrap();
            assert!(error.contains(needle) && error.contains("snapshot.retainers"), "{error}");
        }
        assert_eq!(live.history(), &before);
        // Over the wire, an unknown field in a path is refused too.
        let text = r#"{"type":"snapshot","snapshot":{"time_ms":3,"tree":{"key":"Heap","name":"Heap","objects":1,"bytes":8,"children":[{"key":"Heap#A","name":"A","objects":1,"bytes":8}]},"retainers":{"Heap#A":{"steps":[{"key":"Heap#A","objects":1,"bytes":8,"retained_bytes":8,"extra":1}]}}}}"#;
        assert!(crate::protocol::parse_message(text.as_bytes()).is_err());
    }

    /// The incremental check must accept and reject exactly as the model's `validate_append`,
    /// with the same error.
    #[test]
    fn appends_are_checked_like_validate_append() {
        let nested = |time, parent: &str| {
            let mut s = snapshot(time, &[("A", 8)]);
            let mut group = Node::leaf(&format!("Heap#{parent}"), parent, "Package", 1, 8);
            group.children.push(Node::leaf("Heap#G#T", "T", "Type", 1, 8));
            s.tree.children.push(group);
            s
        };
        let mut candidates = vec![
            snapshot(3, &[("A", 8), ("B", 1)]),
            snapshot(1, &[("A", 8)]),
            nested(4, "G"),
            nested(4, "H"),
            nested(0, "H"),
            snapshot(3, &[("A", 8), ("A", 9)]),
            snapshot(3, &[("", 8)]),
        ];
        let mut root = snapshot(3, &[]);
        root.tree.key = "Other".into();
        candidates.push(root);
        let mut pointers = snapshot(3, &[("A", 8)]);
        pointers.pointed_from.insert("Heap#A".into(), [("Heap#Z".to_string(), 1)].into());
        candidates.push(pointers);
        let mut moved_root = snapshot(3, &[]);
        moved_root.tree.children.push(Node::leaf("Heap#G", "G", "Package", 1, 1));
        moved_root.tree.children[0].children.push(Node::leaf("Heap", "Heap", "Root", 1, 1));
        candidates.push(moved_root);

        let history =
            History { snapshots: vec![snapshot(1, &[("A", 8)]), nested(2, "G")], ..empty_history() };
        let mut rejected = 0;
        for candidate in candidates {
            let mut live = LiveHistory::new();
            live.apply(Change::History(history.clone()));
            let expected =
                memcity_model::validate_append(&history, &candidate, SOURCE).map_err(|e| e.to_string());
            let applied = append(&mut live, candidate.clone());
            assert_eq!(applied.reply.error.ok_or(()), expected.clone().err().ok_or(()), "{candidate:?}");
            assert_eq!(applied.changed, expected.is_ok());
            rejected += usize::from(expected.is_err());
        }
        assert_eq!(rejected, 7, "the candidates cover each rule");
    }

    #[test]
    fn a_new_history_forgets_old_parents() {
        let mut live = LiveHistory::new();
        append(&mut live, snapshot(1, &[("A", 8)]));
        let mut moved = snapshot(2, &[]);
        moved.tree.children.push(Node::leaf("Heap#G", "G", "Package", 1, 8));
        moved.tree.children[0].children.push(Node::leaf("Heap#A", "A", "Type", 1, 8));
        assert!(!append(&mut live, moved.clone()).changed);
        live.apply(Change::History(History { snapshots: vec![moved.clone()], ..empty_history() }));
        assert!(append(&mut live, moved.clone()).changed);
        live.apply(Change::Clear);
        assert!(append(&mut live, snapshot(1, &[("A", 8)])).changed);
    }

    #[test]
    fn pointers_merge_into_a_snapshot() {
        let mut live = LiveHistory::new();
        append(&mut live, snapshot(1, &[("A", 8), ("B", 8)]));
        append(&mut live, snapshot(1, &[("A", 8), ("B", 8)]));
        let maps =
            |from: &str, to: &str| PointerMap::from([(from.to_string(), [(to.to_string(), 3)].into())]);
        let add = |at, to| Change::Pointers(Pointers { at, points_to: to, pointed_from: PointerMap::new() });
        let applied = live.apply(add(SnapshotRef::TimeMs(1), maps("Heap#A", "Heap#B")));
        assert_eq!((applied.reply.index, applied.reply.version), (Some(0), Some(3)));
        live.apply(add(SnapshotRef::Index(0), maps("Heap#B", "Heap#A")));
        assert_eq!(live.history().snapshots[0].points_to.len(), 2);
        assert!(live.history().snapshots[1].points_to.is_empty());

        let before = live.history().clone();
        let bad = live.apply(add(SnapshotRef::Index(1), maps("Heap#A", "Heap#Nope")));
        let error = bad.reply.error.unwrap();
        assert!(error.contains("snapshot 1: at points_to[\"Heap#A\"][\"Heap#Nope\"]"), "{error}");
        let missing = live.apply(add(SnapshotRef::Index(9), maps("Heap#A", "Heap#B")));
        assert!(missing.reply.error.unwrap().contains("at snapshot: no snapshot 9"));
        let missing = live.apply(add(SnapshotRef::TimeMs(9), maps("Heap#A", "Heap#B")));
        assert!(missing.reply.error.unwrap().contains("at time_ms: no snapshot was taken at 9 ms"));
        assert_eq!(live.history(), &before);
    }

    #[test]
    fn changes_beyond_the_memory_budget_are_refused() {
        let one = snapshot(1, &[("A", 8)]).memory_estimate();
        let keys = key_cost("Heap", None) + key_cost("Heap#A", Some("Heap"));
        let mut live = LiveHistory::with_budget(2 * one + keys + one / 2);
        assert!(append(&mut live, snapshot(1, &[("A", 8)])).changed);
        assert_eq!(live.memory_bytes(), one + keys);
        assert!(append(&mut live, snapshot(2, &[("A", 8)])).changed);
        assert_eq!(live.memory_bytes(), 2 * one + keys, "known keys cost nothing more");
        let third = append(&mut live, snapshot(3, &[("A", 8)]));
        assert!(!third.changed);
        let error = third.reply.error.unwrap();
        assert!(error.contains("snapshot 2: refused: the history would take about"), "{error}");
        assert!(error.contains("over the server's budget"), "{error}");
        let big =
            History { snapshots: (0..3).map(|t| snapshot(t, &[("A", 8)])).collect(), ..empty_history() };
        assert!(!live.apply(Change::History(big)).changed);
        assert_eq!(live.history().snapshots.len(), 2, "nothing changed");
        live.apply(Change::Clear);
        assert_eq!(live.memory_bytes(), 0);
        assert!(append(&mut live, snapshot(3, &[("A", 8)])).changed);
    }

    #[test]
    fn history_replaces_and_clear_empties() {
        let mut live = LiveHistory::new();
        append(&mut live, snapshot(1, &[("A", 8)]));
        let history =
            History { snapshots: vec![snapshot(1, &[("X", 1)]), snapshot(2, &[])], ..empty_history() };
        let replaced = live.apply(Change::History(history.clone()));
        assert_eq!(replaced.reply.snapshots, Some(2));
        assert_eq!(**live.history(), history);
        assert!(live.apply(Change::Clear).changed);
        assert!(live.history().snapshots.is_empty());
        let again = live.apply(Change::Clear);
        assert!(again.reply.ok && !again.changed);
        assert_eq!(live.version(), 3);
        // After clear any root may start a new history.
        let mut other = snapshot(1, &[]);
        other.tree.key = "Other".into();
        assert!(append(&mut live, other).reply.ok);
    }
}
