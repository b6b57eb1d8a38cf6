//! A hand-made snapshot through the reader and the graph mapping.

use memcity_heapgraph::{Grouper, RootKind, parse_list, reachable};

use crate::graph::{gc_roots, into_graph};
use crate::read::{ReadOptions, read};

const META: &str = r#"{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"]},"node_count":NODES,"edge_count":EDGES}"#;

/// Nodes: (type, name, self_size, detachedness, edges as (type, name, target node)).
pub type Node<'a> = (u32, u32, u64, u32, &'a [(u32, u32, u32)]);

/// A snapshot's text with these nodes and strings (node ids are 2i+1, as V8 numbers them).
pub fn snapshot(nodes: &[Node], strings: &[&str]) -> String {
    let edge_count: usize = nodes.iter().map(|n| n.4.len()).sum();
    let meta = META.replace("NODES", &nodes.len().to_string()).replace("EDGES", &edge_count.to_string());
    let node_text: Vec<String> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{},{},{},{},{},0,{}", n.0, n.1, 2 * i + 1, n.2, n.4.len(), n.3))
        .collect();
    let edge_text: Vec<String> =
        nodes.iter().flat_map(|n| n.4.iter().map(|e| format!("{},{},{}", e.0, e.1, e.2 * 7))).collect();
    let strings: Vec<String> = strings.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
    format!(
        "{{\"snapshot\":{meta},\n\"nodes\":[{}],\n\"edges\":[{}],\n\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[],\n\"strings\":[{}]}}",
        node_text.join("\n,"),
        edge_text.join("\n,"),
        strings.join(",\n")
    )
}

// Types: 3 object, 5 closure, 8 native, 9 synthetic, 2 string. Edges: 1 element, 2 property,
// 3 internal, 5 shortcut, 6 weak.
pub const STRINGS: [&str; 10] = [
    "",
    "(GC roots)",
    "(Stack roots)",
    "Holder",
    "RequestContext",
    "body",
    "global",
    "Detached <div>",
    "x",
    "(Global handles)",
];

/// root → (GC roots) → (Stack roots) → Holder → 2 × RequestContext; root ⇢ global (shortcut);
/// a weak-only RequestContext; a detached DOM node held by global; a string.
pub fn sample() -> String {
    snapshot(
        &[
            (9, 0, 0, 0, &[(1, 1, 1), (5, 6, 4)]),             // 0 root
            (9, 1, 0, 0, &[(1, 1, 2), (1, 2, 9)]),             // 1 (GC roots)
            (9, 2, 0, 0, &[(1, 1, 3)]),                        // 2 (Stack roots)
            (3, 3, 32, 0, &[(2, 5, 5), (2, 5, 6), (6, 0, 7)]), // 3 Holder
            (3, 6, 24, 0, &[(2, 5, 8), (5, 5, 7)]),            // 4 global (shortcut from it is ignored)
            (3, 4, 40, 0, &[(2, 5, 10)]),                      // 5 RequestContext
            (3, 4, 40, 0, &[]),                                // 6 RequestContext
            (3, 4, 40, 0, &[]),                                // 7 RequestContext, weakly held
            (8, 7, 100, 2, &[]),                               // 8 Detached <div>
            (9, 9, 0, 0, &[]),                                 // 9 (Global handles), empty
            (2, 8, 16, 0, &[]),                                // 10 a string
        ],
        &STRINGS,
    )
}

#[test]
fn nodes_edges_and_roots_map_onto_the_heap_graph() {
    let raw = read(sample().as_bytes(), ReadOptions::default(), &|_| {}).unwrap();
    assert_eq!(raw.node_count(), 11);
    // Weak edges and shortcuts other than the root's are not references.
    assert_eq!(raw.edges.len(), 9);
    let roots = gc_roots(&raw);
    assert_eq!(roots, [(4, RootKind::Global), (3, RootKind::StackFrame)]);
    let mut grouper = Grouper::new(parse_list("detached,type").unwrap());
    let js = into_graph(raw, &mut grouper);
    let live = reachable(&js.graph);
    let live_nodes: Vec<usize> = (0..11).filter(|&o| live[o]).collect();
    assert_eq!(live_nodes, [3, 4, 5, 6, 8, 10]);
    assert_eq!(js.roots[3].label(), "Stack Frame");
    let key = |o: usize| grouper.leaf_key(js.graph.group[o]);
    assert_eq!(key(5), "Heap#Detachedness:not a DOM node#Type:RequestContext");
    assert_eq!(key(5), key(7));
    assert_eq!(key(8), "Heap#Detachedness:detached#Type:<div>");
    assert_eq!(key(10), "Heap#Detachedness:not a DOM node#Type:(string)");
}

#[test]
fn a_snapshot_groups_and_explains_why_objects_are_alive() {
    let raw = read(sample().as_bytes(), ReadOptions::default(), &|_| {}).unwrap();
    let mut grouper = Grouper::new(parse_list("type").unwrap());
    let js = into_graph(raw, &mut grouper);
    let live = reachable(&js.graph);
    let grouped = memcity_heapgraph::group_heap(
        &js.graph,
        grouper.group_count(),
        &live,
        &js.roots,
        &Default::default(),
    );
    let rc = js.graph.group[5] as usize;
    assert_eq!((grouped.counts[rc].objects, grouped.counts[rc].bytes), (2, 80));
    let path = grouped.paths[rc].as_ref().unwrap();
    let names: Vec<String> = path.steps.iter().map(|s| grouper.leaf_key(s.group)).collect();
    assert_eq!(names, ["Heap#Type:RequestContext", "Heap#Type:Holder"]);
    assert_eq!(path.roots, ["Stack Frame"]);
}

#[test]
fn gzipped_unnamed_and_node_named_files_import_as_one_series_in_time_order() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("memcity-v8-series-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = sample();
    // Node's names: the later one is given first; one is gzipped, one has no telling extension.
    let later = dir.join("Heap.20240102.030410.7.0.002.heapsnapshot.gz");
    let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(&later).unwrap(), Default::default());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap();
    let earlier = dir.join("Heap.20240102.030405.7.0.001.heapsnapshot");
    std::fs::write(&earlier, &text).unwrap();
    let unnamed = dir.join("heap.json");
    std::fs::write(&unnamed, &text).unwrap();
    assert!(crate::is_snapshot_file(&later) && crate::is_snapshot_file(&unnamed));
    assert!(!crate::is_snapshot_name(&unnamed) && crate::is_snapshots(&dir));

    let history = crate::import(
        &[later.clone(), earlier.clone()],
        &crate::default_grouping(),
        &memcity_heapgraph::Silent,
    )
    .unwrap();
    let shown: Vec<_> = history.snapshots.iter().map(|s| (s.label.clone().unwrap(), s.time_ms)).collect();
    assert_eq!(shown[0], ("Heap.20240102.030405.7.0.001.heapsnapshot".to_string(), 0));
    assert_eq!(shown[1], ("Heap.20240102.030410.7.0.002.heapsnapshot.gz".to_string(), 5000));
    assert_eq!(history.snapshots[0].tree, history.snapshots[1].tree);
    // A folder holds all three (the unnamed one by content); without Node names throughout, the
    // order is the folder's (by name).
    let all =
        crate::import(std::slice::from_ref(&dir), &crate::default_grouping(), &memcity_heapgraph::Silent)
            .unwrap();
    assert_eq!(all.snapshots.len(), 3);
    assert_eq!(all.snapshots[2].label.as_deref(), Some("heap.json"));

    // Broken gzip names the file and where the text broke off.
    let bytes = std::fs::read(&later).unwrap();
    let broken = dir.join("broken.heapsnapshot.gz");
    std::fs::write(&broken, &bytes[..bytes.len() / 2]).unwrap();
    let e = crate::import(&[broken], &crate::default_grouping(), &memcity_heapgraph::Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("broken.heapsnapshot.gz: at byte "), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_closure_of_one_group_matches_the_imported_one() {
    let dir = std::env::temp_dir().join(format!("memcity-v8-closure-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one.heapsnapshot");
    std::fs::write(&file, sample()).unwrap();
    let options = crate::Grouping {
        analysis: memcity_heapgraph::AnalysisOptions {
            retained: memcity_heapgraph::Retained::Closure,
            ..Default::default()
        },
        ..crate::default_grouping()
    };
    let history = crate::import(std::slice::from_ref(&file), &options, &memcity_heapgraph::Silent).unwrap();
    let holder = "Heap#Node Type:object#Type:Holder";
    let mut imported = None;
    history.snapshots[0].tree.walk(&mut |n, _| {
        if n.key == holder {
            imported = n.closure_bytes;
        }
    });
    // The holder frees itself and both RequestContexts with the string one of them holds.
    assert_eq!(crate::closure_of(&file, &options, holder).unwrap(), (4, 32 + 40 + 40 + 16));
    assert_eq!(imported, Some(32 + 40 + 40 + 16));
    let e = crate::closure_of(&file, &options, "Heap#Type:Nothing").unwrap_err().to_string();
    assert!(e.contains("one.heapsnapshot") && e.contains("no group has the key"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_typed_heap_names_every_kept_reference() {
    let options = ReadOptions { labels: true, traces: true, ..ReadOptions::default() };
    let raw = read(sample().as_bytes(), options, &|_| {}).unwrap();
    let typed = crate::typed::typed_of(raw).unwrap();
    let (g, o) = (&typed.heap.graph, &typed.heap.objects);
    assert_eq!(o.labels.of_edge.len(), g.edges.len(), "a name per kept reference (weak ones are not kept)");
    let named = |from: usize| -> Vec<String> {
        g.edge_range(from as u32).map(|e| o.labels.text(e).unwrap_or_default()).collect()
    };
    // Holder's two properties; its weak reference is left out as the import leaves it out.
    assert_eq!(named(3), [".body", ".body"]);
    // Element edges are indices: (GC roots) holds its subroots as elements 1 and 2.
    assert_eq!(named(1), ["[1]", "[2]"]);
    assert_eq!(o.type_name(3), "Holder");
    assert_eq!(o.type_name(5), "RequestContext");
    assert_eq!(o.types[o.type_of[10] as usize].kind, memcity_heapgraph::TypeKind::Other, "a string");
    assert_eq!(o.types[o.type_of[3] as usize].kind, memcity_heapgraph::TypeKind::Instance);
    assert_eq!(o.identity[5], 11, "V8's node id");
    assert!(o.identity_stable);
    // Roots are named as DevTools names their holders: the global object by its name, others
    // by the synthetic root holding them and their type.
    assert_eq!(o.root_names, [(3, "(Stack roots): Holder".to_string()), (4, "global".to_string())]);
    let paths = memcity_heapgraph::RootPaths::new(g);
    let name = |r: u32| o.root_name(r).unwrap_or("?").to_string();
    assert_eq!(
        memcity_heapgraph::root_path::describe(&paths.path(5), &o.labels, &name, 8),
        "(Stack roots): Holder .body"
    );
    assert_eq!(memcity_heapgraph::root_path::describe(&paths.path(8), &o.labels, &name, 8), "global .body");
    // Holder (32), its two contexts (80) and a context's string (16) from the stack, global (24)
    // and the detached node (100) from the global; the weakly held context is not reachable.
    assert_eq!(typed.reachable_bytes, 32 + 80 + 16 + 24 + 100);
    // Labels are read only when asked for.
    let plain = read(sample().as_bytes(), ReadOptions::default(), &|_| {}).unwrap();
    assert!(plain.edge_labels.is_empty() && plain.ids.is_empty());
    assert!(crate::typed::typed_of(plain).is_err());
}

#[test]
fn an_edge_name_beyond_the_strings_is_refused_by_name() {
    // Holder's property names string 99; the table has 10.
    let text =
        snapshot(&[(9, 0, 0, 0, &[(5, 3, 1)]), (3, 3, 32, 0, &[(2, 99, 2)]), (3, 4, 40, 0, &[])], &STRINGS);
    let options = ReadOptions { labels: true, ..ReadOptions::default() };
    let raw = read(text.as_bytes(), options, &|_| {}).unwrap();
    let message = crate::typed::typed_of(raw).err().unwrap();
    assert_eq!(message, "edges[1].name_or_index: string 99 does not exist (the snapshot has 10 strings)");
    // A name too large to be a string index at all is refused while reading.
    let huge = snapshot(
        &[(9, 0, 0, 0, &[(5, 3, 1)]), (3, 3, 32, 0, &[(2, 4_000_000_000, 2)]), (3, 4, 40, 0, &[])],
        &STRINGS,
    );
    let fault = read(huge.as_bytes(), options, &|_| {}).unwrap_err().in_file("s.heapsnapshot").to_string();
    assert!(fault.contains("name 4000000000 is not a string") && !fault.contains('\n'), "{fault}");
}
