//! Runs tests/java/LeakApp.java on the JDK here, takes three dumps and three class histograms at
//! paused points with jcmd, and checks the import against the JVM's own counts. Skipped (with a
//! note) where no JDK is installed, unless MEMCITY_REQUIRE_JVM=1.

mod common;

use std::io::{BufRead, BufReader, Lines, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::{check_against_histogram, check_leak};
use memcity_hprof::{Classifier, Grouping, ImportOptions};

/// The leak program, paused between phases.
pub struct LeakApp {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl LeakApp {
    /// Compiles and starts it; returns once it waits for its first line.
    pub fn start(dir: &Path, people: u32, searches: u32) -> LeakApp {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/java/LeakApp.java");
        let classes = dir.join("classes");
        run(Command::new("javac").arg("-d").arg(&classes).arg(source));
        let mut child = Command::new("java")
            .args(["-Xmx64m", "-XX:+UseSerialGC", "-cp"])
            .arg(&classes)
            .args(["LeakApp", &people.to_string(), &searches.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("java starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut app = LeakApp { child, stdin, stdout };
        app.wait_for("STARTED");
        // Attach once before any dump, so jcmd's own objects exist in all of them.
        app.jcmd(&["VM.version"]);
        app
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn wait_for(&mut self, line: &str) {
        let got = self.stdout.next().expect("LeakApp printed a line").unwrap();
        assert_eq!(got, line);
    }

    /// Lets it run its next phase (or quit).
    pub fn step(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn jcmd(&self, args: &[&str]) -> String {
        run(Command::new("jcmd").arg(self.pid().to_string()).args(args))
    }
}

impl Drop for LeakApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(command: &mut Command) -> String {
    let output = command.output().expect("the JDK tool runs");
    assert!(output.status.success(), "{command:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

pub fn jdk_present() -> bool {
    let present = ["java", "javac", "jcmd"].iter().all(|tool| {
        Command::new(tool).arg("-h").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
    });
    if !present {
        assert!(
            std::env::var("MEMCITY_REQUIRE_JVM").is_err(),
            "MEMCITY_REQUIRE_JVM is set but no JDK was found"
        );
        eprintln!("no JDK (java, javac, jcmd): skipping the live JVM test");
    }
    present
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn live_jvm_dumps_match_its_histograms_and_show_the_leak() {
    if !jdk_present() {
        return;
    }
    let dir = temp_dir("jvm");
    let (people, searches) = (3000, 1500);
    let mut app = LeakApp::start(&dir, people, searches);
    app.step("go");
    for phase in 1..=3 {
        app.wait_for(&format!("READY {phase}"));
        let dump = dir.join(format!("dump{phase}.hprof"));
        app.jcmd(&["GC.heap_dump", dump.to_str().unwrap()]);
        std::fs::write(dir.join(format!("histogram{phase}.txt")), app.jcmd(&["GC.class_histogram"])).unwrap();
        app.step(if phase == 3 { "quit" } else { "next" });
    }
    drop(app);
    for phase in 1..=3 {
        check_against_histogram(
            &dir.join(format!("dump{phase}.hprof")),
            &dir.join(format!("histogram{phase}.txt")),
        );
    }
    let options =
        ImportOptions { grouping: Grouping::new(vec![Classifier::Type]), ..ImportOptions::default() };
    let history =
        memcity_hprof::import(std::slice::from_ref(&dir), &options, &memcity_heapgraph::Silent).unwrap();
    check_leak(&history, people.into(), searches.into());
    check_session_path(&history);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Tomcat lesson: sessions are held by one map among hundreds of the same type (every
/// session has its own); the retainer path follows the sessions' own holders, through the
/// manager's single map, to the manager.
fn check_session_path(history: &memcity_model::History) {
    let last = history.snapshots.last().unwrap();
    let path = &last.retainers["Heap#Type:LeakApp$Session"];
    let keys: Vec<&str> = path.steps.iter().map(|s| s.key.trim_start_matches("Heap#Type:")).collect();
    let map = keys.iter().position(|&k| k == "java.util.HashMap").expect("the path passes a HashMap");
    assert_eq!(path.steps[map].objects, 1, "one map holds them: {keys:?}");
    assert_eq!(keys.get(map + 1), Some(&"LeakApp$SessionManager"), "{keys:?}");
    let maps = last.tree.children.iter().find(|c| c.key == "Heap#Type:java.util.HashMap").unwrap();
    assert!(maps.objects > 900, "the sessions' own maps are there too: {}", maps.objects);
    assert_eq!(path.roots, ["class LeakApp, held by several roots"], "{keys:?}");
}
