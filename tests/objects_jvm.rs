//! Inside a live JVM's leak (tests/java/TravelApp.java): a ConcurrentHashMap keyed by a class
//! without equals/hashCode grows with keys equal by value (10 cities × 3 days), beside a
//! HashMap of bookings that grows with distinct keys. `structures` and `check` name the
//! `duplicate-keys` cause on the cache only; the fixed program (keys with equals/hashCode)
//! has none. `objects` reads every key's city and day exactly as the program set them, a
//! UTF-16 city included, and prints a hostile one escaped. Skipped where no JDK is installed,
//! unless MEMCITY_REQUIRE_JVM=1 or CI=1.

mod common;
use common::{record_java, tools_present};

use std::process::{Command, Output};

const MEMCITY: &str = env!("CARGO_BIN_EXE_memcity");
const CACHE: &str = "static TravelApp.SERVICE .locationCache";
const BOOKINGS: &str = "static TravelApp.SERVICE .bookings";
const CITIES: [&str; 10] = [
    "Linz",
    "Graz",
    "Wien",
    "Salzburg",
    "Innsbruck",
    "Łódź",
    "Kraków",
    "Brno",
    "Bratislava",
    "Evil\u{1b}]0;PWNED\u{7}\u{1b}[31m</script>",
];
/// Lookups per phase; three phases.
const LOOKUPS: u64 = 2_000;

/// 6000 → "6,000", as memcity writes counts.
fn thousands(n: u64) -> String {
    if n >= 1000 { format!("{},{:03}", n / 1000, n % 1000) } else { n.to_string() }
}

fn memcity(args: &[&str], series: &std::path::Path) -> Output {
    let out = Command::new(MEMCITY).arg(args[0]).arg(series).args(&args[1..]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    out
}

fn json(args: &[&str], series: &std::path::Path) -> serde_json::Value {
    let out = memcity(args, series);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The instance of `structures --json` at `path`.
fn instance<'a>(report: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    let all = report["instances"].as_array().unwrap();
    all.iter().find(|i| i["identity"] == path).unwrap_or_else(|| panic!("no {path}"))
}

fn series(name: &str, args: &[&str]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-objects-jvm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    record_java(&dir, "TravelApp", args, 3)
}

#[test]
fn keys_equal_by_value_are_named_as_the_cause_and_read_back_exactly() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let leak = series("leak", &[&LOOKUPS.to_string()]);
    let report = json(&["structures", "--top", "0", "--json"], &leak);
    let cache = instance(&report, CACHE);
    assert_eq!(cache["type"], "java.util.concurrent.ConcurrentHashMap");
    let keys = 3 * LOOKUPS;
    let message = format!(
        "{} keys of TravelApp$QueryKey, 30 distinct by value: does TravelApp$QueryKey define equals and hashCode?",
        thousands(keys)
    );
    assert_eq!(
        cache["causes"],
        serde_json::json!([{"kind": "duplicate-keys", "type": "TravelApp$QueryKey", "keys": keys, "distinct": 30,
                            "message": message}])
    );
    // The bookings grew too, with distinct keys: no cause.
    let bookings = instance(&report, BOOKINGS);
    assert!(bookings["objects_end"].as_u64() > bookings["objects_start"].as_u64(), "{bookings}");
    assert_eq!(bookings["causes"], serde_json::json!([]));

    // The cache's entries, read from the last dump: every key as the program made it.
    let found = json(&["objects", "--structure", CACHE, "--entries", "100", "--json"], &leak);
    assert_eq!(found["target"]["entries"], keys);
    let entries = found["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 100);
    let mut seen = std::collections::BTreeSet::new();
    for e in entries {
        let fields = e["key"]["fields"].as_array().unwrap();
        let get = |name: &str| &fields.iter().find(|f| f["name"] == name).unwrap()["value"];
        let (city, day) = (get("city").as_str().unwrap(), get("day").as_u64().unwrap());
        assert!(CITIES.contains(&city) && day < 3, "{city:?} {day}");
        // The value the program stored under it: the city's text and the day.
        assert_eq!(e["value"]["value"], format!("{city}#{day}"));
        seen.insert(city.to_string());
    }
    assert!(seen.contains("Łódź") && seen.contains(CITIES[9]), "{seen:?}");
    // Around the map: its path from a GC root is its field path, and the field holds it.
    let head = &found["objects"][0];
    assert_eq!(head["path"], CACHE, "{head}");
    assert!(head["referrer_count"].as_u64() >= Some(1), "{head}");
    let referrers = head["referrers"].as_array().unwrap();
    assert!(referrers.iter().any(|r| r["field"] == ".locationCache"), "{referrers:?}");
    // In the terminal the hostile city is escaped: no control byte but newline reaches it.
    let out = memcity(&["objects", "--structure", CACHE, "--entries", "100"], &leak);
    assert!(out.status.success());
    let bad: Vec<u8> = out.stdout.iter().copied().filter(|&b| b < 0x20 && b != b'\n').collect();
    assert!(bad.is_empty(), "control bytes {bad:?} in {}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Łódź"));

    // The leak gate names the cache with its cause (three dumps: two steps, each of a few
    // hundred kilobytes).
    let out = memcity(&["check", "--min-steps", "2", "--max-growth-bytes", "100000"], &leak);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // One leak, one finding: the cache's line comes first, the groups growing in it below.
    let line = text.lines().next().unwrap_or_default();
    assert!(line.starts_with("LEAK structure java.util.concurrent.ConcurrentHashMap: "), "{text}");
    assert!(line.contains(&format!("held by {CACHE}; duplicate-keys: {message}")), "{line}");
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("  holds ")), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("  holds (default package) › TravelApp$QueryKey: ")),
        "{text}"
    );
    // Neither map ever drops an entry: both are caches without eviction, by their counts.
    let unbounded = format!(
        "unbounded-cache: {} → {} entries over 3 snapshots, never fewer",
        thousands(LOOKUPS),
        thousands(keys)
    );
    assert!(line.contains(&unbounded), "{line}");
    let bookings =
        text.lines().find(|l| l.contains(&format!("held by {BOOKINGS}"))).unwrap_or_else(|| panic!("{text}"));
    assert!(bookings.contains(&unbounded) && !bookings.contains("duplicate-keys"), "{bookings}");
}

#[test]
fn the_fixed_program_has_no_cause() {
    if !tools_present(&["java", "javac", "jcmd"], "-version", "MEMCITY_REQUIRE_JVM") {
        return;
    }
    let fixed = series("fixed", &[&LOOKUPS.to_string(), "fixed"]);
    let report = json(&["structures", "--top", "0", "--json"], &fixed);
    let all = report["instances"].as_array().unwrap();
    assert!(all.iter().all(|i| i["causes"] == serde_json::json!([])), "a cause in the fixed program");
    let found = json(&["objects", "--structure", CACHE, "--json"], &fixed);
    assert_eq!(found["target"]["entries"], 30, "one key per city and day");
    // The bookings still grow, with distinct keys: a leak, with no duplicate keys.
    let bookings = json(&["objects", "--structure", BOOKINGS, "--entries", "3", "--json"], &fixed);
    assert_eq!(bookings["target"]["entries"], 3 * LOOKUPS);
    let key = &bookings["entries"][0]["key"];
    assert_eq!(key["type"], "java.lang.Long");
    let booking = key["value"].as_u64().unwrap();
    assert_eq!(bookings["entries"][0]["value"]["value"], format!("booking-{booking}"));
    let out = memcity(&["check", "--min-steps", "2", "--max-growth-bytes", "100000"], &fixed);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(BOOKINGS) && !text.contains("duplicate-keys"), "{text}");
}
