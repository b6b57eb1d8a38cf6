//! Heap dumps are recognized by their content, whatever their names (`jmap
//! -dump:format=b,file=heap.bin`): one file, or a folder of them; anything else is refused in
//! one line.

use std::path::PathBuf;
use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("memcity-dump-names-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sample(n: usize) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("data/hprof/dump{n}.hprof.gz"))
}

fn import(input: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    Command::new(MEMCITY).arg("import").arg(input).arg("--out").arg(out).output().unwrap()
}

#[test]
fn a_dump_of_any_name_is_read_by_its_content() {
    let d = dir("any");
    let bin = d.join("heap.bin");
    std::fs::copy(sample(1), &bin).unwrap();
    let out = import(&bin, &d.join("one.json"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let folder = d.join("dumps");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(sample(1), folder.join("first.dat")).unwrap();
    std::fs::copy(sample(2), folder.join("second")).unwrap();
    std::fs::write(folder.join("notes.txt"), "not a dump").unwrap();
    let out = import(&folder, &d.join("two.json"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let history: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("two.json")).unwrap()).unwrap();
    assert_eq!(history["snapshots"].as_array().unwrap().len(), 2, "the two dumps, not the notes");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn what_is_no_dump_is_refused_in_one_line() {
    let d = dir("none");
    for (name, bytes) in [("x.bin", b"hello".to_vec()), ("y.bin", gzip(b"hello, not a heap"))] {
        let path = d.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = import(&path, &d.join("x.json"));
        assert!(!out.status.success(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(name) && err.contains("not a heap dump"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap();
    out
}

/// `memcity layout` takes any input the way the app's Open pane does (crate::input): a dump
/// named heap.bin, a trace without its extension; an unknown file is one line showing its
/// first bytes, escaped.
#[test]
fn any_input_is_recognized_by_content_and_unknown_ones_show_their_first_bytes() {
    let d = dir("layout");
    let bin = d.join("heap.bin");
    std::fs::copy(sample(3), &bin).unwrap();
    let layout = |input: &std::path::Path| {
        Command::new(MEMCITY).arg("layout").arg(input).arg("--out").arg(d.join("city.json")).output().unwrap()
    };
    let out = layout(&bin);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let city = std::fs::read_to_string(d.join("city.json")).unwrap();
    assert!(city.contains("LeakApp$Person"), "the dump's classes are in the city");

    let unknown = d.join("notes");
    std::fs::write(&unknown, b"\x1b]0;title\x07 plain text").unwrap();
    let out = layout(&unknown);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(r#"its first bytes are "\x1b]0;title\x07 plain text""#), "{err}");
    assert!(!err.contains('\x1b') && err.trim_end().lines().count() == 1, "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
