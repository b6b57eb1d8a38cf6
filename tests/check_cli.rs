//! `memcity check`: the leak gate's exit codes, reports and baseline on the teaching scenarios
//! (each leaking one fails, its fixed variant passes), and bad input (exit 2, one line).

use std::path::PathBuf;
use std::process::{Command, Output};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
/// Limits for the scenarios' small heaps (a few hundred kB).
const SMALL: [&str; 4] = ["--max-growth-bytes", "20000", "--max-growth-percent", "2"];

fn check(args: &[&str]) -> Output {
    Command::new(MEMCITY).arg("check").args(args).output().unwrap()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("memcity-check-{}-{name}", std::process::id()))
}

#[test]
fn leaking_scenarios_fail_and_their_fixes_pass() {
    for (leaking, fixed) in [("linked-list", "linked-list-fixed"), ("easytravel", "easytravel-fixed")] {
        let out = check(&[&[&format!("scenario:{leaking}")[..]][..], &SMALL].concat());
        assert_eq!(out.status.code(), Some(1), "{leaking}: {}", String::from_utf8_lossy(&out.stdout));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.lines().next().unwrap().starts_with("LEAK "), "{text}");
        assert!(text.trim_end().ends_with("grew past the limits"), "{text}");
        assert!(text.lines().any(|l| l.starts_with("LEAK structure ")), "a growing data structure: {text}");
        // Every finding has a holder: a group its retainer path ends at, or the GC root itself.
        assert!(text.lines().filter(|l| l.starts_with("LEAK ")).all(|l| l.contains(", held by ")), "{text}");
        let out = check(&[&[&format!("scenario:{fixed}")[..]][..], &SMALL].concat());
        assert_eq!(out.status.code(), Some(0), "{fixed}: {}", String::from_utf8_lossy(&out.stdout));
    }
    // With the default limits (1 MiB), the scenarios' small growth passes.
    assert_eq!(check(&["scenario:linked-list"]).status.code(), Some(0));
}

#[test]
fn a_growing_data_structure_is_a_finding_with_its_holder() {
    // Each scenario's leaking structure, named by the field that holds it; its fixed variant's
    // structures settle and pass (above).
    for (scenario, line) in [
        ("linked-list", "LEAK structure java.util.LinkedList: +"),
        ("http-client", "LEAK structure java.util.HashMap: +"),
        ("easytravel", "LEAK structure java.util.concurrent.ConcurrentHashMap: +"),
    ] {
        let out = check(&[&[&format!("scenario:{scenario}")[..]][..], &SMALL].concat());
        let text = String::from_utf8_lossy(&out.stdout);
        let found =
            text.lines().find(|l| l.starts_with(line)).unwrap_or_else(|| panic!("{scenario}: {text}"));
        assert!(found.contains(" bytes per step over 29 steps grown, retains "), "{found}");
        let holder = match scenario {
            "linked-list" => "held by static app.model.Registry.people",
            "http-client" => "held by static app.feed.Fetcher.connectionManager .mapHosts",
            _ => "held by static com.dynatrace.easytravel.LocationCache.cache",
        };
        assert!(found.contains(&format!("{holder};")) || found.ends_with(holder), "{found}");
        // The connection pool's map never drops a host (its count, over all 30 GCs); a list
        // has no keys, so no such cause.
        match scenario {
            "http-client" => assert!(found.ends_with(&format!("{holder}; unbounded-cache: 11 → 375 entries over 30 snapshots, never fewer: nothing is removed from this java.util.HashMap (a cache without eviction?)")), "{found}"),
            "linked-list" => assert!(found.ends_with(holder), "{found}"),
            _ => {}
        }
    }
    // The committed dumps of tests/java/LeakApp.java (three: two steps): the list and the map
    // its statics hold both grow by more than 100 kB a step.
    let hprof = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hprof");
    let out = check(&[hprof, "--min-steps", "2", "--max-growth-bytes", "100000"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "LEAK structure java.util.LinkedList: +336000 bytes per step over 2 steps grown, retains 999952 bytes, held by static LeakApp.PEOPLE",
        "LEAK structure java.util.HashMap: +196096 bytes per step over 2 steps grown, retains 592448 bytes, held by static LeakApp.CACHE; unbounded-cache: 1,000 → 3,000 entries over 3 snapshots, never fewer: nothing is removed from this java.util.HashMap (a cache without eviction?)",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}: {text}");
    }
    // One leak, one finding: the list first, the groups it holds as its detail.
    assert!(text.starts_with("LEAK structure java.util.LinkedList: "), "{text}");
    assert!(text.contains("\n  holds (default package) › LeakApp$Person: +288000 bytes per step"), "{text}");
    // --no-structures judges the groups alone.
    let out = check(&["scenario:linked-list", "--no-structures", SMALL[0], SMALL[1], SMALL[2], SMALL[3]]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("LEAK structure"));
    // A run of fewer steps than a finding must grow in has none: nothing is read for them.
    let out = check(&[hprof, "--max-growth-bytes", "100000"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("LEAK structure"));
}

#[test]
fn the_html_report_stands_alone_and_escapes_names() {
    let page = temp("report.html");
    let mut args = vec!["scenario:linked-list", "--report", page.to_str().unwrap()];
    args.extend(SMALL);
    assert_eq!(check(&args).status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("memcity check: leak"));
    // The findings, their holder, the heap chart and the city map, with nothing fetched.
    assert!(html.contains("java.util.LinkedList$Node › java.util.LinkedList.linkLast"));
    // One leak, one finding: the groups the list holds are rows under it.
    let list_row = html.find("<code>structure java.util.LinkedList</code>").unwrap();
    let held_row =
        html.find("<code>↳ holds java.util.LinkedList$Node › java.util.LinkedList.linkLast</code>").unwrap();
    assert!(list_row < held_row);
    assert!(html.contains("app.model.Registry.&lt;clinit&gt;"), "names are escaped");
    assert!(html.contains("<code>structure java.util.LinkedList</code>"), "the growing list");
    assert!(html.contains("<code>static app.model.Registry.people</code>"), "what holds it");
    assert!(!html.contains("<clinit>"), "no raw markup from a name");
    assert_eq!(html.matches("<svg").count(), 2);
    assert!(html.contains("stroke=\"#ff2020\""), "the findings outlined on the map");
    // The list's own building (java.util.LinkedList, made in Registry.<clinit>) is a group
    // finding too, so red wins there; the structure's other type buildings are orange, if any.
    let red = html.matches("stroke=\"#ff2020\"").count();
    assert!(red >= 7, "{red} red outlines");
    // In http-client the growing HashMap's type is no group finding: its building is orange.
    let mut args = vec!["scenario:http-client", "--report", page.to_str().unwrap()];
    args.extend(SMALL);
    assert_eq!(check(&args).status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(html.contains("<code>structure java.util.HashMap</code>"));
    assert_eq!(html.matches("stroke=\"#ff9a00\"").count(), 1, "the HashMap building");
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
}

#[test]
fn json_junit_and_a_baseline_that_knows_the_leak() {
    let (json, junit) = (temp("out.json"), temp("out.xml"));
    let mut args =
        vec!["scenario:linked-list", "--json", json.to_str().unwrap(), "--junit", junit.to_str().unwrap()];
    args.extend(SMALL);
    assert_eq!(check(&args).status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["verdict"], "leak");
    let suspects = report["suspects"].as_array().unwrap();
    let list = suspects.iter().find(|s| s["kind"] == "structure").expect("the growing list");
    assert_eq!(list["name"], "java.util.LinkedList");
    assert_eq!(list["key"], "structure:java.util.LinkedList static app.model.Registry.people");
    assert_eq!(list["path"], serde_json::json!(["static app.model.Registry.people"]));
    // One leak, one finding: the list comes first and holds the groups that grow in it.
    assert_eq!(suspects.len(), 1, "{report}");
    let first = &suspects[0];
    assert_eq!(first["kind"], "structure");
    assert!(first["growth_bytes"].as_i64().unwrap() > 20000 && first["retained_bytes"].as_u64().unwrap() > 0);
    let folded = first["folded"].as_array().unwrap();
    assert!(folded.iter().any(|s| s["name"] == "app.model.Person › app.model.Registry.register"), "{report}");
    // A list node is kept alive by the list: the path ends at it.
    let node = folded.iter().find(|s| s["key"].as_str().unwrap().contains("LinkedList$Node")).unwrap();
    assert_eq!(node["kind"], "group");
    // The list itself is held by a GC root, which the one-line summary names.
    let list =
        folded.iter().find(|s| s["name"] == "java.util.LinkedList › app.model.Registry.<clinit>").unwrap();
    assert_eq!(list["path"], serde_json::json!([]));
    assert_eq!(list["roots"], serde_json::json!(["Static Field app.model.Registry.people"]));
    let path = node["path"].as_array().unwrap();
    assert_eq!(
        path.last().and_then(|p| p.as_str()),
        Some("java.util.LinkedList › app.model.Registry.<clinit>"),
        "{node}"
    );
    // One failed test case per suspect, named by it.
    let xml = std::fs::read_to_string(&junit).unwrap();
    let (tests, failures) =
        (format!("tests=\"{}\"", suspects.len()), format!("failures=\"{}\"", suspects.len()));
    assert!(xml.starts_with("<?xml") && xml.contains(&tests) && xml.contains(&failures), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), suspects.len(), "{xml}");
    assert!(xml.contains("name=\"structure java.util.LinkedList\""), "{xml}");
    assert_eq!(xml.matches("<failure ").count(), suspects.len());
    assert!(xml.contains("type=\"structure\">static app.model.Registry.people\nholds "), "{xml}");
    // The same run against its own report: everything is known, so it passes.
    let passed = temp("passed.xml");
    let mut again = vec![
        "scenario:linked-list",
        "--baseline",
        json.to_str().unwrap(),
        "--junit",
        passed.to_str().unwrap(),
    ];
    again.extend(SMALL);
    let out = check(&again);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("known from the baseline"));
    // A pass is one passing test case, named by the input.
    let xml = std::fs::read_to_string(&passed).unwrap();
    let _ = std::fs::remove_file(&passed);
    assert!(
        xml.contains("tests=\"1\"")
            && xml.contains("failures=\"0\"")
            && xml.contains("name=\"scenario:linked-list\""),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");
    // Ignoring the leaking groups passes too.
    let mut ignoring = vec![
        "scenario:linked-list",
        "--ignore",
        "*Person*",
        "--ignore",
        "*LinkedList*",
        "--ignore",
        "char[]",
        "--ignore",
        "java.lang.String",
    ];
    ignoring.extend(SMALL);
    let out = check(&ignoring);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    for f in [json, junit] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn bad_input_exits_2_with_one_line() {
    refused(&["/nonexistent/dumps"], &["/nonexistent/dumps"]);
    let not_json = temp("baseline.txt");
    std::fs::write(&not_json, "hello").unwrap();
    refused(&["scenario:linked-list", "--baseline", not_json.to_str().unwrap()], &["not JSON"]);
    std::fs::write(&not_json, "{\"verdict\": \"pass\"}").unwrap();
    refused(
        &["scenario:linked-list", "--baseline", not_json.to_str().unwrap()],
        &["not the --json of memcity check"],
    );
    let _ = std::fs::remove_file(&not_json);
    refused(&["scenario:linked-list", "--junit", "/nonexistent/dir/junit.xml"], &["--junit"]);
    refused(&["scenario:linked-list", "--max-growth-percent", "NaN"], &["--max-growth-percent"]);
    let one = temp("one.json");
    let made = Command::new(MEMCITY)
        .args(["analyze", "--scenario", "linked-list", "--gcs", "1", "--out"])
        .arg(&one)
        .output()
        .unwrap();
    assert!(made.status.success());
    refused(&[one.to_str().unwrap()], &["at least two snapshots"]);
    let _ = std::fs::remove_file(&one);
}

/// The committed sample's first dump, uncompressed.
fn sample_dump() -> Vec<u8> {
    use std::io::Read;
    let gz = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/data/hprof/dump1.hprof.gz")).unwrap();
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(gz).read_to_end(&mut bytes).unwrap();
    bytes
}

fn refused(args: &[&str], needles: &[&str]) {
    let out = check(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}{err}", String::from_utf8_lossy(&out.stdout));
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
    }
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn broken_dumps_empty_folders_and_missing_files_exit_2() {
    let dir = temp("broken");
    std::fs::create_dir_all(&dir).unwrap();
    let dump = sample_dump();
    let (cut, corrupt) = (dir.join("cut.hprof"), dir.join("corrupt.hprof"));
    std::fs::write(&cut, &dump[..dump.len() / 3]).unwrap();
    // A record's length overwritten with garbage in the middle of the heap.
    let mut bad = dump.clone();
    bad[dump.len() / 2..dump.len() / 2 + 64].fill(0xA5);
    std::fs::write(&corrupt, &bad).unwrap();
    let whole = dir.join("whole.hprof");
    std::fs::write(&whole, &dump).unwrap();
    let (cut, corrupt, whole) = (cut.to_str().unwrap(), corrupt.to_str().unwrap(), whole.to_str().unwrap());
    refused(&[cut], &[cut, "truncated"]);
    refused(&[corrupt], &[corrupt]);
    // One bad dump in a series spoils it, and is named.
    refused(&[whole, cut], &[cut]);
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    refused(&[empty.to_str().unwrap()], &[empty.to_str().unwrap()]);
    let missing = dir.join("missing.hprof");
    refused(&[missing.to_str().unwrap()], &[missing.to_str().unwrap(), "cannot read"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_baselines_and_output_paths_exit_2() {
    let dir = temp("baselines");
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let linked = &[&["scenario:linked-list"][..], &SMALL].concat();
    let not_json = file("not.json", "{\"verdict\": \"leak\", \"suspects\": [");
    refused(&[&linked[..], &["--baseline", &not_json]].concat(), &[&not_json, "not JSON"]);
    let foreign = file(
        "foreign.json",
        r#"{"verdict":"leak","input":"other","suspects":[{"kind":"group","name":"Foo","key":"Heap#Type:com.other.Foo","path":[]},
            {"kind":"structure","name":"com.other.Bag","key":"structure:com.other.Bag static com.other.Main.bag","path":[]}]}"#,
    );
    refused(&[&linked[..], &["--baseline", &foreign]].concat(), &[&foreign, "the report of another program"]);
    let foreign = file(
        "structures.json",
        r#"{"verdict":"leak","input":"other","suspects":[{"kind":"structure","name":"com.other.Bag","key":"structure:com.other.Bag static com.other.Main.bag","path":[]}]}"#,
    );
    refused(&[&linked[..], &["--baseline", &foreign]].concat(), &["is a type of this input's groups"]);
    // A real report of one program (a scenario) against another's dumps, which group otherwise.
    let report = dir.join("linked.json");
    let mut args = linked.clone();
    args.extend(["--json", report.to_str().unwrap()]);
    assert_eq!(check(&args).status.code(), Some(1));
    let hprof = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hprof");
    refused(&[hprof, "--baseline", report.to_str().unwrap()], &["linked.json", "another program"]);
    // A baseline without suspects knows nothing, and is taken.
    let empty = file("pass.json", r#"{"verdict":"pass","input":"x","suspects":[]}"#);
    assert_eq!(check(&[&linked[..], &["--baseline", &empty]].concat()).status.code(), Some(1));
    // Output paths: a folder, a device, a folder that does not exist.
    let folder = dir.to_str().unwrap();
    refused(&[&linked[..], &["--json", folder]].concat(), &["--json", "is a folder"]);
    refused(&[&linked[..], &["--report", "/dev/null"]].concat(), &["--report", "not a regular file"]);
    refused(
        &[&linked[..], &["--json", "/nonexistent/dir/out.json"]].concat(),
        &["--json", "/nonexistent/dir"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
