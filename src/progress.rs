//! How a long load says where it is: the bytes read, the rate and the time left while the input
//! is read, then the phase that follows (the importers report bytes only; what comes after the
//! last byte is the grouping and the dominator tree). The CLI's bar and the app's Open pane
//! read the same words.

/// What follows the reading of a heap: grouping, dominators, retained sizes, retainer paths.
pub const ANALYSING: &str = "analysing: grouping, dominators, retained sizes and paths";

/// The line for `done` of `total` bytes after `seconds`: "reading 120 MB of 400 MB · 40 MB/s ·
/// about 7 s left" while reading, [`ANALYSING`] once every byte is read, "" when the load
/// reports no bytes.
pub fn line(done: u64, total: u64, seconds: f64) -> String {
    if total == 0 {
        return String::new();
    }
    if done >= total {
        return format!("{ANALYSING} ({} read)", megabytes(total));
    }
    let rate = if seconds > 0.0 { done as f64 / seconds } else { 0.0 };
    let left = if rate > 0.0 {
        format!(" · about {} left", duration((total - done) as f64 / rate))
    } else {
        String::new()
    };
    format!("reading {} of {} · {}/s{left}", megabytes(done), megabytes(total), megabytes(rate as u64))
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
            line(120_000_000, 400_000_000, 3.0),
            "reading 120 MB of 400 MB · 40 MB/s · about 7 s left"
        );
        assert_eq!(line(0, 400_000_000, 0.0), "reading 0 MB of 400 MB · 0 MB/s");
        assert_eq!(line(400_000_000, 400_000_000, 10.0), format!("{ANALYSING} (400 MB read)"));
        assert_eq!(
            line(1_000_000_000, 10_000_000_000, 100.0),
            "reading 1000 MB of 10000 MB · 10 MB/s · about 15 min left"
        );
        assert_eq!(
            line(100_000_000, 10_000_000_000, 100.0),
            "reading 100 MB of 10000 MB · 1 MB/s · about 2.8 h left"
        );
        assert_eq!(line(0, 0, 5.0), "", "a load without bytes to tell");
    }
}
