//! memcity's embedded analysis core (docs/design.md, "Analysis core"): replays a trace of memory events with its own
//! garbage collector, groups the live objects at every GC by a list of classifiers into a
//! history, with pointer maps, heap metrics and retained sizes; finds suspicious time windows;
//! and generates deterministic teaching scenarios.

pub mod check;
#[doc(hidden)]
pub mod fuzzing;
pub mod group;
pub mod heap;
pub mod replay;
pub mod scenarios;
pub mod suspects;
pub mod synthetic;
pub mod trace;
pub mod windows;

pub use memcity_heapgraph::{Classifier, RootKind, parse_list};
pub use replay::{Grouping, default_grouping, replay};
pub use trace::{Event, Op, Trace, TraceError, read_binary_trace, read_trace};
