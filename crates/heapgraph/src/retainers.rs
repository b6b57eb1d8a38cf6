//! TEMPORARY (lead's scaffold, replaced by the dom12 branch).

use crate::HeapGraph;
use crate::dominators::{DominatorTree, VIRTUAL_ROOT};

#[derive(Debug, Clone, PartialEq)]
pub struct RetainerStep {
    pub group: u32,
    pub objects: u64,
    pub bytes: u64,
    pub retained_bytes: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RetainerPath {
    pub steps: Vec<RetainerStep>,
    pub rooted: Vec<u32>,
}

pub fn retainer_paths(g: &HeapGraph, tree: &DominatorTree, group_count: usize) -> Vec<Option<RetainerPath>> {
    let exit = |o: u32| -> u32 {
        let grp = g.group[o as usize];
        let mut d = tree.idom[o as usize];
        while d != VIRTUAL_ROOT && g.group[d as usize] == grp {
            d = tree.idom[d as usize];
        }
        d
    };
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); group_count];
    for &x in &tree.preorder {
        members[g.group[x as usize] as usize].push(x);
    }
    members
        .into_iter()
        .map(|objs| {
            if objs.is_empty() {
                return None;
            }
            let mut cur: Vec<(u32, u64)> = objs.iter().map(|&o| (o, g.shallow[o as usize])).collect();
            let mut steps = Vec::new();
            let mut rooted: Vec<u32>;
            loop {
                let grp = g.group[cur[0].0 as usize];
                let set: std::collections::HashSet<u32> = cur.iter().map(|c| c.0).collect();
                let top: Vec<u32> = set.iter().copied().collect();
                let retained_bytes = top
                    .iter()
                    .filter(|&&o| {
                        let mut d = tree.idom[o as usize];
                        while d != VIRTUAL_ROOT {
                            if set.contains(&d) {
                                return false;
                            }
                            d = tree.idom[d as usize];
                        }
                        true
                    })
                    .map(|&o| tree.retained[o as usize])
                    .sum();
                steps.push(RetainerStep {
                    group: grp,
                    objects: set.len() as u64,
                    bytes: set.iter().map(|&o| g.shallow[o as usize]).sum(),
                    retained_bytes,
                });
                let mut weight: std::collections::BTreeMap<u32, u64> = Default::default();
                let mut next: Vec<(u32, u64)> = Vec::new();
                for &(o, w) in &cur {
                    let e = exit(o);
                    let key = if e == VIRTUAL_ROOT { u32::MAX } else { g.group[e as usize] };
                    *weight.entry(key).or_default() += w;
                    next.push((e, w));
                }
                let best = weight
                    .iter()
                    .max_by_key(|(k, w)| (**w, std::cmp::Reverse(**k)))
                    .map(|(k, _)| *k)
                    .unwrap();
                if best == u32::MAX || steps.len() >= 64 {
                    rooted = cur.iter().filter(|c| exit(c.0) == VIRTUAL_ROOT).map(|c| c.0).collect();
                    rooted.sort();
                    rooted.dedup();
                    break;
                }
                cur = next
                    .into_iter()
                    .filter(|&(e, _)| e != VIRTUAL_ROOT && g.group[e as usize] == best)
                    .collect();
            }
            Some(RetainerPath { steps, rooted })
        })
        .collect()
}
