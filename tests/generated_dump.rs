//! A dump written by `memcity generate-dump` reads like a JVM's: `import` counts what the
//! generator wrote, `structures` finds BigHeap's collections by the static fields that hold
//! them, and `ownership` puts the big map under its class.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{refused, run};
use memcity_hprof::generate::{Plan, Spec};
use serde_json::Value;

fn memcity() -> Command {
    Command::new(env!("CARGO_BIN_EXE_memcity"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-generated-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_generated_dump_imports_and_shows_its_structures_and_owners() {
    let dir = temp("read");
    let dump = dir.join("big.hprof");
    let said =
        run(memcity().args(["generate-dump", "--objects", "100k", "--segment-mib", "1", "-o"]).arg(&dump));
    assert!(said.contains("objects") && said.contains("heap dump segments"), "{said}");
    let entries = Plan::new(&Spec::for_objects(100_000)).entries;

    let history = dir.join("history.json");
    // `--timings` says, at the end, how long each phase took: where a big dump's time goes.
    let out = memcity()
        .arg("import")
        .arg(&dump)
        .args(["--timings", "--classifiers", "type", "-o"])
        .arg(&history)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let timings = stderr.lines().find(|l| l.starts_with("memcity: heap dumps: ")).expect(&stderr);
    for phase in ["resolving references", "dominator tree", "retained sizes", "in all"] {
        assert!(timings.contains(phase), "{phase} in {timings}");
    }
    let history: Value = serde_json::from_slice(&std::fs::read(&history).unwrap()).unwrap();
    let tree = &history["snapshots"][0]["tree"];
    let leaf = |key: &str| tree["children"].as_array().unwrap().iter().find(|c| c["key"] == key).cloned();
    let items = leaf("Heap#Type:BigHeap$Item").expect("an Item leaf");
    assert_eq!(items["objects"], 4 * entries);
    assert_eq!(items["bytes"], 4 * entries * 32);

    let report: Value =
        serde_json::from_str(&run(memcity().arg("structures").arg(&dump).args(["--json", "--top", "0"])))
            .unwrap();
    let instances = report["instances"].as_array().unwrap();
    let find = |identity: &str| {
        instances.iter().find(|i| i["identity"] == identity).unwrap_or_else(|| panic!("{identity}"))
    };
    let index = find("static BigHeap.INDEX");
    assert_eq!(index["type"], "java.util.HashMap");
    assert_eq!(index["leaves"][0]["type"], "BigHeap$Item");
    assert_eq!(index["leaves"][0]["objects_end"], 4 * entries);
    assert_eq!(find("static BigHeap.NAMES")["leaves"][0]["objects_end"], entries.div_ceil(8));
    assert_eq!(find("static BigHeap.SMALL")["type"], "java.util.ArrayList");

    let owners = dir.join("owners.json");
    run(memcity().arg("ownership").arg(&dump).arg("--out").arg(&owners));
    let owners: Value = serde_json::from_slice(&std::fs::read(&owners).unwrap()).unwrap();
    let class = &owners["root"]["children"][0];
    assert_eq!(class["name"], "class BigHeap");
    assert_eq!(class["children"][0]["name"], "java.util.HashMap");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--memory` takes a size; a dump that may need more than the budget is read all the same,
/// with one warning line, and reads the same.
#[test]
fn the_memory_budget_is_a_size_and_a_small_one_warns() {
    let dir = temp("budget");
    let dump = dir.join("big.hprof");
    run(memcity().args(["generate-dump", "--objects", "400k", "-o"]).arg(&dump));
    let (plain, tight) = (dir.join("plain.json"), dir.join("tight.json"));
    // Both read the dump itself (not an index the first one wrote): the budget is on reading.
    let out = memcity().arg("import").arg("--no-index").arg(&dump).arg("-o").arg(&plain).output().unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // Over the budget the analysis's tables go to work files, which no one sees afterwards.
    let work = dir.join("work");
    let out = memcity()
        .arg("import")
        .arg(&dump)
        .args(["--no-index", "--memory", "16M", "--work-dir"])
        .arg(&work)
        .arg("-o")
        .arg(&tight)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("big.hprof may need about") && stderr.contains("memory budget 16.0 MiB (--memory)"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&tight).unwrap());
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "no work file is left");
    let dump = dump.to_str().unwrap();
    refused(&["import", dump, "--memory", "lots"], "--memory lots: no number; give a size such as 8G");
    refused(&["import", dump, "--memory", "8X"], "--memory 8X: unknown unit");
    refused(&["import", dump, "--memory", "0"], "--memory 0: below 16 MiB");
    refused(&["import", dump, "--memory", "99999999999T"], "--memory 99999999999T: too large");
    refused(&["import", dump, "--work-dir", dump], "big.hprof: cannot make the folder");
    refused(
        &["import", dump, "--work-dir", "/proc/memcity-work"],
        "--work-dir /proc/memcity-work: cannot make",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_generator_arguments_are_one_line() {
    let out = temp("bad").join("x.hprof");
    let out = out.to_str().unwrap();
    refused(&["generate-dump", "--objects", "12", "-o", out], "--objects 12: give a count from 1000 to 4G");
    refused(&["generate-dump", "--objects", "lots", "-o", out], "--objects lots: give a count");
    refused(
        &["generate-dump", "--objects", "1M", "-o", "/nonexistent-dir/x.hprof"],
        "writing /nonexistent-dir/x.hprof",
    );
}
