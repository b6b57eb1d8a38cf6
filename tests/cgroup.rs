//! Imports inside a small memory cgroup (v1, `/sys/fs/cgroup/memory`, writable as root): the
//! default budget is read from the cgroup, tables past it go to work files, and the result is
//! the unbounded run's. Skipped with a note where no such cgroup can be made, unless
//! `MEMCITY_REQUIRE_CGROUP` is set (CI sets it): then that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::run;

const V1: &str = "/sys/fs/cgroup/memory";

/// A fresh memory cgroup below this process's own, limited to `limit` bytes; None (skipped)
/// where none can be made.
fn cgroup(name: &str, limit: u64) -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok().and_then(|text| {
        text.lines().find_map(|l| {
            l.splitn(3, ':').nth(2).filter(|_| l.split(':').nth(1) == Some("memory")).map(String::from)
        })
    });
    let dir = Path::new(V1).join(own.unwrap_or_default().trim_start_matches('/')).join(name);
    let made = std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(dir.join("memory.limit_in_bytes"), limit.to_string()).is_ok();
    if made {
        return Some(dir);
    }
    let _ = std::fs::remove_dir(&dir);
    assert!(
        std::env::var_os("MEMCITY_REQUIRE_CGROUP").is_none(),
        "MEMCITY_REQUIRE_CGROUP is set but {} cannot be made",
        dir.display()
    );
    eprintln!("no writable memory cgroup at {V1}: skipping");
    None
}

/// Runs memcity with `args` inside the cgroup `dir`.
fn inside(dir: &Path, args: &[&str]) -> Output {
    let procs = dir.join("cgroup.procs");
    let script = format!("echo $$ > '{}' && exec \"$0\" \"$@\"", procs.display());
    Command::new("sh").arg("-c").arg(script).arg(env!("CARGO_BIN_EXE_memcity")).args(args).output().unwrap()
}

fn oom_kills(dir: &Path) -> u64 {
    let text = std::fs::read_to_string(dir.join("memory.oom_control")).unwrap_or_default();
    text.lines().find_map(|l| l.strip_prefix("oom_kill ")?.parse().ok()).unwrap_or(0)
}

/// A generated 400 MB dump (10 M objects) in a 200 MB cgroup: its tables alone need about
/// 750 MB, so the import spills past the cgroup's default budget (100 MB) and finishes with the
/// same history as outside. (Before the depth-first numbering read its work files without
/// read-around, it thrashed for minutes from 4 M objects on.) Without spilling (`--memory` far
/// above the limit, no swap) the kernel kills it: the spill is what makes it fit.
#[test]
fn a_dump_larger_than_its_cgroup_allows_imports_the_same() {
    let Some(group) = cgroup(&format!("memcity-test-{}", std::process::id()), 200 << 20) else { return };
    let dir = std::env::temp_dir().join(format!("memcity-cgroup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("big.hprof");
    run(Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["generate-dump", "--objects", "10M", "-o"])
        .arg(&dump));
    let (free, bounded, work) = (dir.join("free.json"), dir.join("bounded.json"), dir.join("work"));
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    // Every import reads the dump itself, not an index an earlier one wrote: the memory is
    // spent reading it.
    run(Command::new(env!("CARGO_BIN_EXE_memcity")).args([
        "import",
        "--no-index",
        &path(&dump),
        "--classifiers",
        "type",
        "-o",
        &path(&free),
    ]));

    let out = inside(
        &group,
        &[
            "import",
            "--no-index",
            &path(&dump),
            "--classifiers",
            "type",
            "--work-dir",
            &path(&work),
            "-o",
            &path(&bounded),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "killed or failed in the cgroup: {:?} {stderr}", out.status);
    assert!(stderr.contains("memory budget 100.0 MiB (half of the 200.0 MiB limit of cgroup"), "{stderr}");
    assert_eq!(std::fs::read(&free).unwrap(), std::fs::read(&bounded).unwrap(), "the same history");
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "no work file is left");

    let no_swap = std::fs::read_to_string("/proc/swaps").is_ok_and(|s| s.lines().count() <= 1);
    if no_swap {
        let before = oom_kills(&group);
        let out = inside(
            &group,
            &[
                "import",
                "--no-index",
                &path(&dump),
                "--classifiers",
                "type",
                "--memory",
                "100G",
                "-o",
                &path(&bounded),
            ],
        );
        assert!(!out.status.success() && oom_kills(&group) > before, "all in memory, it does not fit");
    }
    let _ = std::fs::remove_dir(&group);
    let _ = std::fs::remove_dir_all(&dir);
}
