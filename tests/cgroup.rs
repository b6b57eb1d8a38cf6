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

/// Imports `input` with `args` outside and then inside `group`, whose limit is below what the
/// import needs all in memory, and checks that the histories are one and that the budget came
/// from the cgroup (`budget`: how the run names it). Then, where `killed_unbounded`, with
/// `--memory` far above the limit and no swap, the kernel kills it: the spill is what makes it fit.
/// The cgroup and `dir` are removed when every check passed (left to look at otherwise).
fn imports_the_same_inside(
    group: &Path,
    dir: &Path,
    input: &Path,
    args: &[&str],
    budget: &str,
    killed_unbounded: bool,
) {
    let (free, bounded, work) = (dir.join("free.json"), dir.join("bounded.json"), dir.join("work"));
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let import = |extra: &[String], out: &Path| {
        let mut all = vec!["import".to_string(), path(input)];
        all.extend(args.iter().map(|a| a.to_string()));
        all.extend(extra.iter().cloned());
        all.extend(["-o".to_string(), path(out)]);
        all
    };
    run(Command::new(env!("CARGO_BIN_EXE_memcity")).args(import(&[], &free)));

    let inside_args = import(&["--work-dir".into(), path(&work)], &bounded);
    let out = inside(group, &inside_args.iter().map(String::as_str).collect::<Vec<_>>());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "killed or failed in the cgroup: {:?} {stderr}", out.status);
    assert!(stderr.contains(budget), "{stderr}");
    assert_eq!(std::fs::read(&free).unwrap(), std::fs::read(&bounded).unwrap(), "the same history");
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "no work file is left");

    let no_swap = std::fs::read_to_string("/proc/swaps").is_ok_and(|s| s.lines().count() <= 1);
    if no_swap && killed_unbounded {
        let before = oom_kills(group);
        let unbounded = import(&["--memory".into(), "100G".into()], &bounded);
        let out = inside(group, &unbounded.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(!out.status.success() && oom_kills(group) > before, "all in memory, it does not fit");
    }
    let _ = std::fs::remove_dir(group);
    let _ = std::fs::remove_dir_all(dir);
}

/// A folder for one test's files, made afresh.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-cgroup-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A generated 400 MB dump (10 M objects) in a 200 MB cgroup: its tables alone need about
/// 750 MB, so the import spills past the cgroup's default budget (100 MB) and finishes with the
/// same history as outside. (Before the depth-first numbering read its work files without
/// read-around, it thrashed for minutes from 4 M objects on.) Every import reads the dump
/// itself, not an index an earlier one wrote: the memory is spent reading it.
#[test]
fn a_dump_larger_than_its_cgroup_allows_imports_the_same() {
    let Some(group) = cgroup(&format!("memcity-test-{}", std::process::id()), 200 << 20) else { return };
    let dir = scratch("hprof");
    let dump = dir.join("big.hprof");
    run(Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["generate-dump", "--objects", "10M", "-o"])
        .arg(&dump));
    let args = ["--no-index", "--classifiers", "type"];
    imports_the_same_inside(
        &group,
        &dir,
        &dump,
        &args,
        "memory budget 100.0 MiB (half of the 200.0 MiB limit of cgroup",
        true,
    );
}

/// A real Node program's 290 MB heap snapshot (3.7 M nodes, 11.4 M edges) in a 160 MB cgroup:
/// before its tables were budgeted the kernel killed the import within a second (a release
/// build does it inside 100 MB; the cgroup leaves room for the test binary's larger code, without
/// which the retainer paths thrashed). All in memory it needs about 320 MiB of its own, twice the
/// limit: at 195 MB (170 MiB, 5% past it) the kernel reclaimed enough code pages on some
/// machines that the unbounded run finished and the test failed.
#[test]
fn a_node_snapshot_larger_than_its_cgroup_allows_imports_the_same() {
    if !common::tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let Some(group) = cgroup(&format!("memcity-test-v8-{}", std::process::id()), 160 << 20) else { return };
    let dir = scratch("v8");
    let snapshot = dir.join("orders.heapsnapshot");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/js/synthetic.js");
    run(Command::new("node").arg(&script).arg("300000").arg(&snapshot));
    imports_the_same_inside(
        &group,
        &dir,
        &snapshot,
        &[],
        "memory budget 80.0 MiB (half of the 160.0 MiB limit of cgroup",
        true,
    );
}

/// The Python probe's 87 MB heap file of a real program (1.6 M objects) in a 192 MB cgroup:
/// the file is mapped, not copied, and its columns are budgeted tables (before, it was read
/// into memory whole and the kernel killed the import at once). The cgroup leaves room for the
/// test binary's code, which is larger than a release build's: at 160 MB the debug build peaked
/// at the limit (165–170 MB charged, the mapped file's pages reclaimed meanwhile) and was killed
/// in some runs on a machine whose page cache was full. With everything in memory the import is
/// near this limit too, so that is not run.
#[test]
fn a_probe_heap_file_larger_than_its_cgroup_allows_imports_the_same() {
    if !common::tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let Some(group) = cgroup(&format!("memcity-test-py-{}", std::process::id()), 192 << 20) else { return };
    let dir = scratch("probe");
    let program = dir.join("orders.py");
    std::fs::write(
        &program,
        "class Order:\n    def __init__(self, i):\n        self.id = i\n        self.note = 'order %d' % i\n        \
         self.items = [('sku-%d' % (i % 977), i % 5), ('sku-%d' % (i % 131), 1)]\n\
         store = {i: Order(i) for i in range(200000)}\n",
    )
    .unwrap();
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("probes/python/memcity_probe.py");
    let snapshots = dir.join("snapshots");
    run(Command::new("python3")
        .arg(&probe)
        .args(["--out", snapshots.to_str().unwrap(), "--every-ms", "100000000", "--max-snapshots", "1"])
        .arg(&program));
    let file = std::fs::read_dir(&snapshots).unwrap().next().unwrap().unwrap().path();
    imports_the_same_inside(
        &group,
        &dir,
        &file,
        &[],
        "memory budget 96.0 MiB (half of the 192.0 MiB limit of cgroup",
        // All in memory it fits here or not by a few MB (the mapped file's pages can be
        // dropped): whether it is killed then says nothing.
        false,
    );
}
