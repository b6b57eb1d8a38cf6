//! memcity's V8 heap snapshot reader: `.heapsnapshot` files from Node (`v8.writeHeapSnapshot()`,
//! `--heapsnapshot-signal`, `--heapsnapshot-near-heap-limit`), Chromium and Electron DevTools,
//! plain or gzipped, become a history through the one heap pipeline; [`cdp`] takes them from a
//! running program over the Chrome DevTools Protocol.
//!
//! A snapshot is read in one streaming pass ([`read`]): its text is never held, the node and
//! edge arrays go straight into compact tables, and sizes are bounded by what the file holds.
//! See docs/javascript.md for how V8's nodes, edges and roots map onto the heap graph.

pub mod cdp;
pub mod error;
pub mod fuzzing;
pub mod graph;
pub mod import;
pub mod json;
pub mod live;
pub mod meta;
pub mod names;
pub mod read;
pub mod recorder;
pub mod source;
pub mod strings;
pub mod tables;
pub mod trace;
pub mod typed;
pub mod values;

pub use error::V8Error;
pub use import::{DEFAULT_CLASSIFIERS, closure_of, default_grouping, import, import_one};
pub use memcity_heapgraph::Grouping;
pub use read::{RawHeap, ReadOptions};
pub use source::{is_snapshot_file, is_snapshot_name, is_snapshots};
pub use typed::{TypedSnapshot, typed_heap};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_malformed;
