//! Any bytes as an AntTracks pointer-map file of a snapshot folder: the reader returns a value or
//! an error, never panics or hangs (see memcity_model::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_model::fuzzing::anttracks_pointer_maps(data);
});
