//! Replays the committed seed corpus of the fuzz targets (fuzz/seeds/TARGET) through the same
//! checks the targets run: fast and deterministic, so CI catches a reader that panics on them.

use std::path::Path;

/// Runs `check` on every seed of `target`; some must be accepted and some refused, so both
/// paths are exercised.
fn replay(target: &str, check: fn(&[u8]) -> bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target);
    let (mut accepted, mut refused) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        match std::panic::catch_unwind(|| check(&bytes)) {
            Ok(true) => accepted += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("{} panicked", path.display()),
        }
    }
    assert!(accepted >= 2 && refused >= 2, "{}: {accepted} accepted, {refused} refused", dir.display());
}

#[test]
fn memcity_json() {
    replay("memcity_json", memcity_model::fuzzing::memcity_json);
}

#[test]
fn anttracks_pointer_maps() {
    replay("anttracks_pointer_maps", memcity_model::fuzzing::anttracks_pointer_maps);
}
