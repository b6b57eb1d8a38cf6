//! Hostile and impossible input through the CLI: every refusal is one clear line and a non-zero
//! exit, before any work starts and without blocking; deep valid trees go through end to end.

mod common;
use common::refused;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs memcity, killing it (and failing) if it takes longer than 60 s: nothing may block.
fn memcity(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("memcity {args:?} blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn deep_trees_lay_out_end_to_end() {
    for depth in [1_000, 10_000] {
        let input = temp(&format!("deep-{depth}.json"));
        std::fs::write(&input, memcity_model::synthetic::deep_document(depth)).unwrap();
        let out = temp(&format!("deep-{depth}-city.json"));
        let o = memcity(&["layout", input.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{depth}: {}", String::from_utf8_lossy(&o.stderr));
        let city: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(city["districts"].as_array().unwrap().len(), depth - 1, "{depth}");
        assert_eq!(city["buildings"].as_array().unwrap().len(), 1, "{depth}");
    }
}

#[cfg(unix)]
#[test]
fn fifos_are_refused_not_read() {
    let fifo = temp("pipe.json");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let path = fifo.to_str().unwrap();
    let out = temp("fifo-out.json");
    let out = out.to_str().unwrap();
    refused(&["layout", path, "--out", out], "not a regular file or folder");
    refused(&["analyze", "--trace", path, "--out", out], "not a regular file or folder");
    let dump = temp("pipe.hprof");
    let _ = std::fs::remove_file(&dump);
    assert!(Command::new("mkfifo").arg(&dump).status().unwrap().success());
    refused(&["import", dump.to_str().unwrap(), "--out", out], "not a regular file");
}

#[test]
fn output_paths_are_checked_before_work_starts() {
    let dir = temp("a-folder");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.to_str().unwrap();
    let missing = temp("no/such/folder/city.json");
    let missing = missing.to_str().unwrap();
    refused(&["layout", "scenario:churn", "--out", dir], "--out");
    refused(&["layout", "scenario:churn", "--out", missing], "does not exist");
    refused(&["analyze", "--scenario", "churn", "--out", dir], "is a folder");
    refused(&["trace", "--scenario", "churn", "--out", missing], "does not exist");
    refused(&["import", "data/hprof", "--out", dir], "is a folder");
    refused(&["serve", "127.0.0.1:0", "--save", dir], "--save");
    refused(&["--screenshot", dir, "scenario:churn"], "--screenshot");
    refused(&["--screenshot", missing, "scenario:churn"], "does not exist");
}

#[test]
fn impossible_flag_values_are_refused_at_parse_time() {
    refused(&["import", "data/hprof", "--object-header", "18446744073709551615"], "not in 4..=64");
    refused(&["serve", "--max-clients", "0"], "not in 1..=4096");
    refused(&["serve", "--max-memory-mib", "0"], "--max-memory-mib");
    refused(&["serve", "--idle-timeout-s", "0"], "--idle-timeout-s");
    refused(&["analyze", "--synthetic", "10000000000"], "not in 1..=50000000");
    refused(&["analyze", "--scenario", "churn", "--gcs", "1000000000000"], "--gcs");
    refused(&["--tab", "3", "scenario:churn"], "--tab picks a tab of an AntTracks server");
    refused(&["--listen", "127.0.0.1:0", "--time", "0"], "the city starts empty");
}

#[test]
fn sizes_that_would_wrap_are_refused() {
    let trace = temp("wrap.jsonl");
    let max = u64::MAX;
    std::fs::write(
        &trace,
        format!(
            "{{\"e\":\"alloc\",\"id\":1,\"type\":\"A\",\"size\":{max}}}\n\
             {{\"e\":\"alloc\",\"id\":2,\"type\":\"A\",\"size\":{max}}}\n\
             {{\"e\":\"gc\",\"id\":1,\"start\":0,\"end\":1}}\n"
        ),
    )
    .unwrap();
    refused(
        &["analyze", "--trace", trace.to_str().unwrap()],
        "line 2: object 2 of 18446744073709551615 bytes would make the heap hold more than",
    );
}

#[test]
fn a_gzip_bomb_is_refused_quickly() {
    use std::io::Write;
    let bomb = temp("bomb.hprof.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        encoder.write_all(&zeros).unwrap();
    }
    std::fs::write(&bomb, encoder.finish().unwrap()).unwrap();
    let started = Instant::now();
    refused(
        &["import", bomb.to_str().unwrap(), "--out", temp("bomb.json").to_str().unwrap()],
        "JAVA PROFILE",
    );
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
}

/// Gzip data of `head` followed by `zeros` zero bytes (written in a stream: never whole).
fn gzip_with_zeros(head: &[u8], zeros: u64, tail: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(head).unwrap();
    let block = vec![0u8; 1 << 20];
    let mut left = zeros;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        encoder.write_all(&block[..n]).unwrap();
        left -= n as u64;
    }
    encoder.write_all(tail).unwrap();
    encoder.finish().unwrap()
}

const HPROF_HEADER: &[u8] = b"JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\x01\x8b\xcf\xe8\x80\0";

/// A real dump that compresses over 200 times (a 300 MiB byte array of zeros) opens (the ratio
/// refused it before). A dump past --max-inflated-gib is refused in one line that names the
/// budget.
#[test]
fn compressed_dumps_are_bounded_by_the_budget_not_the_ratio() {
    let length: u32 = 300 << 20;
    // A heap dump segment holding one byte[length], then HEAP DUMP END.
    let mut array = vec![0x23];
    array.extend(0x1000u64.to_be_bytes());
    array.extend(0u32.to_be_bytes());
    array.extend(length.to_be_bytes());
    array.push(8);
    let mut head = HPROF_HEADER.to_vec();
    head.push(0x1C);
    head.extend(0u32.to_be_bytes());
    head.extend((array.len() as u32 + length).to_be_bytes());
    head.extend(&array);
    let end = [0x2C, 0, 0, 0, 0, 0, 0, 0, 0];
    let gz = gzip_with_zeros(&head, length.into(), &end);
    // More than twice the ratio that used to refuse dumps as gzip bombs (100).
    assert!(gz.len() * 200 < length as usize, "{} bytes", gz.len());
    let dump = temp("zeros.hprof.gz");
    std::fs::write(&dump, gz).unwrap();
    let out = temp("zeros.json");
    let run = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["import", dump.to_str().unwrap(), "--out", out.to_str().unwrap(), "--no-retained"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let history = std::fs::read_to_string(&out).unwrap();
    assert!(
        history.contains("[B") && history.contains(&(length as u64 + 16).to_string()),
        "the byte[] and its size"
    );

    // A string record of 4 GiB of zeros: refused at 1 GiB.
    let mut head = HPROF_HEADER.to_vec();
    head.extend([0x01, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    let bomb = temp("string.hprof.gz");
    std::fs::write(&bomb, gzip_with_zeros(&head, (1 << 30) + (1 << 20), &[])).unwrap();
    refused(
        &["import", bomb.to_str().unwrap(), "--out", out.to_str().unwrap(), "--max-inflated-gib", "1"],
        "inflates to more than 1 GiB, the budget for one dump: refused (raise it with --max-inflated-gib N",
    );
}

#[test]
fn a_layout_file_that_is_no_layout_is_one_line() {
    let shot = temp("layout-shot.png");
    let shot = shot.to_str().unwrap();
    let missing = temp("no-such-layout.json");
    refused(&["--layout", missing.to_str().unwrap(), "--screenshot", shot], "--layout ");
    let garbage = temp("garbage-layout.json");
    std::fs::write(&garbage, "{\"memcity_layout\": 1, \"dock\": [\x1b[31m]}").unwrap();
    refused(&["--layout", garbage.to_str().unwrap(), "--screenshot", shot], "not a memcity layout file");
    assert!(!std::path::Path::new(shot).exists(), "nothing rendered");
}

#[test]
fn a_reader_that_goes_away_is_no_panic() {
    // `memcity structures` prints through the same `say!` as every command.
    use std::io::{BufRead, BufReader};
    // More than a pipe holds (130 kB), so the writer meets the closed pipe.
    let mut child = Command::new(env!("CARGO_BIN_EXE_memcity"))
        .args(["structures", "data/hprof", "--top", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The pipe's reader is gone (as with `| head -1`).
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(first.starts_with("GC 0 → 2"), "{first}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{err}");
}

/// Asserts a refusal of the tour of linked-list rendered to `shot` with `extra` arguments.
fn refused_tour(shot: &str, extra: &[&str], needle: &str) {
    refused(&[&["--tour", "linked-list", "--screenshot", shot][..], extra].concat(), needle);
}

#[test]
fn tour_steps_and_the_ui_state_file_are_checked_before_the_window_opens() {
    let shot = temp("step-shot.png");
    let shot = shot.to_str().unwrap();
    let missing = temp("no/such/folder/state.json");
    let missing = missing.to_str().unwrap();
    refused_tour(shot, &["--step", "0"], "--step 0: steps count from 1");
    refused_tour(shot, &["--step", "7"], "--step 7: the tour of linked-list has 6 steps (1-6)");
    refused_tour(shot, &["--step", "2-9"], "has 6 steps");
    refused_tour(shot, &["--step", "4-2"], "the first step is after the last");
    refused_tour(shot, &["--step", "two"], "is not N or A-B");
    refused(&["--step", "2", "--screenshot", shot], "--step 2 is a step of a tour: give --tour NAME too");
    refused(&["--tour", "linked-list", "--step", "2-4"], "give --screenshot PNG too");
    refused_tour(shot, &["--ui-state", missing], "--ui-state");
    refused_tour(shot, &["--ui-state", missing], "does not exist");
    refused(&["scenario:churn", "--ui-state", "state.json"], "give --screenshot PNG too");
    assert!(!std::path::Path::new(shot).exists(), "nothing rendered");
}
