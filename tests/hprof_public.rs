//! Dumps no one here made: the test dumps of Eclipse Memory Analyzer (JDK 5 to 11, 32- and
//! 64-bit, compressed oops on and off, the old HPROF agent), kept in tests/data/hprof with their
//! source and licence (README.md there). Each is read with no flags; where the JVM's histogram
//! of the dump was kept beside it, every class's size per object must equal it (the HPROF
//! agent's dump of a JVM without compressed oops is read with the flag that says so).

use std::path::{Path, PathBuf};

use memcity_hprof::{Layout, class_totals, parse_histogram, read_dump};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hprof")
}

/// Classes whose size per object differs from the histogram's, as "name: ours vs theirs".
fn sized_unlike(dump: &Path, histogram: &Path, layout: &Layout) -> (usize, Vec<String>) {
    let read = read_dump(dump, layout, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
    let totals = class_totals(&read);
    let text = std::fs::read_to_string(histogram).unwrap();
    let jvm = parse_histogram(&text, &histogram.display().to_string()).unwrap();
    let mut compared = 0;
    let mut wrong = Vec::new();
    for (class, &(objects, bytes)) in &totals {
        let Some(&(jvm_objects, jvm_bytes)) = jvm.get(class) else { continue };
        // Arrays differ in size per object, and the dumps' java.lang.Class counts differ
        // (docs/hprof.md): only instances have one size per class.
        if objects == 0 || jvm_objects == 0 || class.starts_with('[') || class == "java.lang.Class" {
            continue;
        }
        compared += 1;
        if bytes / objects != jvm_bytes / jvm_objects {
            wrong.push(format!("{class}: {} vs {}", bytes / objects, jvm_bytes / jvm_objects));
        }
    }
    (compared, wrong)
}

#[test]
fn every_public_dump_is_read_and_sized_like_its_histogram() {
    let mut dumps: Vec<PathBuf> = std::fs::read_dir(data())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".hprof.gz"))
        .collect();
    dumps.sort();
    assert_eq!(dumps.len(), 11, "{dumps:?}");
    let mut report = Vec::new();
    for dump in &dumps {
        let name = dump.file_name().unwrap().to_string_lossy().replace(".hprof.gz", "");
        let read = read_dump(dump, &Layout::default(), &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        let totals = class_totals(&read);
        let objects: u64 = totals.values().map(|t| t.0).sum();
        assert!(totals.len() > 100 && objects > 1000, "{name}: {} classes, {objects} objects", totals.len());
        assert!(totals.values().all(|&(n, bytes)| bytes >= n * 8), "{name}: an object under 8 bytes");
        let histogram = data().join(format!("{name}.histogram.txt"));
        if !histogram.exists() {
            continue;
        }
        // The HPROF agent's ids say nothing of the layout (docs/hprof.md): its dump of a JVM
        // without compressed oops needs the flag, and is sized wrongly without it.
        let agent_uncompressed = name == "sun_jdk6_31_hprofagent_nocompressedOops";
        if agent_uncompressed {
            let (_, wrong) = sized_unlike(dump, &histogram, &Layout::default());
            assert!(wrong.len() > 100, "{name}: the compressed guess is wrong here: {wrong:?}");
        }
        let layout = if agent_uncompressed { Layout::uncompressed() } else { Layout::default() };
        let (compared, wrong) = sized_unlike(dump, &histogram, &layout);
        assert!(compared > 100, "{name}: {compared} classes compared");
        assert!(wrong.is_empty(), "{name}: sized unlike the histogram: {wrong:?}");
        report.push(format!("{name}: {compared} classes"));
    }
    assert_eq!(report.len(), 7, "{report:?}");
    eprintln!("every class sized like the histogram: {}", report.join(", "));
}
