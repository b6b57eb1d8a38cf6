//! `memcity structures` on a live JVM (tests/java/CacheLeak.java): a search cache whose key
//! lacks equals/hashCode grows among 2,000 small maps that do not; dumps taken with `memcity
//! record` at the program's pauses. The cache comes first by retained HGP (≥ 50 %), named by
//! its field, and the small maps are non-growth. Skipped where no JDK is installed, unless
//! MEMCITY_REQUIRE_JVM=1 or CI=1.

mod common;
use common::{run, tools_present};

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

#[test]
fn the_leaking_cache_is_one_map_among_thousands() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-structures-jvm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let classes = dir.join("classes");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java/CacheLeak.java");
    run(Command::new("javac").arg("-d").arg(&classes).arg(source));
    let mut app = Command::new("java")
        .args(["-Xmx128m", "-XX:+UseSerialGC", "-cp"])
        .arg(&classes)
        .args(["CacheLeak", "20000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = app.stdin.take().unwrap();
    let mut lines = BufReader::new(app.stdout.take().unwrap()).lines();
    let pid = app.id().to_string();
    assert_eq!(lines.next().unwrap().unwrap(), "STARTED");
    let series = dir.join("series");
    for phase in 1..=3 {
        writeln!(stdin, "go").unwrap();
        stdin.flush().unwrap();
        assert!(lines.next().unwrap().unwrap().starts_with(&format!("READY {phase}")));
        run(Command::new(MEMCITY).args(["record", "--pid", &pid, "--count", "1", "--out"]).arg(&series));
    }
    let _ = writeln!(stdin, "quit");
    app.wait().unwrap();

    let out = run(Command::new(MEMCITY).arg("structures").arg(&series).args(["--top", "0", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let instances = report["instances"].as_array().unwrap();
    let cache = &instances[0];
    assert_eq!(cache["type"], "java.util.HashMap", "{cache}");
    assert_eq!(cache["identity"], "static CacheLeak.SERVICE .cache");
    assert!(cache["hgp"]["retained"].as_f64().unwrap() >= 50.0, "{cache}");
    assert_eq!(cache["pattern"], "single-ownership container growth");
    // Its keys, and through the ArrayLists it holds as values, their strings.
    let leaves: Vec<&str> =
        cache["leaves"].as_array().unwrap().iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert!(leaves.contains(&"CacheLeak$SearchKey") && leaves.contains(&"java.lang.String"), "{leaves:?}");
    // The handlers' 2,000 small maps are there, and none of them grew.
    let counters: Vec<&serde_json::Value> =
        instances.iter().filter(|i| i["identity"].as_str().unwrap().ends_with(".counters")).collect();
    assert!(counters.len() >= 2000, "{} counter maps", counters.len());
    assert!(counters.iter().all(|i| i["pattern"] == "non-growth"));
}
