//! Every step of every tour in the window (under Xvfb) at 1280×720 and 1024×600, read from
//! `--ui-state`: the panes lie inside the window without overlapping, and what the step asks
//! the user to act on is drawn inside its pane — brought into view, so no step needs a scroll
//! or a tab switch first. One process per tour and size renders all of its steps in turn
//! (`--step 1-N`). Needs Xvfb and a Vulkan driver; without them the tests say why and skip,
//! unless CI=1 or MEMCITY_REQUIRE_VULKAN=1 makes that a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{no_renderer, png_size, xvfb};
use serde_json::Value;

/// Where each step's target is: the play button, the top grower's tower (twice), the first
/// "kept alive by" entry, the button that opens the fixed program, the play button again.
const TARGET_PANES: [&str; 6] = ["timeline", "city", "city", "selection", "tour", "timeline"];

fn memcity() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_memcity"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// The tours there are, as `memcity scenarios` names them ("tour: memcity --tour NAME;").
fn tours() -> Vec<String> {
    let listing = common::run(memcity().arg("scenarios"));
    let tours: Vec<String> = listing
        .lines()
        .filter_map(|line| line.split("(tour: memcity --tour ").nth(1))
        .filter_map(|rest| rest.split(';').next())
        .map(str::to_string)
        .collect();
    assert_eq!(tours, ["linked-list", "http-client", "easytravel"], "{listing}");
    tours
}

/// The number of steps of a tour, from the one line a step past its end gets.
fn steps(tour: &str) -> usize {
    let o = memcity().args(["--tour", tour, "--step", "99"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.lines().count() == 1, "{stderr}");
    let n = stderr.split(" steps (").next().and_then(|s| s.rsplit(' ').next()).and_then(|n| n.parse().ok());
    n.unwrap_or_else(|| panic!("no step count in {stderr}"))
}

type Rect = [f64; 4];

fn rect(v: &Value) -> Rect {
    let r: Vec<f64> = v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    [r[0], r[1], r[2], r[3]]
}

fn inside(inner: Rect, outer: Rect) -> bool {
    const SLACK: f64 = 0.5;
    inner[0] >= outer[0] - SLACK
        && inner[1] >= outer[1] - SLACK
        && inner[2] <= outer[2] + SLACK
        && inner[3] <= outer[3] + SLACK
}

fn overlap(a: Rect, b: Rect) -> f64 {
    let w = a[2].min(b[2]) - a[0].max(b[0]);
    let h = a[3].min(b[3]) - a[1].max(b[1]);
    w.max(0.0) * h.max(0.0)
}

/// The checks of one step's UI state; `what` names the tour, size and step in messages.
fn check_step(json: &Path, size: (u32, u32), step: usize, what: &str) {
    let state: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let window = [0.0, 0.0, size.0 as f64, size.1 as f64];
    assert_eq!(state["window"], serde_json::json!([size.0 as f64, size.1 as f64]), "{what}: {state}");
    let panes: Vec<(&str, Rect)> = state["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), rect(&p["rect"])))
        .collect();
    let names: Vec<&str> = panes.iter().map(|p| p.0).collect();
    for shown in ["city", "tour", "timeline"] {
        assert!(names.contains(&shown), "{what}: {shown} is not shown ({names:?})");
    }
    for (i, (a, ra)) in panes.iter().enumerate() {
        assert!(ra[2] > ra[0] && ra[3] > ra[1], "{what}: {a} is empty: {ra:?}");
        assert!(inside(*ra, window), "{what}: {a} {ra:?} leaves the window {window:?}");
        for (b, rb) in &panes[i + 1..] {
            assert!(overlap(*ra, *rb) < 1.0, "{what}: {a} {ra:?} overlaps {b} {rb:?}");
        }
    }
    // The city keeps at least a third of the window at every step.
    let city = panes.iter().find(|p| p.0 == "city").unwrap().1;
    let area = |r: Rect| (r[2] - r[0]) * (r[3] - r[1]);
    assert!(
        area(city) >= area(window) / 3.0,
        "{what}: the city gets {:.0}% of the window",
        100.0 * area(city) / area(window)
    );
    let target = &state["target"];
    let pane = target["pane"].as_str().unwrap_or_else(|| panic!("{what}: no target drawn: {state}"));
    assert_eq!(pane, TARGET_PANES[step - 1], "{what}: the target is in the wrong pane");
    let (t, p) = (rect(&target["rect"]), panes.iter().find(|p| p.0 == pane).unwrap().1);
    assert!(t[2] - t[0] >= 4.0 && t[3] - t[1] >= 4.0, "{what}: the target is too small to act on: {t:?}");
    assert!(inside(t, p), "{what}: the target {t:?} is not wholly in view in its pane {pane} {p:?}");
}

fn numbered(base: &Path, step: usize, ext: &str) -> PathBuf {
    base.with_file_name(format!("{}-{step}.{ext}", base.file_name().unwrap().to_string_lossy()))
}

fn every_step_of_every_tour_at(size: (u32, u32)) {
    let Some(x) = xvfb() else { return };
    let dir =
        std::env::temp_dir().join(format!("memcity-tour-steps-{}x{}-{}", size.0, size.1, std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tours: Vec<(String, usize)> = tours().into_iter().map(|t| (t.clone(), steps(&t))).collect();
    // The tours render side by side, each in a process of its own.
    let running: Vec<_> = tours
        .iter()
        .map(|(tour, steps)| {
            assert_eq!(*steps, TARGET_PANES.len(), "{tour}: a step was added or removed");
            let base = dir.join(tour);
            let child = memcity()
                .args(["--tour", tour, "--step", &format!("1-{steps}"), "--window"])
                .args(["--size", &format!("{}x{}", size.0, size.1), "--screenshot"])
                .arg(base.with_extension("png"))
                .arg("--ui-state")
                .arg(base.with_extension("json"))
                .env("DISPLAY", &x.display)
                .env_remove("WAYLAND_DISPLAY")
                .env("MEMCITY_CONFIG_DIR", dir.join("config"))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (tour, *steps, base, child)
        })
        .collect();
    for (tour, steps, base, child) in running {
        let o = child.wait_with_output().unwrap();
        if no_renderer(&o) {
            return;
        }
        assert!(o.status.success(), "{tour}: {}", String::from_utf8_lossy(&o.stderr));
        for step in 1..=steps {
            let what = format!("{tour} at {}x{}, step {step}", size.0, size.1);
            assert_eq!(png_size(&numbered(&base, step, "png")), size, "{what}");
            check_step(&numbered(&base, step, "json"), size, step, &what);
        }
    }
    assert!(!dir.join("config").exists(), "a screenshot saves no layout");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_step_of_every_tour_is_in_view_at_1280x720() {
    every_step_of_every_tour_at((1280, 720));
}

#[test]
fn every_step_of_every_tour_is_in_view_at_1024x600() {
    every_step_of_every_tour_at((1024, 600));
}
