//! What the fuzz targets (crates/analysis/fuzz) check on any bytes; the seed corpus is replayed
//! through the same functions by `tests/fuzz_seeds.rs`. A panic is a bug. Each returns whether
//! the trace was read.

use crate::trace::{Trace, read_binary_trace, read_trace, write_binary_trace, write_trace};
use crate::{default_grouping, replay};

/// Traces longer than this are read but not replayed (replay is the slow part).
const REPLAY_OPS: usize = 2_000;

/// A JSON Lines trace: read, written and read again to the same events, then replayed.
pub fn json_lines_trace(data: &[u8]) -> bool {
    let Ok(trace) = read_trace(data, "fuzz.jsonl") else { return false };
    let mut text = Vec::new();
    write_trace(&events(&trace), &mut text).expect("writing to memory cannot fail");
    let again = read_trace(&text[..], "again.jsonl").expect("what was written reads again");
    assert_eq!(events(&again), events(&trace));
    replay_checked(trace);
    true
}

/// A binary trace: read, written and read again to the same events, then replayed.
pub fn binary_trace(data: &[u8]) -> bool {
    let Ok(trace) = read_binary_trace(data, "fuzz.mctrace") else { return false };
    let mut bytes = Vec::new();
    write_binary_trace(&trace, &mut bytes).expect("writing to memory cannot fail");
    let again = read_binary_trace(&bytes, "again.mctrace").expect("what was written reads again");
    assert_eq!(events(&again), events(&trace));
    replay_checked(trace);
    true
}

fn events(trace: &Trace) -> Vec<crate::trace::Event> {
    (0..trace.ops.len()).map(|i| trace.event(i)).collect()
}

/// A replayed history, if the trace replays, follows every rule of a loaded one.
fn replay_checked(trace: Trace) {
    if trace.ops.len() > REPLAY_OPS {
        return;
    }
    if let Ok(history) = replay(trace, default_grouping(), "fuzz")
        && !history.snapshots.is_empty()
    {
        memcity_model::validate::validate_file_history(&history, "fuzz")
            .expect("a replayed history is valid");
    }
}
