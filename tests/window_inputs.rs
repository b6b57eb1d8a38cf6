//! Every input kind opens in a real window and stays open (issue: the window panicked on its
//! first frame for every input that loads in the background). Each test starts `memcity` under
//! Xvfb with the default layout and `--visit-tabs`, which brings every tab to the front in turn
//! (the Tree tab as icicle, sunburst and timeline), selects the top grower and plays time once a
//! city is loaded; the test waits for that visit, keeps the window open, and checks that the
//! process lives and that an F12 picture shows a drawn city. One window per load path: the
//! other inputs of the same path are opened in turn through the Open pane (Ctrl+O, the path
//! typed, Enter), as a person would. Needs Xvfb, xdotool, a Vulkan driver, and for some inputs
//! Node, Python or a JDK: in CI a missing one is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::window::{Window, city_drawn};
use common::{run, tools_present, xvfb};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-win-inputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// The sample dumps' first dump, inflated and named as a JVM names a dump.
fn plain_dump(dir: &Path) -> PathBuf {
    use std::io::Read;
    let gz = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hprof/dump1.hprof.gz");
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(gz).unwrap()).read_to_end(&mut bytes).unwrap();
    let path = dir.join("heap.bin");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A trace of the linked-list scenario in both formats.
fn traces(dir: &Path) -> [PathBuf; 2] {
    let (binary, jsonl) = (dir.join("ll.mctrace"), dir.join("ll.jsonl"));
    run(Command::new(MEMCITY)
        .args(["trace", "--scenario", "linked-list", "--gcs", "4", "--scale", "0.2"])
        .arg("--out")
        .arg(&binary));
    run(Command::new(MEMCITY).arg("trace").arg("--trace").arg(&binary).arg("--out").arg(&jsonl));
    [binary, jsonl]
}

/// Opens `input` through the Open pane and waits for its city's visit (`n`-th with snapshots).
fn open_and_visit(window: &mut Window, input: &str, n: usize) {
    window.open_typed(input);
    let line = window.visited(n, &format!("after opening {input} in the Open pane"));
    assert!(!line.contains("(0 snapshots)"), "{input}: {line}");
    let picture = window.f12();
    assert!(city_drawn(&picture), "{input}: the city is not drawn");
}

/// The dump series from the command line (loaded in the background: the path that panicked),
/// kept open 10 s; then through the Open pane a single plain dump, a gzipped dump, a V8 heap
/// snapshot, a folder of probe heap files, both trace formats and a memcity/1 history.
#[test]
fn every_input_opens_from_the_command_line_and_the_open_pane_and_stays_open() {
    let Some(x) = xvfb() else { return };
    if !tools_present(&["xdotool"], "--version", "MEMCITY_REQUIRE_VULKAN") {
        return;
    }
    let node = tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE");
    let python = tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_VULKAN");
    let dir = scratch("open");
    let Some(mut window) = Window::open(&x, "open", &["data/hprof"]) else { return };
    let line = window.visited(0, "after loading data/hprof");
    assert!(line.contains("(3 snapshots)"), "{line}");
    std::thread::sleep(Duration::from_secs(10));
    window.assert_alive("10 s after loading data/hprof");
    assert!(city_drawn(&window.f12()), "the dump series' city is not drawn");

    let mut inputs = vec![text(&plain_dump(&dir))];
    inputs.push(format!("{}/data/hprof/dump2.hprof.gz", env!("CARGO_MANIFEST_DIR")));
    if node {
        let snapshots = common::node_session_rounds(&dir.join("v8"), 2, 300);
        inputs.push(snapshots.lines().last().unwrap().to_string());
    }
    if python {
        common::python_session_rounds(&dir.join("probe"), 3, 200);
        inputs.push(text(&dir.join("probe")));
    }
    inputs.extend(traces(&dir).iter().map(|p| text(p)));
    inputs.push(format!("{}/data/sample-leak.json", env!("CARGO_MANIFEST_DIR")));
    for (i, input) in inputs.iter().enumerate() {
        open_and_visit(&mut window, input, i + 1);
    }
    std::thread::sleep(Duration::from_secs(10));
    window.assert_alive("10 s after the last input");
    window.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--compare` of two dump series from the command line, then "Compare two runs" in the Open
/// pane (its section opened, both runs typed and Compare clicked with the mouse).
#[test]
fn a_compare_city_opens_and_so_does_one_from_the_open_pane() {
    let Some(x) = xvfb() else { return };
    if !tools_present(&["xdotool"], "--version", "MEMCITY_REQUIRE_VULKAN") {
        return;
    }
    let dir = scratch("compare");
    let series = |name: &str, dumps: &[&str]| {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        for dump in dumps {
            let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/hprof").join(dump);
            std::fs::copy(from, folder.join(dump)).unwrap();
        }
        text(&folder)
    };
    // Runs of different lengths.
    let (before, after) = (
        series("before", &["dump1.hprof.gz", "dump2.hprof.gz", "dump3.hprof.gz"]),
        series("after", &["dump1.hprof.gz", "dump2.hprof.gz"]),
    );
    let Some(mut window) = Window::open(&x, "compare", &["--compare", &before, &after]) else { return };
    window.visited(0, "after --compare");
    std::thread::sleep(Duration::from_secs(10));
    window.assert_alive("10 s after --compare");
    assert!(city_drawn(&window.f12()), "the pair city is not drawn");

    // Ctrl+O, then as a person does with the mouse: open "Compare two runs", type both runs
    // into its fields, click Compare (where the default layout draws them at 1280×720). Each
    // step waits for the app to say it happened, and is done again where it was lost.
    let each = Duration::from_secs(15);
    let opening = format!("opening {before} against {after}");
    for attempt in 1.. {
        window.act_until("showing the open tab", each, "after Ctrl+O", |w| {
            w.xdotool(&["key", "ctrl+o"]);
        });
        // On a later try the section may still be open from the first: then there is nothing
        // to click (and no new "is open" to wait for).
        let section_open = |w: &Window| {
            let last = w.log().lines().rev().find(|l| l.contains("Compare two runs is")).map(str::to_string);
            last.is_some_and(|l| l.ends_with("open"))
        };
        if !section_open(&window) {
            window.act_until("Compare two runs is open", each, "after clicking Compare two runs", |w| {
                if !section_open(w) {
                    w.xdotool(&["mousemove", "948", "185", "click", "1"]);
                }
            });
        }
        for (n, field_y, run) in [(1, "220", &after), (2, "241", &before)] {
            let focused = format!("field {n} has the keyboard");
            window.act_until(&focused, each, "after clicking a Compare field", |w| {
                w.xdotool(&["mousemove", "1030", field_y, "click", "1"]);
            });
            // Emptied first: what is typed replaces what an earlier try left there. (Not with
            // Ctrl+A: xdotool presses and lets go of Ctrl within one frame, and bevy_egui reads
            // the modifiers as they are at the frame's end, so that types an "a".)
            window.xdotool(&["key", "End"]);
            window.xdotool(&["key", "--repeat", "120", "--delay", "2", "BackSpace"]);
            window.xdotool(&["type", "--delay", "15", run]);
        }
        let started = window.log().matches(&opening).count();
        window.xdotool(&["mousemove", "925", "263", "click", "1"]);
        let wait = std::time::Instant::now();
        while window.log().matches(&opening).count() == started && wait.elapsed() < Duration::from_secs(20) {
            window.assert_alive("after Compare");
            std::thread::sleep(Duration::from_millis(250));
        }
        if window.log().matches(&opening).count() > started {
            break;
        }
        assert!(attempt < 3, "Compare opened nothing after {attempt} tries:\n{}", window.log());
    }
    let line = window.visited(1, "after Compare two runs");
    assert!(line.contains("(3 snapshots)"), "the longer run's length: {line}");
    assert!(city_drawn(&window.f12()), "the second pair city is not drawn");
    window.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--listen`: the window opens empty (every tab visited on the empty city), a pushed history
/// becomes a city, a live `clear` empties it again, and the window lives on.
#[test]
fn a_live_city_opens_empty_takes_a_push_and_a_clear() {
    let Some(x) = xvfb() else { return };
    if !tools_present(&["xdotool"], "--version", "MEMCITY_REQUIRE_VULKAN") {
        return;
    }
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let Some(mut window) = Window::open(&x, "listen", &["--listen", &addr]) else { return };
    window.wait_for("visited every tab of city 0 (0 snapshots)", 0, Duration::from_secs(120), "while empty");
    let url = format!("ws://{addr}");
    run(Command::new(MEMCITY)
        .args(["push", &url, "data/sample-leak.json", "--live", "--delay-ms", "100"])
        .stdout(Stdio::null()));
    // The first snapshot arrives as a history (a new city, visited), the rest extend it.
    window.visited(0, "after a push");
    std::thread::sleep(Duration::from_secs(10));
    window.assert_alive("10 s after a push");
    assert!(city_drawn(&window.f12()), "the pushed city is not drawn");
    clear(&url);
    window.wait_for("(0 snapshots)", 1, Duration::from_secs(60), "after a clear");
    std::thread::sleep(Duration::from_secs(3));
    window.assert_alive("after a clear");
    window.close();
}

/// `--follow DIR`: the window opens before the probe wrote anything and grows as heap files
/// appear.
#[test]
fn a_followed_probe_folder_opens_and_grows() {
    let Some(x) = xvfb() else { return };
    if !tools_present(&["xdotool"], "--version", "MEMCITY_REQUIRE_VULKAN")
        || !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_VULKAN")
    {
        return;
    }
    let dir = scratch("follow");
    let probe = dir.join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    let Some(mut window) = Window::open(&x, "follow", &["--follow", &text(&probe)]) else { return };
    window.wait_for("visited every tab of city", 0, Duration::from_secs(120), "while waiting for files");
    common::python_session_rounds(&probe, 3, 200);
    let line = window.visited(0, "after the probe wrote its heap files");
    assert!(!line.contains("(0 snapshots)"), "{line}");
    std::thread::sleep(Duration::from_secs(10));
    window.assert_alive("10 s after the probe's files");
    assert!(city_drawn(&window.f12()), "the followed city is not drawn");
    window.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--inspect` of a running Node program: the window opens empty and fills with the heap
/// snapshots memcity takes over the DevTools protocol.
#[test]
fn a_live_node_process_opens_through_inspect() {
    let Some(x) = xvfb() else { return };
    if !tools_present(&["xdotool"], "--version", "MEMCITY_REQUIRE_VULKAN")
        || !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE")
    {
        return;
    }
    let port = free_port();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/server.js");
    let _node = Stopped(
        Command::new("node")
            .arg(format!("--inspect=127.0.0.1:{port}"))
            .arg(script)
            .arg("0")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_secs(1));
    let inspector = format!("127.0.0.1:{port}");
    let opened = Window::open(&x, "inspect", &["--inspect", &inspector, "--every", "2s"]);
    let Some(mut window) = opened else { return };
    let line = window.visited(0, "after the first snapshots of node");
    assert!(!line.contains("(0 snapshots)"), "{line}");
    std::thread::sleep(Duration::from_secs(10));
    window.assert_alive("10 s into --inspect");
    assert!(city_drawn(&window.f12()), "the live V8 city is not drawn");
    window.close();
}

/// A program the test started, stopped when the test ends (or fails).
struct Stopped(std::process::Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends a live `clear`, as any WebSocket client may.
fn clear(url: &str) {
    let (mut ws, _) = tungstenite::connect(url).unwrap();
    ws.send(tungstenite::Message::text(r#"{"type":"clear"}"#)).unwrap();
    let reply = ws.read().unwrap();
    assert!(reply.to_text().unwrap().contains(r#""ok":true"#), "{reply}");
    let _ = ws.close(None);
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
