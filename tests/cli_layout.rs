//! `memcity layout` end to end: the city.json it writes, and its errors on bad input.

use std::process::Command;

fn memcity(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("memcity-cli-{}-{name}", std::process::id()))
}

#[test]
fn layout_writes_city_json_for_every_input_format() {
    for input in ["data/sample-leak.json", "data/sample-leak-folder", "data/sample-leak-anttracks"] {
        let out = temp("city.json");
        let o = memcity(&[
            "layout",
            input,
            "--out",
            out.to_str().unwrap(),
            "--metric",
            "bytes",
            "--children",
            "3",
        ]);
        assert!(o.status.success(), "{input}: {}", String::from_utf8_lossy(&o.stderr));
        let city: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(city["settings"]["metric"], "bytes");
        assert_eq!(city["frames"].as_array().unwrap().len(), 8);
        let buildings = city["buildings"].as_array().unwrap();
        assert!(buildings.len() <= 3 * 3 && !buildings.is_empty());
        let last = &city["frames"][7]["buildings"];
        let red = last.as_array().unwrap().iter().filter(|b| b["color"][0].as_f64().unwrap() > 0.85).count();
        assert!(red >= 1, "{input}: the leak ends red");
        for f in city["frames"].as_array().unwrap() {
            for (b, fb) in buildings.iter().zip(f["buildings"].as_array().unwrap()) {
                assert_eq!(b["key"], fb["key"]);
                let r = &b["reserved"];
                let cx = r["x"].as_f64().unwrap() + r["w"].as_f64().unwrap() / 2.0;
                let fx = fb["x"].as_f64().unwrap() + fb["w"].as_f64().unwrap() / 2.0;
                assert!((cx - fx).abs() < 1e-6, "buildings never move");
            }
        }
        std::fs::remove_file(out).unwrap();
    }
}

#[test]
fn layout_rejects_bad_input_with_one_line_naming_it() {
    let bad = temp("bad.json");
    std::fs::write(&bad, r#"{"format": "memcity/1", "snapshots": [{"time_ms": 1, "tree": {"key": "Heap", "name": "Heap", "objects": -1, "bytes": 0}}]}"#).unwrap();
    let out = temp("never.json");
    for (args, needle) in [
        (vec!["layout", bad.to_str().unwrap()], "snapshots[0].tree.objects"),
        (vec!["layout", "data/does-not-exist.json"], "does-not-exist.json: cannot read"),
        (vec!["layout", "data/sample-leak.json", "--opacity", "1.5"], "--opacity 1.5 is outside 0..1"),
        (vec!["layout", "data/sample-leak.json", "--area", "cubic"], "unknown area mode \"cubic\""),
        (vec!["layout", "data/sample-leak.json", "--children", "0"], "--children must be at least 1"),
    ] {
        let mut args = args.clone();
        args.extend(["--out", out.to_str().unwrap()]);
        let o = memcity(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} must fail");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!out.exists(), "nothing written on error");
    }
    std::fs::remove_file(bad).unwrap();
}
