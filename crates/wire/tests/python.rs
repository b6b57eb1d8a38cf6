//! A second client implementation, in Python (PyPI `websockets`), against the Rust server.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

#[test]
fn python_client_pushes_a_snapshot() {
    let probe = Command::new("python3").args(["-c", "import websockets.sync.client"]).output();
    // CI installs websockets; there a missing module is a failure, not a skip.
    let in_ci = std::env::var_os("CI").is_some();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) if in_ci => {
            panic!("CI must pip install websockets: {}", String::from_utf8_lossy(&out.stderr))
        }
        Ok(out) => {
            let why = String::from_utf8_lossy(&out.stderr);
            eprintln!(
                "SKIPPED python_client_pushes_a_snapshot: `import websockets.sync.client` failed \
                       (pip install 'websockets>=12'): {}",
                why.trim()
            );
            return;
        }
        Err(e) => {
            eprintln!("SKIPPED python_client_pushes_a_snapshot: cannot run python3: {e}");
            return;
        }
    }
    let server = start_default();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ws_client.py");
    let out = Command::new("python3").arg(&script).arg(url(&server)).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("all checks passed"), "{stdout}");
    // The server holds what the Python client pushed.
    let (version, history) = server.latest().expect("a history");
    assert_eq!((version, history.snapshots.len()), (2, 2));
    assert_eq!(history.snapshots[1].tree.children.len(), 3);
}
