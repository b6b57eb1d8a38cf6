//! Any bytes: the reader returns a dump or an error, never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memcity_hprof::{Layout, SnapshotOptions, build_snapshot, read_dump_bytes};

fuzz_target!(|data: &[u8]| {
    if let Ok(dump) = read_dump_bytes(data, "fuzz.hprof", &Layout::default(), &|_| {}) {
        build_snapshot(dump, "fuzz", &SnapshotOptions::default());
    }
});
