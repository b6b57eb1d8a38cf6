//! How a long load says where it is: the bytes read, the rate and the time left while the input
//! is read, then the phase that follows (on a big heap the phases after the last byte — the
//! references resolved, the dominator tree, retained sizes and paths — take most of the time).
//! The CLI's bar and the app's Open pane read the same words.

use memcity_heapgraph::Phase;

/// What follows the reading of a heap until an importer names the phase.
pub const ANALYSING: &str = "analysing: grouping, dominators, retained sizes and paths";

/// The line for `done` of `total` bytes after `seconds`, in `phase` (the last one an importer
/// named, if any): "reading 120 MB of 400 MB · 40 MB/s · about 7 s left" while reading, the
/// phase ([`ANALYSING`] before one is named) once every byte is read, "" when the load reports
/// no bytes.
pub fn line(done: u64, total: u64, seconds: f64, phase: Option<Phase>) -> String {
    if total == 0 {
        return String::new();
    }
    if done >= total {
        return format!("{} ({} read)", after_reading(phase), megabytes(total));
    }
    let rate = if seconds > 0.0 { done as f64 / seconds } else { 0.0 };
    let left = if rate > 0.0 {
        format!(" · about {} left", duration((total - done) as f64 / rate))
    } else {
        String::new()
    };
    format!("reading {} of {} · {}/s{left}", megabytes(done), megabytes(total), megabytes(rate as u64))
}

/// The words for what is done once every byte is read.
pub fn after_reading(phase: Option<Phase>) -> &'static str {
    phase.map_or(ANALYSING, Phase::describe)
}

fn megabytes(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 5400.0 => format!("{:.0} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_then_analysing() {
        assert_eq!(
            line(120_000_000, 400_000_000, 3.0, None),
            "reading 120 MB of 400 MB · 40 MB/s · about 7 s left"
        );
        assert_eq!(line(0, 400_000_000, 0.0, None), "reading 0 MB of 400 MB · 0 MB/s");
        assert_eq!(line(400_000_000, 400_000_000, 10.0, None), format!("{ANALYSING} (400 MB read)"));
        assert_eq!(
            line(400_000_000, 400_000_000, 10.0, Some(Phase::Dominators)),
            "dominator tree and pointer maps (400 MB read)"
        );
        assert_eq!(
            line(1_000_000_000, 10_000_000_000, 100.0, None),
            "reading 1000 MB of 10000 MB · 10 MB/s · about 15 min left"
        );
        assert_eq!(
            line(100_000_000, 10_000_000_000, 100.0, None),
            "reading 100 MB of 10000 MB · 1 MB/s · about 2.8 h left"
        );
        assert_eq!(line(0, 0, 5.0, None), "", "a load without bytes to tell");
    }
}
