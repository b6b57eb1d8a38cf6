//! `memcity record --inspect`: a series of snapshots from one DevTools target, written as Node
//! names them (`Heap.YYYYMMDD.HHMMSS.0.0.SEQ.heapsnapshot`, UTC) so the series orders by time.
//! A snapshot is written to a `.part` file and renamed when complete: whatever happens to the
//! peer, the folder holds only whole snapshots.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::cdp::{CdpError, Session, Taken, list_targets, pick};
use crate::source::node_name_time;

#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The inspector's `HOST:PORT`.
    pub addr: String,
    /// A substring of the target's URL or title.
    pub target: Option<String>,
    pub every: Duration,
    pub count: u32,
    pub out: PathBuf,
    /// The longest wait for any message from the peer.
    pub stall: Duration,
}

/// A recording that stopped early: what it wrote stays.
#[derive(Debug)]
pub struct Stopped {
    pub written: Vec<PathBuf>,
    pub error: CdpError,
}

/// Takes `count` snapshots `every` apart; `on_snapshot(file, taken)` is told of each.
pub fn record(
    options: &RecordOptions,
    on_snapshot: &mut dyn FnMut(&Path, Taken),
) -> Result<Vec<PathBuf>, Stopped> {
    let mut written = Vec::new();
    let mut session = None;
    let start = Instant::now();
    for step in 1..=options.count {
        match take_one(options, &mut session) {
            Ok((file, taken)) => {
                on_snapshot(&file, taken);
                written.push(file);
            }
            Err(error) => return Err(Stopped { written, error }),
        }
        if step < options.count {
            std::thread::sleep((options.every * step).saturating_sub(start.elapsed()));
        }
    }
    if let Some(s) = session {
        s.close();
    }
    Ok(written)
}

/// Opens the session on first use, then writes one snapshot.
pub fn take_one(
    options: &RecordOptions,
    session: &mut Option<Session>,
) -> Result<(PathBuf, Taken), CdpError> {
    if session.is_none() {
        let targets = list_targets(&options.addr, options.stall)?;
        let target = pick(&targets, options.target.as_deref())?;
        *session = Some(Session::open(&options.addr, &target, options.stall)?);
    }
    let session = session.as_mut().expect("opened above");
    std::fs::create_dir_all(&options.out)
        .map_err(|e| CdpError(format!("cannot create {}: {e}", options.out.display())))?;
    let file = options.out.join(next_name(&options.out)?);
    let part = file.with_extension("heapsnapshot.part");
    let io = |e: std::io::Error| CdpError(format!("cannot write {}: {e}", part.display()));
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&part).map_err(io)?);
    let taken = session.snapshot(&mut out);
    drop(out);
    match taken {
        Ok(taken) => {
            std::fs::rename(&part, &file).map_err(io)?;
            Ok((file, taken))
        }
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            Err(e)
        }
    }
}

/// `Heap.<UTC now>.0.0.<one more than the highest sequence number in the folder>.heapsnapshot`.
fn next_name(dir: &Path) -> Result<String, CdpError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| CdpError(format!("cannot list {}: {e}", dir.display())))?;
    let seq =
        entries.flatten().filter_map(|e| node_name_time(&e.path()).map(|(_, s)| s)).max().unwrap_or(0) + 1;
    let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    Ok(format!(
        "Heap.{y:04}{m:02}{d:02}.{:02}{:02}{:02}.0.0.{seq:03}.heapsnapshot",
        t / 3600,
        t / 60 % 60,
        t % 60
    ))
}

/// The date of a day count since 1970-01-01 (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_node_and_continue_the_sequence() {
        assert_eq!(civil_from_days(19_724), (2024, 1, 2));
        let dir = std::env::temp_dir().join(format!("memcity-v8-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Heap.20240102.030405.9.0.041.heapsnapshot"), "").unwrap();
        let name = next_name(&dir).unwrap();
        let (_, seq) = node_name_time(Path::new(&name)).unwrap();
        assert_eq!(seq, 42);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
