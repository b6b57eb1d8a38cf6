//! The leak gate on a Node server under load (docs/ci.md's recipe, command for command):
//! tests/js/server.js runs with `--inspect`, tests/js/load.js sends it requests,
//! `memcity record --inspect` takes five heap snapshots three seconds apart over the DevTools
//! protocol, and `memcity check` with its default limits fails the server whose requests never
//! unsubscribe from its config bus (the leaking context named) and passes the fixed one.
//! Skipped where node is missing, unless CI=1 or MEMCITY_REQUIRE_NODE=1 (then it fails).

mod common;
use common::{run, tools_present};

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

/// Child processes that are stopped however the test ends.
struct Stopped(Vec<Child>);

impl Drop for Stopped {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The first line of `from` that starts with `prefix`, what follows it; the rest is drained.
fn announced(from: impl std::io::Read + Send + 'static, prefix: &'static str) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix(prefix) {
                let _ = tx.send(rest.to_string());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("node never said {prefix:?}"))
}

fn serve_and_check(fixed: bool) -> (Option<i32>, String) {
    let js = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js");
    let dir = std::env::temp_dir().join(format!("memcity-check-node-{}-{fixed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut server = Command::new("node");
    server.arg("--inspect=127.0.0.1:0").arg(js.join("server.js")).arg("0");
    if fixed {
        server.arg("fixed");
    }
    let mut server = server.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (stdout, stderr) = (server.stdout.take().unwrap(), server.stderr.take().unwrap());
    let mut children = Stopped(vec![server]);
    let inspector = announced(stderr, "Debugger listening on ws://127.0.0.1:");
    let inspector = inspector.split('/').next().unwrap().to_string();
    let port = announced(stdout, "listening on ");
    let load = Command::new("node").arg(js.join("load.js")).arg(&port).stdout(Stdio::null()).spawn().unwrap();
    children.0.push(load);
    std::thread::sleep(Duration::from_secs(1));
    run(Command::new(MEMCITY)
        .args(["record", "--inspect", &format!("127.0.0.1:{inspector}")])
        .args(["--every", "3s", "--count", "5", "--out"])
        .arg(&dir));
    drop(children);
    let out = Command::new(MEMCITY).arg("check").arg(&dir).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn a_server_that_leaks_per_request_fails_the_gate_and_the_fixed_one_passes() {
    if !tools_present(&["node"], "--version", "MEMCITY_REQUIRE_NODE") {
        return;
    }
    let (code, out) = serve_and_check(false);
    assert_eq!(code, Some(1), "{out}");
    // One leak, one finding: the listener list on the bus, by the path that holds it, first;
    // the request contexts it keeps as its detail.
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with("LEAK structure Array: ") && first.ends_with("._events .change"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  holds object › RequestContext: +")), "{out}");
    let (code, out) = serve_and_check(true);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("pass: 0 group(s)"), "{out}");
}
