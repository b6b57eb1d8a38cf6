//! Helpers the end-to-end tests share: finding the external tools a test needs, running a
//! command that must succeed, finding a node of a history's tree, an Xvfb display for the
//! window tests.
#![allow(dead_code)] // each test file uses some of them

use std::process::{Command, Stdio};

pub mod shots;
pub mod trees;
pub mod window;

/// Whether every tool runs here. Where one is missing the test skips with a note, unless CI=1
/// or `require_env` is set: then a missing tool is a failure.
pub fn tools_present(tools: &[&str], version_arg: &str, require_env: &str) -> bool {
    let runs = |tool: &&str| {
        Command::new(tool).arg(version_arg).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
    };
    let present = tools.iter().all(runs);
    if !present {
        let required =
            std::env::var("CI").is_ok_and(|v| v == "1" || v == "true") || std::env::var(require_env).is_ok();
        assert!(!required, "CI or {require_env} is set but one of {tools:?} was not found");
        eprintln!("no {tools:?} here: skipping");
    }
    present
}

/// Runs a command that must succeed and returns its standard output.
pub fn run(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The DOM of a page after its scripts ran, as headless Chromium dumps it; `None` (skipped)
/// where chromium is missing and not required.
pub fn chromium_dom(page: &std::path::Path, fragment: &str) -> Option<String> {
    if !tools_present(&["chromium"], "--version", "MEMCITY_REQUIRE_CHROMIUM") {
        return None;
    }
    let profile = std::env::temp_dir().join(format!("memcity-dom-profile-{}", std::process::id()));
    let url = format!("file://{}#{fragment}", page.canonicalize().unwrap().display());
    let dom = run(Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stderr(Stdio::null()));
    Some(dom)
}

/// Asserts that memcity refuses `args`: it fails, with one line on stderr that contains `needle`
/// (clap's own usage errors, which add a hint line, excepted).
pub fn refused(args: &[&str], needle: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_memcity")).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    let clap = stderr.starts_with("error: invalid value");
    assert!(clap || stderr.trim_end().lines().count() == 1, "{args:?}: not one line: {stderr}");
}

/// The heap files of tests/python/session_registry.py run under the probe in its own process
/// (`--no-fork`, so each is written when the round returns): one per round, `sessions` more
/// sessions a round. Its output, one path a line.
pub fn python_session_rounds(dir: &std::path::Path, rounds: u32, sessions: u32) -> String {
    python_rounds("session_registry.py", dir, rounds, sessions, &[])
}

/// The heap files of a tests/python program run under the probe in its own process as
/// `SCRIPT ROUNDS PER_ROUND EXTRA…`. Its output, one path a line.
pub fn python_rounds(
    script: &str,
    dir: &std::path::Path,
    rounds: u32,
    per_round: u32,
    extra: &[&str],
) -> String {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    run(Command::new("python3")
        .arg(repo.join("probes/python/memcity_probe.py"))
        .arg("--out")
        .arg(dir)
        .args(["--no-fork", "--every-ms", "600000"])
        .arg(repo.join("tests/python").join(script))
        .args([rounds.to_string(), per_round.to_string()])
        .args(extra))
}

/// The V8 heap snapshots of tests/js/sessions.js, one a round, written into `dir`. Its output,
/// one path a line.
pub fn node_session_rounds(dir: &std::path::Path, rounds: u32, sessions: u32) -> String {
    node_rounds("sessions.js", dir, rounds, sessions, &[])
}

/// The V8 heap snapshots of a tests/js program called as `SCRIPT OUT_DIR ROUNDS PER_ROUND
/// EXTRA…`, one a round, written into `dir`. Its output, one path a line.
pub fn node_rounds(
    script: &str,
    dir: &std::path::Path,
    rounds: u32,
    per_round: u32,
    extra: &[&str],
) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js").join(script);
    run(Command::new("node")
        .arg(script)
        .arg(dir)
        .args([rounds.to_string(), per_round.to_string()])
        .args(extra))
}

/// The node with `key` in a tree.
pub fn find<'a>(node: &'a memcity_model::Node, key: &str) -> Option<&'a memcity_model::Node> {
    if node.key == key {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, key))
}

/// The leaf groups (buildings) of a tree.
pub fn buildings(tree: &memcity_model::Node) -> Vec<&memcity_model::Node> {
    let mut out = Vec::new();
    let mut stack = vec![tree];
    while let Some(n) = stack.pop() {
        if n.children.is_empty() {
            out.push(n);
        }
        stack.extend(&n.children);
    }
    out
}

/// Runs a Java program of tests/java that prints `STARTED`, then `READY <phase>…` after each
/// `go` line, and takes one dump (and class histogram) at each of `phases` pauses with
/// `memcity record`. Returns the series folder under `dir`.
pub fn record_java(dir: &std::path::Path, class: &str, args: &[&str], phases: usize) -> std::path::PathBuf {
    use std::io::{BufRead, BufReader, Write};
    let classes = dir.join("classes");
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/java/{class}.java"));
    run(Command::new("javac").arg("-d").arg(&classes).arg(source));
    let mut app = Command::new("java")
        .args(["-Xmx128m", "-XX:+UseSerialGC", "-cp"])
        .arg(&classes)
        .arg(class)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = app.stdin.take().unwrap();
    let mut lines = BufReader::new(app.stdout.take().unwrap()).lines();
    let pid = app.id().to_string();
    assert_eq!(lines.next().unwrap().unwrap(), "STARTED");
    // Attach once, so the attach machinery's own objects exist before the first dump.
    run(Command::new("jcmd").args([&pid, "VM.version"]));
    let series = dir.join("series");
    for phase in 1..=phases {
        writeln!(stdin, "go").unwrap();
        stdin.flush().unwrap();
        let line = lines.next().unwrap().unwrap();
        assert!(line == format!("READY {phase}") || line.starts_with(&format!("READY {phase} ")), "{line}");
        run(Command::new(env!("CARGO_BIN_EXE_memcity"))
            .args(["record", "--pid", &pid, "--count", "1", "--out"])
            .arg(&series));
    }
    let _ = writeln!(stdin, "quit");
    app.wait().unwrap();
    series
}

/// Whether a test that needs Vulkan (and Xvfb) must fail rather than skip where they are
/// missing: in CI, or with MEMCITY_REQUIRE_VULKAN set.
pub fn vulkan_required() -> bool {
    std::env::var_os("CI").is_some() || std::env::var_os("MEMCITY_REQUIRE_VULKAN").is_some()
}

/// An Xvfb server on a free display, stopped when dropped.
pub struct Xvfb {
    child: std::process::Child,
    pub display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM lets Xvfb remove its lock and socket; a killed one leaves both behind.
        // SAFETY: a signal to our own child, which has not been waited for yet.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(2) {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether display `n` belongs to a running X server: its lock file names a live process.
/// A lock left by a server that was killed names a dead one; Xvfb replaces such a lock itself.
fn display_taken(n: u32) -> bool {
    let Ok(text) = std::fs::read_to_string(format!("/tmp/.X{n}-lock")) else {
        return false;
    };
    match text.trim().parse::<i32>() {
        Ok(pid) if pid > 0 => std::path::Path::new(&format!("/proc/{pid}")).exists(),
        // Being written by a server starting now.
        _ => true,
    }
}

/// Starts Xvfb (1920×1200) on a free display; without Xvfb the test skips with a note, unless
/// [`vulkan_required`].
pub fn xvfb() -> Option<Xvfb> {
    use std::time::{Duration, Instant};
    // Tests of one process start theirs side by side: each call tries other displays.
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let base = 40 + std::process::id() % 200 + 7 * call;
    for n in base..base + 60 {
        if display_taken(n) {
            continue;
        }
        // A stale socket would look like a ready server below (Xvfb replaces a stale lock).
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{n}"));
        let display = format!(":{n}");
        let child = match Command::new("Xvfb")
            .args([display.as_str(), "-screen", "0", "1920x1200x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => {
                assert!(!vulkan_required(), "CI needs Xvfb: {e}");
                eprintln!("SKIPPED: no Xvfb here ({e})");
                return None;
            }
        };
        let start = Instant::now();
        let mut xvfb = Xvfb { child, display };
        while start.elapsed() < Duration::from_secs(10) {
            // Another Xvfb that took the display first makes this one stop.
            if xvfb.child.try_wait().ok().flatten().is_some() {
                break;
            }
            // Ready once it takes a connection, not when its socket's file appears (a client
            // that came too early failed to open the display once).
            if std::os::unix::net::UnixStream::connect(format!("/tmp/.X11-unix/X{n}")).is_ok() {
                std::thread::sleep(Duration::from_millis(100));
                if xvfb.child.try_wait().ok().flatten().is_none() {
                    return Some(xvfb);
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(xvfb);
    }
    assert!(!vulkan_required(), "no free X display for Xvfb");
    None
}

/// Whether the app stopped because it found no renderer (no Vulkan driver): then the test
/// skips with a note, unless [`vulkan_required`].
pub fn no_renderer(output: &std::process::Output) -> bool {
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(2) && stderr.contains("the renderer stopped") {
        assert!(!vulkan_required(), "{stderr}");
        eprintln!("SKIPPED: no renderer here ({})", stderr.lines().next().unwrap_or(""));
        return true;
    }
    false
}

/// A PNG's width and height.
pub fn png_size(path: &std::path::Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let reader = decoder.read_info().unwrap();
    (reader.info().width, reader.info().height)
}

/// A decoded PNG (RGB or RGBA, 8 bits a channel).
pub struct Png {
    pub width: u32,
    pub height: u32,
    pub channels: usize,
    pub data: Vec<u8>,
}

impl Png {
    pub fn read(path: &std::path::Path) -> Png {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = match info.color_type {
            png::ColorType::Rgba => 4,
            png::ColorType::Rgb => 3,
            other => panic!("unexpected screenshot color type {other:?}"),
        };
        buf.truncate(info.buffer_size());
        Png { width: info.width, height: info.height, channels, data: buf }
    }

    /// Every pixel as RGB, row by row.
    pub fn pixels(&self) -> impl Iterator<Item = [u8; 3]> + '_ {
        self.data.chunks_exact(self.channels).map(|p| [p[0], p[1], p[2]])
    }

    /// How many pixels match `pred`.
    pub fn count(&self, pred: impl Fn([u8; 3]) -> bool) -> usize {
        self.pixels().filter(|&p| pred(p)).count()
    }

    /// The pixel at (x, y), as RGB.
    pub fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = (y as usize * self.width as usize + x as usize) * self.channels;
        [self.data[i], self.data[i + 1], self.data[i + 2]]
    }

    /// How many pixels of the rectangle `[x0, y0, x1, y1)` differ between two pictures.
    pub fn differences(&self, other: &Png, [x0, y0, x1, y1]: [u32; 4]) -> usize {
        assert_eq!((self.width, self.height), (other.width, other.height));
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| self.at(x, y) != other.at(x, y))
            .count()
    }
}

/// Checks an ownership tree as `memcity ownership --out FILE.json` writes it: every node owns
/// its self bytes plus its children's (so it needs `--min-share 0`), the root the heap, every
/// node has the documented fields and no other, fractions lie in (0, 1]. Returns the nodes,
/// parents before children.
pub fn ownership_nodes(doc: &serde_json::Value) -> Vec<&serde_json::Value> {
    let root = &doc["root"];
    assert_eq!(root["kind"], "root");
    assert_eq!(root["owned_bytes"], doc["heap_bytes"], "the root owns the heap");
    let mut nodes = Vec::new();
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        let u = |k: &str| node[k].as_u64().unwrap_or_else(|| panic!("{k} of {node}"));
        let children = node["children"].as_array().unwrap();
        let below: u64 = children.iter().map(|c| c["owned_bytes"].as_u64().unwrap()).sum();
        assert_eq!(u("owned_bytes"), u("self_bytes") + below, "conserved at {}", node["name"]);
        let fraction = node["fraction"].as_f64().unwrap();
        assert!(fraction > 0.0 && fraction <= 1.0 + 1e-9, "{fraction}");
        assert!(node["growth_bytes"].is_i64() && node["new_objects"].is_u64() && node["objects"].is_u64());
        let kind = node["kind"].as_str().unwrap();
        assert!(["root", "class", "collection", "cycle", "pseudo"].contains(&kind), "{kind}");
        let mut fields: Vec<&str> = node.as_object().unwrap().keys().map(String::as_str).collect();
        fields.sort_unstable();
        let mut expected = vec![
            "children",
            "fraction",
            "growth_bytes",
            "kind",
            "name",
            "new_objects",
            "objects",
            "owned_bytes",
            "self_bytes",
        ];
        match kind {
            "collection" => expected.push("referrer"),
            "cycle" => {
                expected.push("members");
                if node.get("referrer").is_some() {
                    expected.push("referrer");
                }
            }
            _ => {}
        }
        expected.sort_unstable();
        assert_eq!(fields, expected, "the fields of {}", node["name"]);
        nodes.push(node);
        pending.extend(children);
    }
    nodes
}

/// Runs `memcity ownership ARGS --out FILE.json` and returns the document.
pub fn ownership_json(args: &[&str]) -> serde_json::Value {
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("memcity-ownership-{}-{n}.json", std::process::id()));
    run(Command::new(env!("CARGO_BIN_EXE_memcity")).arg("ownership").args(args).arg("--out").arg(&out));
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    serde_json::from_str(&text).unwrap()
}
