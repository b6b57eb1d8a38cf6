//! Headless screenshots of the app (`memcity … --screenshot PNG`) for the render tests.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Png as Shot;

/// A scratch PNG path of this test process.
pub fn out(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("memcity-render-{}-{name}.png", std::process::id()))
}

/// Runs `memcity --screenshot`; `None` (with the reason printed) when no renderer can start here.
pub fn screenshot(args: &[&str], png: &Path) -> Option<Shot> {
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(args)
        .args(["--screenshot", png.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if o.status.code() == Some(2) && stderr.contains("the renderer stopped") {
        assert!(
            std::env::var_os("MEMCITY_REQUIRE_VULKAN").is_none(),
            "MEMCITY_REQUIRE_VULKAN is set: {stderr}"
        );
        eprintln!("SKIPPED: no Vulkan adapter here ({})", stderr.lines().next().unwrap_or(""));
        return None;
    }
    assert!(o.status.success(), "memcity {args:?} failed: {stderr}");
    let shot = Shot::read(png);
    std::fs::remove_file(png).unwrap();
    Some(shot)
}

/// `memcity ARGS --screenshot …` fails before rendering anything, with `needle` in its message
/// and no panic.
pub fn refused_before_rendering(args: &[&str], needle: &str) {
    let o = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(args)
        .args(["--screenshot", "/tmp/never.png"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}
