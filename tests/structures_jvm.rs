//! `memcity structures` on a live JVM (tests/java/CacheLeak.java): a search cache whose key
//! lacks equals/hashCode grows among 2,000 small maps that do not; dumps taken with `memcity
//! record` at the program's pauses. The cache comes first by retained HGP (≥ 50 %), named by
//! its field, and the small maps are non-growth. Skipped where no JDK is installed, unless
//! MEMCITY_REQUIRE_JVM=1 or CI=1.

mod common;
use common::{record_java, run, tools_present};

use std::process::Command;

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");

#[test]
fn the_leaking_cache_is_one_map_among_thousands() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-structures-jvm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let series = record_java(&dir, "CacheLeak", &["20000"], 3);

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

/// The data-structure view of the same program (docs/structures.md, "The data-structure
/// city"): one building per top-level structure, the cache the one that keeps the most alive.
#[test]
fn in_the_structure_view_the_cache_is_the_building_that_holds_the_heap() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("memcity-structure-view-jvm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let series = record_java(&dir, "CacheLeak", &["20000"], 3);
    let out = dir.join("view.json");
    run(Command::new(MEMCITY)
        .arg("import")
        .arg(&series)
        .args(["--structure-view", "identity", "--out"])
        .arg(&out));
    let history = memcity_model::load_path(&out).unwrap();
    let last = history.snapshots.last().unwrap();
    let mut buildings = Vec::new();
    last.tree.walk(&mut |n, _| {
        if n.children.is_empty() {
            buildings.push((n.retained_bytes.unwrap_or(0), n.name.clone(), n.objects));
        }
    });
    buildings.sort_by(|a, b| b.cmp(a));
    let (retained, name, objects) = &buildings[0];
    assert_eq!(name, "java.util.HashMap static CacheLeak.SERVICE .cache", "{:?}", &buildings[..3]);
    assert_eq!(*objects, 1, "the cache's head alone");
    let heap = last.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap();
    assert!(*retained * 4 > heap, "the cache retains {retained} of {heap} bytes");
    // Its path reads through the service object, which has no building.
    let key = format!("Heap#Type:java.util.HashMap#Containing Structure:{name}");
    assert_eq!(last.retainers[&key].reference_path().as_deref(), Some("static CacheLeak.SERVICE .cache"));
    // The 2,000 handlers' small maps are buildings of their own, each holding little.
    let counters = buildings.iter().filter(|b| b.1.ends_with(".counters")).count();
    assert!(counters >= 2000, "{counters} counter maps");
    let _ = std::fs::remove_dir_all(&dir);
}
