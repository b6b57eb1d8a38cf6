//! Data structures in a heap (docs/structures.md): a small language describes which types make
//! up a structure ([`lang`]); [`detect`] finds every instance of one in a heap, with its parts,
//! leaves, contained structures and sizes; [`measure`] turns one heap's instances into plain
//! numbers; [`growth`] compares the instances that survive a time
//! window and tells which of them grew, and how; [`report`] is one window measured and ranked
//! as the command line and the app show it; [`series`] follows every instance's retained size
//! over a run, for the leak gate; [`city`] groups a heap's objects by the
//! structures that contain them (the classifiers `containing-structure` and `leaf`, and the
//! data-structure view).

mod brief;
pub mod causes;
pub mod city;
pub mod detect;
pub mod entries;
pub mod fold;
pub mod growth;
pub mod heads;
pub mod lang;
pub mod measure;
pub mod objects;
pub mod report;
pub mod series;
pub mod unbounded;
pub mod waste;

pub use causes::{Cause, causes_at_paths, duplicate_keys, listed_causes, may_have_causes};
pub use city::{CityBuilder, Keep, Membership, Unsupported, View};
pub use detect::Sizes;
pub use detect::{CollectionTypes, Instance, Scratch, Structures, Warning, detect, unmatched};
pub use entries::{Entry, Roles, Slot, entries};
pub use growth::{
    Delta, Growth, InstanceGrowth, LeafChange, Measure, Pattern, SortBy, Status, Window, compare, growth_of,
    pair, rank, window,
};
pub use heads::{HeadRetained, HeapHeads, heads_retained};
pub use lang::{Descriptions, ParseError, Role, RoleKind, Step, builtin, load_path, parse};
pub use measure::{
    HeapStructures, InstanceKey, InstanceMeasure, LeafKey, Options, PATH_STEPS, fill_deep, heap_bytes,
    measure, measure_with,
};
pub use objects::{Inspection, LookError, Target, look};
pub use report::{FATES_SHOWN, Report, objects_held, report, types_held};
pub use series::{RetainedSeries, Tracked};
