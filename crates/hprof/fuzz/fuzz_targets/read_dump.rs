//! Any bytes as an HPROF dump: the reader returns a dump or an error, never panics or hangs, and
//! an accepted dump goes through the whole pipeline (see memcity_hprof::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_hprof::fuzzing::read_dump(data);
});
