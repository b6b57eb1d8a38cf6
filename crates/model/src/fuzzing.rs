//! What the fuzz targets (crates/model/fuzz) check on any bytes; the seed corpus is replayed
//! through the same functions by `tests/fuzz_seeds.rs`. A panic is a bug: bad input must give
//! an error, good input must survive a round trip. Each returns whether the input was accepted.

use crate::{History, Timeline, attach_anttracks_pointer_maps, load_bytes, write_history};

/// A document in any format `load_bytes` reads (memcity/1, one snapshot, AntTracks trees).
pub fn memcity_json(data: &[u8]) -> bool {
    let Ok(history) = load_bytes(data, "fuzz.json") else { return false };
    assert_round_trip(&history);
    true
}

/// An AntTracks pointer-map file (`points-to-maps/`, `pointed-from-maps/`) attached to a small
/// fixed history, as a folder load does.
pub fn anttracks_pointer_maps(data: &[u8]) -> bool {
    const TREES: &str = r#"[{"time": 10, "root": {"key": "H", "name": "H", "bytes": 8, "objects": 2,
        "children": [{"key": "H#A", "name": "A", "bytes": 8, "objects": 2}]}}]"#;
    let history = load_bytes(TREES.as_bytes(), "trees.json").expect("the fixed trees load");
    let mut accepted = false;
    for points_to in [true, false] {
        if let Ok(history) = attach_anttracks_pointer_maps(history.clone(), data, "maps.json", points_to) {
            assert_round_trip(&history);
            accepted = true;
        }
    }
    accepted
}

/// A history (loaded, or built by an importer from fuzzed input) follows the rules a loaded one
/// must, indexes for the city, writes, and reads back equal.
pub fn assert_round_trip(history: &History) {
    if let Err(e) = crate::validate_history(history, &|_| "fuzz".into(), &|_| String::new()) {
        panic!("an accepted input gave an invalid history: {e}");
    }
    let timeline = Timeline::new(history);
    assert_eq!(timeline.snapshot_count(), history.snapshots.len());
    let mut text = Vec::new();
    write_history(history, &mut text).expect("a loaded history writes");
    let again = load_bytes(&text, "again.json").expect("what was written loads again");
    assert_eq!(&again, history);
}

/// Runs `check` on every seed in `dir` (a fuzz target's committed seeds), for the crates'
/// `tests/fuzz_seeds.rs`: none may panic, and some must be accepted and some refused, so both
/// paths are exercised.
pub fn replay_seeds(dir: &std::path::Path, check: fn(&[u8]) -> bool) {
    let (mut accepted, mut refused) = (0, 0);
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable folder").path();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match std::panic::catch_unwind(|| check(&bytes)) {
            Ok(true) => accepted += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("{} panicked", path.display()),
        }
    }
    assert!(accepted >= 2 && refused >= 2, "{}: {accepted} accepted, {refused} refused", dir.display());
}
