//! `memcity check --baseline FILE`: a previous run's `--json`, whose findings do not fail
//! again. A file that is not such a report, or the report of another program, is refused in
//! one line: a baseline that silently matched nothing would let every old leak fail (or, read
//! wrongly, hide new ones).

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use memcity_model::Timeline;
use serde_json::Value;

/// The findings a previous run reported.
pub struct Baseline {
    path: PathBuf,
    suspects: Vec<Known>,
}

struct Known {
    key: String,
    /// A data structure's type (its `name`); `None` for a group.
    structure_type: Option<String>,
}

impl Baseline {
    /// Reads a previous run's `--json`.
    pub fn read(path: &Path) -> Result<Baseline> {
        let shown = path.display();
        let text = crate::cli::paths::read_small_file(path, "--baseline", 64 << 20)?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| anyhow!("--baseline {shown}: not JSON: {e}"))?;
        let not_ours = |why: &str| anyhow!("--baseline {shown}: {why}: not the --json of memcity check");
        let suspects = value
            .get("suspects")
            .and_then(Value::as_array)
            .ok_or_else(|| not_ours("no \"suspects\" list"))?;
        // A structure's folded groups (its detail) are known as the groups they are.
        let folded = suspects.iter().filter_map(|s| s.get("folded").and_then(Value::as_array)).flatten();
        let suspects = suspects
            .iter()
            .chain(folded)
            .map(|s| {
                let key = s
                    .get("key")
                    .and_then(Value::as_str)
                    .ok_or_else(|| not_ours("a suspect without a \"key\""))?;
                let structure = s.get("kind").and_then(Value::as_str) == Some("structure");
                let name = s.get("name").and_then(Value::as_str);
                Ok(Known {
                    key: key.to_string(),
                    structure_type: structure.then(|| name.unwrap_or("").to_string()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Baseline { path: path.to_path_buf(), suspects })
    }

    /// Refuses the report of another program: where the baseline has group suspects, when
    /// none of them is a group of this input (a group's key names the grouping, the type and
    /// the allocation site: a close fingerprint); where it has only data structures, when none
    /// of their types is the name of a group here (every Java program has a HashMap, so that
    /// is all a type can tell). A baseline without suspects knows nothing and is taken.
    pub fn check_against(&self, timeline: &Timeline) -> Result<()> {
        let groups: Vec<&Known> = self.suspects.iter().filter(|k| k.structure_type.is_none()).collect();
        let ours = match groups.is_empty() {
            false => groups.iter().any(|k| timeline.group(&k.key).is_some()),
            true => self
                .suspects
                .iter()
                .filter_map(|k| k.structure_type.as_ref())
                .any(|ty| timeline.groups.iter().any(|g| &g.name == ty)),
        };
        if self.suspects.is_empty() || ours {
            return Ok(());
        }
        let (what, first) = match groups.first() {
            Some(k) => ("group of this input", &k.key),
            None => ("type of this input's groups", &self.suspects[0].key),
        };
        Err(anyhow!(
            "--baseline {}: none of its {} suspect(s) is a {what} (the first: {first:?}): the report of another program",
            self.path.display(),
            self.suspects.len(),
        ))
    }

    /// Whether the baseline already reported the finding with this key.
    pub fn knows(&self, key: &str) -> bool {
        self.suspects.iter().any(|k| k.key == key)
    }
}
