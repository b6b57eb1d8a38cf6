//! `memcity --compare BEFORE AFTER` end to end: both runs in one headless screenshot, side by
//! side or as one city coloured by their difference, and its bad input refused in one line.
//! Rendering needs a Vulkan adapter (see tests/render.rs).

mod common;

use common::shots::{out, refused_before_rendering, screenshot};

/// Leak red, as the city draws the strongest growth.
fn is_red(p: [u8; 3]) -> bool {
    p[0] > 150 && p[1] < 60 && p[2] < 60
}

fn red(args: &[&str], name: &str) -> Option<usize> {
    let shot = screenshot(&[args, &["--size", "640x360"][..]].concat(), &out(name))?;
    assert_eq!((shot.width, shot.height), (640, 360));
    Some(shot.count(is_red))
}

#[test]
fn side_by_side_the_leaking_run_is_red_and_its_fix_is_not() {
    let leak = "scenario:linked-list";
    let fixed = "scenario:linked-list-fixed";
    let Some(both) = red(&["--compare", leak, fixed], "sides") else { return };
    let leak_alone = red(&[leak], "leak-alone").unwrap();
    eprintln!("red pixels: compared {both}, the leaking run alone {leak_alone}");
    assert!(both > 500, "the leaking side is red ({both} pixels)");
    // The difference view: the after run red where it has more than the before run.
    let worse = red(&["--compare", fixed, leak, "--compare-view", "difference"], "worse").unwrap();
    let better = red(&["--compare", leak, fixed, "--compare-view", "difference"], "better").unwrap();
    eprintln!("difference view: a regression {worse} red pixels, a fix {better}");
    assert!(worse > 1000, "a regression shows red ({worse} pixels)");
    assert!(better * 20 < worse, "a fix has nothing more than before: {better} red against {worse}");
}

#[test]
fn compare_refuses_bad_input_in_one_line() {
    for (args, needle) in [
        (vec!["--compare", "data/missing.json", "scenario:linked-list"], "data/missing.json: cannot read"),
        (vec!["--compare", "scenario:linked-list", "scenario:nope"], "scenario:nope"),
        (
            vec!["--compare", "scenario:linked-list", "scenario:churn", "--time", "999"],
            "--time 999: the history has 30 snapshots (0..29)",
        ),
        (vec!["--compare", "scenario:linked-list"], "2 values"),
        (
            vec!["--compare", "scenario:linked-list", "scenario:churn", "data/sample-leak.json"],
            "cannot be used with",
        ),
        (
            vec!["--compare", "scenario:linked-list", "scenario:churn", "--compare-view", "both"],
            "unknown compare view",
        ),
    ] {
        refused_before_rendering(&args, needle);
    }
}
