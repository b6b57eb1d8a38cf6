//! Replays the committed seed corpus of the fuzz targets (fuzz/seeds/TARGET) through the same
//! checks the targets run: fast and deterministic, so CI catches a reader that panics on them.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target);
    memcity_model::fuzzing::replay_seeds(&dir, check);
}

#[test]
fn json_lines_trace() {
    replay("json_lines_trace", memcity_analysis::fuzzing::json_lines_trace);
}

#[test]
fn binary_trace() {
    replay("binary_trace", memcity_analysis::fuzzing::binary_trace);
}
