//! Headless rendering end to end: `memcity --screenshot` draws the city offscreen and writes a
//! PNG. Needs a Vulkan adapter (CI installs Mesa's software one); without one the tests say why
//! and skip, unless MEMCITY_REQUIRE_VULKAN=1 (set by `.ci/run`) makes that a failure.

mod common;

use std::process::Command;

use common::Png as Shot;
use common::shots::{out, refused_before_rendering, screenshot};

fn is_red(p: [u8; 3]) -> bool {
    p[0] > 150 && p[1] < 60 && p[2] < 60
}

fn is_orange(p: [u8; 3]) -> bool {
    p[0] > 170 && (60..170).contains(&p[1]) && p[2] < 60
}

fn is_purple(p: [u8; 3]) -> bool {
    p[0] > 110 && p[2] > 170 && p[1] < 90
}

fn is_green(p: [u8; 3]) -> bool {
    p[1] > 150 && p[0] < 100 && p[2] < 120
}

#[test]
fn screenshot_shows_the_leak_in_leak_colors() {
    let png = out("leak");
    let Some(shot) = screenshot(&["data/sample-leak.json", "--time", "7", "--size", "320x180"], &png) else {
        return;
    };
    assert_eq!((shot.width, shot.height), (320, 180));
    let red = shot.count(is_red);
    let orange = shot.count(is_orange);
    assert!(red > 200, "the strongest growers are red at the last snapshot ({red} red pixels)");
    assert!(orange > 100, "half-as-strong growers are orange ({orange} orange pixels)");
    // At the first snapshot nothing has grown yet: no red.
    let png = out("first");
    let shot = screenshot(&["data/sample-leak.json", "--time", "0", "--size", "320x180"], &png).unwrap();
    assert!(shot.count(is_red) < 20, "no growth at the first snapshot");
}

#[test]
fn a_trace_file_opens_as_its_replayed_city() {
    let trace = std::env::temp_dir().join(format!("memcity-render-{}-ll.mctrace", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["trace", "--scenario", "linked-list", "--gcs", "8", "--out", trace.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let png = out("trace");
    let Some(shot) = screenshot(&[trace.to_str().unwrap(), "--time", "7", "--size", "320x180"], &png) else {
        return;
    };
    let red = shot.count(is_red);
    assert!(red > 100, "the replayed leak is red at the last GC ({red} red pixels)");
}

#[test]
fn selected_building_shows_reference_frustums() {
    let png = out("select");
    let args = [
        "data/sample-leak.json",
        "--time",
        "7",
        "--size",
        "320x180",
        "--select",
        "Heap#com.example.app#Person",
    ];
    let Some(shot) = screenshot(&args, &png) else { return };
    let purple = shot.count(is_purple);
    let green = shot.count(is_green);
    assert!(purple > 100, "incoming references are purple frustums ({purple} pixels)");
    assert!(green > 30, "outgoing references are green frustums ({green} pixels)");
    let png = out("plain");
    let shot = screenshot(&["data/sample-leak.json", "--time", "7", "--size", "320x180"], &png).unwrap();
    assert!(shot.count(is_purple) < 10, "no frustums without a selection");
}

fn is_gold(p: [u8; 3]) -> bool {
    p[0] > 220 && p[1] > 200 && p[2] < 90
}

#[test]
fn a_selected_building_shows_its_retainer_path_even_when_pruned() {
    // With one child per district the char[] building and most of its holders are pruned;
    // selecting it pins them and draws the gold arcs from holder to held.
    let key = "Heap#Type:char[]#Allocation Site:app.model.Person.<init>";
    let base = ["scenario:linked-list", "--time", "29", "--size", "640x360", "--children", "1"];
    let png = out("why");
    let Some(shot) = screenshot(&[&base[..], &["--select", key]].concat(), &png) else { return };
    let gold = shot.count(is_gold);
    assert!(gold > 40, "the retainer path is drawn in gold ({gold} pixels)");
    let png = out("why-plain");
    let shot = screenshot(&base, &png).unwrap();
    assert!(shot.count(is_gold) < 10, "no arcs without a selection");
}

#[test]
fn bad_screenshot_flags_are_rejected_before_rendering() {
    for (args, needle) in [
        (vec!["data/sample-leak.json", "--size", "12x9000"], "width and height must be whole numbers"),
        (vec!["data/sample-leak.json", "--time", "99"], "--time 99: the history has 8 snapshots"),
        (vec!["data/sample-leak.json", "--select", "Heap#Nope"], "--select Heap#Nope: no group has this key"),
        (vec!["data/missing.json"], "data/missing.json: cannot read"),
    ] {
        refused_before_rendering(&args, needle);
    }
}

#[test]
fn without_a_display_the_window_mode_says_so_and_points_to_screenshot() {
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .arg("data/sample-leak.json")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("no display") && err.contains("--screenshot"), "{err}");
    assert!(!err.contains("panicked"), "no panic trace: {err}");
}

/// Leak-red pixels of a scenario at its last snapshot, 800×450, default settings.
fn red_at_the_end(scenario: &str) -> Option<usize> {
    let png = out(scenario);
    let input = format!("scenario:{scenario}");
    let shot = screenshot(&[input.as_str(), "--size", "800x450"], &png)?;
    Some(shot.count(is_red))
}

#[test]
fn programs_without_a_leak_stay_gray_and_the_leak_is_red() {
    let Some(leak) = red_at_the_end("linked-list") else { return };
    let (churn, healthy) = (red_at_the_end("churn").unwrap(), red_at_the_end("healthy").unwrap());
    let fixed = red_at_the_end("linked-list-fixed").unwrap();
    eprintln!(
        "leak-red pixels at the last snapshot: linked-list {leak}, churn {churn}, healthy {healthy}, linked-list-fixed {fixed}"
    );
    assert!(leak > 2000, "the leak is red ({leak} pixels)");
    for (name, red) in [("churn", churn), ("healthy", healthy), ("linked-list-fixed", fixed)] {
        assert!(red * 50 < leak, "{name} looks leaky: {red} red pixels against the leak's {leak}");
    }
}

#[test]
fn a_selected_building_keeps_its_growth_color() {
    let png = out("selected-red");
    let args =
        ["data/sample-leak.json", "--time", "7", "--size", "320x180", "--select", "Heap#java.lang#String"];
    let Some(shot) = screenshot(&args, &png) else { return };
    let outline = shot.count(|p| p[0] > 220 && p[1] > 210 && (90..190).contains(&p[2]));
    assert!(outline > 30, "the selection is outlined ({outline} pixels)");
    let png = out("unselected-red");
    let plain = screenshot(&args[..5], &png).unwrap();
    // The String tower is the reddest; selected, most of its red stays.
    assert!(
        shot.count(is_red) * 2 > plain.count(is_red),
        "{} vs {}",
        shot.count(is_red),
        plain.count(is_red)
    );
}

#[test]
fn headless_screenshots_name_the_top_growers() {
    let png = out("labels");
    let Some(shot) = screenshot(&["scenario:linked-list", "--size", "800x450"], &png) else { return };
    // Label text is pure white; nothing in the city is.
    let white = shot.count(|p| p.iter().all(|&c| c >= 245));
    assert!(white > 150, "labels in the picture ({white} white pixels)");
}

/// Rows of column `x` from `y0` to `y1` that `pred` holds for.
fn rows(shot: &Shot, x: u32, y0: u32, y1: u32, pred: impl Fn([u8; 3]) -> bool) -> usize {
    (y0..y1).filter(|&y| pred(shot.at(x, y))).count()
}

#[test]
fn screenshots_show_the_tree_views_with_mode() {
    let args =
        |mode: &'static str| ["data/sample-leak.json", "--time", "7", "--size", "640x360", "--mode", mode];
    let Some(city) = screenshot(&args("city"), &out("mode-city")) else { return };
    let icicle = screenshot(&args("icicle"), &out("mode-icicle")).unwrap();
    // The icicle's root (the heap, grown: red) is the local view's first column, top to bottom.
    let root_column = |shot: &Shot| rows(shot, 20, 80, 350, is_red);
    assert!(root_column(&icicle) > 200, "icicle: {} red rows at the left", root_column(&icicle));
    assert!(root_column(&city) < 100, "the city is no icicle: {} red rows", root_column(&city));
    let sunburst = screenshot(&args("sunburst"), &out("mode-sunburst")).unwrap();
    // The local sunburst's middle disc is the heap: red across its middle row.
    let disc = (150..230).filter(|&x| is_red(sunburst.at(x, 210))).count();
    assert!(disc > 60, "sunburst: {disc} red pixels across the middle");
    assert!(rows(&sunburst, 20, 80, 350, is_red) < 100, "no icicle column in the sunburst");
    let timeline = screenshot(&args("timeline"), &out("mode-timeline")).unwrap();
    // The heap's chart along the bottom: its orange line; above it the first snapshot's tree
    // (pinned at the start) and the current one.
    let line = (0..640).filter(|&x| (250..360).any(|y| is_orange(timeline.at(x, y)))).count();
    assert!(line > 400, "timeline: the heap's line crosses the chart ({line} columns)");
    let trees = (0..640).filter(|&x| (60..240).any(|y| is_red(timeline.at(x, y)))).count();
    assert!(trees > 150, "timeline: red trees above the chart ({trees} columns)");
}

/// `--mode ownership` waits for the Ownership tab to read the input again, then captures it:
/// the root's block (the GC roots, owning the heap: green, small own size) runs down the left.
#[test]
fn the_ownership_view_is_captured_once_read() {
    let args = ["scenario:linked-list", "--size", "640x360", "--mode", "ownership"];
    let Some(shot) = screenshot(&args, &out("mode-ownership")) else { return };
    let green = |p: [u8; 3]| p[1] > 150 && p[0] < 120 && p[2] < 130;
    let root = rows(&shot, 40, 60, 330, green);
    assert!(root > 200, "the root's green block down the left: {root} rows");
}

/// `--bench-render --mode icicle`: the Tree tab with every node of the synthetic tree drawn while
/// time steps, its parts counted in the summary; the ownership view is no benchmark.
#[test]
fn the_tree_benchmark_draws_every_node() {
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args([
            "--bench-render",
            "--buildings",
            "500",
            "--frames",
            "3",
            "--size",
            "160x90",
            "--mode",
            "icicle",
        ])
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if o.status.code() == Some(2) && stderr.contains("the renderer stopped") {
        assert!(std::env::var_os("MEMCITY_REQUIRE_VULKAN").is_none(), "{stderr}");
        return;
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stderr}");
    let parts: usize = stdout
        .split(" tree parts drawn (Icicle)")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no part count: {stdout}"));
    assert!(parts > 500 + 8, "every leaf and branch of both views: {parts}");
    common::refused(&["--bench-render", "--mode", "ownership"], "--bench-render --mode ownership");
}
