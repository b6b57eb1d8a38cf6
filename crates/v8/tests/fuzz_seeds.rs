//! Replays the committed seed corpus of the fuzz target (fuzz/seeds/TARGET) through the same
//! check the target runs: fast and deterministic, so CI catches a reader that panics on them.

use std::path::Path;

#[test]
fn snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/snapshot");
    memcity_model::fuzzing::replay_seeds(&dir, memcity_v8::fuzzing::snapshot);
}
