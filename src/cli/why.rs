//! `memcity why`: the retainer path of one group — the chain of groups that keep its objects
//! alive, from the group up to the GC roots.

use anyhow::{Result, anyhow, bail};
use memcity_model::{History, Node, RetainerPath, Snapshot};
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct WhyArgs {
    /// What to open: anything `memcity` opens (history file or folder, heap dumps, a trace,
    /// scenario:NAME).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The leaf group's key, e.g. `Heap#Type:char[]#Allocation Site:java.lang.String.<init>`.
    #[arg(long)]
    pub key: String,
    /// The snapshot (0-based; default the last).
    #[arg(long)]
    pub time: Option<usize>,
    /// Print a JSON array of steps, from the group itself to the root.
    #[arg(long)]
    pub json: bool,
}

/// One step as `--json` prints it.
#[derive(Debug, Serialize, PartialEq)]
pub struct Step {
    pub key: String,
    pub name: String,
    pub objects: u64,
    pub bytes: u64,
    pub retained_bytes: u64,
    /// Retained bytes as a share of the snapshot's heap.
    pub heap_share: f64,
    /// On the last step: the GC root kinds that hold it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<String>>,
    /// How one object of this step is referenced from the next step's (`.next`, `[3]`); on the
    /// last step, its root holder where known (`static app.Registry.people`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

pub fn run(args: WhyArgs) -> Result<()> {
    let history = crate::input::load_all(&args.inputs, &memcity_heapgraph::Silent)?;
    let steps = steps(&history, &args.key, args.time)?;
    if args.json {
        say!("{}", serde_json::to_string_pretty(&steps)?);
    } else {
        say_raw!("{}", text(&steps));
    }
    Ok(())
}

/// The retainer path of `key` at snapshot `time` (default the last), named and measured.
pub fn steps(history: &History, key: &str, time: Option<usize>) -> Result<Vec<Step>> {
    let last = history.snapshots.len().saturating_sub(1);
    let index = time.unwrap_or(last);
    let snapshot = history
        .snapshots
        .get(index)
        .ok_or_else(|| anyhow!("--time {index} is out of range: the history has snapshots 0..={last}"))?;
    let node = find(&snapshot.tree, key).ok_or_else(|| {
        anyhow!("no group has the key \"{key}\" at snapshot {index} ({})", snapshot.display_label())
    })?;
    if !node.is_leaf() {
        let example = node.children.first().map(|c| c.key.as_str()).unwrap_or_default();
        bail!("\"{key}\" is a district, not a leaf group: name one of its buildings, e.g. \"{example}\"");
    }
    let path = snapshot.retainers.get(key).ok_or_else(|| {
        anyhow!(
            "snapshot {index} ({}) has no retainer path for \"{key}\": the input carries none (only heap \
             dumps, heap snapshot files, traces and scenarios give them, or histories written from those)",
            snapshot.display_label()
        )
    })?;
    Ok(named(snapshot, path))
}

fn named(snapshot: &Snapshot, path: &RetainerPath) -> Vec<Step> {
    let heap = snapshot.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap_or(snapshot.tree.bytes).max(1);
    let last = path.steps.len() - 1;
    path.steps
        .iter()
        .enumerate()
        .map(|(i, s)| Step {
            key: s.key.clone(),
            name: display_name(&snapshot.tree, &s.key),
            objects: s.objects,
            bytes: s.bytes,
            retained_bytes: s.retained_bytes,
            heap_share: s.retained_bytes as f64 / heap as f64,
            roots: (i == last).then(|| path.roots.clone()),
            via: s.via.clone(),
        })
        .collect()
}

/// One line per step: the group, then each holder up to the roots.
pub fn text(steps: &[Step]) -> String {
    let mut out = String::new();
    for (i, s) in steps.iter().enumerate() {
        let lead = if i == 0 { "   " } else { "<- " };
        out.push_str(&format!(
            "{lead}{}  {} objects, {} B, retains {} B ({:.1}% of the heap)  [{}]\n",
            s.name,
            s.objects,
            s.bytes,
            s.retained_bytes,
            100.0 * s.heap_share,
            s.key
        ));
    }
    if let Some(roots) = steps.last().and_then(|s| s.roots.as_ref()).filter(|r| !r.is_empty()) {
        out.push_str(&format!("<- GC roots: {}\n", roots.join(", ")));
    }
    if let Some(path) = reference_path(steps) {
        // Reference names come from the heap: a newline inside one must not forge a line
        // (the caller's `say_raw!` escapes every other control character).
        out.push_str(&format!("path: {}\n", path.replace(['\n', '\r'], "\\n")));
    }
    out
}

/// The path as references from the root down, where the input names them (see
/// [`memcity_model::reference_path`]).
pub fn reference_path(steps: &[Step]) -> Option<String> {
    memcity_model::reference_path(steps.iter().map(|s| s.via.as_deref()))
}

/// A group's name that says which group it is: its levels below the root, outermost first,
/// without the package levels a type name already spells out ("app.model.Person ‹ Registry.register").
pub fn display_name(tree: &Node, key: &str) -> String {
    let mut levels: Vec<&Node> = Vec::new();
    let mut node = tree;
    while node.key != key {
        let below = |c: &&Node| {
            key.strip_prefix(c.key.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('#'))
        };
        match node.children.iter().find(below) {
            Some(child) => node = child,
            None => return key.to_string(),
        }
        levels.push(node);
    }
    let named: Vec<&str> = levels.iter().filter(|n| n.role != "Package").map(|n| n.name.as_str()).collect();
    if named.is_empty() { node.name.clone() } else { named.join(" ‹ ") }
}

fn find<'a>(tree: &'a Node, key: &str) -> Option<&'a Node> {
    let mut stack = vec![tree];
    while let Some(n) = stack.pop() {
        if n.key == key {
            return Some(n);
        }
        if key.starts_with(n.key.as_str()) {
            stack.extend(&n.children);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(name: &str, via: Option<&str>) -> Step {
        Step {
            key: format!("Heap#{name}"),
            name: name.into(),
            objects: 1,
            bytes: 16,
            retained_bytes: 16,
            heap_share: 0.5,
            roots: None,
            via: via.map(String::from),
        }
    }

    #[test]
    fn a_class_object_and_its_field_read_as_one_static_field() {
        let steps = [
            step("Item", Some(".item")),
            step("Node", Some(".first .next")),
            step("Registry", Some(".people")),
            step("Class", Some("class app.Registry")),
        ];
        assert_eq!(reference_path(&steps).unwrap(), "static app.Registry.people → .first .next → .item");
    }

    #[test]
    fn unnamed_steps_read_as_question_marks_and_no_names_give_no_path() {
        assert_eq!(reference_path(&[step("A", Some("[3]")), step("B", None)]).unwrap(), "? → [3]");
        assert!(reference_path(&[step("A", None)]).is_none());
        assert!(!text(&[step("A", None)]).contains("path:"));
    }

    #[test]
    fn a_newline_in_a_reference_name_cannot_forge_a_line() {
        let shown = text(&[step("A", Some(".x\nGC roots: forged\r"))]);
        assert_eq!(shown.lines().count(), 2, "{shown}");
        assert!(shown.contains("path: .x\\nGC roots: forged\\n"));
    }
}
