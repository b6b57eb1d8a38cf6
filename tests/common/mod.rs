//! Helpers the end-to-end tests share: finding the external tools a test needs, running a
//! command that must succeed, finding a node of a history's tree.
#![allow(dead_code)] // each test file uses some of them

use std::process::{Command, Stdio};

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
