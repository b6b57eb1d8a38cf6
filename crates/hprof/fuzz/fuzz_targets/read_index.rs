//! Any bytes as a memcity index of a dump: refused with an error or read and grouped, never a
//! panic or an allocation beyond the bytes given.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_hprof::fuzzing::read_index(data);
});
