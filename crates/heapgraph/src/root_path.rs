//! The shortest reference path from the GC roots to each object, found breadth-first. Written
//! with field names (`static Service.INSTANCE .cache`), it names an object the same way in
//! every heap of a program even where addresses move (HPROF dumps after a compacting GC), so
//! it serves as the identity of a data structure across snapshots, and tells a user which
//! field holds it.

use crate::objects::EdgeLabels;
use crate::{HeapGraph, Table};

const NONE: u32 = u32::MAX;
/// `via` of a root.
const ROOT: u32 = u32::MAX - 1;

/// A breadth-first tree over the heap: each reached object's parent and the edge it was
/// reached by. Ties go to the root listed first and, below it, to the earlier edge. Eight bytes
/// per object.
#[derive(Debug, Clone)]
pub struct RootPaths<'g> {
    /// Per object its parent and which of the parent's references leads here (its position
    /// among them), [`ROOT`] for a root, [`NONE`] for an object not reached. Side by side: a
    /// reference's target is checked and then set, both in one cache line. (A table: past the
    /// memory budget, a work file.)
    up: Table<[u32; 2]>,
    /// The graph's, where each object's references start.
    edge_start: &'g [u32],
}

/// One object on a root path and the edge that leads to it from the object before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathStep {
    pub object: u32,
    /// `None` for the root.
    pub edge: Option<usize>,
}

impl<'g> RootPaths<'g> {
    /// Time and memory linear in the heap: one pass over the reachable objects and their edges.
    pub fn new(g: &'g HeapGraph) -> RootPaths<'g> {
        RootPaths::preferring(g, |_| false)
    }

    /// As [`Self::new`], but the roots for which `last_resort` holds start their walk only once
    /// everything the other roots reach has its path: an object an engine's own root list
    /// happens to hold (V8's `(Strong roots)`) is named by the user's path to it
    /// (`global .registry .sessions`) where there is one.
    pub fn preferring(g: &'g HeapGraph, last_resort: impl Fn(u32) -> bool) -> RootPaths<'g> {
        let n = g.object_count();
        // The walk asks only a bitmap (in memory: a bit an object) whether an object was met,
        // and appends each one met, with its parent and edge, to a list read from the front
        // (breadth-first: every object is queued once). Both are read and written in order,
        // so neither faults at random when the heap's tables are in work files.
        let mut seen = vec![0u64; n.div_ceil(64)];
        let mut first_meeting = |t: u32| {
            let (word, bit) = (t as usize / 64, 1u64 << (t % 64));
            let fresh = seen[word] & bit == 0;
            seen[word] |= bit;
            fresh
        };
        let mut met: Table<[u32; 3]> = Table::with_capacity(n);
        let mut next = 0;
        for late in [false, true] {
            for &r in g.roots.iter().filter(|&&r| last_resort(r) == late) {
                if (r as usize) < n && first_meeting(r) {
                    met.push([r, NONE, ROOT]);
                }
            }
            while let Some(&[o, _, _]) = met.get(next) {
                next += 1;
                // An object of more than 2³² − 2 references is named by its first ones only.
                for (i, &t) in g.referents(o).iter().enumerate().take(ROOT as usize) {
                    if (t as usize) < n && first_meeting(t) {
                        met.push([t, o, i as u32]);
                    }
                }
            }
        }
        RootPaths { up: parents(&met, n), edge_start: &g.edge_start }
    }

    /// Whether `o` is reached from a root.
    pub fn reached(&self, o: u32) -> bool {
        self.up.get(o as usize).is_some_and(|&[_, via]| via != NONE)
    }

    /// The object before `o` on its path and the edge from it to `o`; `None` for a root or an
    /// object not reached (one step of [`Self::path`], for a caller that walks paths itself).
    pub fn up(&self, o: u32) -> Option<(u32, usize)> {
        let [parent, via] = *self.up.get(o as usize)?;
        if via == NONE || via == ROOT {
            return None;
        }
        Some((parent, self.edge_start[parent as usize] as usize + via as usize))
    }

    /// The path from a root to `o`, root first; empty when `o` is not reachable.
    pub fn path(&self, o: u32) -> Vec<PathStep> {
        if self.up.get(o as usize).is_none_or(|&[_, via]| via == NONE) {
            return Vec::new();
        }
        let mut steps = Vec::new();
        let mut at = o;
        loop {
            let [parent, via] = self.up[at as usize];
            let edge = (via != ROOT).then(|| self.edge_start[parent as usize] as usize + via as usize);
            steps.push(PathStep { object: at, edge });
            match parent {
                NONE => break,
                p => at = p,
            }
        }
        steps.reverse();
        steps
    }
}

/// Each object's parent and edge from the objects `met`, by object. A table in a work file is
/// filled one range of objects at a time, the list read once for each, so that its writes stay
/// within the page cache (written in the walk's order, which is random in the table, they
/// thrashed: 1.9 TB written for a heap of 620 M objects).
fn parents(met: &[[u32; 3]], n: usize) -> Table<[u32; 2]> {
    let mut up = Table::filled(n, [NONE, NONE]);
    let range = if up.is_mapped() { PARENTS_AT_ONCE } else { n.max(1) };
    for start in (0..n).step_by(range) {
        let objects = start..start + range;
        for &[o, parent, via] in met.iter().filter(|m| objects.contains(&(m[0] as usize))) {
            up[o as usize] = [parent, via];
        }
    }
    up
}

/// How many objects' parents a work file is filled with at once (256 MiB of it).
const PARENTS_AT_ONCE: usize = 32 << 20;

/// A path in words: the root as `root_name` names it, then each reference's name (`.cache`,
/// `['key']`, `[3]`, `?` where the source names none; an empty name is a step not shown), at
/// most `max_steps` of them with `…` for the middle.
/// A path through a class object (`class Service`, however the class itself is reached) is
/// named from the last such object on, as the static field it is: `static Service.INSTANCE
/// .cache`.
pub fn describe(
    path: &[PathStep],
    labels: &EdgeLabels,
    root_name: &dyn Fn(u32) -> String,
    max_steps: usize,
) -> String {
    let from_class = path.iter().rposition(|s| root_name(s.object).starts_with("class ")).unwrap_or(0);
    let path = &path[from_class..];
    let Some(root) = path.first() else { return String::new() };
    let mut names: Vec<String> = path[1..]
        .iter()
        .map(|s| s.edge.and_then(|e| labels.text(e)).unwrap_or_else(|| "?".into()))
        .filter(|name| !name.is_empty())
        .collect();
    let mut text = root_name(root.object);
    if let (Some(class), Some(field)) =
        (text.strip_prefix("class "), names.first().and_then(|n| n.strip_prefix('.')))
    {
        text = format!("static {class}.{field}");
        names.remove(0);
    }
    let keep = max_steps.max(2);
    if names.len() <= keep {
        for name in &names {
            text.push(' ');
            text.push_str(name);
        }
    } else {
        let head = keep / 2;
        let tail = keep - head;
        for name in &names[..head] {
            text.push(' ');
            text.push_str(name);
        }
        text.push_str(" …");
        for name in &names[names.len() - tail..] {
            text.push(' ');
            text.push_str(name);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::Label;

    /// 0 (root, class Service) -.INSTANCE-> 1 -.cache-> 2 -.table-> 3 -[0]-> 4; 1 -.other-> 4;
    /// 5 unreachable.
    fn heap() -> (HeapGraph, EdgeLabels) {
        let g = HeapGraph {
            group: vec![0; 6].into(),
            shallow: vec![8; 6].into(),
            edge_start: vec![0, 1, 3, 4, 5, 5, 5].into(),
            edges: vec![1, 2, 4, 3, 4].into(),
            roots: vec![0],
        };
        let labels = EdgeLabels {
            names: vec!["INSTANCE".into(), "cache".into(), "other".into(), "table".into()],
            of_edge: vec![
                Label::field(0),
                Label::field(1),
                Label::field(2),
                Label::field(3),
                Label::index(0),
            ]
            .into(),
        };
        (g, labels)
    }

    #[test]
    fn a_root_of_last_resort_is_named_by_another_roots_path() {
        let (mut g, labels) = heap();
        // The engine's own root list also holds the cache (2).
        g.roots.push(2);
        let root = |o: u32| if o == 0 { "static Service".to_string() } else { "(Strong roots)".to_string() };
        assert_eq!(describe(&RootPaths::new(&g).path(2), &labels, &root, 8), "(Strong roots)");
        let paths = RootPaths::preferring(&g, |r| r == 2);
        assert_eq!(describe(&paths.path(2), &labels, &root, 8), "static Service .INSTANCE .cache");
        // Held by nothing else, it stays a root of its own.
        g.roots = vec![2];
        assert_eq!(RootPaths::preferring(&g, |r| r == 2).path(2).len(), 1);
    }

    #[test]
    fn the_shortest_path_names_its_fields() {
        let (g, labels) = heap();
        let paths = RootPaths::new(&g);
        let root = |o: u32| format!("static Service{}", if o == 0 { "" } else { "?" });
        let cache = paths.path(2);
        assert_eq!(cache.iter().map(|s| s.object).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(describe(&cache, &labels, &root, 8), "static Service .INSTANCE .cache");
        // Object 4 is reached by the shorter way, through .other, not through the table.
        assert_eq!(describe(&paths.path(4), &labels, &root, 8), "static Service .INSTANCE .other");
        assert_eq!(describe(&paths.path(3), &labels, &root, 8), "static Service .INSTANCE .cache .table");
        assert_eq!(describe(&paths.path(3), &labels, &root, 2), "static Service .INSTANCE … .table");
        assert!(paths.path(5).is_empty());
        assert_eq!(describe(&paths.path(5), &labels, &root, 8), "");
    }

    #[test]
    fn long_paths_keep_their_ends() {
        let (_, labels) = heap();
        let steps: Vec<PathStep> = std::iter::once(PathStep { object: 0, edge: None })
            .chain((0..5).map(|e| PathStep { object: 1, edge: Some(e) }))
            .collect();
        let text = describe(&steps, &labels, &|_| "root".into(), 2);
        assert_eq!(text, "root .INSTANCE … [0]");
        assert_eq!(
            describe(&steps[..3], &labels, &|o| if o == 0 { "class app.Main".into() } else { "x".into() }, 8),
            "static app.Main.INSTANCE .cache"
        );
        let unnamed = EdgeLabels::default();
        assert_eq!(describe(&steps[..3], &unnamed, &|_| "root".into(), 8), "root ? ?");
    }
}
