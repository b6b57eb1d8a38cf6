//! Bad dumps are rejected with the file and byte offset, never a panic; odd but valid dumps
//! (ids out of order, 4-byte ids) are read.

use std::io::Read;
use std::path::Path;

use memcity_hprof::{HprofError, Layout, class_totals, read_dump_bytes};

mod writer;
use writer::Writer;

/// Object (superclass) ← Node { Object next } with a root and instances written in descending
/// id order: 0x300 -> 0x200 -> 0x100.
fn linked_dump(id_size: u32) -> Vec<u8> {
    let mut w = Writer::new(id_size);
    w.string(1, "java/lang/Object");
    w.string(2, "demo/Node");
    w.string(3, "next");
    w.load_class(0x10, 1);
    w.load_class(0x20, 2);
    let mut heap = Vec::new();
    w.class_dump(&mut heap, 0x10, 0, &[]);
    w.class_dump(&mut heap, 0x20, 0x10, &[(3, 2)]);
    for (id, next) in [(0x300u64, 0x200u64), (0x200, 0x100), (0x100, 0)] {
        let mut field = Vec::new();
        w.id(next, &mut field);
        w.instance(&mut heap, id, 0x20, &field);
    }
    heap.push(0x05); // sticky class root... and a JNI global root on the head
    w.id(0x20, &mut heap);
    heap.push(0x01);
    w.id(0x300, &mut heap);
    w.id(0x999, &mut heap);
    w.record(0x1C, &heap);
    w.record(0x2C, &[]);
    w.bytes
}

fn read(bytes: &[u8]) -> Result<memcity_hprof::Dump, HprofError> {
    read_dump_bytes(bytes, "test.hprof", &Layout::default(), &|_| {})
}

#[test]
fn reads_hand_made_dumps_with_ids_out_of_order() {
    for id_size in [4, 8] {
        let dump = read(&linked_dump(id_size)).unwrap();
        let totals = class_totals(&dump);
        // Three nodes of align8(12 + 4) = 16 bytes, and two class objects.
        assert_eq!(totals["demo.Node"], (3, 48));
        assert_eq!(totals["java.lang.Class"].0, 2);
        let g = &dump.graph;
        // Nodes are sorted by id: 0x100, 0x200, 0x300; each points to the previous one.
        assert_eq!(g.referents(1), &[0]);
        assert_eq!(g.referents(2), &[1]);
        assert_eq!(g.roots, vec![2, 4]);
        assert_eq!(dump.timestamp_ms, 1_700_000_000_000);
    }
}

fn error(bytes: &[u8]) -> HprofError {
    match read(bytes) {
        Ok(_) => panic!("accepted a bad dump"),
        Err(e) => e,
    }
}

#[test]
fn rejects_unsupported_id_size_at_its_offset() {
    let e = error(
        &linked_dump(4).iter().enumerate().map(|(i, &b)| if i == 22 { 2 } else { b }).collect::<Vec<_>>(),
    );
    assert_eq!(e.offset, Some(19));
    assert!(e.to_string().starts_with("test.hprof: at byte 19: unsupported identifier size 2"), "{e}");
}

#[test]
fn rejects_unknown_record_tag_at_its_offset() {
    let mut bytes = linked_dump(8);
    let end = bytes.len();
    bytes.extend([0x77, 0, 0, 0, 0, 0, 0, 0, 1, 42]);
    let e = error(&bytes);
    assert_eq!(e.offset, Some(end as u64));
    assert!(e.message.contains("unknown record tag 0x77"), "{e}");
}

#[test]
fn rejects_unknown_sub_record_and_missing_superclass() {
    let mut w = Writer::new(8);
    w.record(0x1C, &[0x99, 0, 0]);
    let e = error(&w.bytes);
    assert_eq!(e.offset, Some(31 + 9));
    assert!(e.message.contains("sub-record tag 0x99"), "{e}");

    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    w.class_dump(&mut heap, 0x20, 0x10, &[]);
    w.record(0x1C, &heap);
    w.record(0x2C, &[]);
    assert!(error(&w.bytes).message.contains("superclass 0x10"));
}

#[test]
fn rejects_instances_whose_fields_do_not_fit_their_class() {
    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    w.class_dump(&mut heap, 0x20, 0, &[(3, 10)]);
    w.instance(&mut heap, 0x100, 0x20, &[0; 8]);
    w.instance(&mut heap, 0x200, 0x77, &[]);
    w.record(0x1C, &heap);
    w.record(0x2C, &[]);
    let e = error(&w.bytes);
    assert!(e.message.contains("8 bytes of fields but its class declares 4"), "{e}");
}

#[test]
fn rejects_files_that_are_not_dumps() {
    assert!(error(b"PK\x03\x04 a zip file").message.contains("not an HPROF heap dump"));
    assert_eq!(error(b"").offset, Some(0));
    let mut w = Writer::new(8);
    w.record(0x1C, &[]);
    assert!(error(&w.bytes).message.contains("no HEAP DUMP END"));
}

fn sample_bytes() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump1.hprof.gz");
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap()).read_to_end(&mut bytes).unwrap();
    bytes
}

#[test]
fn every_truncated_prefix_of_a_real_dump_is_an_error_with_an_offset() {
    let bytes = sample_bytes();
    assert!(read(&bytes).is_ok());
    let step = bytes.len() / 300;
    let lengths = (0..64).chain((64..bytes.len()).step_by(step)).chain([bytes.len() - 1]);
    for len in lengths {
        let e = error(&bytes[..len]);
        let offset = e.offset.unwrap_or_else(|| panic!("no offset for prefix {len}: {e}"));
        assert!(offset <= len as u64, "prefix {len}: offset {offset}");
        assert!(e.to_string().starts_with("test.hprof: at byte "), "{e}");
    }
}

#[test]
fn corrupt_bytes_never_panic() {
    let bytes = sample_bytes();
    // A deterministic scatter of positions; every flip is either read or rejected.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut rejected = 0;
    for _ in 0..300 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut corrupt = bytes.clone();
        let at = (state % bytes.len() as u64) as usize;
        corrupt[at] ^= 0xFF;
        if let Err(e) = read(&corrupt) {
            assert!(e.offset.is_some(), "{e}");
            rejected += 1;
        }
    }
    assert!(rejected > 0);
}

#[test]
fn broken_gzip_names_the_file() {
    let dir = std::env::temp_dir().join(format!("memcity-hprof-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("broken.hprof.gz");
    let gz =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump1.hprof.gz")).unwrap();
    std::fs::write(&path, &gz[..gz.len() / 2]).unwrap();
    let e = memcity_hprof::read_dump(&path, &Layout::default(), &|_| {}).unwrap_err();
    assert!(e.file.ends_with("broken.hprof.gz") && e.message.contains("gzip"), "{e}");
    // A bad file in a series imports nothing.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump2.hprof.gz"),
        dir.join("ok.hprof.gz"),
    )
    .unwrap();
    let e =
        memcity_hprof::import(std::slice::from_ref(&dir), &Default::default(), &memcity_heapgraph::Silent)
            .unwrap_err();
    assert!(e.file.ends_with("broken.hprof.gz"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
