//! Any bytes as a heap file (.mcheap): the reader returns a heap or an error, never panics or
//! hangs, and an accepted heap goes through the whole pipeline (see memcity_heapfile::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_heapfile::fuzzing::heap_file(data);
});
