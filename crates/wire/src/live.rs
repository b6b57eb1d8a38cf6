//! The live history: a state machine that applies changes all-or-nothing and counts versions.
//! No I/O; the server shares one behind a lock.

use std::sync::Arc;

use memcity_model::validate::validate_history;
use memcity_model::{FORMAT, History, LoadError, MetricNames, Snapshot, validate_append};

use crate::protocol::{Change, Pointers, Reply, SOURCE, SnapshotRef};

/// The history clients have built so far. It starts empty (no snapshots) at version 0; every
/// change that is applied bumps the version. A rejected change leaves both as they were.
#[derive(Debug, Clone)]
pub struct LiveHistory {
    history: Arc<History>,
    version: u64,
}

/// What applying a change did.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub reply: Reply,
    pub changed: bool,
}

impl Default for LiveHistory {
    fn default() -> Self {
        LiveHistory { history: Arc::new(empty_history()), version: 0 }
    }
}

fn empty_history() -> History {
    History { format: FORMAT.into(), metric_names: MetricNames::default(), snapshots: Vec::new() }
}

impl LiveHistory {
    pub fn new() -> LiveHistory {
        LiveHistory::default()
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
                self.history = Arc::new(history);
                Ok((None, true))
            }
            Change::Snapshot(snapshot) => self.append(*snapshot).map(|i| (Some(i), true)),
            Change::Pointers(pointers) => self.add_pointers(pointers).map(|i| (Some(i), true)),
            Change::Clear => {
                let changed = !self.history.snapshots.is_empty();
                if changed {
                    self.history = Arc::new(empty_history());
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

    fn append(&mut self, snapshot: Snapshot) -> Result<usize, LoadError> {
        validate_append(&self.history, &snapshot, SOURCE)?;
        let history = Arc::make_mut(&mut self.history);
        history.snapshots.push(snapshot);
        Ok(history.snapshots.len() - 1)
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
        Arc::make_mut(&mut self.history).snapshots[index] = snapshot;
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
        Snapshot {
            time_ms,
            gc_id: None,
            label: None,
            tree,
            points_to: PointerMap::new(),
            pointed_from: PointerMap::new(),
            heap: None,
        }
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
