//! memcity's data model (docs/design.md, "Data model" and "Meta trees"): a history of grouping trees with pointer maps and heap
//! metrics; readers for `memcity/1`, snapshot folders and AntTracks' export; the writer; the
//! rules a history must follow; and the meta trees (max, growth) the city is laid out from.

pub mod compare;
pub mod diff;
pub mod error;
pub mod escape;
#[doc(hidden)]
pub mod fuzzing;
pub mod history;
pub mod limits;
pub mod meta;
pub mod names;
pub mod read;
pub mod synthetic;
pub mod time;
pub mod units;
pub mod validate;
pub mod write;

pub use error::LoadError;
pub use history::{
    FORMAT, HeapMetrics, History, MetricNames, Node, PointerMap, RetainerPath, RetainerStep, Snapshot,
    reference_path,
};
pub use meta::{Group, Growth, Metric, Pointers, Timeline, Values};
pub use read::{attach_anttracks_pointer_maps, load_bytes, load_file, load_folder, load_path};
pub use validate::{validate_append, validate_history};
pub use write::{save_history, write_history};
