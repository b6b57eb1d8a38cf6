//! Replays the committed seed corpus of the fuzz targets (fuzz/seeds/TARGET) through the same
//! checks the targets run: fast and deterministic, so CI catches a reader that panics on them.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target);
    memcity_model::fuzzing::replay_seeds(&dir, check);
}

#[test]
fn memcity_json() {
    replay("memcity_json", memcity_model::fuzzing::memcity_json);
}

#[test]
fn anttracks_pointer_maps() {
    replay("anttracks_pointer_maps", memcity_model::fuzzing::anttracks_pointer_maps);
}
