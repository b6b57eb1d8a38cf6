use super::*;
use crate::replay::{default_grouping, replay};
use crate::scenarios::{Params, find};
use crate::trace::{read_trace, write_trace};

fn varint(v: u64) -> Vec<u8> {
    let mut w = Writer { buf: Vec::new(), defined: [0; 5] };
    w.varint(v);
    w.buf
}

fn string(s: &str) -> Vec<u8> {
    [varint(s.len() as u64), s.as_bytes().to_vec()].concat()
}

/// A file from records given as byte lists.
fn file(records: &[Vec<u8>]) -> Vec<u8> {
    [MAGIC.to_vec(), records.concat()].concat()
}

fn def(tag: u8, s: &str) -> Vec<u8> {
    [vec![tag], string(s)].concat()
}

#[test]
fn a_scenario_replays_the_same_from_json_lines_and_binary() {
    let params = Params { seed: 3, gcs: 6, scale: 0.3 };
    let events = find("linked-list").unwrap().trace(&params);
    let mut jsonl = Vec::new();
    write_trace(&events, &mut jsonl).unwrap();
    let binary = events_to_binary(&events);
    assert!(binary.len() * 4 < jsonl.len(), "{} vs {} bytes", binary.len(), jsonl.len());

    let from_json = read_trace(jsonl.as_slice(), "t.jsonl").unwrap();
    let from_binary = read_binary_trace(&binary, "t.mctrace").unwrap();
    assert_eq!(from_binary.ops, from_json.ops);
    let every_event = |t: &Trace| (0..t.ops.len()).map(|i| t.event(i)).collect::<Vec<_>>();
    assert_eq!(every_event(&from_binary), events);
    let options = default_grouping();
    assert_eq!(replay(from_binary, options.clone(), "b").unwrap(), replay(from_json, options, "j").unwrap());
}

#[test]
fn a_string_defined_twice_is_one_string() {
    let alloc =
        |ty: u64| [vec![ALLOC], varint(1 + ty), varint(ty), varint(16), varint(0), varint(0)].concat();
    let bytes = file(&[
        def(DEF_TYPE, "A"),
        def(DEF_TYPE, "A"),
        [vec![DEF_SITE], varint(2), string("f"), string("g")].concat(),
        def(DEF_THREAD, "main"),
        alloc(0),
        alloc(1),
    ]);
    let trace = read_binary_trace(&bytes, "t").unwrap();
    assert_eq!(trace.strings.types.values, ["A"]);
    assert_eq!(trace.strings.sites.values, [vec!["f".to_string(), "g".into()]]);
    assert_eq!(trace.lines, [5, 6]);
    assert!(matches!(trace.ops[1], Op::Alloc { id: 2, type_id: 0, len: None, .. }));
}

#[test]
fn bad_files_name_the_record_and_byte() {
    let gc = [vec![GC], varint(1), varint(2), varint(3)].concat();
    let type_a = def(DEF_TYPE, "A");
    // Record 2 starts after the magic (8 bytes) and the 3-byte definition: at byte 11.
    for (bad, needle) in [
        (vec![0x7f], "unknown record tag 0x7f"),
        (vec![ALLOC, 1, 5], "type #5 is not defined (only 1 so far)"),
        ([vec![ROOT], varint(1), vec![99]].concat(), "unknown root kind 99"),
        (vec![DEF_FIELD, 2, 0xff, 0xfe], "not UTF-8"),
        (vec![DEF_FIELD, 9, b'a'], "ends inside a string"),
        (vec![GC, 1, 2], "ends inside a record"),
        ([vec![GC], vec![0xff; 10], vec![1, 1]].concat(), "does not fit in 64 bits"),
        // 50 M empty frames claimed: refused by the count, before any frame is read.
        (
            [vec![DEF_SITE], varint(50_000_000), vec![0; 64]].concat(),
            "a site of 50000000 frames (at most 4096)",
        ),
    ] {
        let bytes = file(&[type_a.clone(), bad.clone(), gc.clone()]);
        let bytes = if needle.starts_with("ends") { file(&[type_a.clone(), bad.clone()]) } else { bytes };
        let err = read_binary_trace(&bytes, "t.mctrace").unwrap_err();
        assert!(err.to_string().starts_with("t.mctrace: record 2: "), "{bad:?}: {err}");
        assert!(err.message.contains(needle) && err.message.ends_with("(at byte 11)"), "{bad:?}: {err}");
    }
    let err = read_binary_trace(b"{\"e\":\"gc\"}", "t.jsonl").unwrap_err();
    assert!(err.message.contains("not a binary memcity trace"), "{err}");
}

#[test]
fn replay_errors_in_a_binary_trace_name_the_record() {
    let events = [
        Event::Alloc {
            id: 1,
            type_name: "A".into(),
            size: 8,
            len: None,
            site: vec![],
            thread: "main".into(),
        },
        Event::Ptr { from: 1, field: "f".into(), to: Some(7) },
        Event::Gc { id: 1, start: 0, end: 1 },
    ];
    let trace = read_binary_trace(&events_to_binary(&events), "t.mctrace").unwrap();
    // Records: type, site, thread, alloc, field, ptr, gc.
    let err = replay(trace, default_grouping(), "t.mctrace").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.mctrace: record 6: object 7 does not exist (never allocated or already freed)"
    );
}

#[test]
fn extreme_numbers_and_null_stores_round_trip() {
    let max = u64::MAX;
    let events = vec![
        Event::Alloc {
            id: max,
            type_name: "long[]".into(),
            size: max,
            len: Some(max),
            site: vec![],
            thread: "t".into(),
        },
        Event::Alloc {
            id: 0,
            type_name: "A".into(),
            size: 0,
            len: Some(0),
            site: vec!["m".into()],
            thread: "t".into(),
        },
        Event::Ptr { from: max, field: "[0]".into(), to: Some(max) },
        Event::Ptr { from: max, field: "[0]".into(), to: None },
        Event::Root { id: 0, kind: RootKind::Other, name: "x".into() },
        Event::Unroot { id: 0, name: "x".into() },
        Event::Gc { id: max, start: max, end: max },
    ];
    let trace = read_binary_trace(&events_to_binary(&events), "t").unwrap();
    assert_eq!((0..events.len()).map(|i| trace.event(i)).collect::<Vec<_>>(), events);
}

#[test]
fn the_frames_of_all_sites_are_bounded_together() {
    // Distinct sites of 4096 frames each (the last frame tells them apart), up to the limit.
    let site = |n: u32| {
        let mut record = [vec![DEF_SITE], varint(4096), vec![0; 4095]].concat();
        record.extend(string(&n.to_string()));
        record
    };
    let sites = crate::trace::MAX_TRACE_FRAMES / 4096;
    let fits: Vec<Vec<u8>> = (0..sites as u32).map(site).collect();
    assert!(read_binary_trace(&file(&fits), "t.mctrace").is_ok());
    let mut over = fits;
    over.push(site(u32::MAX));
    let err = read_binary_trace(&file(&over), "t.mctrace").unwrap_err();
    assert!(err.message.contains("more than 8388608 frames together"), "{err}");
    assert_eq!(err.line, sites + 1);
}
