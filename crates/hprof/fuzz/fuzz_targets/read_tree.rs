//! Any bytes as the dominator tree kept beside a dump's index: refused with an error, or read
//! and grouped with, never a panic or an allocation beyond the bytes given.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    memcity_hprof::fuzzing::read_tree(data);
});
