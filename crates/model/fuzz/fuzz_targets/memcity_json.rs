//! Any bytes as a memcity/1 file, one snapshot or an AntTracks tree export: the reader returns a
//! value or an error, never panics or hangs (see memcity_model::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_model::fuzzing::memcity_json(data);
});
