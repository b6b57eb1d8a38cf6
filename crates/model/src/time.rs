//! A snapshot's time in words. On screen a time reads as its offset from the history's first
//! snapshot ("+12.4 s", "+3 min 5 s"), never as raw milliseconds. Sources that record when a
//! snapshot was taken (an HPROF header, a V8 snapshot's file name, the probe's heap files, a
//! live inspector) write `time_ms` as milliseconds since the Unix epoch; the others (traces,
//! scenarios, AntTracks trees) count from the program's start. The two never meet: a
//! program-relative time would have to run for thirty years to reach [`CLOCK_FROM_MS`].

/// 2000-01-01T00:00:00Z in milliseconds: times from here on are clock times.
pub const CLOCK_FROM_MS: u64 = 946_684_800_000;

/// Whether these times (a history's snapshots') are clock times: all of them are.
pub fn has_clock(mut times: impl Iterator<Item = u64>) -> bool {
    let mut any = false;
    let all = times.all(|t| {
        any = true;
        t >= CLOCK_FROM_MS
    });
    any && all
}

/// A time as its offset from the first snapshot's.
pub fn since_first(first_ms: u64, ms: u64) -> String {
    offset(ms as i128 - first_ms as i128)
}

/// A signed duration in milliseconds as people read it: "+0 s", "+850 ms", "+12.4 s",
/// "+3 min 5 s", "+2 h 7 min", "+3 d 4 h"; "−…" before the first snapshot.
pub fn offset(ms: i128) -> String {
    let sign = if ms < 0 { "−" } else { "+" };
    let ms = ms.unsigned_abs();
    let (s, min, h, d) = (ms / 1000, ms / 60_000, ms / 3_600_000, ms / 86_400_000);
    let text = if ms == 0 {
        "0 s".to_string()
    } else if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if h == 0 {
        format!("{min} min {} s", s % 60)
    } else if d == 0 {
        format!("{h} h {} min", min % 60)
    } else {
        format!("{d} d {} h", h % 24)
    };
    format!("{sign}{text}")
}

/// Milliseconds since the epoch as a UTC clock time, `HH:MM:SS UTC` (the model knows no time
/// zone; the app and the CLI show local time where they can).
pub fn utc_clock(epoch_ms: u64) -> String {
    let day = (epoch_ms / 1000) % 86_400;
    format!("{:02}:{:02}:{:02} UTC", day / 3600, day % 3600 / 60, day % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Node, Snapshot};

    #[test]
    fn offsets_read_in_the_largest_useful_units() {
        assert_eq!(offset(0), "+0 s");
        assert_eq!(offset(850), "+850 ms");
        assert_eq!(offset(12_400), "+12.4 s");
        assert_eq!(offset(185_000), "+3 min 5 s");
        assert_eq!(offset(2 * 3_600_000 + 7 * 60_000 + 1), "+2 h 7 min");
        assert_eq!(offset(3 * 86_400_000 + 4 * 3_600_000), "+3 d 4 h");
        assert_eq!(offset(-2_000), "−2.0 s");
        assert_eq!(offset(i128::from(u64::MAX)).chars().next(), Some('+'), "no overflow");
    }

    #[test]
    fn dumps_carry_clock_times_and_traces_do_not() {
        let dumps = [1_795_816_166_000, 1_795_816_178_314];
        assert!(has_clock(dumps.into_iter()));
        assert_eq!(since_first(dumps[0], dumps[1]), "+12.3 s");
        assert!(!has_clock([0, 500, 1000].into_iter()));
        assert!(!has_clock(std::iter::empty()));
        let unlabelled = Snapshot::new(1_795_816_178_314, Node::leaf("Heap", "Heap", "Heap", 0, 0));
        assert_eq!(unlabelled.display_label(), "taken at 21:49:38 UTC");
        let trace = Snapshot::new(1_500, Node::leaf("Heap", "Heap", "Heap", 0, 0));
        assert_eq!(trace.display_label(), "t = +1.5 s");
    }
}
