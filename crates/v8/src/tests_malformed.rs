//! Malformed snapshots: every one is rejected with a one-line error naming the byte offset or
//! the field, never a panic; claimed counts do not decide what is allocated.

use memcity_heapgraph::{Grouper, group_heap, parse_list, reachable};

use crate::graph::into_graph;
use crate::read::{RawHeap, ReadOptions, read};
use crate::tests::{STRINGS, sample, snapshot};

fn read_text(text: &[u8]) -> Result<RawHeap, crate::error::Fault> {
    read(
        text,
        ReadOptions { edge_names: true, traces: true, size_hint: Some(text.len() as u64), labels: true },
        &|_| {},
    )
}

fn error(text: &str) -> String {
    let fault = read_text(text.as_bytes()).unwrap_err();
    let shown = fault.clone().in_file("s.heapsnapshot").to_string();
    assert!(!shown.contains('\n'), "{shown}");
    shown
}

#[test]
fn every_truncation_names_its_offset() {
    let text = sample();
    for end in 0..text.len() {
        let fault = read_text(&text.as_bytes()[..end]).unwrap_err();
        let offset = fault.offset.unwrap_or_else(|| panic!("no offset when cut at {end}: {fault:?}"));
        assert!(offset <= end as u64, "cut at {end}: {fault:?}");
    }
    read_text(text.as_bytes()).unwrap();
}

#[test]
fn wrong_meta_and_counts_are_named() {
    let text = sample();
    let e = error(&text.replace("\"node_fields\"", "\"node_fieldz\""));
    assert!(e.contains("at byte 12: snapshot: missing field `node_fields`"), "{e}");
    let e = error(&text.replace("\"self_size\",", ""));
    assert!(e.contains("node_fields has no \"self_size\" field"), "{e}");
    let e = error(&text.replace("\"node_count\":11", "\"node_count\":1000000000000000"));
    assert!(e.contains("11 nodes, but snapshot.node_count says 1000000000000000"), "{e}");
    // More nodes than announced are refused where the first extra one is, not at the end.
    let e = error(&text.replace("\"node_count\":11", "\"node_count\":3"));
    assert!(
        e.contains("at byte ") && e.contains("node 3: more nodes than snapshot.node_count says (3)"),
        "{e}"
    );
    let e = error(&text.replace("\"edge_count\":11", "\"edge_count\":12"));
    assert!(e.contains("edge counts add up to 11, but snapshot.edge_count says 12"), "{e}");
    let e = error(&text.replacen("\"snapshot\":", "\"snapshoot\":", 1));
    assert!(e.contains("\"nodes\" comes before the \"snapshot\" meta"), "{e}");
    let e = error("[1,2,3]");
    assert!(e.contains("at byte 0: expected `{` (a heap snapshot is a JSON object), found `[`"), "{e}");
}

#[test]
fn bad_nodes_and_edges_are_named() {
    // An edge to a node that does not exist.
    let nodes: &[crate::tests::Node] = &[(9, 0, 0, 0, &[(1, 1, 1)]), (3, 3, 8, 0, &[(2, 5, 9)])];
    let e = error(&snapshot(nodes, &STRINGS));
    assert!(e.contains("edge 1 (from node 1): to_node 63 is not a node"), "{e}");
    assert!(e.contains("at byte "), "{e}");
    // A node type beyond the meta's list, a name beyond the strings.
    let e = error(&snapshot(&[(15, 0, 0, 0, &[])], &STRINGS));
    assert!(e.contains("node 0: type 15 is not one of the 15 node types"), "{e}");
    let e = error(&snapshot(&[(3, 99, 0, 0, &[])], &STRINGS));
    assert!(e.contains("nodes[0].name: string 99 does not exist (the snapshot has 10 strings)"), "{e}");
    // Edges that do not match the nodes' edge counts.
    let text = snapshot(&[(9, 0, 0, 0, &[(1, 1, 0)])], &STRINGS);
    let e = error(&text.replace("\"edges\":[1,1,0]", "\"edges\":[1,1,0,1,1,0]"));
    assert!(e.contains("edge 1 has no source node"), "{e}");
    let e = error(&text.replace("\"edges\":[1,1,0]", "\"edges\":[]"));
    assert!(e.contains("edges: 0 edges, but the nodes' edge counts add up to 1"), "{e}");
    let e = error(&text.replace("\"edges\":[1,1,0]", "\"edges\":[1,1]"));
    assert!(e.contains("not whole edges of 3 fields"), "{e}");
    let e = error(&text.replace("\"edges\":[1,1,0]", "\"edges\":[1,1,-7]"));
    assert!(e.contains("unsigned integer"), "{e}");
    // Edge counts past 32-bit offsets are refused at the node that passes them, before any
    // edge is read (two nodes of three billion edges each).
    let text = snapshot(&[(9, 0, 0, 0, &[]), (9, 0, 0, 0, &[])], &STRINGS);
    let huge =
        text.replace("[9,0,1,0,0,0,0\n,9,0,3,0,0,0,0]", "[9,0,1,0,3000000000,0,0\n,9,0,3,0,3000000000,0,0]");
    assert_ne!(huge, text);
    let e = error(&huge);
    assert!(e.contains("node 1: more than") && e.contains("memcity counts edges with 32 bits"), "{e}");
}

#[test]
fn gzip_bombs_are_refused_at_the_ratio_without_filling_tables() {
    use std::io::Write;
    // A valid start, then 200 MB of nodes the meta does not announce: refused at the first
    // extra node.
    let head = sample();
    let head = &head[..head.find("\"nodes\":[").unwrap() + "\"nodes\":[".len()];
    let dir = std::env::temp_dir().join(format!("memcity-v8-bomb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, head: &str| {
        let path = dir.join(name);
        let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(&path).unwrap(), Default::default());
        gz.write_all(head.as_bytes()).unwrap();
        let block = "3,0,1,0,0,0,0,".repeat(1 << 16);
        for _ in 0..(200 << 20) / block.len() {
            gz.write_all(block.as_bytes()).unwrap();
        }
        gz.finish().unwrap();
        path
    };
    let unannounced = write("unannounced.heapsnapshot.gz", head);
    let e = crate::import(&[unannounced], &crate::default_grouping(), &memcity_heapgraph::Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more nodes than snapshot.node_count says (11)"), "{e}");
    // Announcing a billion nodes does not help: the text may inflate to 100 times the file.
    let claimed = head.replace("\"node_count\":11", "\"node_count\":1000000000");
    let bomb = write("bomb.heapsnapshot.gz", &claimed);
    let size = std::fs::metadata(&bomb).unwrap().len();
    assert!(size * 100 < 200 << 20, "the test file must inflate past the ratio");
    let e = crate::import(&[bomb], &crate::default_grouping(), &memcity_heapgraph::Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bomb.heapsnapshot.gz: at byte ") && e.contains("likely gzip bomb"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small deterministic generator (xorshift) for the mutation loop.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn ten_thousand_mutated_snapshots_never_panic() {
    let text = sample().into_bytes();
    let interesting = b"0123456789,[]{}\":-. \nxe\\";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut rejected, mut accepted) = (0, 0);
    for _ in 0..10_000 {
        let mut mutant = text.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(mutant.len());
            match rng.below(4) {
                0 => mutant[at] = interesting[rng.below(interesting.len())],
                1 => mutant[at] = rng.next() as u8,
                2 => {
                    mutant.remove(at);
                }
                _ => {
                    let len = rng.below(16).min(mutant.len() - at);
                    let span = mutant[at..at + len].to_vec();
                    mutant.splice(at..at, span);
                }
            }
        }
        match read_text(&mutant) {
            Err(fault) => {
                rejected += 1;
                assert!(!fault.message.is_empty() && !fault.message.contains('\n'), "{fault:?}");
            }
            Ok(raw) => {
                accepted += 1;
                // Whatever is accepted goes through the whole pipeline.
                let mut grouper =
                    Grouper::new(parse_list("script,detached,type,allocation-site,root-kind").unwrap());
                let js = into_graph(raw, &mut grouper);
                let live = reachable(&js.graph);
                group_heap(&js.graph, grouper.group_count(), &live, &js.roots, &Default::default());
            }
        }
    }
    assert!(rejected > 6000 && accepted > 0, "rejected {rejected}, accepted {accepted}");
}
