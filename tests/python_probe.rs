//! The Python probe end to end: real programs run under probes/python/memcity_probe.py, their
//! snapshot folders read through the one heap pipeline (memcity-heapfile), the CLI and
//! `memcity serve --follow`. Needs python3: without it these tests skip, except in CI (CI=1 or
//! MEMCITY_REQUIRE_PYTHON=1), where they fail.

mod common;
use common::buildings;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memcity_analysis::windows::{WindowKind, detect};
use memcity_model::{History, Node};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// python3, or `None` where it may be missing (never in CI).
fn python() -> Option<&'static str> {
    if Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some("python3");
    }
    let required = ["CI", "MEMCITY_REQUIRE_PYTHON"].iter().any(|v| std::env::var(v).is_ok_and(|v| v == "1"));
    assert!(
        !required,
        "python3 is needed for the Python probe tests (CI=1 or MEMCITY_REQUIRE_PYTHON=1 is set)"
    );
    eprintln!("skipping: no python3");
    None
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-python-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs an example under the probe for `seconds`, and again for twice as long (up to eight
/// times) while it took fewer than three snapshots: a loaded machine manages fewer in the same
/// time, as the probe skips GC points while a snapshot is taken. Returns the snapshot folder and
/// its history.
fn probe_history(python: &str, example: &str, first: f64) -> (PathBuf, History) {
    let mut seconds = first;
    loop {
        let dir = probe(python, example, &seconds.to_string());
        let history =
            memcity_heapfile::import(std::slice::from_ref(&dir), &memcity_heapfile::default_grouping())
                .unwrap();
        if history.snapshots.len() >= 3 || seconds >= 8.0 * first {
            return (dir, history);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        seconds *= 2.0;
    }
}

/// Runs an example for `seconds` under the probe; returns its snapshot folder.
fn probe(python: &str, example: &str, seconds: &str) -> PathBuf {
    let out = temp(example);
    let status = Command::new(python)
        .arg(repo("probes/python/memcity_probe.py"))
        .args(["--out", out.to_str().unwrap(), "--every-ms", "100"])
        .arg(repo(&format!("probes/python/examples/{example}.py")))
        .arg(seconds)
        .status()
        .unwrap();
    assert!(status.success(), "{example}: the probe failed: {status}");
    out
}

fn objects_of(history: &History, snapshot: usize, key: &str) -> u64 {
    buildings(&history.snapshots[snapshot].tree).iter().find(|n| n.key == key).map_or(0, |n| n.objects)
}

/// The leaking class is the program's top grower and keeps most of the growth alive; its
/// retainer path names the holder; the history has a leak window.
fn check_leak(example: &str, class: &str, holder: &str) {
    let Some(python) = python() else { return };
    let (dir, history) = probe_history(python, example, 2.5);
    let n = history.snapshots.len();
    assert!(n >= 3, "{example}: only {n} snapshots");
    let last = history.snapshots.last().unwrap();
    let program_leaves: Vec<&Node> =
        buildings(&last.tree).into_iter().filter(|l| l.key.contains("#Package:__main__#")).collect();
    let growth = |key: &str| objects_of(&history, n - 1, key) as i64 - objects_of(&history, 0, key) as i64;
    let top = program_leaves.iter().max_by_key(|l| growth(&l.key)).unwrap();
    assert!(top.key.contains(&format!("#Type:{class}#")), "{example}: top grower is {}", top.key);
    assert!(growth(&top.key) > 1000, "{example}: {} grew by {}", top.key, growth(&top.key));

    let heap_growth = last.tree.bytes as f64 - history.snapshots[0].tree.bytes as f64;
    let retained = top.retained_bytes.unwrap() as f64;
    assert!(
        retained > 0.5 * heap_growth,
        "{example}: {class} retains {retained} of {heap_growth} B of growth"
    );

    let path = &last.retainers[&top.key];
    let holders: Vec<&str> = path.steps.iter().map(|s| s.key.as_str()).collect();
    assert!(holders.iter().any(|k| k.contains(holder)), "{example}: retainer path {holders:#?}");
    assert_eq!(path.roots, vec!["Global".to_string()], "{example}");

    let windows = detect(&history);
    assert!(windows.iter().any(|w| w.kind == WindowKind::Leak), "{example}: windows {windows:?}");

    // The same through the CLI, as a user asks it.
    let why = Command::new(MEMCITY).args(["why", dir.to_str().unwrap(), "--key", &top.key]).output().unwrap();
    let text = String::from_utf8_lossy(&why.stdout);
    assert!(why.status.success() && text.contains(holder), "{text}{}", String::from_utf8_lossy(&why.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fixed version takes snapshots all along but has no leak window.
fn check_fixed(example: &str) {
    let Some(python) = python() else { return };
    let (dir, history) = probe_history(python, example, 4.0);
    assert!(history.snapshots.len() >= 3, "{example}: only {} snapshots", history.snapshots.len());
    let leaks: Vec<_> = detect(&history)
        .into_iter()
        .filter(|w| matches!(w.kind, WindowKind::Leak | WindowKind::LeakRegression))
        .collect();
    assert!(leaks.is_empty(), "{example}: {leaks:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_module_level_list_of_sessions_leaks_and_names_the_list() {
    check_leak("leak_sessions", "__main__.Session", "global __main__.SESSIONS");
}

#[test]
fn a_method_cache_leaks_and_names_the_cache() {
    check_leak("leak_method_cache", "__main__.Report", "functools._lru_cache_wrapper");
}

#[test]
fn a_callback_registry_leaks_and_names_the_registry() {
    check_leak("leak_callbacks", "__main__.Widget", "global __main__.LISTENERS");
}

#[test]
fn fixed_sessions_show_no_leak() {
    check_fixed("fixed_sessions");
}

#[test]
fn fixed_method_cache_shows_no_leak() {
    check_fixed("fixed_method_cache");
}

#[test]
fn fixed_callbacks_show_no_leak() {
    check_fixed("fixed_callbacks");
}

/// SIGKILL while a snapshot is being written (its partial file exists) leaves every earlier
/// snapshot readable; the partial file is ignored.
#[test]
fn a_probe_killed_mid_snapshot_leaves_earlier_snapshots_readable() {
    let Some(python) = python() else { return };
    // The kill may land just after a snapshot finished; then try again.
    for attempt in 0..5 {
        let out = temp(&format!("killed-{attempt}"));
        let left = kill_mid_snapshot(python, &out);
        if left.iter().any(|n| n.ends_with(".tmp")) {
            let history =
                memcity_heapfile::import(std::slice::from_ref(&out), &memcity_heapfile::default_grouping())
                    .unwrap();
            let complete = left.iter().filter(|n| n.ends_with(".mcheap")).count();
            assert!(complete >= 3, "{left:?}");
            assert_eq!(history.snapshots.len(), complete);
            std::fs::remove_dir_all(&out).unwrap();
            return;
        }
        std::fs::remove_dir_all(&out).unwrap();
    }
    panic!("no kill landed mid-snapshot in 5 attempts");
}

/// Runs a growing program under the probe and kills it (with its snapshot child) once a
/// snapshot after the third is in progress; returns the names left in `out`.
fn kill_mid_snapshot(python: &str, out: &Path) -> Vec<String> {
    let mut child = Command::new(python)
        .arg(repo("probes/python/memcity_probe.py"))
        .args(["--out", out.to_str().unwrap(), "--every-ms", "0"])
        .arg(repo("probes/python/examples/leak_sessions.py"))
        .arg("60")
        .spawn()
        .unwrap();
    let names = || -> Vec<String> {
        std::fs::read_dir(out)
            .map(|e| e.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = names();
        let done = now.iter().filter(|n| n.ends_with(".mcheap")).count();
        if done >= 3 && now.iter().any(|n| n.ends_with(".tmp")) {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("no snapshot in progress seen: {now:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // The child writing the snapshot first (by its own pid, never a group), then the probe.
    let children =
        std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", child.id())).unwrap_or_default();
    for pid in children.split_whitespace().filter_map(|p| p.parse::<u32>().ok()) {
        Command::new("kill").args(["-s", "KILL", "--", &pid.to_string()]).status().unwrap();
    }
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    names()
}

/// A damaged snapshot file is one line naming the file and the byte offset, from `memcity
/// import`; another format version is refused.
#[test]
fn damaged_snapshot_files_are_one_line_errors() {
    let Some(python) = python() else { return };
    let dir = probe(python, "fixed_sessions", "0.3");
    let first = dir.join("snapshot-000001.mcheap");
    let bytes = std::fs::read(&first).unwrap();
    let import = |expect: &str| {
        let out = Command::new(MEMCITY)
            .args(["import", dir.to_str().unwrap(), "-o", dir.join("h.json").to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&format!("{}: at byte ", first.display())), "{stderr}");
        assert!(stderr.contains(expect), "{stderr}");
    };
    std::fs::write(&first, &bytes[..bytes.len() / 2]).unwrap();
    import("truncated");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0xff;
    std::fs::write(&first, &flipped).unwrap();
    import("CRC-32 mismatch");
    let mut newer = bytes.clone();
    newer[8] = 9;
    std::fs::write(&first, &newer).unwrap();
    import("format version 9 is not supported");
    std::fs::write(&first, &bytes).unwrap();
    let out = Command::new(MEMCITY)
        .args(["import", dir.to_str().unwrap(), "-o", dir.join("h.json").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `memcity serve --follow DIR` grows its history while the probe writes, snapshot by snapshot,
/// and saves them all.
#[test]
fn serve_follows_a_running_probe() {
    let Some(python) = python() else { return };
    let dir = temp("follow");
    std::fs::create_dir_all(&dir).unwrap();
    let saved = dir.with_extension("json");
    let mut serve = Command::new(MEMCITY)
        .args(["serve", "127.0.0.1:0", "--follow", dir.to_str().unwrap(), "--save", saved.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, receive) = std::sync::mpsc::channel();
    let stdout = serve.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let status = Command::new(python)
        .arg(repo("probes/python/memcity_probe.py"))
        .args(["--out", dir.to_str().unwrap(), "--every-ms", "100"])
        .arg(repo("probes/python/examples/leak_callbacks.py"))
        .arg("1.5")
        .status()
        .unwrap();
    assert!(status.success());
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "mcheap"))
        .count();
    assert!(files >= 2, "{files} snapshots");
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen.last().is_some_and(|l: &String| l.ends_with(&format!("({files} snapshots)"))) {
        let left = deadline.saturating_duration_since(Instant::now());
        seen.push(receive.recv_timeout(left).unwrap_or_else(|_| panic!("serve printed {seen:?}")));
    }
    assert!(seen.iter().any(|l| l.contains(": snapshot (")), "snapshots were appended: {seen:?}");
    Command::new("kill").args(["-TERM", &serve.id().to_string()]).status().unwrap();
    assert!(serve.wait().unwrap().success());
    let history = memcity_model::load_path(&saved).unwrap();
    assert_eq!(history.snapshots.len(), files);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&saved).unwrap();
}

/// `memcity_probe.start/snapshot/stop` from inside a program: a manual and an exit snapshot,
/// both with the program's objects and none of the probe's own.
#[test]
fn the_probe_works_from_inside_a_program_and_leaves_itself_out() {
    let Some(python) = python() else { return };
    let out = temp("importable");
    let program = r#"
import gc, sys, memcity_probe
gc.disable()  # no GC point of its own before the manual snapshot
memcity_probe.start(out=sys.argv[1], every_ms=10 ** 6)
class Marker:
    pass
keep = [Marker() for _ in range(1000)]
first = memcity_probe.snapshot()
assert first.endswith("snapshot-000001.mcheap"), first
memcity_probe.stop()
"#;
    let status = Command::new(python)
        .env("PYTHONPATH", repo("probes/python"))
        .args(["-c", program, out.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    for (name, trigger) in [("snapshot-000001.mcheap", "manual"), ("snapshot-000002.mcheap", "exit")] {
        let file = memcity_heapfile::read_file(&out.join(name)).unwrap();
        assert_eq!(file.meta.trigger.as_deref(), Some(trigger));
        let type_of = |o: usize| file.strings[file.types[o] as usize].as_str();
        let markers = (0..file.object_count()).filter(|&o| type_of(o) == "__main__.Marker").count();
        assert_eq!(markers, 1000, "{name}");
        let own: Vec<&str> =
            (0..file.object_count()).map(type_of).filter(|t| t.starts_with("memcity_probe.")).collect();
        assert!(own.is_empty(), "{name}: the probe's own objects: {own:?}");
        assert!(file.roots.iter().any(|&(_, k)| k == memcity_heapgraph::RootKind::StackFrame));
    }
    std::fs::remove_dir_all(&out).unwrap();
}

/// --follow names a folder that must exist; the error says which flag and which path.
#[test]
fn follow_refuses_a_missing_folder() {
    let missing = temp("no-such-folder");
    let out = Command::new(MEMCITY)
        .args(["serve", "127.0.0.1:0", "--follow", missing.to_str().unwrap()])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--follow") && stderr.contains("no-such-folder") && stderr.contains("not a folder"),
        "{stderr}"
    );
}
