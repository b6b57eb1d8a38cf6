//! End to end on a live JVM: `memcity record` takes dumps of tests/java/LeakApp.java at its
//! pauses, `memcity import` turns them into a history, and every class's objects and bytes
//! equal the JVM's own histogram recorded beside each dump. Skipped (with a note) where no JDK
//! is installed, unless MEMCITY_REQUIRE_JVM=1.

mod common;
use common::{find, record_java, run, tools_present};

use std::path::PathBuf;
use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

#[test]
fn record_then_import_matches_the_jvm_histograms() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir: PathBuf = std::env::temp_dir().join(format!("memcity-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let series = record_java(&dir, "LeakApp", &["1000", "500"], 3);

    let out = dir.join("history.json");
    run(Command::new(MEMCITY).arg("import").arg(&series).args(["--classifiers", "type", "--out"]).arg(&out));
    let history = memcity_model::load_path(&out).unwrap();
    assert_eq!(history.snapshots.len(), 3);
    for (i, snapshot) in history.snapshots.iter().enumerate() {
        let text = std::fs::read_to_string(series.join(format!("histogram-{:04}.txt", i + 1))).unwrap();
        let histogram = memcity_hprof::parse_histogram(&text, "histogram").unwrap();
        for (name, &(objects, bytes)) in &histogram {
            let node =
                find(&snapshot.tree, &format!("Heap#Type:{name}")).unwrap_or_else(|| panic!("no {name}"));
            assert_eq!(node.objects, objects, "{name} in snapshot {i}");
            if name != "java.lang.Class" {
                assert_eq!(node.bytes, bytes, "{name} in snapshot {i}");
            }
        }
        let person = find(&snapshot.tree, "Heap#Type:LeakApp$Person").unwrap();
        assert_eq!(person.objects, 1000 * (i as u64 + 1));
        assert_eq!(
            snapshot.points_to["Heap#Type:java.util.LinkedList$Node"]["Heap#Type:LeakApp$Person"],
            person.objects
        );
    }
    // A bad file in the series imports nothing and names the file.
    std::fs::write(series.join("dump-0009.hprof"), b"JAVA PROFILE 1.0.2\0\0\0\0\x08").unwrap();
    let output = Command::new(MEMCITY)
        .arg("import")
        .arg(&series)
        .arg("--out")
        .arg(dir.join("bad.json"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("dump-0009.hprof: at byte 23: truncated dump"), "{stderr}");
    assert!(!dir.join("bad.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
