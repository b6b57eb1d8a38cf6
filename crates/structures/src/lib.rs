//! Data structures in a heap (docs/structures.md): a small language describes which types make
//! up a structure ([`lang`]); [`detect`] finds every instance of one in a heap, with its parts,
//! leaves, contained structures and sizes; [`growth`] compares the instances that survive a time
//! window and tells which of them grew, and how.

pub mod detect;
pub mod growth;
pub mod lang;

pub use detect::Sizes;
pub use detect::{Instance, Scratch, Structures, Warning, detect, unmatched};
pub use growth::{Delta, Growth, Measure, Pattern, Status, compare, pair};
pub use lang::{Descriptions, ParseError, builtin, load_path, parse};
