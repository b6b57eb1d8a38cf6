//! Any bytes as a V8 heap snapshot's text: the reader returns a heap or an error, never panics
//! or hangs, and an accepted heap goes through the whole pipeline (see memcity_v8::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_v8::fuzzing::snapshot(data);
});
