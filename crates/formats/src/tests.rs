use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-formats-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn kind(path: &Path) -> (Kind, bool) {
    let input = recognize(path).unwrap_or_else(|e| panic!("{e}"));
    (input.kind, input.gzip)
}

const DUMP_HEAD: &[u8] = b"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0";

#[test]
fn files_are_recognized_by_content_whatever_their_name() {
    let dir = temp("content");
    let cases: [(&str, &[u8], Kind); 8] = [
        ("heap.bin", DUMP_HEAD, Kind::HprofDump),
        ("old.dat", b"JAVA PROFILE 1.0.1\0\0\0\0\x04", Kind::HprofDump),
        ("node.json", b"  {\n \"snapshot\": {\"meta\": {}}}", Kind::V8Snapshot),
        ("probe.bin", b"MEMCITYH\x02\0\0\0", Kind::HeapFile),
        ("h.txt", b"{\n \"format\": \"memcity/1\", \"snapshots\": []}", Kind::History),
        ("trees", b"[{\"time\": 1, \"root\": {}}]", Kind::History),
        ("events.log", b"{\"e\":\"alloc\",\"id\":1}\n{\"e\":\"gc\"}\n", Kind::JsonLinesTrace),
        ("t.bin", b"MCTRACE\x01\x10\x01", Kind::BinaryTrace),
    ];
    for (name, bytes, expected) in cases {
        assert_eq!(kind(&write(&dir, name, bytes)), (expected, false), "{name}");
        let gz = write(&dir, &format!("{name}.z"), &gzip(bytes));
        assert_eq!(kind(&gz), (expected, true), "{name} gzipped");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_files_get_one_line_with_their_first_bytes_escaped() {
    let dir = temp("unknown");
    let text = write(&dir, "notes.dat", b"hello\x1b[31m world, this is a long line of text\n");
    let e = recognize(&text).unwrap_err();
    let line = e.to_string();
    assert!(line.starts_with(&format!("{}: not a heap dump", text.display())), "{line}");
    assert!(
        line.contains(r#"its first bytes are "hello\x1b[31m world, this is a long""#) && line.ends_with('…'),
        "{line}"
    );
    assert!(!line.contains('\x1b') && !line.contains('\n'), "{line}");
    let gz = write(&dir, "x.gz", &gzip(b"PK\x03\x04 zip inside"));
    let line = recognize(&gz).unwrap_err().to_string();
    assert!(line.contains(r#"gzip data whose first bytes are "PK\x03\x04 zip inside""#), "{line}");
    let broken = write(&dir, "broken.bin", &[0x1f, 0x8b, 8, 0, 0, 0]);
    let line = recognize(&broken).unwrap_err().to_string();
    assert!(line.contains("broken gzip data"), "{line}");
    let empty = write(&dir, "empty.bin", b"");
    assert!(recognize(&empty).unwrap_err().reason.starts_with("empty file"));
    let e = recognize(&dir.join("missing.hprof")).unwrap_err();
    assert!(e.reason.starts_with("cannot read: "), "{e}");
    // JSON-ish text that is not an object with keys.
    let braces = write(&dir, "braces.txt", b"{{ template }}");
    assert!(recognize(&braces).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_known_name_is_the_fallback_so_its_reader_explains() {
    let dir = temp("names");
    for (name, expected) in [
        ("cut.hprof", Kind::HprofDump),
        ("cut.hprof.gz", Kind::HprofDump),
        ("x.heapsnapshot", Kind::V8Snapshot),
        ("bad.jsonl", Kind::JsonLinesTrace),
        ("bad.mctrace", Kind::BinaryTrace),
        ("p.mcheap", Kind::HeapFile),
        ("h.json", Kind::History),
    ] {
        assert_eq!(kind(&write(&dir, name, b"garbage")).0, expected, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn folders_are_what_their_files_are() {
    let dir = temp("folders");
    let dumps = dir.join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    write(&dumps, "heap-1.bin", &gzip(DUMP_HEAD));
    write(&dumps, "heap-2.bin", DUMP_HEAD);
    write(&dumps, "notes.txt", b"taken at noon");
    let input = recognize(&dumps).unwrap();
    assert_eq!((input.kind, input.folder), (Kind::HprofDump, true));
    let names: Vec<_> = files_of_kind(&dumps, Kind::HprofDump)
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["heap-1.bin", "heap-2.bin"]);

    write(&dumps, "s.heapsnapshot", b"{\"snapshot\":{}}");
    let line = recognize(&dumps).unwrap_err().to_string();
    assert!(
        line.contains("mixes a JVM heap dump (HPROF) (heap-1.bin) and a V8 heap snapshot (s.heapsnapshot)"),
        "{line}"
    );

    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let folder = recognize(&repo.join("data/sample-leak-anttracks")).unwrap();
    assert_eq!((folder.kind, folder.folder), (Kind::History, true));
    assert_eq!(recognize(&repo.join("data/hprof")).unwrap().kind, Kind::HprofDump);

    let nothing = dir.join("nothing");
    std::fs::create_dir(&nothing).unwrap();
    write(&nothing, "a.txt", b"plain text");
    write(&nothing, ".hidden.hprof", DUMP_HEAD);
    let line = recognize(&nothing).unwrap_err().to_string();
    assert!(line.contains("the folder holds no input memcity reads") && line.contains("1 files"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_being_opened() {
    let dir = temp("fifo");
    let fifo = dir.join("pipe.hprof");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert!(recognize(&fifo).unwrap_err().reason.contains("not a regular file"));
    std::fs::remove_dir_all(&dir).unwrap();
}
