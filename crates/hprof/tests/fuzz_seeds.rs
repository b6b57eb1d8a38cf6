//! Replays the committed seed corpus of the fuzz target (fuzz/seeds/TARGET) through the same
//! check the target runs: fast and deterministic, so CI catches a reader that panics on them.

use std::path::Path;

#[test]
fn read_dump() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/read_dump");
    memcity_model::fuzzing::replay_seeds(&dir, memcity_hprof::fuzzing::read_dump);
}

#[test]
fn read_index() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/read_index");
    memcity_model::fuzzing::replay_seeds(&dir, memcity_hprof::fuzzing::read_index);
    // The indexes of four seed dumps are read; bytes without a header, a cut index and
    // another version are not.
    let accepted = |name: &str| memcity_hprof::fuzzing::read_index(&std::fs::read(dir.join(name)).unwrap());
    for name in ["linked-8.index", "linked-4-shared.index", "agent-repeats.index", "android-art.index"] {
        assert!(accepted(name), "{name}");
    }
    for name in ["no-header.index", "cut-blocks.index", "version-9.index"] {
        assert!(!accepted(name), "{name}");
    }
}

#[test]
fn read_tree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/read_tree");
    memcity_model::fuzzing::replay_seeds(&dir, memcity_hprof::fuzzing::read_tree);
    // Two trees are read and grouped with; wrong sums, a dominator cycle and a cut file are not.
    let accepted = |name: &str| memcity_hprof::fuzzing::read_tree(&std::fs::read(dir.join(name)).unwrap());
    for name in ["chain-5.tree", "roots-3.tree"] {
        assert!(accepted(name), "{name}");
    }
    for name in ["sums-wrong.tree", "cycle.tree", "cut.tree"] {
        assert!(!accepted(name), "{name}");
    }
}
