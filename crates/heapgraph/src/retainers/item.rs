//! A retainer path step's entry for one object: the object (or, once it has left its group, its
//! exit) with the bytes of the path's group that lead to it. Wide entries are two words and also
//! carry the preorder position of the first object below (for representatives); narrow ones
//! are one word, for a path without representatives whose group's bytes fit in 32 bits — half
//! the memory and half the bytes every sweep and sort moves.

use crate::table::{Plain, Table};

/// What an object whose exit is the virtual root becomes in [`Item::rooted`]: no object has
/// this number.
pub(super) const ROOTED: u64 = u32::MAX as u64;

/// One entry of a step; its sort key is [`Item::word`]'s high 32 bits (the object, or exit).
pub(super) trait Item: Plain + Default {
    /// Whether entries hold the first position below and any weight.
    const WIDE: bool;
    /// An object of the path's group, `weight` its own bytes.
    fn of(object: u32, weight: u64) -> Self;
    /// The exit `x` of an entry whose first object below is at preorder position `first`.
    fn exited(x: u32, first: u32, weight: u64) -> Self;
    /// An object `o` whose exit is the virtual root (it leaves the path).
    fn rooted(o: u32, weight: u64) -> Self;
    /// The word the entries sort by: the object (or exit, or [`ROOTED`]) in the high 32 bits.
    fn word(&self) -> u64;
    /// The first preorder position below (0 for narrow entries).
    fn first(&self) -> u32;
    /// The object of a [`Item::rooted`] entry.
    fn rooted_object(&self) -> u32;
    fn weight(&self) -> u64;
    /// Two entries of the same exit as one: the smaller first position, the weights added.
    fn merged(self, other: Self) -> Self;
    /// The table itself where it can hold a step's subtrees (wide entries), so that a step
    /// needs no third table.
    fn as_spans(table: &mut Table<Self>) -> Option<&mut Table<[u64; 2]>>;

    fn object(&self) -> u32 {
        (self.word() >> 32) as u32
    }

    fn is_rooted(&self) -> bool {
        self.word() >> 32 == ROOTED
    }
}

/// `[object << 32 | first position, weight]`.
impl Item for [u64; 2] {
    const WIDE: bool = true;

    fn of(object: u32, weight: u64) -> Self {
        [u64::from(object) << 32, weight]
    }

    fn exited(x: u32, first: u32, weight: u64) -> Self {
        [u64::from(x) << 32 | u64::from(first), weight]
    }

    fn rooted(o: u32, weight: u64) -> Self {
        [ROOTED << 32 | u64::from(o), weight]
    }

    fn word(&self) -> u64 {
        self[0]
    }

    fn first(&self) -> u32 {
        self[0] as u32
    }

    fn rooted_object(&self) -> u32 {
        self[0] as u32
    }

    fn weight(&self) -> u64 {
        self[1]
    }

    fn merged(self, other: Self) -> Self {
        [self[0].min(other[0]), self[1] + other[1]]
    }

    fn as_spans(table: &mut Table<Self>) -> Option<&mut Table<[u64; 2]>> {
        Some(table)
    }
}

/// `object << 32 | weight`; a rooted entry is `ROOTED << 32 | object` (its weight is tallied
/// by then and not read again). The weights fit: each is at most the group's bytes.
impl Item for u64 {
    const WIDE: bool = false;

    fn of(object: u32, weight: u64) -> Self {
        debug_assert!(weight <= u64::from(u32::MAX));
        u64::from(object) << 32 | weight
    }

    fn exited(x: u32, _: u32, weight: u64) -> Self {
        u64::from(x) << 32 | weight
    }

    fn rooted(o: u32, _: u64) -> Self {
        ROOTED << 32 | u64::from(o)
    }

    fn word(&self) -> u64 {
        *self
    }

    fn first(&self) -> u32 {
        0
    }

    fn rooted_object(&self) -> u32 {
        *self as u32
    }

    fn weight(&self) -> u64 {
        *self & u64::from(u32::MAX)
    }

    fn merged(self, other: Self) -> Self {
        debug_assert_eq!(self >> 32, other >> 32);
        self + other.weight()
    }

    fn as_spans(_: &mut Table<Self>) -> Option<&mut Table<[u64; 2]>> {
        None
    }
}
