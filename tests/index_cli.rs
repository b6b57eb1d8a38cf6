//! Indexes for reopening heap dumps, end to end: `memcity import` twice reads the dump the
//! first time and its index the second, with the same history; `structures` reads the index
//! too; a corrupt index is rebuilt with a one-line note; `--no-index` writes nothing, and the
//! index goes to the cache folder, never beside the dump.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memcity_hprof::generate::{Spec, write_file};
use serde_json::Value;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-index-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("dumps")).unwrap();
    dir
}

/// memcity with its cache folder inside `dir`, whatever the environment says.
fn memcity(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_memcity"));
    command.env("XDG_CACHE_HOME", dir.join("cache")).env_remove("MEMCITY_INDEX_DIR");
    command
}

fn ok(command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert!(output.status.success(), "{command:?}: {}", String::from_utf8_lossy(&output.stderr));
    output
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn generated(dir: &Path) -> PathBuf {
    let dump = dir.join("dumps").join("big.hprof");
    // Over 2 MiB: the key hashes the first and last MiB, so the middle is not in it.
    write_file(&dump, &Spec { segment_bytes: 1 << 16, ..Spec::for_objects(100_000) }).unwrap();
    dump
}

#[test]
fn import_twice_reads_the_index_the_second_time_with_the_same_history() {
    let dir = temp("twice");
    let dump = generated(&dir);
    let index = dir.join("index");
    let import = |out: &str| {
        let mut command = memcity(&dir);
        command.arg("import").arg(&dump).arg("--index-dir").arg(&index).arg("-o").arg(dir.join(out));
        stderr(&ok(&mut command))
    };
    let first = import("first.json");
    assert!(!first.contains("from its index"), "{first}");
    let written = files(&index);
    let kinds = |suffix: &str| written.iter().filter(|f| f.ends_with(suffix)).count();
    let kept = kinds(".grouped-history");
    assert_eq!(
        (written.len(), kinds(".hprof-index"), kinds(".hprof-tree"), kept, kinds(".analysed-heap")),
        (4, 1, 1, 1, 1),
        "{written:?}"
    );
    // The index and the tree are sealed with a key made in the user's cache folder, for this
    // user alone.
    for suffix in [".hprof-index", ".hprof-tree"] {
        let file = written.iter().find(|f| f.ends_with(suffix)).unwrap();
        let file = std::fs::read(index.join(file)).unwrap();
        let (length, seal) = file[file.len() - 40..].split_at(8);
        assert_eq!(length, 32u64.to_le_bytes(), "a seal in the last block of the {suffix}");
        assert!(seal.iter().any(|&b| b != 0));
    }
    let key = dir.join("cache").join("memcity").join("seal-key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let second = import("second.json");
    assert!(second.contains("read the history kept by an earlier import"), "{second}");
    assert!(!second.contains("from its index"), "{second}");
    assert_eq!(json(&dir.join("first.json")), json(&dir.join("second.json")));
    assert_eq!(files(&index).len(), 4, "the history and the analysis kept beside the index and the tree");
    // Another grouping with the same leaves (the types) reads the analysis kept, from the index.
    let by_type = |out: &str, index_flag: &[&str]| {
        let mut command = memcity(&dir);
        command.arg("import").arg(&dump).args(["--classifiers", "type"]).args(index_flag);
        stderr(&ok(command.arg("-o").arg(dir.join(out))))
    };
    let said = by_type("by_type.json", &["--index-dir", index.to_str().unwrap()]);
    assert!(said.contains("read 1 dump from its index") && !said.contains("history kept"), "{said}");
    assert!(said.contains("read the analysis an earlier import kept"), "{said}");
    by_type("by_type_read.json", &["--no-index"]);
    assert_eq!(json(&dir.join("by_type.json")), json(&dir.join("by_type_read.json")));
    assert_eq!(files(&dir.join("dumps")), ["big.hprof"], "nothing beside the dump");

    // Another command, another grouping: the same index, the same answer as the dump's.
    let structures = |flag: &[&str]| {
        let mut command = memcity(&dir);
        command.arg("structures").arg(&dump).args(["--json", "--top", "0"]).args(flag);
        let output = ok(&mut command);
        (serde_json::from_slice::<Value>(&output.stdout).unwrap(), stderr(&output))
    };
    let (indexed, said) = structures(&["--index-dir", index.to_str().unwrap()]);
    assert!(said.is_empty(), "{said}");
    let (read, said) = structures(&["--no-index"]);
    assert!(said.is_empty(), "{said}");
    assert_eq!(indexed, read);
    // The proof that the index is what is read: spoil the dump's middle, which its key does
    // not hash, keeping its size and mtime. From the index the history is the same; from the
    // dump it is an error. (`structures` reads the values of the dump's objects from the
    // dump itself, so it would see the spoiled bytes.)
    let mtime = std::fs::metadata(&dump).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&dump).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle..middle + 4096].fill(0xff);
    std::fs::write(&dump, &bytes).unwrap();
    std::fs::File::options().write(true).open(&dump).unwrap().set_modified(mtime).unwrap();
    import("third.json");
    assert_eq!(json(&dir.join("first.json")), json(&dir.join("third.json")));
    let mut command = memcity(&dir);
    let spoiled = command.args(["import", "--no-index"]).arg(&dump).arg("-o").arg(dir.join("x.json"));
    assert!(!spoiled.output().unwrap().status.success(), "the spoiled dump itself is refused");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reopening hashes the sealed index and tree once they have settled and stamps each (a
/// file beside it), so that later reopenings need not hash them; the history is the same
/// either way, and an index changed in place after its stamp is still found unusable.
#[cfg(unix)]
#[test]
fn settled_indexes_and_trees_are_stamped_and_a_changed_one_is_still_found() {
    let dir = temp("stamps");
    let dump = generated(&dir);
    let index = dir.join("index");
    let import = |out: &str| {
        // Nothing kept for the grouping: the index and the tree are both read.
        for kept in
            files(&index).iter().filter(|f| f.ends_with(".grouped-history") || f.ends_with(".analysed-heap"))
        {
            std::fs::remove_file(index.join(kept)).unwrap();
        }
        let mut command = memcity(&dir);
        command.arg("import").arg(&dump).arg("--index-dir").arg(&index).arg("-o").arg(dir.join(out));
        stderr(&ok(&mut command))
    };
    let stamps = || files(&index).into_iter().filter(|f| f.ends_with("-stamp")).collect::<Vec<_>>();
    import("first.json");
    assert_eq!(stamps(), Vec::<String>::new(), "written just now: nothing hashed yet");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let second = import("second.json");
    assert!(second.contains("read 1 dump from its index"), "{second}");
    let stamped = stamps();
    let kinds: Vec<&str> = stamped.iter().map(|f| f.rsplit('.').next().unwrap()).collect();
    assert_eq!(kinds, ["hprof-index-stamp", "hprof-tree-stamp"], "{stamped:?}");
    let third = import("third.json");
    assert!(third.contains("read 1 dump from its index"), "{third}");
    for out in ["second.json", "third.json"] {
        assert_eq!(json(&dir.join("first.json")), json(&dir.join(out)), "{out}");
    }
    let file = files(&index).into_iter().find(|f| f.ends_with(".hprof-index")).unwrap();
    let mut bytes = std::fs::read(index.join(&file)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(index.join(&file), &bytes).unwrap();
    let fourth = import("fourth.json");
    assert!(
        fourth.contains("is unusable (its contents do not match its checksum); rebuilding it"),
        "{fourth}"
    );
    assert_eq!(json(&dir.join("first.json")), json(&dir.join("fourth.json")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_index_is_rebuilt_with_a_note_and_no_index_writes_nothing() {
    let dir = temp("corrupt");
    let dump = generated(&dir);
    // No flag: the index goes to the user's cache folder.
    ok(memcity(&dir).arg("import").arg(&dump).arg("-o").arg(dir.join("first.json")));
    let cache = dir.join("cache").join("memcity").join("index");
    let written = files(&cache);
    assert_eq!(written.len(), 4, "an index, the dominator tree, the history and the analysis: {written:?}");
    // The history kept is read only for this grouping: another one opens the index.
    let regrouped = |out: &str, classifiers: &str| {
        let mut command = memcity(&dir);
        command.arg("import").arg(&dump).args(["--classifiers", classifiers]);
        ok(command.arg("-o").arg(dir.join(out)))
    };
    let index = written.iter().find(|f| f.ends_with(".hprof-index")).expect("an index");
    std::fs::write(cache.join(index), b"MCIDXHP\0 not really").unwrap();
    let output = regrouped("second.json", "package,type,root-kind");
    let note = stderr(&output);
    let line = note.lines().find(|l| l.contains("unusable")).unwrap_or_else(|| panic!("{note}"));
    assert!(line.contains("rebuilding it"), "{line}");
    let output = regrouped("third.json", "type,package,root-kind");
    assert!(stderr(&output).contains("read 1 dump from its index"), "rebuilt whole");
    // The first grouping's history, damaged: noted, removed, grouped again from the index and
    // the analysis kept.
    let kept: Vec<String> = files(&cache).into_iter().filter(|f| f.ends_with(".grouped-history")).collect();
    assert_eq!(kept.len(), 3, "one for each grouping: {kept:?}");
    for file in kept {
        std::fs::write(cache.join(file), b"{\"format\": \"memcity/1\", \"snapshots\": [").unwrap();
    }
    let output = ok(memcity(&dir).arg("import").arg(&dump).arg("-o").arg(dir.join("fifth.json")));
    let note = stderr(&output);
    assert!(
        note.contains("the kept grouped history is unusable") && note.contains("grouping again"),
        "{note}"
    );
    assert!(note.contains("read 1 dump from its index"), "{note}");
    assert!(note.contains("read the analysis an earlier import kept"), "{note}");
    assert_eq!(note.lines().count(), 3, "one line each: {note}");
    assert_eq!(json(&dir.join("first.json")), json(&dir.join("fifth.json")));

    // --no-index: nothing read, nothing written, wherever the index would go.
    let elsewhere = dir.join("elsewhere");
    let mut command = memcity(&dir);
    command.env("MEMCITY_INDEX_DIR", &elsewhere).args(["import", "--no-index"]);
    let output = ok(command.arg(&dump).arg("-o").arg(dir.join("fourth.json")));
    assert!(!stderr(&output).contains("index"));
    assert!(!elsewhere.exists());
    let mut command = memcity(&dir);
    ok(command
        .env("MEMCITY_INDEX_DIR", &elsewhere)
        .arg("import")
        .arg(&dump)
        .arg("-o")
        .arg(dir.join("x.json")));
    assert_eq!(
        files(&elsewhere).len(),
        4,
        "$MEMCITY_INDEX_DIR is the default (an index, its tree, the history, the analysis)"
    );
    let both =
        memcity(&dir).args(["import", "--no-index", "--index-dir", "/tmp", "x.hprof"]).output().unwrap();
    assert!(!both.status.success() && stderr(&both).contains("cannot be used with"), "{}", stderr(&both));
    let _ = std::fs::remove_dir_all(&dir);
}
