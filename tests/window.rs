//! The app in a window under Xvfb: `--window --screenshot` captures the window, UI included, at
//! the size asked for; keys typed into the Search box (driven with xdotool) stay there. Needs
//! Xvfb, xdotool and a Vulkan driver; without them the tests say why and skip, unless CI=1 or
//! MEMCITY_REQUIRE_VULKAN=1 makes that a failure.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::window::f12;
use common::{Png, no_renderer, png_size, xvfb};

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
    if no_renderer(&o) {
        return;
    }
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("INFO"), "the log reaches stderr: {stderr}");
    assert!(!stderr.contains("\u{1b}["), "no ANSI colors when stderr is no terminal: {stderr}");
    assert_eq!(png_size(&png), (900, 560));
    std::fs::remove_file(&png).unwrap();
}

/// Runs xdotool on `display`; its output.
fn xdotool(display: &str, args: &[&str]) -> String {
    let o = Command::new("xdotool").args(args).env("DISPLAY", display).output().unwrap();
    assert!(o.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The city's tab (below the notice F12 shows, which takes two lines for a long path) and the
/// timeline's in the default layout at 1024×600, inside their borders; and the right column,
/// where the Search tab comes to the front.
const CITY: [u32; 4] = [30, 100, 640, 420];
const TIMELINE: [u32; 4] = [10, 455, 1010, 590];
const RIGHT_COLUMN: [u32; 4] = [720, 30, 1020, 300];

#[test]
fn typing_in_the_search_box_moves_neither_time_nor_the_camera() {
    let Some(x) = xvfb() else { return };
    if !common::tools_present(&["xdotool"], "--version", "MEMCITY_REQUIRE_VULKAN") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-window-keys-{}", std::process::id()));
    let pictures = dir.join("pictures");
    std::fs::create_dir_all(&pictures).unwrap();
    let mut app = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["data/sample-leak.json", "--size", "1024x600", "--layout", "default"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_PICTURES_DIR", &pictures)
        .env("MEMCITY_CONFIG_DIR", dir.join("config"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let window = loop {
        let o = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", "^memcity$"])
            .env("DISPLAY", &x.display)
            .output();
        if let Some(id) =
            o.ok().and_then(|o| String::from_utf8_lossy(&o.stdout).lines().last().map(str::to_string))
        {
            break id;
        }
        if let Some(status) = app.try_wait().unwrap() {
            let o = app.wait_with_output().unwrap();
            if no_renderer(&std::process::Output { status, ..o }) {
                return;
            }
            panic!("memcity stopped before its window opened");
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no memcity window");
        std::thread::sleep(Duration::from_millis(200));
    };
    xdotool(&x.display, &["windowfocus", "--sync", &window]);
    // The pointer rests on the menu bar's empty end: no hover card, no tab under it.
    xdotool(&x.display, &["mousemove", "1010", "8"]);
    let folder = pictures.join("memcity");
    // The city is framed once drawn: wait until two pictures of its red leak agree.
    let drawn = |p: &Png| p.count(|[r, g, b]| r > 150 && g < 60 && b < 60) > 1000;
    let mut before = f12(&x.display, &folder);
    for _ in 0..10 {
        let again = f12(&x.display, &folder);
        let settled = drawn(&again) && again.differences(&before, CITY) == 0;
        before = again;
        if settled {
            break;
        }
    }
    assert!(drawn(&before), "the city was never drawn");
    // Ctrl+F puts the cursor in the Search box; what is typed there is text, not shortcuts:
    // P/N and the arrows step time, Space plays, W/A/S/D/Q/E move the camera, B and R frame.
    xdotool(&x.display, &["key", "ctrl+f"]);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&x.display, &["type", "--delay", "60", "pnwasdqebr person"]);
    xdotool(&x.display, &["key", "Left", "Left", "space", "Right"]);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&x.display, &["key", "Escape"]);
    let typed = f12(&x.display, &folder);
    assert!(typed.differences(&before, RIGHT_COLUMN) > 500, "the Search tab shows what was typed");
    assert_eq!(typed.differences(&before, CITY), 0, "typing in the Search box moved the camera or the time");
    assert_eq!(typed.differences(&before, TIMELINE), 0, "typing in the Search box moved the time");
    // Out of the box the same keys work again: P steps back in time.
    xdotool(&x.display, &["key", "p"]);
    std::thread::sleep(Duration::from_millis(1500));
    let stepped = f12(&x.display, &folder);
    assert!(stepped.differences(&typed, TIMELINE) > 0, "P outside the box steps time");
    assert!(stepped.differences(&typed, CITY) > 0, "the city shows the snapshot before");
    let _ = app.kill();
    let _ = app.wait();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--mode sunburst` in a window: the Tree tab in front of the city (which is not drawn at all)
/// and captured once the workspace is laid out.
#[test]
fn a_window_starts_in_the_tree_view_asked_for() {
    let Some(x) = xvfb() else { return };
    let dir = std::env::temp_dir().join(format!("memcity-window-mode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (png, state) = (dir.join("sunburst.png"), dir.join("sunburst.json"));
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["data/sample-leak.json", "--layout", "default", "--mode", "sunburst", "--window"])
        .args(["--size", "900x560", "--screenshot"])
        .arg(&png)
        .arg("--ui-state")
        .arg(&state)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("DISPLAY", &x.display)
        .env("MEMCITY_CONFIG_DIR", dir.join("config"))
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    if no_renderer(&o) {
        return;
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(png_size(&png), (900, 560));
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let panes: Vec<&str> =
        state["panes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(panes.contains(&"tree") && !panes.contains(&"city"), "the tree in front of the city: {panes:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
