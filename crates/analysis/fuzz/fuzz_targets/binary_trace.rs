//! Any bytes as a binary trace: the reader returns a value or an error, never panics or hangs (see
//! memcity_analysis::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_analysis::fuzzing::binary_trace(data);
});
