//! Each object's leaf group. Most groupings of a dump group by class alone, and an index keeps
//! each object's class: the groups are then that table read in place and one group per class,
//! instead of a table of every object's group written afresh (four bytes an object of fresh
//! memory, which on a machine that hands freed pages back to its host costs more than the
//! lookup in a table of a few thousand classes). A reader that wrote the keys may hand on what
//! it counted of them ([`KeyTotal`]), so that counting the groups needs no sweep of the objects.

use std::ops::{Index, Range};

use crate::table::Table;

/// The leaf group of each object: a group per object, or a *key* per object (its class) and a
/// group per key.
#[derive(Debug, Clone, Default)]
pub struct ObjectGroups {
    keys: Table<u32>,
    /// Per key, its group; `None` where the keys are the groups.
    by_key: Option<Vec<u32>>,
    /// Per key, its objects, where the reader that wrote the keys counted them.
    totals: Option<Vec<KeyTotal>>,
}

/// The objects with one key and their shallow bytes, and the first of them: what a sweep of
/// the keys and sizes would find, counted by the reader as it wrote them. Past the memory
/// budget the keys and sizes are work files let go as they were written, and such a sweep
/// read them back from disk: 2.3 s of a 96 M-object dump's first import in a 2 GiB cgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyTotal {
    pub objects: u64,
    /// The shallow bytes of those objects (the graph's `shallow`, which must not change after).
    pub bytes: u64,
    /// The first object with the key; `u64::MAX` for a key no object has.
    pub first: u64,
}

impl Default for KeyTotal {
    fn default() -> KeyTotal {
        KeyTotal { objects: 0, bytes: 0, first: u64::MAX }
    }
}

impl KeyTotal {
    /// Counts object `o` of `bytes` (objects counted in increasing order, or any order where
    /// `first` is not read).
    #[inline]
    pub fn add(&mut self, o: u64, bytes: u64) {
        self.first = self.first.min(o);
        self.objects += 1;
        self.bytes += bytes;
    }
}

/// Counts the objects from `first` on, of keys `keys` and shallow sizes `sizes`, into `totals`
/// by key. A key past the totals is not counted (an index written of a spoiled dump: its
/// reader refuses such a key).
pub fn count_keys(totals: &mut [KeyTotal], first: usize, keys: &[u32], sizes: &[u64]) {
    for (o, (&key, &bytes)) in (first as u64..).zip(keys.iter().zip(sizes)) {
        if let Some(total) = totals.get_mut(key as usize) {
            total.add(o, bytes);
        }
    }
}

impl ObjectGroups {
    /// Object `o` in group `by_key[keys[o]]`. Every key must be below `by_key.len()` (an
    /// index's classes are checked when it is read; a dump's are below its class count).
    pub fn through(keys: Table<u32>, by_key: Vec<u32>) -> ObjectGroups {
        ObjectGroups::from(keys).grouped_by_key(by_key)
    }

    /// The same keys with `totals` per key, as their reader counted them ([`KeyTotal`]).
    pub fn with_totals(self, totals: Vec<KeyTotal>) -> ObjectGroups {
        debug_assert_eq!(totals.iter().map(|t| t.objects).sum::<u64>(), self.len() as u64);
        ObjectGroups { totals: Some(totals), ..self }
    }

    /// The objects of each key, where the keys' reader counted them.
    pub fn totals(&self) -> Option<&[KeyTotal]> {
        self.totals.as_deref()
    }

    /// The same keys, each in its group `by_key[key]` (the totals per key stay).
    pub fn grouped_by_key(self, by_key: Vec<u32>) -> ObjectGroups {
        debug_assert!(self.keys.iter().all(|&k| (k as usize) < by_key.len()), "a key without a group");
        ObjectGroups { by_key: Some(by_key), ..self }
    }

    /// The group of the objects with `key`.
    pub fn group_of_key(&self, key: usize) -> u32 {
        match &self.by_key {
            Some(by_key) => by_key[key],
            None => key as u32,
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Every object's group, in object order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        (0..self.len()).map(|o| self[o])
    }

    /// The groups of the objects `objects` into `out` (cleared first).
    pub fn run_into(&self, objects: Range<usize>, out: &mut Vec<u32>) {
        out.clear();
        let keys = &self.keys[objects];
        match &self.by_key {
            Some(by_key) => out.extend(keys.iter().map(|&k| by_key[k as usize])),
            None => out.extend_from_slice(keys),
        }
    }

    /// The per-object table: the groups, or the keys where groups come through them (an HPROF
    /// dump's classes; also what a walk asks the CPU for ahead).
    pub fn keys(&self) -> &Table<u32> {
        &self.keys
    }

    /// The groups per key, where the groups come through keys.
    pub fn by_key(&self) -> Option<&[u32]> {
        self.by_key.as_deref()
    }

    /// The groups as one table a group per object, to be written: made (and the keys let go)
    /// where they came through keys.
    pub fn as_mut_slice(&mut self) -> &mut [u32] {
        // A copy, not pages of an index written over: those become private memory.
        if self.by_key.is_some() || self.keys.is_read_in_place() {
            self.keys = self.to_table();
            self.by_key = None;
        }
        // Written over: the keys and what was counted of them may part.
        self.totals = None;
        &mut self.keys
    }

    /// A table of every object's group.
    pub fn to_table(&self) -> Table<u32> {
        let mut table = self.keys.clone();
        if let Some(by_key) = &self.by_key {
            table.iter_mut().for_each(|k| *k = by_key[*k as usize]);
        }
        table
    }
}

impl Index<usize> for ObjectGroups {
    type Output = u32;

    #[inline]
    fn index(&self, o: usize) -> &u32 {
        match &self.by_key {
            Some(by_key) => &by_key[self.keys[o] as usize],
            None => &self.keys[o],
        }
    }
}

impl PartialEq for ObjectGroups {
    /// The same group for every object, however each is found.
    fn eq(&self, other: &ObjectGroups) -> bool {
        match (&self.by_key, &other.by_key) {
            (None, None) => self.keys == other.keys,
            _ => self.len() == other.len() && self.iter().eq(other.iter()),
        }
    }
}

impl From<Table<u32>> for ObjectGroups {
    fn from(groups: Table<u32>) -> ObjectGroups {
        ObjectGroups { keys: groups, by_key: None, totals: None }
    }
}

impl From<Vec<u32>> for ObjectGroups {
    fn from(groups: Vec<u32>) -> ObjectGroups {
        Table::from(groups).into()
    }
}

impl FromIterator<u32> for ObjectGroups {
    fn from_iter<I: IntoIterator<Item = u32>>(groups: I) -> ObjectGroups {
        groups.into_iter().collect::<Table<u32>>().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_through_keys_read_as_a_table_of_groups() {
        let keys: Table<u32> = vec![2, 0, 1, 2, 2].into();
        let through = ObjectGroups::through(keys, vec![7, 5, 9]);
        let direct: ObjectGroups = vec![9, 7, 5, 9, 9].into();
        assert_eq!(through.iter().collect::<Vec<_>>(), [9, 7, 5, 9, 9]);
        assert_eq!((through[0], through[1], through.len()), (9, 7, 5));
        assert_eq!(through, direct);
        assert_eq!(through.to_table(), vec![9, 7, 5, 9, 9]);
        // What a reader counted of the keys stays with them when they are grouped, and goes
        // when the groups are written over.
        let mut totals = vec![KeyTotal::default(); 3];
        [2, 0, 1, 2, 2].iter().enumerate().for_each(|(o, &k)| totals[k].add(o as u64, 8));
        let keys: Table<u32> = vec![2, 0, 1, 2, 2].into();
        let mut counted = ObjectGroups::from(keys).with_totals(totals.clone()).grouped_by_key(vec![7, 5, 9]);
        assert_eq!(counted, direct);
        assert_eq!(counted.totals(), Some(&totals[..]));
        assert_eq!((totals[2].objects, totals[2].bytes, totals[2].first), (3, 24, 0));
        assert_eq!((counted.group_of_key(1), counted.group_of_key(2)), (5, 9));
        counted.as_mut_slice()[0] = 5;
        assert_eq!(counted.totals(), None);
        let mut run = Vec::new();
        through.run_into(1..4, &mut run);
        assert_eq!(run, [7, 5, 9]);
        direct.run_into(3..5, &mut run);
        assert_eq!(run, [9, 9]);
        let mut written = through.clone();
        written.as_mut_slice()[1] = 1;
        assert_eq!(written.by_key(), None);
        assert_eq!(written.iter().collect::<Vec<_>>(), [9, 1, 5, 9, 9]);
        assert_ne!(written, through);
    }
}
