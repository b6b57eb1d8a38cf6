//! Pass 1 over a dump: the scan of its records. It keeps names, classes and GC roots, and for
//! each heap object only the offset of its sub-record, so pass 2 ([`crate::resolve`]) can read
//! objects in parallel straight from the bytes. The top-level records are walked in order
//! (their lengths lead from one to the next); the heap dump bodies, where the objects are, are
//! read in parallel ([`body`]) and added to the dump in file order, so a dump reads the same,
//! and a bad one is refused at the same byte, as in one sequential scan.

mod body;

use std::collections::HashMap;
use std::ops::Range;

use rayon::prelude::*;

use crate::cursor::Cursor;
use crate::error::Fault;
use memcity_heapgraph::{RootKind, Table};

const MAGIC: &[u8] = b"JAVA PROFILE 1.0.";

// Top-level record tags.
const UTF8: u8 = 0x01;
const LOAD_CLASS: u8 = 0x02;
const HEAP_DUMP: u8 = 0x0C;
const HEAP_DUMP_SEGMENT: u8 = 0x1C;
/// Records memcity needs nothing from: unload class, stack frame, stack trace, alloc sites, heap
/// summary, start/end thread, heap dump end, CPU samples, control settings.
const SKIPPED: &[u8] = &[0x03, 0x04, 0x05, 0x06, 0x07, 0x0A, 0x0B, 0x0D, 0x0E];
const HEAP_DUMP_END: u8 = 0x2C;
const START_THREAD: u8 = 0x0A;
const CONTROL_SETTINGS: u8 = 0x0E;

// Heap dump sub-record tags.
pub const CLASS_DUMP: u8 = 0x20;
pub const INSTANCE_DUMP: u8 = 0x21;
pub const OBJ_ARRAY_DUMP: u8 = 0x22;
pub const PRIM_ARRAY_DUMP: u8 = 0x23;
/// Android (`JAVA PROFILE 1.0.3`): a primitive array written without its elements; laid out
/// like [`PRIM_ARRAY_DUMP`] up to the element type.
pub const PRIM_ARRAY_NODATA: u8 = 0xC3;

/// The HPROF basic type code of references.
pub const OBJECT: u8 = 2;

/// A class as its CLASS_DUMP record describes it.
#[derive(Debug, Clone)]
pub struct RawClass {
    pub id: u64,
    pub super_id: u64,
    pub loader_id: u64,
    /// Static fields: (name string id, basic type, value); reference values are object ids.
    /// HotSpot adds pseudo-statics (`<resolved_references>`, …) that are not in the class's
    /// static block.
    pub statics: Vec<(u64, u8, u64)>,
    /// Types of this class's own instance fields, in dump order (superclass fields not included).
    pub fields: Vec<u8>,
    /// The name string ids of those fields.
    pub field_names: Vec<u64>,
    /// Where its record starts, for error messages.
    pub offset: usize,
}

impl RawClass {
    /// How two records of the same class differ in shape (superclass, class loader, fields,
    /// the names and types of static fields), if they do. Static values may differ: the HPROF
    /// agent writes while the program runs.
    fn difference(&self, other: &RawClass) -> Option<&'static str> {
        let static_shape =
            |c: &RawClass| c.statics.iter().map(|&(name, ty, _)| (name, ty)).collect::<Vec<_>>();
        if (self.super_id, self.loader_id) != (other.super_id, other.loader_id) {
            Some("its superclass or class loader")
        } else if (&self.fields, &self.field_names) != (&other.fields, &other.field_names) {
            Some("its instance fields")
        } else if static_shape(self) != static_shape(other) {
            Some("its static fields")
        } else {
            None
        }
    }
}

/// Everything pass 1 keeps of a dump.
#[derive(Debug, Default)]
pub struct RawDump<'a> {
    /// The format version's last digit: `JAVA PROFILE 1.0.1` (32-bit ids), `1.0.2` (HotSpot),
    /// `1.0.3` (Android).
    pub version: u8,
    pub id_size: usize,
    pub timestamp_ms: u64,
    pub strings: HashMap<u64, &'a [u8]>,
    /// Class object id -> name string id (LOAD_CLASS).
    pub class_names: HashMap<u64, u64>,
    pub classes: Vec<RawClass>,
    /// Offsets of INSTANCE_DUMP, OBJ_ARRAY_DUMP and PRIM_ARRAY_DUMP sub-records (at their tag).
    pub objects: Table<usize>,
    /// Their object ids, in the same order.
    pub object_ids: Table<u64>,
    pub roots: Vec<(u64, RootKind)>,
    /// Written by the old HPROF agent (it alone writes CONTROL SETTINGS and START THREAD
    /// records): its ids are serial numbers, not addresses, and 4 bytes even on 64-bit JVMs.
    pub agent: bool,
    /// Class id -> its index in `classes`, to tell a repeated CLASS DUMP from a conflicting one.
    class_at: HashMap<u64, usize>,
}

/// Whether `tag` is a top-level record tag this reader knows (the gzip reader checks the records
/// as they are inflated, so a file of zeros behind a header is refused at once).
pub fn is_record_tag(tag: u8) -> bool {
    matches!(tag, UTF8 | LOAD_CLASS | HEAP_DUMP | HEAP_DUMP_SEGMENT | HEAP_DUMP_END) || SKIPPED.contains(&tag)
}

/// Size in the dump of a value of basic type `ty`, or `None` for an unknown type code.
pub fn value_size(ty: u8, id_size: usize) -> Option<usize> {
    match ty {
        OBJECT => Some(id_size),
        4 | 8 => Some(1),
        5 | 9 => Some(2),
        6 | 10 => Some(4),
        7 | 11 => Some(8),
        _ => None,
    }
}

/// Scans the whole dump. `progress(bytes)` is called now and then with the bytes read so far.
pub fn scan<'a>(data: &'a [u8], progress: &dyn Fn(u64)) -> Result<RawDump<'a>, Fault> {
    scan_in_batches(data, progress, BATCH)
}

/// [`scan`], reading the heap dump bodies in batches of about `batch` bytes.
fn scan_in_batches<'a>(data: &'a [u8], progress: &dyn Fn(u64), batch: usize) -> Result<RawDump<'a>, Fault> {
    let mut c = Cursor::new(data, 0);
    let mut dump = read_header(&mut c)?;
    let id_size = dump.id_size;
    let mut walk = Walk { batch_bytes: batch, ..Walk::default() };
    // The walk keeps the names it meets, and the adding the classes, objects and roots: two
    // parts of the dump, so that a batch is walked to and read while the one before is added.
    // The adding is a sequential copy into tables that grow: alone it left a core idle (the
    // reading of a 96 M-object dump took 1.7-1.8 s at about one core, side by side 1.2 s).
    let mut names = Names::default();
    // A batch of bodies is walked to and then read, so the pages the walk touched are read
    // again soon (a dump larger than memory is not walked to its end first).
    let mut read: Vec<body::Body> = Vec::new();
    loop {
        let previous = std::mem::take(&mut read);
        let next = || {
            let walked = walk.next_batch(data, &mut c, &mut names, id_size);
            let bodies = read_bodies(data, &walk.batch, id_size);
            walk.batch.clear();
            (walked, bodies, c.pos)
        };
        let ((walked, bodies, walked_to), added) = rayon::join(next, || add_bodies(&mut dump, previous));
        // The batch before comes first in the file, and so do its faults; the bodies before a
        // fault of the walk come before that fault.
        added?;
        read = bodies;
        progress(walked_to as u64);
        if matches!(walked, Ok(true) | Err(_)) {
            add_bodies(&mut dump, std::mem::take(&mut read))?;
            walked?;
            break;
        }
    }
    (dump.strings, dump.class_names, dump.agent) = (names.strings, names.class_names, names.agent);
    if walk.heap_dumps == 0 {
        return Err(Fault::new(data.len(), "truncated dump: it has no heap dump records"));
    }
    if let Some(first) = walk.open_segments {
        return Err(Fault::new(
            data.len(),
            format!(
                "truncated dump: the heap dump segments from byte {first} on have no HEAP DUMP END record"
            ),
        ));
    }
    // Growth by doubling left up to twice the room needed; the next pass keeps these tables
    // while it builds the graph, so they are cut to size (in place for large blocks).
    dump.objects.shrink_to_fit();
    dump.object_ids.shrink_to_fit();
    progress(data.len() as u64);
    Ok(dump)
}

/// What the walk over the top-level records keeps: the dump's names and whether the old HPROF
/// agent wrote it (see [`RawDump`]).
#[derive(Default)]
struct Names<'a> {
    strings: HashMap<u64, &'a [u8]>,
    class_names: HashMap<u64, u64>,
    agent: bool,
}

/// Dump bytes of heap dump bodies read at once: their objects' offsets and ids (16 bytes for
/// a record of at least 18) are held in plain vectors until they are added to the dump's tables.
const BATCH: usize = 32 << 20;

/// The walk over the top-level records, in order.
#[derive(Default)]
struct Walk {
    /// The heap dump bodies met and not read yet, and how many bytes of them make a batch.
    batch: Vec<Range<usize>>,
    batch_bytes: usize,
    heap_dumps: usize,
    /// Offset of the first HEAP_DUMP_SEGMENT not yet closed by a HEAP_DUMP_END: a dump cut off
    /// at a record boundary is recognised by the missing end.
    open_segments: Option<usize>,
}

impl Walk {
    /// Walks on until the batch holds at least one body per thread and its bytes, keeping
    /// names and classes on the way; true at the end of the dump.
    fn next_batch<'a>(
        &mut self,
        data: &'a [u8],
        c: &mut Cursor<'a>,
        names: &mut Names<'a>,
        id_size: usize,
    ) -> Result<bool, Fault> {
        let threads = rayon::current_num_threads();
        let mut bytes: usize = self.batch.iter().map(|b| b.len()).sum();
        while !c.at_end() {
            if self.batch.len() >= threads && bytes >= self.batch_bytes {
                return Ok(false);
            }
            let start = c.pos;
            let tag = c.u1("record tag")?;
            c.u4("record time")?;
            let length = c.u4("record length")? as usize;
            let body = c.bytes(length, "record body").map_err(|f| Fault { offset: start as u64, ..f })?;
            let body_start = c.pos - length;
            match tag {
                UTF8 => read_utf8(&mut Cursor::new(&data[..c.pos], body_start), id_size, names)?,
                LOAD_CLASS => read_load_class(&mut Cursor::new(&data[..c.pos], body_start), id_size, names)?,
                HEAP_DUMP | HEAP_DUMP_SEGMENT => {
                    self.heap_dumps += 1;
                    if tag == HEAP_DUMP_SEGMENT {
                        self.open_segments.get_or_insert(start);
                    }
                    self.batch.push(body_start..c.pos);
                    bytes += length;
                }
                HEAP_DUMP_END => self.open_segments = None,
                CONTROL_SETTINGS | START_THREAD => names.agent = true,
                t if SKIPPED.contains(&t) => {}
                t => {
                    return Err(Fault::new(
                        start,
                        format!("unknown record tag 0x{t:02X} (body of {} bytes)", body.len()),
                    ));
                }
            }
        }
        Ok(true)
    }
}

/// Reads the heap dump bodies at `bodies` in parallel.
fn read_bodies(data: &[u8], bodies: &[Range<usize>], id_size: usize) -> Vec<body::Body> {
    bodies.par_iter().map(|range| body::read(data, range.clone(), id_size)).collect()
}

/// Adds read bodies to `dump` in file order.
fn add_bodies(dump: &mut RawDump<'_>, bodies: Vec<body::Body>) -> Result<(), Fault> {
    bodies.into_iter().try_for_each(|body| add_body(dump, body))
}

/// Adds one body's records to the dump, as a sequential scan would meet them: the first fault
/// in file order among its own, a conflicting class and one object too many is the dump's.
fn add_body(dump: &mut RawDump<'_>, body: body::Body) -> Result<(), Fault> {
    let mut faults = Vec::from_iter(body.fault);
    for class in body.classes {
        if let Err(fault) = add_class(dump, class) {
            faults.push(fault);
            break;
        }
    }
    let room = MAX_OBJECTS - dump.objects.len();
    if let Some(&first_too_many) = body.objects.get(room) {
        faults.push(too_many_objects(first_too_many));
    }
    if let Some(first) = faults.into_iter().min_by_key(|f| f.offset) {
        return Err(first);
    }
    // As a scan in order adds them, one at a time: the tables then grow, and move to work files
    // past the budget, at the same points and in the same order, so the tables made after them
    // are placed the same. Where both have room in memory, a run of them is copied at once.
    let (mut offsets, mut ids) = (&body.objects[..], &body.ids[..]);
    while let (Some(&offset), Some(&id)) = (offsets.first(), ids.first()) {
        let run = dump.objects.room_in_memory().min(dump.object_ids.room_in_memory()).min(offsets.len());
        if run == 0 {
            dump.objects.push(offset);
            dump.object_ids.push(id);
            (offsets, ids) = (&offsets[1..], &ids[1..]);
            continue;
        }
        dump.objects.extend_from_slice(&offsets[..run]);
        dump.object_ids.extend_from_slice(&ids[..run]);
        (offsets, ids) = (&offsets[run..], &ids[run..]);
    }
    dump.roots.extend(body.roots);
    Ok(())
}

/// Checks a dump's header (the format name, the identifier size, the time stamp) alone.
pub fn check_header(head: &[u8]) -> Result<(), Fault> {
    read_header(&mut Cursor::new(head, 0)).map(|_| ())
}

fn read_header<'a>(c: &mut Cursor<'a>) -> Result<RawDump<'a>, Fault> {
    if !c.peek_rest().iter().zip(MAGIC).all(|(a, b)| a == b) {
        return Err(Fault::new(
            0,
            "not an HPROF heap dump: the file does not start with \"JAVA PROFILE 1.0.\"",
        ));
    }
    c.bytes(MAGIC.len(), "file header")?;
    // The version's last digit and the terminating NUL.
    let rest = c.bytes(2, "file header")?;
    if rest[1] != 0 {
        return Err(Fault::new(c.pos - 1, "malformed header: the format name is not NUL-terminated"));
    }
    let id_pos = c.pos;
    let id_size = c.u4("identifier size")? as usize;
    if id_size != 4 && id_size != 8 {
        return Err(Fault::new(id_pos, format!("unsupported identifier size {id_size} (only 4 and 8 are)")));
    }
    let timestamp_ms = c.u8("dump timestamp")?;
    Ok(RawDump { version: rest[0], id_size, timestamp_ms, ..RawDump::default() })
}

fn read_utf8<'a>(c: &mut Cursor<'a>, id_size: usize, names: &mut Names<'a>) -> Result<(), Fault> {
    let id = c.id(id_size, "UTF8 string id")?;
    names.strings.insert(id, c.rest());
    Ok(())
}

fn read_load_class(c: &mut Cursor<'_>, id_size: usize, names: &mut Names<'_>) -> Result<(), Fault> {
    c.u4("class serial number")?;
    let class_id = c.id(id_size, "class object id")?;
    c.u4("stack trace serial number")?;
    let name_id = c.id(id_size, "class name id")?;
    names.class_names.insert(class_id, name_id);
    Ok(())
}

/// The most objects a dump may have: nodes are numbered with `u32`s, two numbers reserved
/// (the dominator tree's virtual root and "unreachable"), and the class objects need numbers too.
pub const MAX_OBJECTS: usize = u32::MAX as usize - 2 - (1 << 24);

pub(crate) fn too_many_objects(offset: usize) -> Fault {
    Fault::new(
        offset,
        format!(
            "more than {MAX_OBJECTS} objects: memcity numbers objects with 32 bits and cannot read this dump"
        ),
    )
}

/// Keeps a class. The old HPROF agent (JDK 5–8) writes a class's CLASS DUMP again in later
/// heap dump segments, while the program runs: a repeat of the same shape replaces the static
/// values (the later state, like the objects written after it), one of another shape is refused.
fn add_class(dump: &mut RawDump<'_>, class: RawClass) -> Result<(), Fault> {
    match dump.class_at.get(&class.id) {
        Some(&first) => {
            let earlier = &dump.classes[first];
            if let Some(what) = earlier.difference(&class) {
                return Err(Fault::new(
                    class.offset,
                    format!(
                        "conflicting class dumps for class 0x{:x}: the one at byte {} differs from the one at byte {} in {what}",
                        class.id, class.offset, earlier.offset
                    ),
                ));
            }
            dump.classes[first].statics = class.statics;
        }
        None => {
            dump.class_at.insert(class.id, dump.classes.len());
            dump.classes.push(class);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a scan keeps, to compare two scans: objects, ids, roots and classes, printed.
    fn kept(dump: &RawDump<'_>) -> String {
        format!("{:?} {:?} {:?} {:?}", dump.objects, dump.object_ids, dump.roots, dump.classes)
    }

    /// A generated dump of many small segments read in batches of one segment per thread and
    /// in one batch: the same objects, roots and classes; cut off anywhere, the same fault.
    #[test]
    fn batches_of_any_size_read_the_same() {
        let spec =
            crate::generate::Spec { segment_bytes: 16 << 10, ..crate::generate::Spec::for_objects(60_000) };
        let mut bytes = Vec::new();
        let summary = crate::generate::write(&mut bytes, &spec).unwrap();
        assert!(summary.segments > 50, "{} segments", summary.segments);
        let whole = scan_in_batches(&bytes, &|_| {}, usize::MAX).unwrap();
        let small = scan_in_batches(&bytes, &|_| {}, 1).unwrap();
        assert_eq!(kept(&small), kept(&whole));
        assert_eq!(small.objects.len() as u64, summary.objects);
        for cut in [bytes.len() / 3, bytes.len() / 2 + 7, bytes.len() - 100] {
            let fault = |batch| scan_in_batches(&bytes[..cut], &|_| {}, batch).map(|_| ()).unwrap_err();
            assert_eq!(fault(1), fault(usize::MAX), "cut at {cut}");
        }
    }
}
