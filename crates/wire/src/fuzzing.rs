//! What the fuzz target (crates/wire/fuzz) checks on any bytes; the seed corpus is replayed
//! through the same function by `tests/fuzz_seeds.rs`. A panic is a bug. Returns whether the
//! message parsed.

use crate::live::LiveHistory;
use crate::protocol::{Message, kind_of, parse_message, type_of};

/// One message: parsed, and if it is a change, applied to a live history (which a valid change
/// must leave valid) with its reply serialized. Two copies are applied, to a history that
/// already holds the message's own history, so appends are exercised too.
pub fn message(data: &[u8]) -> bool {
    let known = type_of(data);
    let Ok(message) = parse_message(data) else { return false };
    assert_eq!(known, Some(kind_of(&message)));
    let Message::Change(change) = message else { return true };
    let mut live = LiveHistory::with_budget(64 << 20);
    for _ in 0..2 {
        let applied = live.apply(change.clone());
        let _ = applied.reply.to_text();
        if applied.changed && !live.history().snapshots.is_empty() {
            memcity_model::validate::validate_file_history(live.history(), "fuzz")
                .expect("a live history stays valid");
        }
    }
    true
}
