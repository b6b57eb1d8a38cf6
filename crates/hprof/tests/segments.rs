//! Pass 1 reads a dump's heap dump segments in parallel: what it finds, and the first fault it
//! reports, are those of one scan in file order, whatever the number of threads.

use memcity_hprof::parse::{RawDump, scan};
use memcity_hprof::{Layout, read_dump_bytes};

mod writer;
use writer::Writer;

/// Scans `bytes` on a pool of `threads`.
fn scan_on<T: Send>(
    threads: usize,
    bytes: &[u8],
    then: impl FnOnce(Result<RawDump<'_>, memcity_hprof::error::Fault>) -> T + Send,
) -> T {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| then(scan(bytes, &|_| {})))
}

/// A dump of `segments` segments, each with a root, a repeat of a class dump and `per` objects
/// (instances and both kinds of arrays), and the offset of every object's sub-record.
fn many_segments(segments: u64, per: u64) -> (Vec<u8>, Vec<u64>) {
    let mut w = Writer::new(8);
    w.string(1, "java/lang/Object");
    w.string(2, "demo/Pair");
    w.string(3, "a");
    w.load_class(0x10, 1);
    w.load_class(0x20, 2);
    let mut offsets = Vec::new();
    let mut id = 0x10_0000;
    for s in 0..segments {
        let mut heap = Vec::new();
        w.class_dump(&mut heap, 0x10, 0, &[]);
        w.class_dump(&mut heap, 0x20, 0x10, &[(3, 2), (3, 2)]);
        heap.push(0x05); // sticky class root
        w.id(0x20, &mut heap);
        let base = w.bytes.len() as u64 + 9;
        for i in 0..per {
            offsets.push(base + heap.len() as u64);
            match (s + i) % 3 {
                0 => {
                    let mut fields = Vec::new();
                    w.id(id - 24, &mut fields);
                    w.id(0, &mut fields);
                    w.instance(&mut heap, id, 0x20, &fields);
                }
                1 => {
                    heap.push(0x22);
                    w.id(id, &mut heap);
                    heap.extend(0u32.to_be_bytes());
                    heap.extend(2u32.to_be_bytes());
                    w.id(0x10, &mut heap);
                    w.id(id - 24, &mut heap);
                    w.id(0, &mut heap);
                }
                _ => {
                    heap.push(0x23);
                    w.id(id, &mut heap);
                    heap.extend(0u32.to_be_bytes());
                    heap.extend(3u32.to_be_bytes());
                    heap.push(8);
                    heap.extend([1, 2, 3]);
                }
            }
            id += 24;
        }
        w.record(0x1C, &heap);
    }
    w.record(0x2C, &[]);
    (w.bytes, offsets)
}

#[test]
fn many_segments_read_the_same_on_one_thread_and_on_several() {
    let (bytes, offsets) = many_segments(300, 17);
    let seen = |threads| {
        scan_on(threads, &bytes, |dump| {
            let dump = dump.unwrap();
            let classes: Vec<String> = dump.classes.iter().map(|c| format!("{c:?}")).collect();
            (dump.objects.to_vec(), dump.object_ids.to_vec(), dump.roots.clone(), classes)
        })
    };
    let one = seen(1);
    assert_eq!(one.0.iter().map(|&o| o as u64).collect::<Vec<_>>(), offsets, "every object, in file order");
    assert_eq!(one.1, (0..offsets.len() as u64).map(|i| 0x10_0000 + 24 * i).collect::<Vec<_>>());
    assert_eq!(one.2.len(), 300, "a root per segment");
    assert_eq!(one.3.len(), 2, "each class once, repeats merged");
    for threads in [2, 3, 8] {
        assert!(seen(threads) == one, "{threads} threads");
    }
    let dump = read_dump_bytes(&bytes, "many.hprof", &Layout::default(), &|_| {}).unwrap();
    assert_eq!(dump.graph.object_count(), offsets.len() + 2);
}

/// Faults in several segments and after them: the one earliest in the file is reported, as a
/// scan in file order stops there, whichever segment a thread read first.
#[test]
fn the_first_fault_in_file_order_is_the_one_reported() {
    let (good, _) = many_segments(40, 5);
    // Segment bodies start 9 bytes after their record's tag; find them by walking the records.
    let mut records = Vec::new();
    let mut at = good.iter().position(|&b| b == 0).unwrap() + 1 + 4 + 8;
    while at < good.len() {
        let length = u32::from_be_bytes(good[at + 5..at + 9].try_into().unwrap()) as usize;
        records.push((good[at], at));
        at += 9 + length;
    }
    let segments: Vec<usize> = records.iter().filter(|r| r.0 == 0x1C).map(|r| r.1 + 9).collect();
    // An unknown sub-record tag at the start of segment 30's first object, a conflicting class
    // (a field less) in segment 10's second class dump, an unknown record tag at the end.
    let unknown_sub = |bytes: &mut Vec<u8>| {
        // After the two class dumps and the root (a tag and an id).
        let second = segments[30] + class_dump_len(&good, segments[30]);
        let at = second + class_dump_len(&good, second) + 9;
        assert!((0x21..=0x23).contains(&bytes[at]), "an object's tag");
        bytes[at] = 0x77;
        at as u64
    };
    let conflicting = |bytes: &mut Vec<u8>| {
        // The second class dump's field count (2) becomes 1: its last field's bytes then read
        // as the next sub-record, so the conflict comes first at the class dump itself.
        let class = segments[10] + class_dump_len(&good, segments[10]);
        let count_at = class + class_dump_len(&good, class) - 2 * (8 + 1) - 2;
        assert_eq!(u16::from_be_bytes([bytes[count_at], bytes[count_at + 1]]), 2);
        bytes[count_at + 1] = 1;
        class as u64
    };
    let unknown_record = |bytes: &mut Vec<u8>| {
        let end = records.last().unwrap().1;
        bytes[end] = 0x55;
        end as u64
    };
    for threads in [1, 2, 8] {
        let mut bad = good.clone();
        let (class, sub, last) = (conflicting(&mut bad), unknown_sub(&mut bad), unknown_record(&mut bad));
        let fault = scan_on(threads, &bad, |r| r.map(|_| ()).unwrap_err());
        assert_eq!(fault.offset, class, "{threads} threads: {fault:?}");
        assert!(fault.message.contains("conflicting class dumps for class 0x20"), "{threads}: {fault:?}");
        let mut bad = good.clone();
        let _ = (unknown_sub(&mut bad), unknown_record(&mut bad));
        let fault = scan_on(threads, &bad, |r| r.map(|_| ()).unwrap_err());
        assert_eq!(
            (fault.offset, fault.message.contains("unknown heap dump sub-record tag 0x77")),
            (sub, true)
        );
        assert!(last > sub);
        let mut bad = good.clone();
        unknown_record(&mut bad);
        let fault = scan_on(threads, &bad, |r| r.map(|_| ()).unwrap_err());
        assert_eq!(
            (fault.offset, fault.message.starts_with("unknown record tag 0x55")),
            (last, true),
            "{fault:?}"
        );
    }
}

/// The length of the class dump sub-record at `at` (no constants, no statics, as the writer
/// makes them): tag, 7 ids and 2 u4s, three u2 counts, its fields.
fn class_dump_len(bytes: &[u8], at: usize) -> usize {
    let head = 1 + 7 * 8 + 2 * 4;
    let fields_at = at + head + 2 + 2;
    let fields = u16::from_be_bytes([bytes[fields_at], bytes[fields_at + 1]]) as usize;
    head + 6 + fields * 9
}
