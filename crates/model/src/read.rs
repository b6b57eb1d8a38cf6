//! Readers: the `memcity/1` file, a folder of snapshot files (the original tool's layout), and
//! AntTracks' own JSON export. All produce the same validated [`History`]; loading is
//! all-or-nothing.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::error::{LoadError, parse_json};
use crate::history::{FORMAT, History, MetricNames, Node, PointerMap, Snapshot};
use crate::validate::validate_history;

/// Loads a history from a file or a folder, whatever its format.
pub fn load_path(path: &Path) -> Result<History, LoadError> {
    let name = path.display().to_string();
    let meta = fs::metadata(path).map_err(|e| LoadError::new(&name, format!("cannot read: {e}")))?;
    if meta.is_dir() { load_folder(path) } else { load_file(path) }
}

/// Reads a whole file, refusing what is not a regular file: a FIFO or device would block or
/// never end.
fn read_regular(path: &Path) -> Result<Vec<u8>, LoadError> {
    let name = path.display().to_string();
    let cannot = |e: std::io::Error| LoadError::new(&name, format!("cannot read: {e}"));
    if !fs::metadata(path).map_err(cannot)?.is_file() {
        return Err(LoadError::new(
            &name,
            "not a regular file (a FIFO, socket or device); save it to a file first",
        ));
    }
    fs::read(path).map_err(cannot)
}

/// Loads one file: a `memcity/1` history, one snapshot, an AntTracks tree or an array of them.
pub fn load_file(path: &Path) -> Result<History, LoadError> {
    let name = path.display().to_string();
    let bytes = read_regular(path)?;
    load_bytes(&bytes, &name)
}

/// Parses a document already in memory (`source` names it in errors).
pub fn load_bytes(bytes: &[u8], source: &str) -> Result<History, LoadError> {
    let history = match parse_document(bytes, source)? {
        Document::History(h) => h,
        Document::Snapshots(snapshots) => {
            History { format: FORMAT.into(), metric_names: MetricNames::default(), snapshots }
        }
    };
    validate_history(&history, &|_| source.to_string(), &|i| format!("snapshots[{i}]"))?;
    Ok(history)
}

/// What one JSON file holds.
enum Document {
    History(History),
    Snapshots(Vec<Snapshot>),
}

/// Top-level fields that tell the formats apart; everything else is skipped unparsed.
#[derive(Deserialize)]
struct Probe {
    format: Option<String>,
    snapshots: Option<IgnoredAny>,
    tree: Option<IgnoredAny>,
    root: Option<IgnoredAny>,
}

/// One tree of AntTracks' default export.
#[derive(Deserialize)]
struct AntTracksTree {
    time: u64,
    root: Node,
}

/// One entry of AntTracks' pointer-map export.
#[derive(Deserialize)]
struct AntTracksPointerMap {
    time: u64,
    #[serde(rename = "pointerMap")]
    pointer_map: PointerMap,
}

fn parse_document(bytes: &[u8], source: &str) -> Result<Document, LoadError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        let trees: Vec<AntTracksTree> = parse_json(bytes, source)?;
        return Ok(Document::Snapshots(trees.into_iter().map(from_anttracks).collect()));
    }
    let probe: Probe = parse_json(bytes, source)?;
    if probe.snapshots.is_some() {
        if let Some(format) = &probe.format
            && format != FORMAT
        {
            return Err(LoadError::new(
                source,
                format!("unknown format version \"{format}\" (this memcity reads \"{FORMAT}\")"),
            )
            .at("format"));
        }
        Ok(Document::History(parse_json(bytes, source)?))
    } else if probe.tree.is_some() {
        Ok(Document::Snapshots(vec![parse_json(bytes, source)?]))
    } else if probe.root.is_some() {
        Ok(Document::Snapshots(vec![from_anttracks(parse_json(bytes, source)?)]))
    } else {
        Err(LoadError::new(
            source,
            "not a memcity history: expected a memcity/1 document (\"snapshots\"), one snapshot \
             (\"tree\"), or an AntTracks tree (\"root\")",
        ))
    }
}

fn from_anttracks(tree: AntTracksTree) -> Snapshot {
    Snapshot {
        time_ms: tree.time,
        gc_id: None,
        label: None,
        tree: tree.root,
        points_to: PointerMap::new(),
        pointed_from: PointerMap::new(),
        heap: None,
        retainers: Default::default(),
    }
}

/// The folder layout of the original tool: one-snapshot files (any format above) ordered by
/// time, with optional `points-to-maps/` and `pointed-from-maps/` subfolders holding AntTracks
/// pointer-map files, matched to snapshots by time.
pub fn load_folder(dir: &Path) -> Result<History, LoadError> {
    let folder = dir.display().to_string();
    let mut snapshots: Vec<(Snapshot, String, usize)> = Vec::new();
    let mut metric_names = MetricNames::default();
    for file in json_files(dir)? {
        let name = file.display().to_string();
        let bytes = read_regular(&file)?;
        match parse_document(&bytes, &name)? {
            Document::History(h) => {
                metric_names = h.metric_names;
                snapshots.extend(h.snapshots.into_iter().enumerate().map(|(i, s)| (s, name.clone(), i)));
            }
            Document::Snapshots(list) => {
                let single = list.len() == 1;
                snapshots.extend(
                    list.into_iter()
                        .enumerate()
                        .map(|(i, s)| (s, name.clone(), if single { usize::MAX } else { i })),
                );
            }
        }
    }
    if snapshots.is_empty() {
        return Err(LoadError::new(&folder, "empty history: the folder holds no .json snapshot files"));
    }
    snapshots.sort_by_key(|(s, _, _)| s.time_ms);
    for (sub, points_to) in [("points-to-maps", true), ("pointed-from-maps", false)] {
        let subdir = dir.join(sub);
        if subdir.is_dir() {
            attach_pointer_maps(&subdir, &mut snapshots, points_to)?;
        }
    }
    let sources: Vec<(String, usize)> = snapshots.iter().map(|(_, f, i)| (f.clone(), *i)).collect();
    let history = History {
        format: FORMAT.into(),
        metric_names,
        snapshots: snapshots.into_iter().map(|(s, _, _)| s).collect(),
    };
    validate_history(&history, &|i| sources[i].0.clone(), &|i| match sources[i].1 {
        usize::MAX => String::new(),
        j => format!("[{j}]"),
    })?;
    Ok(history)
}

fn attach_pointer_maps(
    dir: &Path,
    snapshots: &mut [(Snapshot, String, usize)],
    points_to: bool,
) -> Result<(), LoadError> {
    for file in json_files(dir)? {
        let name = file.display().to_string();
        let bytes = read_regular(&file)?;
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        let maps: Vec<AntTracksPointerMap> =
            if first == Some(&b'[') { parse_json(&bytes, &name)? } else { vec![parse_json(&bytes, &name)?] };
        merge_pointer_maps(maps, snapshots.iter_mut().map(|(s, _, _)| s), points_to, &name)?;
    }
    Ok(())
}

/// Adds each map to the first snapshot with its time.
fn merge_pointer_maps<'a>(
    maps: Vec<AntTracksPointerMap>,
    snapshots: impl Iterator<Item = &'a mut Snapshot>,
    points_to: bool,
    source: &str,
) -> Result<(), LoadError> {
    let mut snapshots: Vec<&mut Snapshot> = snapshots.collect();
    for (m, map) in maps.into_iter().enumerate() {
        let Some(snapshot) = snapshots.iter_mut().find(|s| s.time_ms == map.time) else {
            return Err(LoadError::new(
                source,
                format!("pointer map for time {} ms matches no snapshot", map.time),
            )
            .at(format!("[{m}].time")));
        };
        let target = if points_to { &mut snapshot.points_to } else { &mut snapshot.pointed_from };
        for (from, to) in map.pointer_map {
            target.entry(from).or_default().extend(to);
        }
    }
    Ok(())
}

/// Adds AntTracks pointer maps (`[{"time": ms, "pointerMap": {..}}]`, as in its export and its
/// WebSocket answers) to the snapshots of `history` with the same time (points-to maps if
/// `points_to`, else pointed-from maps), and checks the result. `source` names `bytes` in errors.
pub fn attach_anttracks_pointer_maps(
    mut history: History,
    bytes: &[u8],
    source: &str,
    points_to: bool,
) -> Result<History, LoadError> {
    let maps: Vec<AntTracksPointerMap> = parse_json(bytes, source)?;
    merge_pointer_maps(maps, history.snapshots.iter_mut(), points_to, source)?;
    // Errors name the snapshot and the key (`points_to["a"]["b"]`) rather than a path in `bytes`.
    validate_history(&history, &|_| source.to_string(), &|_| String::new())?;
    Ok(history)
}

/// The `.json` files directly inside `dir`, sorted by name.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let name = dir.display().to_string();
    let entries = fs::read_dir(dir).map_err(|e| LoadError::new(&name, format!("cannot read folder: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| LoadError::new(&name, format!("cannot read folder: {e}")))?.path();
        if path.is_file() && path.extension().is_some_and(|x| x == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREES: &str = r#"[
        {"time": 10, "root": {"key": "H", "name": "H", "role": "Root", "bytes": 8, "objects": 2,
                              "children": [{"key": "H#A", "name": "A", "role": "Type", "bytes": 8, "objects": 2}]}},
        {"time": 20, "root": {"key": "H", "name": "H", "role": "Root", "bytes": 8, "objects": 2,
                              "children": [{"key": "H#A", "name": "A", "role": "Type", "bytes": 8, "objects": 2}]}}
    ]"#;

    #[test]
    fn anttracks_pointer_maps_attach_by_time() {
        let history = load_bytes(TREES.as_bytes(), "trees").unwrap();
        let maps = br#"[{"time": 20, "pointerMap": {"H#A": {"H#A": 3}}}]"#;
        let history = attach_anttracks_pointer_maps(history, maps, "maps", true).unwrap();
        assert!(history.snapshots[0].points_to.is_empty());
        assert_eq!(history.snapshots[1].points_to["H#A"]["H#A"], 3);
        let history = attach_anttracks_pointer_maps(history, maps, "maps", false).unwrap();
        assert_eq!(history.snapshots[1].pointed_from["H#A"]["H#A"], 3);
    }

    #[test]
    fn anttracks_pointer_maps_reject_bad_input() {
        let history = load_bytes(TREES.as_bytes(), "trees").unwrap();
        let error = |maps: &str| {
            attach_anttracks_pointer_maps(history.clone(), maps.as_bytes(), "maps", true)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error(r#"[{"time": 20, "pointerMap": {}}, {"time": 15, "pointerMap": {}}]"#),
            "maps: at [1].time: pointer map for time 15 ms matches no snapshot"
        );
        assert_eq!(
            error(r#"[{"time": 10, "pointerMap": {"H#A": {"H#B": 1}}}]"#),
            "maps: snapshot 0: at points_to[\"H#A\"][\"H#B\"]: pointer-map key \"H#B\" names no node of this snapshot"
        );
        assert!(
            error(r#"[{"time": 10, "pointerMap": {"H#A": {"H#A": -1}}}]"#)
                .contains("at [0].pointerMap.H#A.H#A")
        );
        assert!(error(r#"{"time": 10}"#).contains("invalid type: map, expected a sequence"));
        assert!(error("[").contains("malformed JSON"));
    }
}
