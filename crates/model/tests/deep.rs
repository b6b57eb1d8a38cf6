//! Valid trees may be deep (long allocation chains, deep package hierarchies): nothing that reads,
//! checks, indexes, copies, writes or drops a tree may recurse once per level on the stack.

use memcity_model::{History, Node, Snapshot, Timeline, load_bytes, write_history};

/// `{"snapshots":[{"time_ms":1,"tree":{... depth levels, one leaf at the bottom ...}}]}` written
/// by hand, so building the input does not itself need a deep `Node`.
fn deep_document(depth: usize) -> String {
    let mut text = String::from(r#"{"format":"memcity/1","snapshots":[{"time_ms":1,"tree":"#);
    for level in 0..depth {
        text.push_str(&format!(r#"{{"key":"k{level}","name":"n{level}","objects":1,"bytes":8"#));
        if level + 1 < depth {
            text.push_str(r#","children":["#);
        }
    }
    for level in (0..depth).rev() {
        text.push('}');
        if level > 0 {
            text.push(']');
        }
    }
    text.push_str("}]}");
    text
}

fn depth_of(tree: &Node) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(tree, 1)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        stack.extend(node.children.iter().map(|c| (c, depth + 1)));
    }
    deepest
}

/// Runs on a thread with a small (256 KiB) stack, so any recursion per level fails loudly.
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new().stack_size(256 << 10).spawn(f).unwrap().join().expect("no stack overflow")
}

#[test]
fn ten_thousand_levels_load_index_copy_write_and_drop() {
    on_small_stack(|| {
        let text = deep_document(10_000);
        let history = load_bytes(text.as_bytes(), "deep.json").expect("a deep tree is valid");
        assert_eq!(depth_of(&history.snapshots[0].tree), 10_000);
        let timeline = Timeline::new(&history);
        assert_eq!(timeline.groups.len(), 10_000);
        assert_eq!(timeline.groups[9_999].depth, 9_999);
        assert_eq!(timeline.groups[9_999].parent, Some(9_998));
        let copy = history.clone();
        assert_eq!(copy, history);
        let mut written = Vec::new();
        write_history(&history, &mut written).unwrap();
        let again: History = load_bytes(&written, "again.json").unwrap();
        assert_eq!(again, history);
        drop((history, copy, again));
    });
}

#[test]
fn errors_deep_in_a_tree_name_their_path() {
    on_small_stack(|| {
        let text = deep_document(3_000).replace(r#""key":"k2999""#, r#""key":"k5""#);
        let error = load_bytes(text.as_bytes(), "deep.json").unwrap_err().to_string();
        let expected = format!("snapshots[0].tree{}.key: duplicate key \"k5\"", ".children[0]".repeat(2_999));
        assert!(error.contains(&expected), "{}", &error[..200.min(error.len())]);
        assert!(error.ends_with(&format!("(also at snapshots[0].tree{})", ".children[0]".repeat(5))));
    });
}

#[test]
fn a_deep_snapshot_built_in_memory_drops_without_recursion() {
    on_small_stack(|| {
        let mut tree = Node::leaf("k100000", "n", "Type", 1, 1);
        for level in (0..100_000).rev() {
            let mut parent = Node::leaf(&format!("k{level}"), "n", "Package", 1, 1);
            parent.children.push(tree);
            tree = parent;
        }
        let snapshot = Snapshot::new(1, tree);
        assert!(snapshot.memory_estimate() > 100_000 * std::mem::size_of::<Node>() as u64);
        drop(snapshot);
    });
}
