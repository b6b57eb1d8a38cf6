//! `memcity structures` on a real Python program (tests/python/session_registry.py) run under
//! the probe (probes/python): a session registry's dict at the class attribute
//! `Registry.sessions` grows among 200 handlers' small dicts of counters that do not; the
//! program takes a heap file after each round. The registry's dict comes first by retained HGP
//! (≥ 50 %), named by the attribute that holds it, and the small dicts are non-growth. Skipped
//! where python3 is missing, unless CI=1 or MEMCITY_REQUIRE_PYTHON=1 (then it fails).

mod common;
use common::{run, tools_present};

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

#[test]
fn the_growing_session_dict_is_one_dict_among_hundreds() {
    if !tools_present(&["python3"], "--version", "MEMCITY_REQUIRE_PYTHON") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-structures-python-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = common::python_session_rounds(&dir, 3, 5000);
    let files: Vec<&str> = written.lines().collect();
    assert_eq!(files.len(), 3, "{written}");
    let bytes = std::fs::read(files[0]).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), memcity_heapfile::VERSION);

    let out = run(Command::new(MEMCITY)
        .arg("structures")
        .args([files[0], files[2]])
        .args(["--top", "0", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let instances = report["instances"].as_array().unwrap();
    let sessions = &instances[0];
    assert_eq!(sessions["type"], "builtins.dict", "{sessions}");
    assert_eq!(sessions["identity"], "module __main__ .Registry .sessions", "{sessions}");
    assert!(sessions["hgp"]["retained"].as_f64().unwrap() >= 50.0, "{sessions}");
    assert_eq!(sessions["pattern"], "single-ownership container growth");
    let leaves: Vec<&str> =
        sessions["leaves"].as_array().unwrap().iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert!(leaves.contains(&"__main__.Session"), "{leaves:?}");
    // The handlers' 200 dicts of counters are there, named by index and attribute, and none of
    // them grew.
    let counters: Vec<&serde_json::Value> =
        instances.iter().filter(|i| i["identity"].as_str().unwrap().ends_with(".counters")).collect();
    assert_eq!(counters.len(), 200, "{} counter dicts", counters.len());
    assert!(counters.iter().all(|i| i["type"] == "builtins.dict" && i["pattern"] == "non-growth"));
    assert!(counters.iter().any(|i| i["identity"] == "module __main__ .handlers [3] .counters"));
    // Namespaces are an object's fields, not dicts of the program's.
    assert!(instances.iter().all(|i| i["identity"] != "module __main__"), "a module's dict is no structure");

    // The folder as a series: the exit snapshot ends the window, the same leader.
    let out = run(Command::new(MEMCITY).arg("structures").arg(&dir).args(["--top", "1", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["instances"][0]["identity"], "module __main__ .Registry .sessions");
    std::fs::remove_dir_all(&dir).unwrap();
}
