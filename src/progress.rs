//! How a long load says where it is: the bytes read, the rate and the time left while the input
//! is read, then the phase that follows (on a big heap the phases after the last byte — the
//! references resolved, the dominator tree, retained sizes and paths — take most of the time).
//! The CLI's bar and the app's Open pane read the same words.

use std::time::{Duration, Instant};

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

/// How long each phase of a load took, for `import --timings`: a phase entered again (the next
/// dump of a series) adds to its total, and the phases keep the order they first came in.
#[derive(Debug)]
pub struct PhaseClock {
    began: Instant,
    /// The phase now running, since when.
    current: Option<(&'static str, Instant)>,
    totals: Vec<(&'static str, Duration)>,
}

impl PhaseClock {
    pub fn new() -> PhaseClock {
        PhaseClock { began: Instant::now(), current: None, totals: Vec::new() }
    }

    /// `phase` begins now (the one running ends); entering the running phase again changes
    /// nothing, as progress reports come many times a phase.
    pub fn enter(&mut self, phase: &'static str) {
        self.enter_at(phase, Instant::now());
    }

    fn enter_at(&mut self, phase: &'static str, now: Instant) {
        if self.current.is_some_and(|(p, _)| p == phase) {
            return;
        }
        self.stop_at(now);
        self.current = Some((phase, now));
    }

    fn stop_at(&mut self, now: Instant) {
        let Some((phase, since)) = self.current.take() else { return };
        let spent = now.saturating_duration_since(since);
        match self.totals.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, total)) => *total += spent,
            None => self.totals.push((phase, spent)),
        }
    }

    /// Ends the running phase; the totals, and the whole time since the clock began.
    pub fn finish(mut self) -> PhaseTimes {
        let now = Instant::now();
        self.stop_at(now);
        PhaseTimes { phases: self.totals, whole: now.saturating_duration_since(self.began) }
    }
}

impl Default for PhaseClock {
    fn default() -> PhaseClock {
        PhaseClock::new()
    }
}

/// The time of each phase of a load, in the order they first came.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseTimes {
    pub phases: Vec<(&'static str, Duration)>,
    pub whole: Duration,
}

impl PhaseTimes {
    /// "reading 4.2 s · resolving references 9.8 s · … · in all 31.0 s".
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> =
            self.phases.iter().map(|(p, d)| format!("{p} {:.2} s", d.as_secs_f64())).collect();
        parts.push(format!("in all {:.2} s", self.whole.as_secs_f64()));
        parts.join(" · ")
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

    #[test]
    fn a_phase_entered_again_adds_to_its_time_in_first_order() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut clock = PhaseClock { began: t0, current: None, totals: Vec::new() };
        clock.enter_at("reading", at(0));
        clock.enter_at("reading", at(500)); // a progress report, not a new phase
        clock.enter_at("resolving references", at(1000));
        clock.enter_at("reading", at(4000)); // the next dump of a series
        clock.enter_at("resolving references", at(4500));
        clock.stop_at(at(5000));
        assert_eq!(
            clock.totals,
            vec![
                ("reading", Duration::from_millis(1500)),
                ("resolving references", Duration::from_millis(3500))
            ]
        );
        let times = PhaseTimes { phases: clock.totals, whole: Duration::from_millis(5250) };
        assert_eq!(times.describe(), "reading 1.50 s · resolving references 3.50 s · in all 5.25 s");
    }
}
