//! Which freed big blocks are kept for the next allocation, as plain data over addresses: the
//! allocator maps and unmaps, this only decides.
//!
//! Memory in use plus memory kept never passes what it would reach without keeping anything:
//! a block is kept when it is freed, taken (best fit) by a later allocation of no more than
//! its size, and on an allocation no kept block fits, the kept blocks are gathered into the new
//! region as far as they fill it (their pages moved there, largest first) and the rest is
//! released: only what they cannot fill is fresh memory.

/// A region of whole pages: `len` bytes from `at`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Block {
    pub at: usize,
    pub len: usize,
}

/// How many freed blocks are kept at most.
const SLOTS: usize = 16;

/// The freed blocks kept, at most `cap` bytes of them.
#[derive(Debug)]
pub struct Pool {
    blocks: [Block; SLOTS],
    count: usize,
    bytes: usize,
    cap: usize,
}

/// What an allocation of some length gets from the pool.
#[derive(Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // one call's answer on the stack: an allocator cannot box
pub enum Taken {
    /// A kept block of exactly that length (its tail, if it was longer, stays kept or is in
    /// `release`).
    Reused { block: Block, release: Option<Block> },
    /// No kept block fits: new memory is to be mapped, these kept blocks moved into it (each
    /// at its offset, together no more than the length) and the others released.
    Missed { gather: Gathered, release: Released },
}

/// Kept blocks to be moved into a new region: each with its offset there, one after another
/// from the region's start.
#[derive(Debug, PartialEq, Eq)]
pub struct Gathered {
    pieces: [(Block, usize); SLOTS],
    count: usize,
}

impl Gathered {
    pub fn iter(&self) -> impl Iterator<Item = (Block, usize)> + '_ {
        self.pieces[..self.count].iter().copied()
    }
}

/// Blocks to be released, in no particular order.
#[derive(Debug, PartialEq, Eq)]
pub struct Released {
    blocks: [Block; SLOTS],
    count: usize,
}

impl Released {
    pub fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.blocks[..self.count].iter().copied()
    }
}

impl Pool {
    /// Keeps nothing until [`Pool::set_cap`].
    pub const fn new() -> Pool {
        Pool { blocks: [Block { at: 0, len: 0 }; SLOTS], count: 0, bytes: 0, cap: 0 }
    }

    /// Keeps at most `cap` bytes from now on; what is kept beyond it is to be released.
    pub fn set_cap(&mut self, cap: usize) -> Released {
        self.cap = cap;
        if self.bytes > cap { self.drain() } else { Released { blocks: [Block::default(); SLOTS], count: 0 } }
    }

    /// Bytes kept now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// A block of `len` bytes (whole pages, at least `min` bytes for a tail to stay kept).
    pub fn take(&mut self, len: usize, min: usize) -> Taken {
        let best = (0..self.count).filter(|&i| self.blocks[i].len >= len).min_by_key(|&i| self.blocks[i].len);
        let Some(i) = best else { return self.gather(len) };
        let block = self.remove(i);
        let tail = Block { at: block.at + len, len: block.len - len };
        let release = match tail.len {
            0 => None,
            _ if tail.len >= min => self.keep(tail),
            _ => Some(tail),
        };
        Taken::Reused { block: Block { at: block.at, len }, release }
    }

    /// A miss for `len` bytes: the kept blocks, largest first, fill the new region from its
    /// start; the first that does not fit whole gives its head, and its tail and the blocks
    /// after it are released (kept, they would pass what not keeping would use).
    fn gather(&mut self, len: usize) -> Taken {
        let mut kept = self.drain();
        kept.blocks[..kept.count].sort_unstable_by_key(|b| std::cmp::Reverse(b.len));
        let mut gather = Gathered { pieces: [(Block::default(), 0); SLOTS], count: 0 };
        let mut release = Released { blocks: [Block::default(); SLOTS], count: 0 };
        let mut filled = 0;
        for block in kept.iter() {
            let head = block.len.min(len - filled);
            if head > 0 {
                gather.pieces[gather.count] = (Block { at: block.at, len: head }, filled);
                gather.count += 1;
                filled += head;
            }
            if head < block.len {
                release.blocks[release.count] = Block { at: block.at + head, len: block.len - head };
                release.count += 1;
            }
        }
        Taken::Missed { gather, release }
    }

    /// Keeps a freed block when there is room for it; else it comes back, to be released.
    pub fn keep(&mut self, block: Block) -> Option<Block> {
        if self.count == SLOTS || self.bytes + block.len > self.cap {
            return Some(block);
        }
        self.blocks[self.count] = block;
        self.count += 1;
        self.bytes += block.len;
        None
    }

    fn remove(&mut self, i: usize) -> Block {
        let block = self.blocks[i];
        self.count -= 1;
        self.blocks[i] = self.blocks[self.count];
        self.bytes -= block.len;
        block
    }

    /// Everything kept, to be released.
    pub fn drain(&mut self) -> Released {
        let released = Released { blocks: self.blocks, count: self.count };
        (self.count, self.bytes) = (0, 0);
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    fn block(at: usize, len: usize) -> Block {
        Block { at: at * MIB, len: len * MIB }
    }

    fn pool(cap: usize) -> Pool {
        let mut pool = Pool::new();
        pool.set_cap(cap * MIB);
        pool
    }

    #[test]
    fn nothing_is_kept_without_a_cap() {
        let mut pool = Pool::new();
        assert_eq!(pool.keep(block(0, 64)), Some(block(0, 64)));
        assert!(matches!(pool.take(64 * MIB, 32 * MIB), Taken::Missed { .. }));
    }

    #[test]
    fn a_freed_block_is_taken_again_best_fit_first() {
        let mut pool = pool(1024);
        assert_eq!(pool.keep(block(0, 128)), None);
        assert_eq!(pool.keep(block(1000, 64)), None);
        assert_eq!(pool.take(64 * MIB, 32 * MIB), Taken::Reused { block: block(1000, 64), release: None });
        assert_eq!(pool.bytes(), 128 * MIB);
    }

    #[test]
    fn a_longer_blocks_tail_stays_kept_or_goes() {
        let mut pool = pool(1024);
        pool.keep(block(0, 128));
        // The 64 MiB tail stays kept and serves the next allocation.
        assert_eq!(pool.take(64 * MIB, 32 * MIB), Taken::Reused { block: block(0, 64), release: None });
        assert_eq!(
            pool.take(40 * MIB, 32 * MIB),
            Taken::Reused { block: block(64, 40), release: Some(block(104, 24)) }
        );
        assert_eq!(pool.bytes(), 0);
    }

    #[test]
    fn a_miss_gathers_what_is_kept_into_the_new_region_largest_first() {
        let mut pool = pool(1024);
        pool.keep(block(100, 32));
        pool.keep(block(0, 64));
        let Taken::Missed { gather, release } = pool.take(128 * MIB, 32 * MIB) else {
            panic!("nothing fits")
        };
        let gathered: Vec<(Block, usize)> = gather.iter().collect();
        assert_eq!(gathered, vec![(block(0, 64), 0), (block(100, 32), 64 * MIB)]);
        assert_eq!(release.iter().count(), 0);
        assert_eq!(pool.bytes(), 0, "nothing stays kept");
    }

    #[test]
    fn a_miss_takes_a_head_where_the_kept_blocks_pass_the_length_and_releases_the_rest() {
        let mut pool = pool(1024);
        for (at, len) in [(0, 60), (100, 50), (200, 40), (300, 10)] {
            pool.keep(block(at, len));
        }
        let Taken::Missed { gather, release } = pool.take(80 * MIB, 32 * MIB) else { panic!("nothing fits") };
        let gathered: Vec<(Block, usize)> = gather.iter().collect();
        assert_eq!(gathered, vec![(block(0, 60), 0), (block(100, 20), 60 * MIB)]);
        let mut released: Vec<Block> = release.iter().collect();
        released.sort_by_key(|b| b.at);
        assert_eq!(released, vec![block(120, 30), block(200, 40), block(300, 10)]);
        let moved: usize = gathered.iter().map(|(b, _)| b.len).sum();
        assert!(moved <= 80 * MIB, "never more than the region");
        assert_eq!(pool.bytes(), 0);
    }

    #[test]
    fn the_cap_and_the_slots_bound_what_is_kept() {
        let mut pool = pool(100);
        assert_eq!(pool.keep(block(0, 64)), None);
        assert_eq!(pool.keep(block(100, 64)), Some(block(100, 64)));
        let released: Vec<Block> = pool.set_cap(32 * MIB).iter().collect();
        assert_eq!((released, pool.bytes()), (vec![block(0, 64)], 0));
        let mut pool = pool_of_slots();
        assert_eq!(pool.keep(block(5000, 1)), Some(block(5000, 1)));
    }

    fn pool_of_slots() -> Pool {
        let mut pool = pool(1 << 20);
        for i in 0..SLOTS {
            assert_eq!(pool.keep(block(i * 10, 1)), None);
        }
        pool
    }
}
