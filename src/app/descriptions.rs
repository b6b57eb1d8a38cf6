//! The data-structure descriptions the app detects instances with (built-in and
//! `--structures`): one resource that the Data structures, Ownership and Objects tabs read.

use std::sync::Arc;

use bevy::prelude::*;
use memcity_structures::Descriptions;

/// The descriptions instances are detected with: the built-in ones and the user's.
#[derive(Resource, Clone)]
pub struct StructureDescriptions(pub Arc<Descriptions>);

impl Default for StructureDescriptions {
    fn default() -> Self {
        StructureDescriptions(Arc::new(memcity_structures::builtin()))
    }
}
