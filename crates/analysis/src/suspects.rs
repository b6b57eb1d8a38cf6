//! Leak suspects: the leaf groups whose retained bytes grew most since the first snapshot, each
//! with the root-most holder of its retainer path ("held by LinkedList, which retains 67 % of
//! the heap"). The app's Leak suspects pane and `memcity check` rank them the same way.

use memcity_model::{History, Timeline};

/// A group whose retained bytes grow, with the path's root-most holder.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspect {
    pub group: u32,
    /// Retained bytes at the snapshot minus at the first.
    pub growth: i64,
    /// Retained bytes at the snapshot as a share of its heap.
    pub share: f64,
    /// The root-most step of its retainer path, when that is another group, and the share of
    /// the heap that step retains.
    pub holder: Option<(u32, f64)>,
}

/// The heap's size at a snapshot: its reachable bytes where the source measured them.
pub fn heap_bytes(history: &History, snapshot: usize) -> u64 {
    let s = &history.snapshots[snapshot];
    s.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap_or(s.tree.bytes)
}

/// Leaf groups ranked by how much their retained bytes grew from the first snapshot to
/// `snapshot`, the strongest first; groups that did not grow are left out.
pub fn leak_suspects(history: &History, timeline: &Timeline, snapshot: usize, limit: usize) -> Vec<Suspect> {
    let t = timeline;
    let (Some(first), Some(now)) = (t.retained.first(), t.retained.get(snapshot)) else { return Vec::new() };
    let s = &history.snapshots[snapshot];
    let heap = heap_bytes(history, snapshot).max(1);
    let mut suspects: Vec<Suspect> = now
        .iter()
        .filter(|&(&g, _)| t.groups[g as usize].is_leaf())
        .map(|(&g, &bytes)| Suspect {
            group: g,
            growth: bytes as i64 - first.get(&g).copied().unwrap_or(0) as i64,
            share: bytes as f64 / heap as f64,
            holder: s
                .retainers
                .get(&t.groups[g as usize].key)
                .and_then(|p| p.steps.last())
                .and_then(|step| Some((t.group(&step.key)?, step.retained_bytes as f64 / heap as f64)))
                .filter(|&(h, _)| h != g),
        })
        .filter(|s| s.growth > 0)
        .collect();
    suspects.sort_by(|a, b| b.growth.cmp(&a.growth).then(a.group.cmp(&b.group)));
    suspects.truncate(limit);
    suspects
}

/// One line of the leak suspects: a group of its own, or a growing data structure that holds
/// most of the growth of the groups folded under it (one leak, one finding).
#[derive(Debug, Clone, PartialEq)]
pub enum SuspectLine {
    Group(Suspect),
    /// `structure`: the caller's index of the structure; `folded`: its groups, strongest first.
    Structure {
        structure: usize,
        folded: Vec<Suspect>,
    },
}

/// Folds ranked suspects under the structures that hold their growth (`into(group)`, as
/// `memcity_structures::fold` decides): a structure takes the place of its strongest group, and
/// the lines keep the suspects' order otherwise. At most `limit` lines.
pub fn fold_suspects(
    suspects: Vec<Suspect>,
    into: impl Fn(u32) -> Option<usize>,
    limit: usize,
) -> Vec<SuspectLine> {
    let mut lines: Vec<SuspectLine> = Vec::new();
    for s in suspects {
        let Some(k) = into(s.group) else {
            lines.push(SuspectLine::Group(s));
            continue;
        };
        let open = lines.iter_mut().find_map(|l| match l {
            SuspectLine::Structure { structure, folded } if *structure == k => Some(folded),
            _ => None,
        });
        match open {
            Some(folded) => folded.push(s),
            None => lines.push(SuspectLine::Structure { structure: k, folded: vec![s] }),
        }
    }
    lines.truncate(limit);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suspect(group: u32, growth: i64) -> Suspect {
        Suspect { group, growth, share: 0.0, holder: None }
    }

    #[test]
    fn groups_a_structure_holds_fold_into_one_line_at_the_strongest_ones_place() {
        let ranked = vec![suspect(1, 90), suspect(2, 80), suspect(3, 70), suspect(4, 60), suspect(5, 50)];
        // Groups 2 and 4 grow inside structure 7, group 5 inside structure 8.
        let into = |g: u32| match g {
            2 | 4 => Some(7),
            5 => Some(8),
            _ => None,
        };
        let lines = fold_suspects(ranked.clone(), into, 10);
        assert_eq!(
            lines,
            vec![
                SuspectLine::Group(suspect(1, 90)),
                SuspectLine::Structure { structure: 7, folded: vec![suspect(2, 80), suspect(4, 60)] },
                SuspectLine::Group(suspect(3, 70)),
                SuspectLine::Structure { structure: 8, folded: vec![suspect(5, 50)] },
            ]
        );
        assert_eq!(fold_suspects(ranked.clone(), into, 2).len(), 2, "at most the limit");
        let unfolded = fold_suspects(ranked.clone(), |_| None, 10);
        assert_eq!(unfolded, ranked.into_iter().map(SuspectLine::Group).collect::<Vec<_>>());
    }
}
