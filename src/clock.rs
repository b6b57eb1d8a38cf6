//! A snapshot's time as the app and the CLI show it: its offset from the first snapshot, and
//! the local clock time where the source recorded one (memcity_model::time).

use memcity_model::{History, Snapshot};

/// "+12.4 s", or "+12.4 s · 14:03:27" where the history carries clock times.
pub fn when(history: &History, snapshot: &Snapshot) -> String {
    let first = history.snapshots.first().map_or(snapshot.time_ms, |s| s.time_ms);
    let offset = memcity_model::time::since_first(first, snapshot.time_ms);
    if memcity_model::time::has_clock(history.snapshots.iter().map(|s| s.time_ms)) {
        format!("{offset} · {}", local_clock(snapshot.time_ms))
    } else {
        offset
    }
}

/// Milliseconds since the epoch as the local wall clock, `HH:MM:SS`.
pub fn local_clock(epoch_ms: u64) -> String {
    let seconds = (epoch_ms / 1000) as i64;
    let (h, m, s) = local_hms(seconds);
    format!("{h:02}:{m:02}:{s:02}")
}

#[cfg(target_os = "linux")]
fn local_hms(seconds: i64) -> (i32, i32, i32) {
    let t: libc::time_t = seconds as libc::time_t;
    // SAFETY: localtime_r writes only into `tm`, which lives on this stack frame.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    if ok { (tm.tm_hour, tm.tm_min, tm.tm_sec) } else { utc_hms(seconds) }
}

#[cfg(not(target_os = "linux"))]
fn local_hms(seconds: i64) -> (i32, i32, i32) {
    utc_hms(seconds)
}

fn utc_hms(seconds: i64) -> (i32, i32, i32) {
    let day = seconds.rem_euclid(86_400) as i32;
    (day / 3600, day % 3600 / 60, day % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_series_reads_as_offsets_with_its_clock_and_a_trace_as_offsets_alone() {
        let node = || memcity_model::Node::leaf("Heap", "Heap", "Heap", 0, 0);
        let snapshots =
            vec![Snapshot::new(1_795_816_166_000, node()), Snapshot::new(1_795_816_178_314, node())];
        let dumps =
            History { format: memcity_model::FORMAT.into(), metric_names: Default::default(), snapshots };
        let shown = when(&dumps, &dumps.snapshots[1]);
        assert!(shown.starts_with("+12.3 s · "), "{shown}");
        assert!(!shown.contains("1795816178314"), "never raw epoch milliseconds: {shown}");
        let clock = shown.rsplit(" · ").next().unwrap();
        assert_eq!(clock.len(), 8, "HH:MM:SS: {clock}");
        let trace =
            History { snapshots: vec![Snapshot::new(0, node()), Snapshot::new(1500, node())], ..dumps };
        assert_eq!(when(&trace, &trace.snapshots[1]), "+1.5 s");
        assert_eq!(utc_hms(1_795_816_178), (21, 49, 38));
    }
}
