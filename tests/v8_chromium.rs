//! End to end on a real headless Chromium (Debian's `chromium`): a page (tests/js/leak.html)
//! that keeps removed DOM trees in a list is recorded with `memcity record --inspect`, and the
//! imported history shows the detached nodes growing, flagged as detached. Skipped where
//! chromium is missing, unless CI=1 or MEMCITY_REQUIRE_CHROMIUM=1 (then it fails).

mod common;
use common::{run, tools_present};

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

/// Kills the browser when the test ends, however it ends.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts headless Chromium on the page; returns it and its DevTools port.
fn start(page: &Path, profile: &Path) -> (Browser, u16) {
    let mut child = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--remote-debugging-port=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--disable-gpu", "--no-first-run", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync"])
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let browser = Browser(child);
    let mut lines = BufReader::new(stderr).lines();
    let port = loop {
        let line = lines.next().expect("chromium ended without a DevTools port").unwrap();
        if let Some(rest) = line.strip_prefix("DevTools listening on ws://") {
            let port = rest.split(['/', ':']).nth(1).unwrap();
            break port.parse().unwrap();
        }
    };
    // Keep draining stderr so the browser never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (browser, port)
}

#[test]
fn a_page_leaking_detached_dom_nodes_is_recorded_and_they_grow_flagged_detached() {
    if !tools_present(&["chromium"], "--version", "MEMCITY_REQUIRE_CHROMIUM") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-v8-chromium-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/leak.html");
    let (_browser, port) = start(&page, &dir.join("profile"));
    std::thread::sleep(std::time::Duration::from_secs(1));
    let series = dir.join("series");
    let said = run(Command::new(MEMCITY)
        .args(["record", "--inspect", &format!("127.0.0.1:{port}"), "--target", "leak.html"])
        .args(["--every", "1500ms", "--count", "3", "--out"])
        .arg(&series));
    assert!(said.contains("snapshot 3/3"), "{said}");

    let out = dir.join("history.json");
    run(Command::new(MEMCITY)
        .arg("import")
        .arg(&series)
        .args(["--classifiers", "detached,type", "--out"])
        .arg(&out));
    let history = memcity_model::load_path(&out).unwrap();
    assert_eq!(history.snapshots.len(), 3);
    let detached = |i: usize, name: &str| {
        let key = format!("Heap#Detachedness:detached#Type:{name}");
        let mut objects = 0;
        history.snapshots[i].tree.walk(&mut |n, _| {
            if n.key == key {
                objects = n.objects;
            }
        });
        objects
    };
    let widgets: Vec<u64> = (0..3).map(|i| detached(i, "<div class=\"widget\">")).collect();
    assert!(widgets[0] > 0 && widgets[0] < widgets[1] && widgets[1] < widgets[2], "widgets: {widgets:?}");
    assert!(detached(2, "<span>") > detached(0, "<span>"));
    // The page's own container is attached.
    let mut attached = false;
    history.snapshots[2]
        .tree
        .walk(&mut |n, _| attached |= n.key == "Heap#Detachedness:attached#Type:<div id=\"app\">");
    assert!(attached);
    std::fs::remove_dir_all(&dir).unwrap();
}
