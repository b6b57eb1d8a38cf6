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

/// A loaded history indexes for the city, writes, and reads back equal.
fn assert_round_trip(history: &History) {
    let timeline = Timeline::new(history);
    assert_eq!(timeline.snapshot_count(), history.snapshots.len());
    let mut text = Vec::new();
    write_history(history, &mut text).expect("a loaded history writes");
    let again = load_bytes(&text, "again.json").expect("what was written loads again");
    assert_eq!(&again, history);
}
