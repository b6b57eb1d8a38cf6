//! Dumps other JVMs and tools write: the old HPROF agent's repeated class dumps, 32-bit
//! `JAVA PROFILE 1.0.1` dumps, unloaded classes, Android's `JAVA PROFILE 1.0.3` with ART's
//! records; and the object layout read from the dump itself.

use memcity_hprof::{Dump, HprofError, Layout, RootKind, class_totals, read_dump_bytes};

mod writer;
use writer::Writer;

fn read(bytes: &[u8]) -> Result<Dump, HprofError> {
    read_dump_bytes(bytes, "test.hprof", &Layout::default(), &|_| {})
}

/// java.lang.Object (0x10) and demo.Triple (0x20) with three reference fields and an int, which
/// every layout sizes differently.
fn classes(w: &mut Writer, heap: &mut Vec<u8>) {
    w.string(1, "java/lang/Object");
    w.string(2, "demo/Triple");
    w.string(3, "a");
    w.load_class(0x10, 1);
    w.load_class(0x20, 2);
    w.class_dump(heap, 0x10, 0, &[]);
    w.class_dump(heap, 0x20, 0x10, &[(3, 2), (3, 2), (3, 2), (3, 10)]);
}

/// `count` Triples whose ids are `spacing` bytes apart, as a compacted heap places them.
fn triples(w: &Writer, heap: &mut Vec<u8>, count: u64, spacing: u64) {
    for i in 0..count {
        let mut fields = Vec::new();
        for _ in 0..3 {
            w.id(0, &mut fields);
        }
        fields.extend(7u32.to_be_bytes());
        w.instance(heap, 0x10_0000 + i * spacing, 0x20, &fields);
    }
}

fn finish(mut w: Writer, heap: &[u8]) -> Vec<u8> {
    w.record(0x1C, heap);
    w.record(0x2C, &[]);
    w.bytes
}

#[test]
fn repeated_identical_class_dumps_count_once_and_conflicting_ones_are_refused() {
    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    classes(&mut w, &mut heap);
    triples(&w, &mut heap, 2, 24);
    w.record(0x1C, &heap);
    // The HPROF agent writes the classes, and the objects, again in a later segment.
    let mut again = Vec::new();
    w.class_dump(&mut again, 0x20, 0x10, &[(3, 2), (3, 2), (3, 2), (3, 10)]);
    w.class_dump(&mut again, 0x10, 0, &[]);
    triples(&w, &mut again, 2, 24);
    let dump = read(&finish(w, &again)).unwrap();
    let totals = class_totals(&dump);
    assert_eq!(totals["demo.Triple"].0, 2, "each object once");
    assert_eq!(totals["java.lang.Class"].0, 2, "one class object per class");

    // One id for an instance and an array: refused, naming both.
    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    classes(&mut w, &mut heap);
    triples(&w, &mut heap, 1, 24);
    heap.push(0x23);
    w.id(0x10_0000, &mut heap);
    heap.extend(0u32.to_be_bytes());
    heap.extend(0u32.to_be_bytes());
    heap.push(8);
    let e = read(&finish(w, &heap)).unwrap_err();
    assert!(e.message.contains("duplicate object id 0x100000: records of different kinds at bytes"), "{e}");

    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    classes(&mut w, &mut heap);
    let second = w.bytes.len() + 9 + heap.len();
    w.class_dump(&mut heap, 0x20, 0x10, &[(3, 2), (3, 10)]);
    let e = read(&finish(w, &heap)).unwrap_err();
    assert_eq!(e.offset, Some(second as u64));
    assert!(
        e.message.contains("conflicting class dumps for class 0x20: the one at byte")
            && e.message.contains("differs from the one at byte"),
        "{e}"
    );
}

#[test]
fn the_layout_is_read_from_the_distances_between_objects() {
    // 64-bit with compressed oops: 12 + 3 × 4 + 4 = 28, aligned 32; without compressed oops
    // (JDK 15 on: class pointers stay compressed): 12 + 3 × 8 + 4 = 40; without either:
    // 16 + 3 × 8 + 4 = 44, aligned 48.
    for (spacing, header, reference) in [(32, 12, 4), (40, 12, 8), (48, 16, 8)] {
        let mut w = Writer::new(8);
        let mut heap = Vec::new();
        classes(&mut w, &mut heap);
        triples(&w, &mut heap, 40, spacing);
        let bytes = finish(w, &heap);
        let dump = read(&bytes).unwrap();
        assert_eq!((dump.layout.header, dump.layout.reference), (header, reference), "{spacing}");
        assert_eq!(class_totals(&dump)["demo.Triple"], (40, 40 * spacing));
        // A layout the user gives is used as it is.
        let given = read_dump_bytes(&bytes, "t.hprof", &Layout::compressed(), &|_| {}).unwrap();
        assert_eq!(class_totals(&given)["demo.Triple"], (40, 40 * 32));
    }

    // Objects not in address order: nothing to read, the default stands.
    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    classes(&mut w, &mut heap);
    triples(&w, &mut heap, 40, 1000);
    assert_eq!(read(&finish(w, &heap)).unwrap().layout, Layout::default());
}

#[test]
fn thirty_two_bit_dumps_of_format_1_0_1_use_the_32_bit_layout() {
    let mut w = Writer::with_version(4, "1.0.1");
    let mut heap = Vec::new();
    classes(&mut w, &mut heap);
    triples(&w, &mut heap, 3, 24);
    // An int[3]: 12 + 12 = 24.
    heap.push(0x23);
    w.id(0x20_0000, &mut heap);
    heap.extend(0u32.to_be_bytes());
    heap.extend(3u32.to_be_bytes());
    heap.push(10);
    heap.extend([0; 12]);
    // The agent unloads a class (UNLOAD CLASS: its serial number).
    w.record(0x03, &7u32.to_be_bytes());
    let dump = read(&finish(w, &heap)).unwrap();
    assert_eq!(dump.layout, Layout::bits32());
    let totals = class_totals(&dump);
    assert_eq!(totals["demo.Triple"], (3, 3 * 24), "8 + 3 × 4 + 4 = 24");
    assert_eq!(totals["[I"], (1, 24));
}

/// A root sub-record of ART: the tag, the object id and `extra` bytes.
fn root(w: &Writer, heap: &mut Vec<u8>, tag: u8, id: u64, extra: usize) {
    heap.push(tag);
    w.id(id, heap);
    heap.extend(vec![0; extra]);
}

#[test]
fn android_dumps_with_art_records_are_read() {
    let mut w = Writer::with_version(4, "1.0.3");
    let mut heap = Vec::new();
    w.string(9, "app");
    // HEAP DUMP INFO: heap id 'A', then the heap's name.
    heap.push(0xFE);
    heap.extend(0x41u32.to_be_bytes());
    w.id(9, &mut heap);
    classes(&mut w, &mut heap);
    triples(&w, &mut heap, 8, 24);
    // A byte[100] written without its elements.
    heap.push(0xC3);
    w.id(0x30_0000, &mut heap);
    heap.extend(0u32.to_be_bytes());
    heap.extend(100u32.to_be_bytes());
    heap.push(8);
    let first = 0x10_0000;
    for (tag, extra) in
        [(0x89, 0), (0x8A, 0), (0x8B, 0), (0x8C, 0), (0x8D, 0), (0x8E, 8), (0x90, 0), (0xFF, 0)]
    {
        root(&w, &mut heap, tag, first + 24 * (tag as u64 % 8), extra);
    }
    root(&w, &mut heap, 0x8E, 0x30_0000, 8);
    let dump = read(&finish(w, &heap)).unwrap();
    let totals = class_totals(&dump);
    assert_eq!(totals["demo.Triple"].0, 8);
    assert_eq!(totals["[B"], (1, 112), "12 + 100, aligned: its size, though its bytes are not in the dump");
    let kinds: Vec<RootKind> = dump.root_kinds.iter().map(|&(_, k)| k).collect();
    assert_eq!(kinds.len(), 9);
    assert!(kinds.contains(&RootKind::Internal) && kinds.contains(&RootKind::MonitorUsed));
}

#[test]
fn malformed_art_records_are_refused_at_their_offset() {
    for bad in [
        // HEAP DUMP INFO cut short.
        vec![0xFE, 0, 0],
        // A primitive array without data whose element type is a reference.
        vec![0xC3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 2],
        // A JNI monitor root without its thread and depth.
        vec![0x8E, 0, 0, 0, 1, 0],
    ] {
        let mut w = Writer::with_version(4, "1.0.3");
        let at = w.bytes.len() + 9;
        w.record(0x1C, &bad);
        w.record(0x2C, &[]);
        let e = read(&w.bytes).unwrap_err();
        let offset = e.offset.unwrap_or_else(|| panic!("no offset: {e}"));
        assert!(offset >= at as u64 && offset < (at + bad.len()) as u64, "{e}");
    }
}
