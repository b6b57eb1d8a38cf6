//! Finding and opening snapshots: by content (a JSON object whose first member is "snapshot",
//! plain or gzipped), folders expanded, and a series put in order by the time in Node's file
//! names (`Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ.heapsnapshot`) or else as given.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use flate2::read::MultiGzDecoder;
use memcity_model::limits::{gzip_bomb, gzip_limit};

use crate::error::V8Error;

/// Whether a file name looks like a V8 heap snapshot.
pub fn is_snapshot_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    name.ends_with(".heapsnapshot") || name.ends_with(".heapsnapshot.gz")
}

/// Whether a file is a V8 heap snapshot by its first bytes (whatever its name; plain or gzip).
pub fn is_snapshot_file(path: &Path) -> bool {
    memcity_formats::read_head(path).is_ok_and(|head| {
        memcity_formats::kind_of_head(&head.bytes) == Some(memcity_formats::Kind::V8Snapshot)
    })
}

/// `{ "snapshot"` with any white space.
pub fn looks_like_snapshot(head: &[u8]) -> bool {
    let mut rest = head.trim_ascii_start();
    let Some(after) = rest.strip_prefix(b"{") else { return false };
    rest = after.trim_ascii_start();
    rest.starts_with(b"\"snapshot\"")
}

/// A snapshot file or a folder holding some (by name or content).
pub fn is_snapshots(path: &Path) -> bool {
    if path.is_dir() {
        return snapshots_in(path).is_ok_and(|found| !found.is_empty());
    }
    path.is_file() && (is_snapshot_name(path) || is_snapshot_file(path))
}

fn snapshots_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    memcity_formats::files_of_kind(dir, memcity_formats::Kind::V8Snapshot)
}

/// The snapshots a user named: files as given, folders expanded to their snapshots (by name).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, V8Error> {
    let mut files = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        if path.is_dir() {
            let found = snapshots_in(path).map_err(|e| V8Error::new(&name, format!("cannot list: {e}")))?;
            if found.is_empty() {
                return Err(V8Error::new(&name, "the folder has no V8 heap snapshots (.heapsnapshot)"));
            }
            files.extend(found);
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            return Err(V8Error::new(&name, "no such file or folder"));
        }
    }
    if files.is_empty() {
        return Err(V8Error::new("(command line)", "no heap snapshots given"));
    }
    Ok(files)
}

/// A snapshot's text, decompressed if it is gzip; `counted` is told the bytes read from disk.
pub fn open<'a>(
    path: &Path,
    counted: impl FnMut(u64) + Send + 'a,
) -> Result<(Box<dyn Read + Send + 'a>, Option<u64>), V8Error> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| V8Error::new(&name, format!("cannot read: {e}"));
    let mut file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size == 0 {
        return Err(V8Error { offset: Some(0), ..V8Error::new(&name, "empty file: not a heap snapshot") });
    }
    let mut magic = [0u8; 2];
    let gzip = file.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
    let file = File::open(path).map_err(io)?;
    let counting = Counting { inner: file, read: 0, counted };
    Ok(if gzip {
        let text = MultiGzDecoder::new(BufReader::with_capacity(1 << 16, counting));
        (Box::new(Capped { inner: text, left: gzip_limit(size), limit: gzip_limit(size) }), None)
    } else {
        (Box::new(counting), Some(size))
    })
}

/// Gzip data that inflates past its limit (a gzip bomb) fails instead of filling tables.
struct Capped<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self
            .left
            .checked_sub(n as u64)
            .ok_or_else(|| std::io::Error::other(gzip_bomb(self.limit, ".heapsnapshot")))?;
        Ok(n)
    }
}

struct Counting<R, F> {
    inner: R,
    read: u64,
    counted: F,
}

impl<R: Read, F: FnMut(u64)> Read for Counting<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        (self.counted)(self.read);
        Ok(n)
    }
}

/// Reads `src` on a second thread, a few chunks ahead of `consume`: the copying out of the page
/// cache (or gzip's decompression) then runs beside the parsing instead of between its steps.
/// The reading stops once `consume` returns, whether it read everything or failed.
pub fn read_ahead<R: Read + Send, T>(mut src: R, consume: impl FnOnce(ReadAhead) -> T) -> T {
    std::thread::scope(|scope| {
        let (full, full_rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(AHEAD);
        let (empty, empty_rx) = mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            loop {
                let mut chunk = empty_rx.try_recv().unwrap_or_default();
                chunk.resize(AHEAD_CHUNK, 0);
                let read = fill(&mut src, &mut chunk).map(|n| {
                    chunk.truncate(n);
                    chunk
                });
                let last = !matches!(&read, Ok(c) if !c.is_empty());
                // A closed channel means the parser is done with the text.
                if full.send(read).is_err() || last {
                    return;
                }
            }
        });
        consume(ReadAhead { full: full_rx, empty, chunk: Vec::new(), pos: 0 })
    })
}

/// Chunks read ahead, and their size.
const AHEAD: usize = 4;
const AHEAD_CHUNK: usize = 1 << 20;

/// Reads until `buf` is full or the text ends; the bytes read.
fn fill(src: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match src.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The text as [`read_ahead`] hands it over.
pub struct ReadAhead {
    full: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    empty: mpsc::Sender<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.chunk.len() {
            // The reader may have stopped, so a spent chunk may find no one to reuse it.
            let _ = self.empty.send(std::mem::take(&mut self.chunk));
            self.pos = 0;
            match self.full.recv() {
                Ok(Ok(chunk)) => self.chunk = chunk,
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.chunk.len() - self.pos);
        out[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The time (seconds since the Unix epoch, as local wall-clock digits) and sequence number in
/// a Node default snapshot name.
pub fn node_name_time(path: &Path) -> Option<(i64, u64)> {
    let name = path.file_name()?.to_str()?;
    let parts: Vec<&str> = name.split('.').collect();
    let [heap, date, time, _pid, _tid, seq, rest @ ..] = parts.as_slice() else { return None };
    if *heap != "Heap" || rest.first() != Some(&"heapsnapshot") || date.len() != 8 || time.len() != 6 {
        return None;
    }
    let num = |s: &str| s.parse::<i64>().ok().filter(|_| s.bytes().all(|b| b.is_ascii_digit()));
    let (y, mo, d) = (num(&date[..4])?, num(&date[4..6])?, num(&date[6..])?);
    let (h, mi, s) = (num(&time[..2])?, num(&time[2..4])?, num(&time[4..])?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some((days * 86_400 + h * 3600 + mi * 60 + s, seq.parse().ok()?))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The series in order with each snapshot's time in ms: by Node's file-name times when every
/// file has one (ties broken by the sequence number, each at least 1 ms after the one before),
/// else as given, one second apart.
pub fn order(files: Vec<PathBuf>) -> Vec<(PathBuf, u64)> {
    let times: Option<Vec<(i64, u64)>> = files.iter().map(|f| node_name_time(f)).collect();
    let Some(times) = times else {
        return files.into_iter().enumerate().map(|(i, f)| (f, i as u64 * 1000)).collect();
    };
    let mut timed: Vec<((i64, u64), PathBuf)> = times.into_iter().zip(files).collect();
    timed.sort_by_key(|(t, _)| *t);
    let first = timed.first().map_or(0, |((t, _), _)| *t);
    let mut last: Option<u64> = None;
    timed
        .into_iter()
        .map(|((t, _), f)| {
            let ms = ((t - first).max(0) as u64) * 1000;
            let ms = last.map_or(ms, |l| ms.max(l + 1));
            last = Some(ms);
            (f, ms)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_give_times_and_order() {
        let t = node_name_time(Path::new("/x/Heap.20240102.030405.123.0.007.heapsnapshot")).unwrap();
        assert_eq!(t, (1_704_164_645, 7));
        assert_eq!(node_name_time(Path::new("Heap.20241302.030405.1.0.1.heapsnapshot")), None);
        assert_eq!(node_name_time(Path::new("a.heapsnapshot")), None);
        let files = [
            "Heap.20240102.030410.1.0.003.heapsnapshot",
            "Heap.20240102.030405.1.0.002.heapsnapshot",
            "Heap.20240102.030405.1.0.001.heapsnapshot",
        ];
        let ordered = order(files.iter().map(PathBuf::from).collect());
        let shown: Vec<_> =
            ordered.iter().map(|(f, t)| (f.to_str().unwrap().split('.').nth(5).unwrap(), *t)).collect();
        assert_eq!(shown, [("001", 0), ("002", 1), ("003", 5000)]);
        let given = order(vec![PathBuf::from("b.heapsnapshot"), PathBuf::from("a.heapsnapshot")]);
        assert_eq!(given[0], (PathBuf::from("b.heapsnapshot"), 0));
        assert_eq!(given[1].1, 1000);
    }

    #[test]
    fn read_ahead_hands_over_the_whole_text_and_its_errors() {
        let text: Vec<u8> = (0..3 * AHEAD_CHUNK + 12345).map(|i| (i % 251) as u8).collect();
        let mut got = Vec::new();
        read_ahead(text.as_slice(), |mut r| r.read_to_end(&mut got)).unwrap();
        assert!(got == text);
        // A consumer that stops early does not wait for the rest.
        let first = read_ahead(std::io::repeat(7), |mut r| {
            let mut b = [0u8; 3];
            r.read_exact(&mut b).map(|_| b)
        });
        assert_eq!(first.unwrap(), [7, 7, 7]);
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk gone"))
            }
        }
        let e = read_ahead(Failing, |mut r| r.read_to_end(&mut Vec::new())).unwrap_err();
        assert_eq!(e.to_string(), "disk gone");
    }

    #[test]
    fn content_sniffing() {
        assert!(looks_like_snapshot(b" {\n \"snapshot\":{\"meta\""));
        assert!(!looks_like_snapshot(b"{\"format\":\"memcity/1\"}"));
        assert!(!looks_like_snapshot(b"JAVA PROFILE"));
    }
}
