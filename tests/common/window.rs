//! memcity in a real window under Xvfb, driven as a person drives it: xdotool keys and typing,
//! F12 pictures, and its log read while it runs (`--visit-tabs` logs each city it visited).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Png, Xvfb, vulkan_required};

/// A running memcity window with its own config, pictures folder and log file.
pub struct Window {
    pub app: Child,
    pub display: String,
    pub dir: PathBuf,
    id: String,
    log: PathBuf,
}

impl Window {
    /// Starts `memcity ARGS --visit-tabs` at 1280×720 in the default layout and waits for its
    /// window; `None` (skipped) where no renderer is found and none is required.
    pub fn open(x: &Xvfb, name: &str, args: &[&str]) -> Option<Window> {
        let dir = std::env::temp_dir().join(format!("memcity-win-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("pictures")).unwrap();
        let log = dir.join("stderr.log");
        let app = Command::new(env!("CARGO_BIN_EXE_memcity"))
            .args(args)
            .args(["--visit-tabs", "--size", "1280x720", "--layout", "default"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("DISPLAY", &x.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_PICTURES_DIR", dir.join("pictures"))
            .env("MEMCITY_CONFIG_DIR", dir.join("config"))
            // The Open pane and the workspace say at debug level what they show: tests wait
            // for that instead of guessing how long a software-rendered frame takes.
            .env("RUST_LOG", "info,memcity::app::ui::sources=debug,memcity::app::ui::workspace=debug")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut window = Window { app, display: x.display.clone(), dir, id: String::new(), log };
        let start = Instant::now();
        loop {
            let o = Command::new("xdotool")
                .args(["search", "--onlyvisible", "--name", "^memcity$"])
                .env("DISPLAY", &window.display)
                .output()
                .expect("xdotool runs");
            if let Some(id) = String::from_utf8_lossy(&o.stdout).lines().last() {
                window.id = id.to_string();
                break;
            }
            if window.app.try_wait().unwrap().is_some() {
                let log = window.log();
                if log.contains("the renderer stopped") && !vulkan_required() {
                    eprintln!("SKIPPED: no renderer here");
                    return None;
                }
                panic!("memcity {args:?} stopped before its window opened:\n{log}");
            }
            assert!(start.elapsed() < Duration::from_secs(90), "no memcity window for {args:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
        window.xdotool(&["windowfocus", "--sync", &window.id.clone()]);
        // The pointer rests on the menu bar's empty end: no hover card, no tab under it.
        window.xdotool(&["mousemove", "1270", "8"]);
        Some(window)
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Panics with the log if the app is no longer running.
    pub fn assert_alive(&mut self, doing: &str) {
        if let Some(status) = self.app.try_wait().unwrap() {
            panic!("memcity stopped ({status}) {doing}:\n{}", self.log());
        }
    }

    /// Waits until the log has `needle` after its first `skip` occurrences; the window must stay
    /// alive meanwhile.
    pub fn wait_for(&mut self, needle: &str, skip: usize, within: Duration, doing: &str) -> String {
        let start = Instant::now();
        loop {
            self.assert_alive(doing);
            let log = self.log();
            if let Some(line) = log.lines().filter(|l| l.contains(needle)).nth(skip) {
                return line.to_string();
            }
            assert!(start.elapsed() < within, "no \"{needle}\" within {within:?} {doing}:\n{log}");
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Waits for the end of the `n`-th visit (0-based) of a city with snapshots; its line.
    pub fn visited(&mut self, n: usize, doing: &str) -> String {
        let start = Instant::now();
        let failures = |log: &str| log.lines().filter(|l| l.contains("ERROR memcity::app::load")).count();
        let failed_before = failures(&self.log());
        loop {
            let log = self.log();
            if failures(&log) > failed_before {
                panic!("a load failed {doing}:\n{log}");
            }
            let lines: Vec<String> = log
                .lines()
                .filter(|l| l.contains("visited every tab of city") && !l.contains("(0 snapshots)"))
                .map(str::to_string)
                .collect();
            if let Some(line) = lines.get(n) {
                return line.clone();
            }
            self.assert_alive(doing);
            assert!(start.elapsed() < Duration::from_secs(240), "no visit {n} {doing}:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    pub fn xdotool(&self, args: &[&str]) -> String {
        let o = Command::new("xdotool").args(args).env("DISPLAY", &self.display).output().unwrap();
        assert!(o.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Does `act` until the log has one more `needle` than before it, waiting up to `each`
    /// after every try: a key or click sent while a slow software-rendered frame is drawn can be
    /// lost, so it is done again, as a person would. Only for acts harmless to repeat.
    pub fn act_until(&mut self, needle: &str, each: Duration, doing: &str, act: impl Fn(&Window)) -> String {
        let before = self.log().lines().filter(|l| l.contains(needle)).count();
        for _ in 0..4 {
            act(self);
            let start = Instant::now();
            while start.elapsed() < each {
                self.assert_alive(doing);
                if let Some(line) = self.log().lines().filter(|l| l.contains(needle)).nth(before) {
                    return line.to_string();
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        }
        panic!("no \"{needle}\" after 4 tries {doing}:\n{}", self.log());
    }

    /// Ctrl+O, the path typed into the Open box, Enter: as a person opens another input. A
    /// key pressed while a slow software-rendered frame is drawn can be lost, so it tries again
    /// (as a person would) until the app says it is opening the input.
    pub fn open_typed(&mut self, input: &str) {
        let opening = format!("opening {input}");
        let before = self.log().matches(&opening).count();
        for _ in 0..3 {
            self.xdotool(&["key", "ctrl+o"]);
            std::thread::sleep(Duration::from_millis(1000));
            // Ctrl+O selected the path there: what is typed replaces it.
            self.xdotool(&["type", "--delay", "15", input]);
            std::thread::sleep(Duration::from_millis(500));
            self.xdotool(&["key", "Return"]);
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) {
                self.assert_alive("while opening an input");
                if self.log().matches(&opening).count() > before {
                    return;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        }
        panic!("typing {input} into the Open pane opened nothing:\n{}", self.log());
    }

    /// Presses F12 and reads the picture the app saves.
    pub fn f12(&mut self) -> Png {
        self.assert_alive("before saving a picture");
        f12(&self.display, &self.dir.join("pictures/memcity"))
    }

    /// Stops the app and removes its folder.
    pub fn close(mut self) {
        let _ = self.app.kill();
        let _ = self.app.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Presses F12 in the window on `display` and reads the picture the app saves in `folder`.
pub fn f12(display: &str, folder: &Path) -> Png {
    let count = || std::fs::read_dir(folder).map_or(0, |d| d.count());
    let before = count();
    let start = Instant::now();
    // A key pressed while the window is still opening can be lost: pressed again after a while.
    'saved: while start.elapsed() < Duration::from_secs(60) {
        let o = Command::new("xdotool").args(["key", "F12"]).env("DISPLAY", display).output().unwrap();
        assert!(o.status.success(), "xdotool key F12: {}", String::from_utf8_lossy(&o.stderr));
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(300));
            if count() > before {
                break 'saved;
            }
        }
    }
    assert!(count() > before, "F12 saved no picture in {}", folder.display());
    let newest = newest_file(folder);
    // Written by the app while we look: read it once its size holds still.
    let mut size = 0;
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = std::fs::metadata(&newest).unwrap().len();
        if now > 0 && now == size {
            return Png::read(&newest);
        }
        size = now;
    }
}

fn newest_file(folder: &Path) -> PathBuf {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .max_by_key(|p| p.file_name().unwrap().to_os_string())
        .unwrap()
}

/// The city's tab in the default layout at 1280×720, inside its borders and below F12's notice.
pub const CITY: [u32; 4] = [40, 110, 820, 480];

/// Whether the city is drawn there: buildings and districts in many colours, not one
/// background (a blank or failed frame is one or two colours).
pub fn city_drawn(picture: &Png) -> bool {
    let [x0, y0, x1, y1] = CITY;
    let mut colours = std::collections::HashSet::new();
    for y in (y0..y1).step_by(3) {
        for x in (x0..x1).step_by(3) {
            colours.insert(picture.at(x, y).map(|c| c / 8));
        }
    }
    colours.len() > 40
}
