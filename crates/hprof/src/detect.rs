//! The object layout of a dump, read from the dump itself. HotSpot writes every object's
//! address as its id, and a dump follows a full GC that compacted the heap, so the distance
//! from one object to the next is, for most objects, the first one's size. Each candidate
//! layout sizes a sample of objects; the one whose sizes match those distances most often is
//! the JVM's. The id size narrows the candidates: 4-byte ids are a 32-bit JVM (or Android),
//! 8-byte ids a 64-bit one with or without compressed oops. The old HPROF agent's dumps are the
//! exception: their ids are not addresses.

use crate::classes::ClassTable;
use crate::cursor::Cursor;
use crate::layout::Layout;
use crate::parse::{INSTANCE_DUMP, OBJ_ARRAY_DUMP, OBJECT, RawDump};

/// Neighbouring object pairs looked at, spread over the whole dump.
const SAMPLES: usize = 20_000;

/// What was decided, for reports and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detected {
    pub layout: Layout,
    /// Pairs whose distance the chosen layout explains, of the pairs looked at.
    pub matched: usize,
    pub sampled: usize,
}

/// The layouts a dump with ids of `id_size` bytes can have, the most common first.
pub fn candidates(id_size: usize) -> Vec<Layout> {
    if id_size == 4 {
        vec![Layout::bits32()]
    } else {
        vec![Layout::default(), Layout::uncompressed_oops(), Layout::uncompressed()]
    }
}

/// The dump's layout: the candidate whose sizes explain the most distances between
/// neighbouring objects. With too few pairs explained (objects not in address order, a heap
/// not compacted) the first candidate stands.
pub fn detect(data: &[u8], raw: &RawDump<'_>) -> Detected {
    // The HPROF agent's ids are serial numbers: no distances to read, and 4 bytes whatever the
    // JVM. Its dumps come from JDK 5 to 8; most from 64-bit JVMs with compressed oops (the
    // default from JDK 6u23 on), which is taken; the layout flags say otherwise.
    if raw.agent {
        return Detected { layout: Layout::default(), matched: 0, sampled: 0 };
    }
    let candidates = candidates(raw.id_size);
    let first = Detected { layout: candidates[0], matched: 0, sampled: 0 };
    let tables: Vec<ClassTable> = candidates.iter().filter_map(|l| ClassTable::build(raw, l).ok()).collect();
    if tables.len() != candidates.len() || raw.object_ids.len() < 2 {
        return first;
    }
    let pairs = raw.object_ids.len() - 1;
    let step = pairs.div_ceil(SAMPLES).max(1);
    let mut matched = vec![0usize; candidates.len()];
    let mut sampled = 0;
    for i in (0..pairs).step_by(step) {
        let (id, next) = (raw.object_ids[i], raw.object_ids[i + 1]);
        let Some(distance) = next.checked_sub(id).filter(|&d| d < 1 << 30) else { continue };
        sampled += 1;
        for (k, (layout, table)) in candidates.iter().zip(&tables).enumerate() {
            if size_of(data, raw.objects[i], raw.id_size, table, layout) == Some(distance) {
                matched[k] += 1;
            }
        }
    }
    let (best, &most) =
        matched.iter().enumerate().max_by_key(|&(k, &m)| (m, usize::MAX - k)).expect("a candidate");
    // A clear majority of explained pairs; otherwise nothing is known.
    if most * 2 < sampled || most < 8 {
        return Detected { matched: matched[0], sampled, ..first };
    }
    Detected { layout: candidates[best], matched: most, sampled }
}

/// An object's size under one layout, read from its sub-record; `None` where the record does
/// not say (a class the dump lacks, a mirror of a primitive type).
fn size_of(data: &[u8], offset: usize, ids: usize, table: &ClassTable, layout: &Layout) -> Option<u64> {
    let mut c = Cursor::new(data, offset);
    let tag = c.u1("tag").ok()?;
    c.bytes(ids + 4, "object id").ok()?;
    if tag == INSTANCE_DUMP {
        let class = *table.by_id.get(&c.id(ids, "class id").ok()?)?;
        (class != table.class_class).then(|| table.instances[class as usize].size)
    } else if tag == OBJ_ARRAY_DUMP {
        Some(layout.array(OBJECT, u64::from(c.u4("length").ok()?)))
    } else {
        let length = u64::from(c.u4("length").ok()?);
        Some(layout.array(c.u1("type").ok()?, length))
    }
}
