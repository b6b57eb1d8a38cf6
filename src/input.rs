//! Turns what the user names on the command line into a history: a file or folder in any
//! format the model reads, a built-in scenario (`scenario:NAME`), or a series of heap dumps.

use anyhow::Result;
use memcity_model::History;

/// What the app opens when no input is given.
pub const DEFAULT_INPUT: &str = "scenario:linked-list";

/// Loads `spec` completely or not at all.
pub fn load(spec: &str) -> Result<History> {
    if let Some(name) = spec.strip_prefix("scenario:") {
        return scenario(name);
    }
    Ok(memcity_model::load_path(std::path::Path::new(spec))?)
}

/// A built-in scenario with its default seed and size, grouped by type → allocation site.
fn scenario(name: &str) -> Result<History> {
    use memcity_analysis::scenarios;
    let scenario = scenarios::find(name).ok_or_else(|| {
        anyhow::anyhow!("unknown scenario `{name}` in `scenario:{name}` (known: {})", scenarios::names())
    })?;
    Ok(scenario.history(&scenarios::Params::default(), memcity_analysis::ReplayOptions::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_input_is_the_linked_list_scenario() {
        let history = load(DEFAULT_INPUT).unwrap();
        assert_eq!(history.snapshots.len(), 30);
        assert!(history.snapshots[0].points_to.len() > 1);
    }

    #[test]
    fn unknown_scenarios_are_named_in_the_error() {
        let err = load("scenario:nope").unwrap_err().to_string();
        assert!(err.contains("unknown scenario `nope`") && err.contains("linked-list"), "{err}");
    }
}
