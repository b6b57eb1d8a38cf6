//! `memcity objects`: inside one snapshot (docs/objects.md) — a group's objects, a data
//! structure's entries or one object, with fields and values, shallow and retained sizes.
//! Exit 2 with one line on bad input, as `memcity check`.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, bail};
use memcity_structures::objects::{EntryShown, FieldShown, ObjectShown, Shown, Snapshot};
use memcity_structures::{Inspection, Target, look};

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["group", "structure", "object"])))]
pub struct ObjectsArgs {
    /// HPROF heap dumps (files or folders), V8 heap snapshots, heap files, a trace or
    /// scenario:NAME.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// A leaf group's key in the input's default grouping (`Heap#Package:java#…#Type:…`):
    /// its objects, the largest retained first.
    #[arg(long, value_name = "KEY")]
    pub group: Option<String>,
    /// A data structure by its field path, as `memcity structures` names it
    /// (`static CacheLeak.SERVICE .cache`): its head and its entries.
    #[arg(long, value_name = "FIELD PATH")]
    pub structure: Option<String>,
    /// One object by the source's own id (a dump's address, `0x…`).
    #[arg(long, value_name = "ID")]
    pub object: Option<String>,
    /// The snapshot (0-based; default the last).
    #[arg(long, value_name = "I")]
    pub time: Option<usize>,
    /// How many entries (or a group's objects) to show.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub entries: usize,
    /// More data-structure descriptions: a .ds file or a folder of them; repeatable.
    #[arg(long = "structures", value_name = "FILE|DIR")]
    pub structures: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The longest text shown of a string in the terminal.
const TEXT_SHOWN: usize = 60;
/// The most fields shown of an object in the terminal.
const FIELDS_SHOWN: usize = 8;

pub fn run(args: ObjectsArgs) -> Result<()> {
    let target = target(&args)?;
    if args.entries == 0 {
        bail!("--entries 0: show at least one (the default is 20)");
    }
    let loaded = crate::cli::structures::descriptions(&args.structures)?;
    let (inspection, label) = inspect(&args.inputs, args.time, &target, args.entries, &loaded.all)?;
    if args.json {
        say!("{}", serde_json::to_string_pretty(&inspection)?);
    } else {
        say_raw!("{}", text(&inspection, &label));
    }
    Ok(())
}

/// Reads snapshot `time` (default the last) of `inputs` and looks at `target` in it, showing at
/// most `limit` entries or objects; with the snapshot's label. The command's and the app's
/// Objects tab's one way in.
pub fn inspect(
    inputs: &[String],
    time: Option<usize>,
    target: &Target,
    limit: usize,
    descriptions: &memcity_structures::Descriptions,
) -> Result<(Inspection, String)> {
    let valued = crate::input::valued_snapshot(inputs, time)?;
    let inspection = valued.with_values(|values| {
        let snapshot = Snapshot {
            time: valued.snapshot.index,
            heap: &valued.snapshot.heap,
            values,
            descriptions,
            classifiers: &valued.classifiers,
            id_hint: valued.id_hint,
        };
        look(&snapshot, target, limit)
    })?;
    Ok((inspection, valued.snapshot.label.clone()))
}

fn target(args: &ObjectsArgs) -> Result<Target> {
    let nonempty = |flag: &str, v: &String| {
        if v.trim().is_empty() {
            bail!("{flag}: empty; name a {}", if flag == "--object" { "object id" } else { "key or path" });
        }
        Ok(v.clone())
    };
    Ok(match (&args.group, &args.structure, &args.object) {
        (Some(key), _, _) => Target::Group(nonempty("--group", key)?),
        (_, Some(path), _) => Target::Structure(nonempty("--structure", path)?),
        (_, _, Some(id)) => Target::Object(nonempty("--object", id)?),
        _ => bail!("name a target: --group KEY, --structure 'FIELD PATH' or --object ID"),
    })
}

fn text(inspection: &Inspection, label: &str) -> String {
    let mut out = String::new();
    let t = &inspection.target;
    let kind = t.type_name.as_ref().map_or(String::new(), |ty| format!(", {ty}"));
    let _ = write!(out, "snapshot {} ({label}): {} {}{kind}", inspection.time, t.kind, t.name);
    if t.kind == "group" {
        let _ = write!(out, ", {} objects", t.objects);
    }
    if let Some(n) = t.entries {
        let _ = write!(out, ", {n} entries");
    }
    out.push('\n');
    for o in &inspection.objects {
        let _ = writeln!(out, "  {}", object_line(o));
        for line in around_lines(o) {
            let _ = writeln!(out, "    {line}");
        }
    }
    if !inspection.entries.is_empty() {
        let _ = writeln!(out, "entries (the first {}):", inspection.entries.len());
        for (k, e) in inspection.entries.iter().enumerate() {
            let _ = writeln!(out, "  {}", entry_line(k, e));
        }
    }
    out
}

/// An object's path from a GC root and its referrers ("referenced by 3: HashMap$Node .key
/// (0x…), …"), where the look walked around it.
pub fn around_lines(o: &ObjectShown) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(path) = &o.path {
        lines.push(format!("path from a GC root: {path}"));
    }
    if let Some(count) = o.referrer_count {
        let holders: Vec<String> = o
            .referrers
            .iter()
            .map(|r| {
                format!(
                    "{} {}({})",
                    r.type_name,
                    r.field.as_ref().map_or(String::new(), |f| format!("{f} ")),
                    r.id
                )
            })
            .collect();
        let more = if count > holders.len() as u64 { ", …" } else { "" };
        lines.push(format!("referenced by {count}: {}{more}", holders.join(", ")));
    }
    lines
}

pub fn entry_line(k: usize, e: &EntryShown) -> String {
    // A side the snapshot does not show reads `?`, and still makes the entry a map's.
    let side = |name: &'static str, s: &Option<Option<ObjectShown>>| match s {
        Some(Some(o)) => Some(object_line(o)),
        Some(None) => Some("null".into()),
        None if e.unknown.contains(&name) => Some("?".into()),
        None => None,
    };
    match (side("key", &e.key), side("value", &e.value)) {
        (Some(key), Some(value)) => format!("{}. {key} → {value}", k + 1),
        (Some(key), None) => format!("{}. {key}", k + 1),
        (None, value) => format!("[{}] {}", e.index.unwrap_or(k), value.unwrap_or_default()),
    }
}

/// `TYPE ID (N B, retains M B) "text" {field: value, …}`.
pub fn object_line(o: &ObjectShown) -> String {
    let mut line =
        format!("{} {} ({} B, retains {} B)", o.type_name, o.id, o.shallow_bytes, o.retained_bytes);
    if let Some(v) = &o.value {
        let _ = write!(line, " {}", shown(v));
    }
    let list = |items: &[FieldShown], more: bool| {
        let mut parts: Vec<String> = items.iter().take(FIELDS_SHOWN).map(field_text).collect();
        if more || items.len() > FIELDS_SHOWN {
            parts.push("…".into());
        }
        parts.join(", ")
    };
    if let Some(fields) = o.fields.as_deref().filter(|f| !f.is_empty()) {
        let _ = write!(line, " {{{}}}", list(fields, false));
    }
    if let (Some(length), Some(elements)) = (o.length, &o.elements) {
        let _ = write!(line, " length {length} [{}]", list(elements, (elements.len() as u64) < length));
    }
    line
}

pub fn field_text(f: &FieldShown) -> String {
    let value = match (&f.value, &f.reference) {
        (Some(v), _) => shown(v),
        (None, Some(Some(id))) => format!("{}@{id}", f.type_name.as_deref().unwrap_or("?")),
        _ => "?".into(),
    };
    format!("{}: {value}", f.name)
}

/// A value as the terminal shows it: text quoted, escaped and cut.
fn shown(v: &Shown) -> String {
    match v {
        Shown::Null => "null".into(),
        Shown::Bool(b) => b.to_string(),
        Shown::Int(i) => i.to_string(),
        Shown::Float(f) => f.to_string(),
        Shown::Text(t) if t.chars().count() > TEXT_SHOWN => {
            format!("{:?}…", t.chars().take(TEXT_SHOWN).collect::<String>())
        }
        // Debug quotes and escapes control characters.
        Shown::Text(t) => format!("{t:?}"),
    }
}
