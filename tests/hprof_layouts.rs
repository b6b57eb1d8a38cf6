//! Dumps of the JDK here in every layout it can write — compressed oops on and off, the
//! Serial, Parallel and G1 collectors, gzip — read with no layout flags: every class's size per
//! object equals the JVM's own class histogram taken at the same pause. Skipped where no JDK is
//! installed, unless CI=1 or MEMCITY_REQUIRE_JVM is set.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use memcity_hprof::{Layout, class_totals, parse_histogram, read_dump};

/// Runs LeakApp with `flags`, takes one dump (gzipped with `gzip`) and one class histogram while
/// it is paused, and returns the dump's path and the histogram's text.
fn dump_and_histogram(
    dir: &Path,
    classes: &Path,
    name: &str,
    flags: &[&str],
    gzip: bool,
) -> (std::path::PathBuf, String) {
    let mut child = Command::new("java")
        .args(["-Xmx64m"])
        .args(flags)
        .arg("-cp")
        .arg(classes)
        .args(["LeakApp", "800", "300"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("java starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut expect = |line: &str| assert_eq!(lines.next().unwrap().unwrap(), line, "{name}");
    expect("STARTED");
    let pid = child.id().to_string();
    let jcmd = |args: &[&str]| common::run(Command::new("jcmd").arg(&pid).args(args));
    // The attach machinery allocates the first time: before the pause, not during it.
    jcmd(&["VM.version"]);
    writeln!(stdin, "go").unwrap();
    stdin.flush().unwrap();
    expect("READY 1");
    let dump = dir.join(format!("{name}.bin"));
    let mut args = vec!["GC.heap_dump"];
    if gzip {
        args.push("-gz=1");
    }
    args.push(dump.to_str().unwrap());
    jcmd(&args);
    let histogram = jcmd(&["GC.class_histogram"]);
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let _ = child.wait();
    (dump, histogram)
}

#[test]
fn every_layout_of_this_jdk_is_sized_like_its_histogram_without_flags() {
    if !common::tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-hprof-layouts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let classes = dir.join("classes");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java/LeakApp.java");
    common::run(Command::new("javac").arg("-d").arg(&classes).arg(source));
    // (name, JVM flags, gzip, reference size, header size)
    let configs: [(&str, &[&str], bool, u64, u64); 7] = [
        ("serial", &["-XX:+UseSerialGC"], false, 4, 12),
        ("serial-uncompressed", &["-XX:+UseSerialGC", "-XX:-UseCompressedOops"], true, 8, 12),
        ("parallel", &["-XX:+UseParallelGC"], true, 4, 12),
        ("parallel-uncompressed", &["-XX:+UseParallelGC", "-XX:-UseCompressedOops"], false, 8, 12),
        ("g1", &["-XX:+UseG1GC"], false, 4, 12),
        ("g1-uncompressed", &["-XX:+UseG1GC", "-XX:-UseCompressedOops"], true, 8, 12),
        (
            "serial-no-compressed-pointers",
            &["-XX:+UseSerialGC", "-XX:-UseCompressedOops", "-XX:-UseCompressedClassPointers"],
            false,
            8,
            16,
        ),
    ];
    let mut report = Vec::new();
    for (name, flags, gzip, reference, header) in configs {
        let (dump, text) = dump_and_histogram(&dir, &classes, name, flags, gzip);
        let histogram = parse_histogram(&text, name).unwrap();
        let read = read_dump(&dump, &Layout::default(), &|_| {}).unwrap();
        assert_eq!(
            (read.layout.reference, read.layout.header),
            (reference, header),
            "{name}: the layout read from the dump"
        );
        let totals = class_totals(&read);
        let mut compared = 0;
        let mut wrong = Vec::new();
        for (class, &(objects, bytes)) in &totals {
            let Some(&(jvm_objects, jvm_bytes)) = histogram.get(class) else { continue };
            // java.lang.Class: the histogram counts mirrors the dump does not hold
            // (docs/hprof.md); arrays: sizes differ per object, compared in total below.
            if objects == 0 || jvm_objects == 0 || class == "java.lang.Class" {
                continue;
            }
            compared += 1;
            let same = if class.starts_with('[') {
                objects != jvm_objects || bytes == jvm_bytes
            } else {
                bytes / objects == jvm_bytes / jvm_objects
            };
            if !same {
                wrong.push(format!(
                    "{class}: {objects} × {} vs {jvm_objects} × {}",
                    bytes / objects,
                    jvm_bytes / jvm_objects
                ));
            }
        }
        assert!(compared > 200, "{name}: {compared} classes compared");
        assert!(wrong.is_empty(), "{name}: sized unlike the histogram: {wrong:?}");
        report.push(format!("{name}: {compared} classes"));
    }
    eprintln!("{}", report.join(", "));
    std::fs::remove_dir_all(&dir).unwrap();
}
