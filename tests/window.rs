//! The app in a window under Xvfb: `--window --screenshot` captures the window, UI included, at
//! the size asked for. Needs Xvfb and a Vulkan driver; without them the test says why and skips,
//! unless CI=1 or MEMCITY_REQUIRE_VULKAN=1 makes that a failure.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn required() -> bool {
    std::env::var_os("CI").is_some() || std::env::var_os("MEMCITY_REQUIRE_VULKAN").is_some()
}

/// An Xvfb server on a free display, stopped when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn xvfb() -> Option<Xvfb> {
    let base = 40 + std::process::id() % 200;
    for n in base..base + 20 {
        if std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
            continue;
        }
        let display = format!(":{n}");
        let child = match Command::new("Xvfb")
            .args([display.as_str(), "-screen", "0", "1920x1200x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => {
                assert!(!required(), "CI needs Xvfb: {e}");
                eprintln!("SKIPPED: no Xvfb here ({e})");
                return None;
            }
        };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                return Some(Xvfb { child, display });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(Xvfb { child, display });
    }
    assert!(!required(), "no free X display for Xvfb");
    None
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let reader = decoder.read_info().unwrap();
    (reader.info().width, reader.info().height)
}

#[test]
fn the_window_opens_at_the_size_asked_for() {
    let Some(x) = xvfb() else { return };
    let png = std::env::temp_dir().join(format!("memcity-window-{}.png", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["data/sample-leak.json", "--window", "--size", "900x560", "--screenshot"])
        .arg(&png)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if o.status.code() == Some(2) && stderr.contains("the renderer stopped") {
        assert!(!required(), "{stderr}");
        eprintln!("SKIPPED: no renderer here ({})", stderr.lines().next().unwrap_or(""));
        return;
    }
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("INFO"), "the log reaches stderr: {stderr}");
    assert!(!stderr.contains("\u{1b}["), "no ANSI colors when stderr is no terminal: {stderr}");
    assert_eq!(png_size(&png), (900, 560));
    std::fs::remove_file(&png).unwrap();
}
