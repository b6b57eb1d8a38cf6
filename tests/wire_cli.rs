//! `memcity serve`, `push` and `fetch` end to end as a user runs them (127.0.0.1, port 0).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-wire-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A history file of `n` snapshots in AntTracks' export format (any readable format will do).
fn anttracks_file(n: usize) -> PathBuf {
    let trees: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"time": {t}, "root": {{"key": "H", "name": "H", "role": "Root", "bytes": {b}, "objects": {o},
                    "children": [{{"key": "H#A", "name": "A", "role": "Type", "bytes": {b}, "objects": {o}}}]}}}}"#,
                t = i * 100,
                b = 16 * (i + 1),
                o = i + 1
            )
        })
        .collect();
    let path = temp(&format!("trees-{n}.json"));
    std::fs::write(&path, format!("[{}]", trees.join(","))).unwrap();
    path
}

struct Serve {
    child: Child,
    url: String,
}

fn serve(args: &[&str]) -> Serve {
    let mut child = Command::new(MEMCITY)
        .arg("serve")
        .arg("127.0.0.1:0")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("ws://127.0.0.1:"), "first line: {first:?}");
    Serve { child, url: first.trim().to_string() }
}

impl Serve {
    /// SIGTERM, as a service manager stops it; the server saves and exits.
    fn stop(mut self) {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "serve exited with {status}");
                return;
            }
            assert!(Instant::now() < deadline, "serve did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn push(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(MEMCITY).arg("push").args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn serve_collects_pushes_and_saves_on_exit() {
    let saved = temp("saved.json");
    let _ = std::fs::remove_file(&saved);
    let server = serve(&["--save", saved.to_str().unwrap()]);
    let file = anttracks_file(4);
    let (ok, out, err) = push(&[&server.url, file.to_str().unwrap(), "--live", "--delay-ms", "1"]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(
        out.lines().last().unwrap().contains(r#""ok":true,"type":"snapshot","version":4,"snapshots":4"#),
        "{out}"
    );
    server.stop();
    let expected = memcity_model::load_path(&file).unwrap();
    assert_eq!(memcity_model::load_path(&saved).unwrap(), expected);
}

#[test]
fn push_reports_a_refusal() {
    let server = serve(&["--max-message-mib", "1"]);
    let small = anttracks_file(2);
    assert!(push(&[&server.url, small.to_str().unwrap()]).0);
    // Over the 1 MiB cap: refused, and push says so and fails.
    let leaves: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"key": "H#T{i}", "name": "T{i}", "role": "Type", "bytes": 8, "objects": 1}}"#))
        .collect();
    let big = temp("big.json");
    std::fs::write(
        &big,
        format!(r#"{{"time": 0, "root": {{"key": "H", "name": "H", "bytes": 1, "objects": 1, "children": [{}]}}}}"#, leaves.join(",")),
    )
    .unwrap();
    let (ok, out, err) = push(&[&server.url, big.to_str().unwrap()]);
    assert!(!ok, "{out}");
    assert!(out.contains(r#""ok":false"#) && out.contains("too large"), "{out}");
    assert!(err.contains("the server rejected the history: message: too large"), "{err}");
    let (ok, _, err) = push(&["ws://127.0.0.1:1", small.to_str().unwrap()]);
    assert!(!ok && err.contains("cannot connect"), "{err}");
    let (ok, _, err) = push(&[&server.url, "/no/such/file.json"]);
    assert!(!ok && err.contains("/no/such/file.json: cannot read"), "{err}");
}

#[test]
fn fetch_needs_a_server() {
    let out = temp("fetched.json");
    let result = Command::new(MEMCITY)
        .args(["fetch", "ws://127.0.0.1:1", "--tab", "1", "--out", out.to_str().unwrap(), "--timeout-s", "5"])
        .output()
        .unwrap();
    assert!(!result.status.success());
    assert!(String::from_utf8_lossy(&result.stderr).contains("cannot connect"));
}

#[test]
fn serve_rejects_bad_flags_and_addresses() {
    let run = |args: &[&str]| Command::new(MEMCITY).arg("serve").args(args).output().unwrap();
    let out = run(&["127.0.0.1:0", "--max-message-mib", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-message-mib"));
    let out = run(&["not-an-address"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen on not-an-address"));
}

#[test]
fn serve_with_a_token_refuses_pushes_without_it() {
    let server = serve(&["--token", "s3cret-token"]);
    assert!(
        server.url.ends_with("/?token=s3cret-token"),
        "the printed URL carries the token: {}",
        server.url
    );
    let plain = server.url.split('/').take(3).collect::<Vec<_>>().join("/");
    let file = anttracks_file(1);
    let (ok, _, err) = push(&[&plain, file.to_str().unwrap()]);
    assert!(!ok && err.contains("401") && err.contains("no token"), "{err}");
    assert!(err.lines().count() == 1, "one line: {err}");
    assert!(push(&[&server.url, file.to_str().unwrap()]).0);
    // The token from the environment, as the probe's and scripts' runs take it.
    let out = Command::new(MEMCITY)
        .args(["push", &plain, file.to_str().unwrap()])
        .env("MEMCITY_TOKEN", "s3cret-token")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn serve_beyond_loopback_makes_a_token_and_saves_only_in_its_folder() {
    let dir = temp("save-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(MEMCITY)
        .args(["serve", "0.0.0.0:0", "--save-dir", dir.to_str().unwrap()])
        .env_remove("MEMCITY_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first).unwrap();
    let server = Serve { child, url: first.trim().replace("0.0.0.0", "127.0.0.1") };
    let token = server.url.split("?token=").nth(1).unwrap_or_else(|| panic!("no token in {first:?}"));
    assert_eq!(token.len(), 32, "a generated token: {first}");
    let plain = server.url.split('/').take(3).collect::<Vec<_>>().join("/");
    let file = anttracks_file(2);
    assert!(!push(&[&plain, file.to_str().unwrap()]).0, "no token, no push");
    assert!(push(&[&server.url, file.to_str().unwrap()]).0);
    let out =
        Command::new(MEMCITY).args(["serve", "127.0.0.1:0", "--save-dir", "/no/such/dir"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--save-dir /no/such/dir: not a folder"));
}
