//! A grouped heap in its partition's own numbering, so that it can stand for the analysis of
//! any grouping that parts the objects alike.
//!
//! An analysis depends on the grouping only through which objects share a group, and on the
//! groups' ids only through their order (ties between equally heavy groups go to the smaller
//! id). Two groupings whose leaves part a heap's objects alike, their ids in the same order
//! (`package → type` and `type` number their leaves as the objects first meet them), have the
//! same analysis up to the names of the groups. Numbered by rank among the groups that hold
//! objects, the analysis is the same for both, and is told apart only by the ranked groups.
//!
//! Read back from a file, such a heap is input like any other: before anything indexes by its
//! group ids they are checked against the partition it is read for ([`GroupedHeap::check`]).

use std::collections::BTreeMap;
use std::ops::Range;

use rayon::prelude::*;

use super::{GroupPath, GroupedHeap};
use crate::maps::PointerMaps;
use crate::retainers::MAX_STEPS;
use crate::{GroupCounts, ObjectGroups};

/// The groups that hold a heap's objects, by rank in the order of their ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// Per rank, the group's id.
    pub ids: Vec<u32>,
    /// Per group id below the grouping's count, its rank ([`ABSENT`] for a group without objects).
    rank: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl Partition {
    /// The groups among `0..group_count` that the objects' `groups` name (each must be below).
    pub fn of(groups: &ObjectGroups, group_count: usize) -> Partition {
        Partition::with_key_ranks(groups, group_count).0
    }

    /// [`Partition::of`] and, where the groups come through keys ([`ObjectGroups::through`]),
    /// each key's group's rank ([`ABSENT`] for a key no object has): with the keys, what
    /// [`Partition::ranks`] gives for every object, in a table as long as the keys' count. One
    /// sweep over the keys finds both.
    pub fn with_key_ranks(groups: &ObjectGroups, group_count: usize) -> (Partition, Option<Vec<u32>>) {
        let Some(by_key) = groups.by_key() else {
            return (Partition::of_present(&present_keys(groups.keys(), group_count)), None);
        };
        let keys_present = present_keys(groups.keys(), by_key.len());
        let mut present = vec![false; group_count];
        for (&has, &g) in keys_present.iter().zip(by_key) {
            present[g as usize] |= has;
        }
        let partition = Partition::of_present(&present);
        let key_rank = |(&has, &g): (&bool, &u32)| if has { partition.rank[g as usize] } else { ABSENT };
        let key_ranks = keys_present.iter().zip(by_key).map(key_rank).collect();
        (partition, Some(key_ranks))
    }

    /// The groups `present` marks, ranked in the order of their ids.
    fn of_present(present: &[bool]) -> Partition {
        let ids: Vec<u32> = (0..present.len() as u32).filter(|&g| present[g as usize]).collect();
        let mut rank = vec![ABSENT; present.len()];
        for (r, &id) in ids.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        Partition { ids, rank }
    }

    /// How many groups hold objects.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ranks of the groups of `objects` (each group holding objects) into `ranks`.
    pub fn ranks(&self, groups: &ObjectGroups, objects: Range<usize>, ranks: &mut Vec<u32>) {
        groups.run_into(objects, ranks);
        ranks.iter_mut().for_each(|g| *g = self.rank[*g as usize]);
    }
}

/// Which of `0..count` the `keys` name (each must be below), a run of keys on each worker.
fn present_keys(keys: &[u32], count: usize) -> Vec<bool> {
    keys.par_chunks(1 << 20)
        .fold(
            || vec![false; count],
            |mut present, run| {
                run.iter().for_each(|&k| present[k as usize] = true);
                present
            },
        )
        .reduce(|| vec![false; count], |a, b| a.iter().zip(b).map(|(&a, b)| a || b).collect())
}

impl GroupedHeap {
    /// This heap (of the grouping `partition` was taken of) numbered by rank: the groups
    /// without objects, whose entries are empty, are left out.
    pub fn ranked(&self, partition: &Partition) -> GroupedHeap {
        let rank = |g: u32| partition.rank.get(g as usize).copied().unwrap_or(ABSENT);
        let maps_of = |maps: &[BTreeMap<u32, u64>]| -> Vec<BTreeMap<u32, u64>> {
            let ranked_map = |m: &BTreeMap<u32, u64>| m.iter().map(|(&g, &n)| (rank(g), n)).collect();
            partition
                .ids
                .iter()
                .map(|&id| maps.get(id as usize).map_or_else(BTreeMap::new, ranked_map))
                .collect()
        };
        let path_of = |path: &GroupPath| {
            let mut path = path.clone();
            path.steps.iter_mut().for_each(|s| s.group = rank(s.group));
            path
        };
        let ids = &partition.ids;
        GroupedHeap {
            counts: ids.iter().map(|&id| self.counts.get(id as usize).copied().unwrap_or_default()).collect(),
            maps: self.maps.as_ref().map(|m| PointerMaps {
                points_to: maps_of(&m.points_to),
                pointed_from: maps_of(&m.pointed_from),
            }),
            paths: ids
                .iter()
                .map(|&id| self.paths.get(id as usize).cloned().flatten().map(|p| path_of(&p)))
                .collect(),
            reachable_bytes: self.reachable_bytes,
        }
    }

    /// A heap numbered by rank ([`Self::ranked`], [`Self::check`]ed against `partition`) in the
    /// ids of the grouping `partition` was taken of, which has `group_count` groups.
    pub fn in_groups(self, partition: &Partition, group_count: usize) -> GroupedHeap {
        let id = |r: u32| partition.ids[r as usize];
        let spread = |maps: Vec<BTreeMap<u32, u64>>| {
            let mut all = vec![BTreeMap::new(); group_count];
            for (r, map) in maps.into_iter().enumerate() {
                all[id(r as u32) as usize] = map.into_iter().map(|(g, n)| (id(g), n)).collect();
            }
            all
        };
        let mut counts = vec![GroupCounts::default(); group_count];
        let mut paths = vec![None; group_count];
        for (r, (c, path)) in self.counts.into_iter().zip(self.paths).enumerate() {
            counts[id(r as u32) as usize] = c;
            paths[id(r as u32) as usize] = path.map(|mut p: GroupPath| {
                p.steps.iter_mut().for_each(|s| s.group = id(s.group));
                p
            });
        }
        GroupedHeap {
            counts,
            maps: self.maps.map(|m| PointerMaps {
                points_to: spread(m.points_to),
                pointed_from: spread(m.pointed_from),
            }),
            paths,
            reachable_bytes: self.reachable_bytes,
        }
    }

    /// That every group id in the heap lies below `group_count` and every per-group table has
    /// one entry a group, so the heap can stand for an analysis with that many groups.
    pub fn check(&self, group_count: usize) -> Result<(), String> {
        let per_group = |what: &str, len: usize| match len == group_count {
            true => Ok(()),
            false => Err(format!("{len} {what} for {group_count} groups")),
        };
        per_group("counts", self.counts.len())?;
        per_group("paths", self.paths.len())?;
        if let Some(maps) = &self.maps {
            per_group("points-to maps", maps.points_to.len())?;
            per_group("pointed-from maps", maps.pointed_from.len())?;
            let keys = maps.points_to.iter().chain(&maps.pointed_from).flat_map(|m| m.keys());
            if let Some(key) = keys.copied().find(|&k| k as usize >= group_count) {
                return Err(format!("a pointer map to group {key} of {group_count}"));
            }
        }
        self.paths.iter().flatten().try_for_each(|path| path_fits(path, group_count))
    }
}

fn path_fits(path: &GroupPath, group_count: usize) -> Result<(), String> {
    if path.steps.is_empty() || path.steps.len() > MAX_STEPS {
        return Err(format!("a retainer path of {} steps", path.steps.len()));
    }
    if path.via.len() > path.steps.len() {
        return Err(format!("{} names for a path of {} steps", path.via.len(), path.steps.len()));
    }
    match path.steps.iter().find(|s| s.group as usize >= group_count) {
        Some(step) => Err(format!("a retainer path through group {} of {group_count}", step.group)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
