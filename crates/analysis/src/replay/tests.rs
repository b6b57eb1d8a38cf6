use super::*;
use crate::trace::{Event, read_binary_trace, read_trace};

const TRACE: &str = r#"{"e":"alloc","id":1,"type":"app.List","size":16,"site":["app.Main.main"]}
{"e":"alloc","id":2,"type":"app.Node","size":24,"site":["app.List.add"]}
{"e":"alloc","id":3,"type":"app.Node","size":24,"site":["app.List.add"]}
{"e":"alloc","id":4,"type":"byte[]","size":100,"len":84,"site":["app.Main.main"]}
{"e":"ptr","from":1,"field":"head","to":2}
{"e":"ptr","from":2,"field":"next","to":3}
{"e":"root","id":1,"kind":"static","name":"Main.list"}
{"e":"gc","id":1,"start":10,"end":12}
{"e":"alloc","id":5,"type":"app.Node","size":24,"site":["app.List.add"]}
{"e":"ptr","from":3,"field":"next","to":5}
{"e":"gc","id":2,"start":20,"end":23}
"#;

fn run(text: &str, classifiers: &str) -> Result<History, TraceError> {
    let trace = read_trace(text.as_bytes(), "t.jsonl")?;
    let options = Grouping::new(memcity_heapgraph::parse_list(classifiers).unwrap());
    replay(trace, options, "t.jsonl")
}

#[test]
fn replay_records_one_valid_snapshot_per_gc() {
    let h = run(TRACE, "type").unwrap();
    memcity_model::validate_history(&h, &|_| "t".into(), &|i| format!("snapshots[{i}]")).unwrap();
    assert_eq!(h.snapshots.len(), 2);
    let s = &h.snapshots[1];
    assert_eq!((s.time_ms, s.gc_id), (23, Some(2)));
    // byte[] was garbage at GC 1; three nodes and the list are alive at GC 2.
    assert_eq!((s.tree.objects, s.tree.bytes), (4, 88));
    let node = s.tree.children.iter().find(|c| c.key == "Heap#Type:app.Node").unwrap();
    assert_eq!((node.objects, node.bytes, node.retained_bytes), (3, 72, Some(72)));
    let list = s.tree.children.iter().find(|c| c.key == "Heap#Type:app.List").unwrap();
    assert_eq!(list.retained_bytes, Some(88));
    assert_eq!(s.points_to["Heap#Type:app.List"]["Heap#Type:app.Node"], 1);
    assert_eq!(s.points_to["Heap#Type:app.Node"]["Heap#Type:app.Node"], 2);
    assert_eq!(s.pointed_from["Heap#Type:app.Node"]["Heap#Type:app.List"], 1);
    let heap = s.heap.as_ref().unwrap();
    assert_eq!(
        (heap.used_before_gc, heap.used_after_gc, heap.reachable_bytes),
        (Some(88), Some(88), Some(88))
    );
    let first = h.snapshots[0].heap.as_ref().unwrap();
    assert_eq!((first.used_before_gc, first.used_after_gc), (Some(164), Some(64)));
}

#[test]
fn multi_level_keys_follow_classifier_order() {
    let h = run(TRACE, "package,type,allocation-site").unwrap();
    memcity_model::validate_history(&h, &|_| "t".into(), &|i| format!("snapshots[{i}]")).unwrap();
    let mut keys = Vec::new();
    h.snapshots[0].tree.walk(&mut |n, _| keys.push(n.key.clone()));
    assert!(
        keys.contains(&"Heap#Package:app#Type:app.Node#Allocation Site:app.List.add".to_string()),
        "{keys:?}"
    );
}

#[test]
fn bad_traces_fail_with_line_numbers() {
    let cases = [
        ("{\"e\":\"ptr\",\"from\":1,\"field\":\"x\",\"to\":9}\n", 1, "object 1 does not exist"),
        (
            concat!(
                r#"{"e":"alloc","id":1,"type":"A","size":1}"#,
                "\n",
                r#"{"e":"alloc","id":1,"type":"A","size":1}"#
            ),
            2,
            "allocated twice",
        ),
        (
            concat!(r#"{"e":"gc","id":2,"start":1,"end":2}"#, "\n", r#"{"e":"gc","id":1,"start":3,"end":4}"#),
            2,
            "does not follow",
        ),
        (r#"{"e":"gc","id":1,"start":5,"end":4}"#, 1, "ends (4 ms) before it starts"),
        (r#"{"e":"alloc","id":1,"type":"A","size":1}"#, 1, "no gc event"),
        (
            concat!(r#"{"e":"gc","id":1,"start":1,"end":2}"#, "\n", r#"{"e":"unroot","id":1,"name":"x"}"#),
            2,
            "object 1 does not exist",
        ),
    ];
    for (text, line, needle) in cases {
        let err = run(text, "type").unwrap_err();
        assert_eq!(err.line, line, "{text}: {err}");
        assert!(err.message.contains(needle), "{err}");
    }
}

#[test]
fn streaming_replay_over_several_batches_equals_the_whole_replay() {
    use crate::trace::{events_to_binary, read_binary_into};
    let mut events: Vec<Event> = crate::synthetic::events(40_000).collect(); // 80k ops: 2 batches
    let options = default_grouping().without_retained();
    let whole = replay(Trace::from_events(&events), options.clone(), "t").unwrap();

    let binary = events_to_binary(&events);
    let mut streaming = Streaming::new(options.clone(), "t.mctrace", "record");
    read_binary_into(&binary, "t.mctrace", &mut streaming).unwrap();
    assert_eq!(streaming.finish().unwrap(), whole);

    // A bad event in the second batch stops it with its own record number.
    let gc = events.pop().unwrap();
    events.push(Event::Ptr { from: 7, field: "f".into(), to: Some(u64::MAX) });
    events.push(gc);
    let binary = events_to_binary(&events);
    let mut streaming = Streaming::new(options, "t.mctrace", "record");
    let read = read_binary_into(&binary, "t.mctrace", &mut streaming);
    let err = read.and_then(|()| streaming.finish().map(|_| ())).unwrap_err();
    let records = read_binary_trace(&binary, "t").unwrap().lines;
    assert_eq!(err.line, records[records.len() - 2]);
    assert!(err.message.contains(&format!("object {} does not exist", u64::MAX)), "{err}");
}

#[test]
fn retainer_paths_name_fields_and_elements() {
    let trace = r#"{"e":"alloc","id":1,"type":"app.Registry","size":16,"site":["app.Main.main"]}
{"e":"alloc","id":2,"type":"app.Item[]","size":32,"site":["app.Registry.<init>"]}
{"e":"alloc","id":3,"type":"app.Item","size":24,"site":["app.Registry.add"]}
{"e":"alloc","id":4,"type":"app.Item","size":24,"site":["app.Registry.add"]}
{"e":"alloc","id":5,"type":"char[]","size":40,"site":["app.Item.<init>"]}
{"e":"ptr","from":1,"field":"items","to":2}
{"e":"ptr","from":2,"field":"[0]","to":3}
{"e":"ptr","from":2,"field":"[1]","to":4}
{"e":"ptr","from":3,"field":"name","to":5}
{"e":"root","id":1,"kind":"static","name":"app.Main.REGISTRY"}
{"e":"gc","id":1,"start":10,"end":12}
"#;
    let h = run(trace, "type").unwrap();
    let path = &h.snapshots[0].retainers["Heap#Type:char[]"];
    let via: Vec<Option<&str>> = path.steps.iter().map(|s| s.via.as_deref()).collect();
    assert_eq!(via, [Some(".name"), Some("[0]"), Some(".items"), Some("static app.Main.REGISTRY")]);
    memcity_model::validate_history(&h, &|_| "t".into(), &|i| format!("snapshots[{i}]")).unwrap();
}

#[test]
fn every_typed_heap_is_ready_as_soon_as_its_gc_is_in() {
    let trace = read_trace(TRACE.as_bytes(), "t.jsonl").unwrap();
    let mut streaming = Streaming::new(Grouping::new(Vec::new()), "t.jsonl", "line").keep_every_typed_heap();
    *streaming.strings() = trace.strings;
    let mut handed = Vec::new();
    for (op, line) in trace.ops.into_iter().zip(trace.lines) {
        streaming.op(line, op).unwrap();
        // At most one heap at a time: each GC's, right after its op.
        let taken = streaming.take_typed();
        assert!(taken.len() <= 1);
        handed.extend(taken.into_iter().map(|t| (line, t.index, t.label, t.metrics.gc_end_ms)));
    }
    assert!(streaming.finish_typed().unwrap().is_empty());
    assert_eq!(handed, [(8, 0, "GC #1".into(), Some(12)), (11, 1, "GC #2".into(), Some(23))]);
}
