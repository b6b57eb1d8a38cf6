//! The memory a run may use for its tables (`--memory SIZE`). By default half of what the
//! process may use: the machine's physical memory, or the lowest memory limit of a cgroup on
//! the process's own cgroup path where that is lower (a container, a systemd slice, a CI job):
//! `/proc/self/cgroup` names the path, `/proc/self/mountinfo` where each hierarchy is mounted,
//! and every directory from the process's cgroup up to the mount is read (cgroup v1
//! `memory.limit_in_bytes`, v2 `memory.max`), as the JVM's container support does.

use std::path::{Path, PathBuf};

/// A memory budget and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub bytes: u64,
    pub source: Source,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--memory`.
    Given,
    /// Half of the physical memory.
    Physical(u64),
    /// Half of a cgroup's limit: the limit and the cgroup's directory.
    Cgroup(u64, PathBuf),
    /// Nothing could be read (not Linux): a fixed guess.
    Unknown,
}

/// What a run without `/proc` assumes it may use.
const UNKNOWN_BUDGET: u64 = 4 << 30;

/// The smallest budget `--memory` takes: below it not even a small dump's tables fit.
pub const MIN_BUDGET: u64 = 16 << 20;

impl Budget {
    /// The line printed at the start of a run.
    pub fn describe(&self) -> String {
        let why = match &self.source {
            Source::Given => "--memory".to_string(),
            Source::Physical(total) => format!("half of {} of physical memory", bytes_text(*total)),
            Source::Cgroup(limit, dir) => {
                format!("half of the {} limit of cgroup {}", bytes_text(*limit), dir.display())
            }
            Source::Unknown => "the physical memory is unknown here; --memory sets it".to_string(),
        };
        format!("memory budget {} ({why})", bytes_text(self.bytes))
    }

    /// `--memory SIZE` when given, else the default of this process.
    pub fn from_flag(flag: Option<&str>) -> Result<Budget, String> {
        match flag {
            Some(text) => Ok(Budget { bytes: parse_size(text)?, source: Source::Given }),
            None => Ok(default_budget()),
        }
    }
}

/// `1.5G` as bytes: 2^30 each G. Units k/K, M, G, T, with an optional `iB` or `B`; no unit is
/// bytes. Refused in one line: no number, an unknown unit, zero, under 16 MiB, past 2^64.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let refuse = |why: &str| {
        let shown: String = text.chars().flat_map(char::escape_default).take(40).collect();
        Err(format!("--memory {shown}: {why}; give a size such as 8G, 512M or 1.5GiB"))
    };
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let Ok(value) = number.parse::<f64>() else { return refuse("no number") };
    let shift = match unit.trim_start() {
        "" | "B" => 0,
        "k" | "K" | "KB" | "KiB" => 10,
        "M" | "MB" | "MiB" => 20,
        "G" | "GB" | "GiB" => 30,
        "T" | "TB" | "TiB" => 40,
        _ => return refuse("unknown unit"),
    };
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return refuse("too large");
    }
    if (bytes as u64) < MIN_BUDGET {
        return refuse("below 16 MiB");
    }
    Ok(bytes as u64)
}

/// `1.5 GiB`, `512.0 MiB`.
pub fn bytes_text(bytes: u64) -> String {
    let units = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    match units.iter().find(|(shift, _)| bytes >= 1 << shift) {
        Some(&(shift, unit)) => format!("{:.1} {unit}", bytes as f64 / (1u64 << shift) as f64),
        None => format!("{bytes} B"),
    }
}

/// Half of what this process may use.
pub fn default_budget() -> Budget {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let physical = read(Path::new("/proc/meminfo")).as_deref().and_then(mem_total);
    let cgroup = match (read(Path::new("/proc/self/cgroup")), read(Path::new("/proc/self/mountinfo"))) {
        (Some(cgroups), Some(mounts)) => cgroup_limit(&cgroups, &mounts, &read),
        _ => None,
    };
    match (physical, cgroup) {
        (_, Some((limit, dir))) if physical.is_none_or(|p| limit < p) => {
            Budget { bytes: limit / 2, source: Source::Cgroup(limit, dir) }
        }
        (Some(total), _) => Budget { bytes: total / 2, source: Source::Physical(total) },
        (None, _) => Budget { bytes: UNKNOWN_BUDGET, source: Source::Unknown },
    }
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A memory controller's mount: cgroup v2, or v1 with the `memory` option.
struct Mount {
    v2: bool,
    /// The cgroup path mounted there (`/` unless a container sees only its own part).
    root: String,
    point: PathBuf,
}

/// The memory controllers' mounts in `/proc/self/mountinfo`: `ID PARENT MAJ:MIN ROOT POINT
/// OPTIONS [TAGS...] - FSTYPE SOURCE SUPER_OPTIONS`.
fn memory_mounts(mountinfo: &str) -> Vec<Mount> {
    let mut mounts = Vec::new();
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|&f| f == "-") else { continue };
        let (Some(root), Some(point)) = (fields.get(3), fields.get(4)) else { continue };
        let (fstype, options) = (fields.get(dash + 1).copied(), fields.get(dash + 3).copied().unwrap_or(""));
        let v2 = fstype == Some("cgroup2");
        if v2 || (fstype == Some("cgroup") && options.split(',').any(|o| o == "memory")) {
            mounts.push(Mount { v2, root: root.to_string(), point: PathBuf::from(unescape(point)) });
        }
    }
    mounts
}

/// Mountinfo writes spaces and such as octal escapes (`\040`).
fn unescape(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal =
            bytes.get(i + 1..i + 4).and_then(|d| u8::from_str_radix(std::str::from_utf8(d).ok()?, 8).ok());
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The lowest memory limit on the process's cgroup path and the directory that sets it.
/// `cgroups` is `/proc/self/cgroup` (`ID:CONTROLLERS:PATH`; v2 is `0::PATH`).
fn cgroup_limit(
    cgroups: &str,
    mountinfo: &str,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Option<(u64, PathBuf)> {
    let mounts = memory_mounts(mountinfo);
    let mut lowest: Option<(u64, PathBuf)> = None;
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let v2 = controllers.is_empty();
        if !v2 && !controllers.split(',').any(|c| c == "memory") {
            continue;
        }
        for mount in mounts.iter().filter(|m| m.v2 == v2) {
            // Inside a container the mount's root is the container's own cgroup.
            let below = path.strip_prefix(mount.root.as_str()).unwrap_or(path);
            let file = if v2 { "memory.max" } else { "memory.limit_in_bytes" };
            let mut dir = mount.point.join(below.trim_start_matches('/'));
            loop {
                let limit = read(&dir.join(file)).as_deref().and_then(limit_value);
                if let Some(limit) = limit.filter(|&l| lowest.as_ref().is_none_or(|(low, _)| l < *low)) {
                    lowest = Some((limit, dir.clone()));
                }
                if dir == mount.point || !dir.pop() || !dir.starts_with(&mount.point) {
                    break;
                }
            }
        }
    }
    lowest
}

/// A limit file's value: `max` (v2) and v1's page-rounded 2^63 mean none.
fn limit_value(text: &str) -> Option<u64> {
    let value: u64 = text.trim().parse().ok()?;
    (value < 1 << 62).then_some(value)
}

#[cfg(test)]
mod tests;
