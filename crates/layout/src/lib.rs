//! memcity's city: a squarified treemap over the max tree (computed once per history and
//! setting), per-snapshot frames, reference frustums and picking. Pure functions over plain data.

pub mod city;
pub mod compare;
pub mod export;
pub mod frame;
pub mod partition;
pub mod pick;
pub mod references;
pub mod retainers;
pub mod squarify;

pub use city::{AreaMode, Building, CityLayout, District, GrowthScale, Settings, layout, relayout};
pub use compare::CompareView;
pub use frame::{BuildingState, Frame, frame, frames};
pub use squarify::Rect;
