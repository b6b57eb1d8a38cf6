//! Any bytes as one WebSocket message: the reader returns a value or an error, never panics or
//! hangs (see memcity_wire::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_wire::fuzzing::message(data);
});
