//! Turns what the user names on the command line into a history: a file or folder in any
//! format the model reads, a built-in scenario (`scenario:NAME`), a trace of memory events
//! (replayed by the analysis core), or a series of heap dumps.

use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result};
use memcity_analysis::replay::Streaming;
use memcity_analysis::trace::{MAGIC, OpSink, is_binary_trace, read_binary_into, read_trace_into};
use memcity_analysis::{Grouping, Trace, default_grouping};
use memcity_formats::Kind;
use memcity_model::History;

pub mod compare;
pub mod fold;
mod index;
mod ownership;
mod typed;
mod valued;

pub use index::{IndexArgs, hprof_options, index_dir, use_index};
pub use ownership::extend_series;
pub use typed::{
    Snapshots, Visit, carries_objects, each_typed_heap, trace_file_heaps, trace_heaps, typed_heaps,
};
pub use valued::{default_classifiers, valued_snapshot};

/// Every input memcity reads, in words: the Open pane's hint and the help of `memcity [INPUT]`.
pub const INPUTS_HELP: &str = "A history (memcity/1 file, snapshot folder, AntTracks export), scenario:NAME, \
a trace of memory events (.jsonl, .mctrace), heap dumps (.hprof, .hprof.gz, or any file that starts as one: one file or a \
folder, one snapshot per dump), V8 heap snapshots (.heapsnapshot[.gz] from Node or Chromium) or the Python probe's \
heap files (.mcheap), likewise.";

/// What the app opens when no input is given.
pub const DEFAULT_INPUT: &str = "scenario:linked-list";

/// Loads `spec` completely or not at all.
pub fn load(spec: &str) -> Result<History> {
    load_with_progress(spec, &memcity_heapgraph::Silent)
}

/// [`load`], telling `progress` how far a heap dump or snapshot import is: its bytes, then its
/// phases (other inputs load in one go and report nothing).
pub fn load_with_progress(spec: &str, progress: &dyn memcity_heapgraph::Progress) -> Result<History> {
    let history = load_one(spec, progress);
    crate::cli::release_freed_blocks();
    history
}

fn load_one(spec: &str, progress: &dyn memcity_heapgraph::Progress) -> Result<History> {
    if let Some(name) = spec.strip_prefix("scenario:") {
        return scenario(name);
    }
    let path = Path::new(spec);
    crate::cli::paths::check_input(path)?;
    let input = memcity_formats::recognize(path)?;
    match input.kind {
        Kind::HprofDump => Ok(memcity_hprof::import(&[path.to_path_buf()], &hprof_options(), progress)?),
        Kind::V8Snapshot => {
            Ok(memcity_v8::import(&[path.to_path_buf()], &memcity_v8::default_grouping(), progress)?)
        }
        Kind::HeapFile => {
            Ok(memcity_heapfile::import(&[path.to_path_buf()], &memcity_heapfile::default_grouping())?)
        }
        Kind::JsonLinesTrace | Kind::BinaryTrace => replay_trace_file(path, default_grouping()),
        Kind::History => Ok(memcity_model::load_path(path)?),
    }
}

/// What a path holds, by its content ([`memcity_formats`]); `None` when it is not an input.
pub fn kind_of(path: &Path) -> Option<Kind> {
    memcity_formats::recognize(path).ok().map(|i| i.kind)
}

/// A trace file (JSON Lines or binary), by its content, else by its name.
pub fn is_trace(path: &Path) -> bool {
    path.is_file() && matches!(kind_of(path), Some(Kind::JsonLinesTrace | Kind::BinaryTrace))
}

/// Reads a JSON Lines or binary trace (told apart by the binary format's magic) whole.
pub fn read_trace_file(path: &Path) -> Result<Trace> {
    crate::cli::paths::check_input(path)?;
    let binary = is_binary_trace_file(path)?;
    let mut trace = Trace { unit: unit(binary), ..Trace::default() };
    read_trace_file_into(path, binary, &mut trace)?;
    Ok(trace)
}

/// Replays a trace file while reading it, so the trace is never held whole.
pub fn replay_trace_file(path: &Path, options: Grouping) -> Result<History> {
    crate::cli::paths::check_input(path)?;
    let binary = is_binary_trace_file(path)?;
    let source = path.display().to_string();
    let mut streaming = Streaming::new(options, &source, unit(binary));
    read_trace_file_into(path, binary, &mut streaming)?;
    Ok(streaming.finish()?)
}

/// What error messages count in a trace file.
fn unit(binary: bool) -> &'static str {
    if binary { "record" } else { "line" }
}

fn open_trace(path: &Path) -> Result<std::fs::File> {
    std::fs::File::open(path).with_context(|| format!("cannot open trace {}", path.display()))
}

fn is_binary_trace_file(path: &Path) -> Result<bool> {
    let mut head = Vec::with_capacity(MAGIC.len());
    open_trace(path)?
        .take(MAGIC.len() as u64)
        .read_to_end(&mut head)
        .with_context(|| format!("cannot read trace {}", path.display()))?;
    Ok(is_binary_trace(&head))
}

fn read_trace_file_into(path: &Path, binary: bool, sink: &mut impl OpSink) -> Result<()> {
    let source = path.display().to_string();
    let mut reader = BufReader::with_capacity(1 << 20, open_trace(path)?);
    if binary {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).with_context(|| format!("cannot read trace {source}"))?;
        Ok(read_binary_into(&bytes, &source, sink)?)
    } else {
        Ok(read_trace_into(reader, &source, sink)?)
    }
}

/// Several inputs at once: one of any kind, or any number of heap dumps, V8 heap snapshots or
/// the probe's heap files and folders of them (one snapshot per file).
pub fn load_all(specs: &[String], progress: &dyn memcity_heapgraph::Progress) -> Result<History> {
    let history = load_series(specs, progress);
    crate::cli::release_freed_blocks();
    history
}

fn load_series(specs: &[String], progress: &dyn memcity_heapgraph::Progress) -> Result<History> {
    match specs {
        [one] => load_one(one, progress),
        // The probe's heap files (or folders of them), named one by one.
        _ if specs.iter().all(|s| is_heap_files(Path::new(s))) => {
            let paths: Vec<std::path::PathBuf> = specs.iter().map(std::path::PathBuf::from).collect();
            Ok(memcity_heapfile::import(&paths, &memcity_heapfile::default_grouping())?)
        }
        _ => match series(&specs.iter().map(std::path::PathBuf::from).collect::<Vec<_>>())? {
            Series::Snapshots(paths) => {
                Ok(memcity_v8::import(&paths, &memcity_v8::default_grouping(), progress)?)
            }
            Series::Dumps(paths) => Ok(memcity_hprof::import(&paths, &hprof_options(), progress)?),
        },
    }
}

/// A list of heap files of one kind: JVM heap dumps or V8 heap snapshots (files or folders).
#[derive(Debug, Clone, PartialEq)]
pub enum Series {
    Dumps(Vec<std::path::PathBuf>),
    Snapshots(Vec<std::path::PathBuf>),
}

/// Tells a list of heap files apart (by name, and V8 snapshots also by content); a list that
/// mixes kinds or holds anything else is an error.
pub fn series(paths: &[std::path::PathBuf]) -> Result<Series> {
    let Some(first) = paths.first() else { anyhow::bail!("no input given") };
    let snapshots = |p: &Path| is_snapshots(p);
    let wanted = snapshots(first);
    for path in paths {
        let kind = memcity_formats::recognize(path)?.kind;
        if kind != Kind::HprofDump && kind != Kind::V8Snapshot {
            anyhow::bail!(
                "{}: not a heap dump (.hprof, .hprof.gz), V8 heap snapshot (.heapsnapshot) or folder of them: it is {}",
                path.display(),
                kind.describe()
            );
        }
        if snapshots(path) != wanted {
            anyhow::bail!(
                "{}: JVM heap dumps and V8 heap snapshots cannot be mixed in one series",
                path.display()
            );
        }
    }
    Ok(if wanted { Series::Snapshots(paths.to_vec()) } else { Series::Dumps(paths.to_vec()) })
}

#[cfg_attr(not(feature = "app"), allow(dead_code))] // the window computes closures on demand
/// The exact GC closure `(objects, bytes)` of the leaf group `key` at snapshot `index` (labelled
/// `label`) of the city loaded from `specs`: the heap is read again (a dump, a V8 heap snapshot,
/// a heap file) or replayed up to that GC (a trace, a scenario), so nothing is kept in memory
/// meanwhile. Other inputs carry groups, not objects, and have no closure to compute.
pub fn closure(specs: &[String], index: usize, label: Option<&str>, key: &str) -> Result<(u64, u64)> {
    let no_heap = |spec: &str| {
        anyhow::anyhow!(
            "{spec}: this input carries groups, not objects: exact GC closures need a heap dump, heap snapshot, trace or scenario"
        )
    };
    let paths: Vec<std::path::PathBuf> = specs.iter().map(std::path::PathBuf::from).collect();
    // Series of files: the snapshot's label names the file it came from.
    let labelled =
        |what: &str| label.ok_or_else(|| anyhow::anyhow!("snapshot {index} has no label naming its {what}"));
    match specs {
        [spec] if spec.starts_with("scenario:") => {
            let scenario = scenario_named(&spec["scenario:".len()..])?;
            let trace = memcity_analysis::Trace::from_events(
                scenario.trace(&memcity_analysis::scenarios::Params::default()),
            );
            let mut streaming =
                Streaming::new(default_grouping().without_retained(), spec, trace.unit).keep_heap_at(index);
            *streaming.strings() = trace.strings;
            for (op, line) in trace.ops.into_iter().zip(trace.lines) {
                streaming.op(line, op)?;
            }
            Ok(streaming.finish_closure(key)?)
        }
        [spec] if is_trace(Path::new(spec)) => {
            let path = Path::new(spec);
            let binary = is_binary_trace_file(path)?;
            let mut streaming =
                Streaming::new(default_grouping().without_retained(), spec, unit(binary)).keep_heap_at(index);
            read_trace_file_into(path, binary, &mut streaming)?;
            Ok(streaming.finish_closure(key)?)
        }
        _ if specs.iter().all(|s| is_heap_dumps(Path::new(s))) && !specs.is_empty() => {
            let files = memcity_hprof::source::expand(&dump_paths(specs)?)?;
            let file = file_of(&files, labelled("dump")?, "dump", named)?;
            Ok(memcity_hprof::closure_of(file, &hprof_options(), key)?)
        }
        _ if !specs.is_empty() && specs.iter().all(|s| is_snapshots(Path::new(s))) => {
            let files = memcity_v8::source::expand(&paths)?;
            let file = file_of(&files, labelled("heap snapshot")?, "heap snapshot", named)?;
            Ok(memcity_v8::closure_of(file, &memcity_v8::default_grouping(), key)?)
        }
        _ if !specs.is_empty() && specs.iter().all(|s| is_heap_files(Path::new(s))) => {
            let files = memcity_heapfile::snapshot_files(&paths)?;
            let file = file_of(&files, labelled("heap file")?, "heap file", memcity_heapfile::labels_file)?;
            Ok(memcity_heapfile::closure_of(file, &memcity_heapfile::default_grouping(), key)?)
        }
        [spec, ..] => Err(no_heap(spec)),
        [] => anyhow::bail!("no input given"),
    }
}

/// The file among `files` that the snapshot labelled `label` came from (`labels(label, file)`).
fn file_of<'a>(
    files: &'a [std::path::PathBuf],
    label: &str,
    what: &str,
    labels: impl Fn(&str, &Path) -> bool,
) -> Result<&'a Path> {
    files
        .iter()
        .map(|f| f.as_path())
        .find(|f| labels(label, f))
        .ok_or_else(|| anyhow::anyhow!("no {what} for the snapshot {label} among the inputs"))
}

/// Whether a snapshot's label is the file's name (as dumps and V8 snapshots are labelled).
fn named(label: &str, file: &Path) -> bool {
    file.file_name().is_some_and(|n| n.to_string_lossy() == label)
}

/// The paths of a list of heap dump inputs; anything else in a list is an error.
#[cfg_attr(not(feature = "app"), allow(dead_code))] // closures of dumps, in the window
pub fn dump_paths(specs: &[String]) -> Result<Vec<std::path::PathBuf>> {
    if specs.is_empty() {
        anyhow::bail!("no input given");
    }
    specs
        .iter()
        .map(|spec| {
            let path = Path::new(spec);
            if is_heap_dumps(path) {
                Ok(path.to_path_buf())
            } else {
                anyhow::bail!(
                    "{spec}: only heap dumps (.hprof, .hprof.gz or folders of them) can be opened several at once"
                )
            }
        })
        .collect()
}

/// [`check`] for a list of inputs.
pub fn check_all(specs: &[String]) -> Result<()> {
    for spec in specs {
        check(spec)?;
    }
    if specs.len() != 1 {
        let paths: Vec<_> = specs.iter().map(std::path::PathBuf::from).collect();
        series(&paths)?;
    }
    Ok(())
}

/// A cheap check before loading in the background: names a scenario that exists or a path
/// that exists, so a typo fails at once.
pub fn check(spec: &str) -> Result<()> {
    if let Some(name) = spec.strip_prefix("scenario:") {
        return scenario_named(name).map(|_| ());
    }
    if !Path::new(spec).exists() {
        anyhow::bail!("{spec}: no such file or folder");
    }
    crate::cli::paths::check_input(Path::new(spec))
}

/// Heap dumps, heap snapshot files and traces take long enough to deserve a progress bar.
pub fn is_slow(spec: &str) -> bool {
    let path = Path::new(spec);
    !spec.starts_with("scenario:")
        && matches!(
            kind_of(path),
            Some(
                Kind::HprofDump
                    | Kind::V8Snapshot
                    | Kind::HeapFile
                    | Kind::JsonLinesTrace
                    | Kind::BinaryTrace
            )
        )
}

/// A JVM heap dump (any name: recognised by content), or a folder of them.
pub fn is_heap_dumps(path: &Path) -> bool {
    kind_of(path) == Some(Kind::HprofDump)
}

/// A V8 heap snapshot, or a folder of them.
pub fn is_snapshots(path: &Path) -> bool {
    kind_of(path) == Some(Kind::V8Snapshot)
}

/// A heap file of memcity's probes, or a folder of them.
pub fn is_heap_files(path: &Path) -> bool {
    kind_of(path) == Some(Kind::HeapFile)
}

/// A built-in scenario with its default seed and size, grouped by type → allocation site.
fn scenario(name: &str) -> Result<History> {
    use memcity_analysis::scenarios;
    let scenario = scenario_named(name)?;
    Ok(scenario.history(&scenarios::Params::default(), default_grouping()))
}

fn scenario_named(name: &str) -> Result<&'static memcity_analysis::scenarios::Scenario> {
    use memcity_analysis::scenarios;
    scenarios::find(name).ok_or_else(|| {
        anyhow::anyhow!("unknown scenario `{name}` in `scenario:{name}` (known: {})", scenarios::names())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(path: &str) -> String {
        format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn heap_dump_files_and_folders_load_through_the_importer() {
        assert!(is_heap_dumps(Path::new(&repo("data/hprof"))));
        assert!(is_heap_dumps(Path::new(&repo("data/hprof/dump1.hprof.gz"))));
        assert!(!is_heap_dumps(Path::new(&repo("Cargo.toml"))));
        let history = load(&repo("data/hprof")).unwrap();
        assert_eq!(history.snapshots.len(), 3);
        assert_eq!(history.snapshots[0].tree.key, "Heap");
        let one = load(&repo("data/hprof/dump2.hprof.gz")).unwrap();
        assert_eq!(one.snapshots.len(), 1);
        assert_eq!(one.snapshots[0].label.as_deref(), Some("dump2.hprof.gz"));
    }

    #[test]
    fn trace_files_replay_like_the_scenario_they_came_from() {
        use memcity_analysis::scenarios::{Params, find};
        let dir = std::env::temp_dir().join(format!("memcity-input-traces-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let events = find("churn").unwrap().trace(&Params::default());
        let (jsonl, binary, unnamed) =
            (dir.join("churn.jsonl"), dir.join("churn.mctrace"), dir.join("churn.bin"));
        let mut text = Vec::new();
        memcity_analysis::trace::write_trace(&events, &mut text).unwrap();
        std::fs::write(&jsonl, text).unwrap();
        std::fs::write(&binary, memcity_analysis::trace::events_to_binary(&events)).unwrap();
        std::fs::copy(&binary, &unnamed).unwrap();
        assert!(is_trace(&unnamed) && is_slow(unnamed.to_str().unwrap()));

        let expected = scenario("churn").unwrap();
        for path in [&jsonl, &binary, &unnamed] {
            assert_eq!(load(path.to_str().unwrap()).unwrap(), expected, "{}", path.display());
        }

        let bad = dir.join("bad.jsonl");
        std::fs::write(&bad, "{\"e\":\"gc\",\"id\":1,\"start\":0,\"end\":1}\n{\"e\":\"ptr\",\"from\":4}\n")
            .unwrap();
        let err = load(bad.to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains("bad.jsonl: line 2: bad event: missing field"), "{err}");
    }

    #[test]
    fn a_bad_dump_names_the_file() {
        let dir = std::env::temp_dir().join(format!("memcity-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bad.hprof");
        std::fs::write(&file, b"JAVA PROFILE 1.0.2\0\0\0\0\x03").unwrap();
        let message = load(file.to_str().unwrap()).unwrap_err().to_string();
        assert!(message.contains("bad.hprof: at byte 19: unsupported identifier size 3"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn exact_closures_are_computed_again_from_the_input() {
        let person = "Heap#Type:app.model.Person#Allocation Site:app.model.Registry.register";
        let history = load(DEFAULT_INPUT).unwrap();
        let dominated = |i: usize| {
            let mut bytes = None;
            history.snapshots[i].tree.walk(&mut |n, _| {
                if n.key == person {
                    bytes = n.retained_bytes;
                }
            });
            bytes.unwrap()
        };
        let specs = [DEFAULT_INPUT.to_string()];
        let (objects, bytes) = closure(&specs, 29, None, person).unwrap();
        assert!(objects > 0 && bytes >= dominated(29), "{bytes} vs {}", dominated(29));
        assert!(closure(&specs, 5, None, person).unwrap().1 < bytes, "earlier GCs hold less");
        let err = closure(&specs, 99, None, person).unwrap_err().to_string();
        assert!(err.contains("there is no GC at index"), "{err}");

        let dumps = [repo("data/hprof")];
        let key = "Heap#Package:(default package)#Type:LeakApp$Person";
        let (objects, _) = closure(&dumps, 2, Some("dump3.hprof.gz"), key).unwrap();
        assert!(objects >= 6000, "{objects}");
        let err = closure(&[repo("data/sample-leak.json")], 0, None, key).unwrap_err().to_string();
        assert!(err.contains("carries groups, not objects"), "{err}");
    }

    /// A V8 heap snapshot: (GC roots) → Holder → 2 × RequestContext of 40 bytes.
    const SNAPSHOT: &str = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],
        "node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic"],
        "string","number","number","number"],"edge_fields":["type","name_or_index","to_node"],
        "edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},
        "node_count":5,"edge_count":4},
        "nodes":[9,0,1,0,1, 9,1,2,0,1, 3,2,3,32,2, 3,3,5,40,0, 3,3,7,40,0],
        "edges":[1,1,5, 1,1,10, 2,4,15, 2,4,20],
        "strings":["","(GC roots)","Holder","RequestContext","x"]}"#;

    #[test]
    fn exact_closures_of_heap_snapshots_and_heap_files_are_computed_again() {
        let dir = std::env::temp_dir().join(format!("memcity-closure-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let snapshot = dir.join("a.heapsnapshot");
        std::fs::write(&snapshot, SNAPSHOT).unwrap();
        let specs = [snapshot.display().to_string()];
        let key = "Heap#Node Type:object#Type:RequestContext";
        assert_eq!(closure(&specs, 0, Some("a.heapsnapshot"), key).unwrap(), (2, 80));
        let err = closure(&specs, 0, Some("b.heapsnapshot"), key).unwrap_err().to_string();
        assert!(err.contains("no heap snapshot for the snapshot b.heapsnapshot"), "{err}");
        let err = closure(&specs, 0, Some("a.heapsnapshot"), "Heap#Type:None").unwrap_err().to_string();
        assert!(err.contains("a.heapsnapshot") && err.contains("no group has the key"), "{err}");
        let broken = dir.join("broken.heapsnapshot");
        std::fs::write(&broken, &SNAPSHOT[..200]).unwrap();
        let specs = [broken.display().to_string()];
        let err = closure(&specs, 0, Some("broken.heapsnapshot"), key).unwrap_err().to_string();
        assert!(err.contains("broken.heapsnapshot: at byte"), "{err}");

        // A heap file: a global list holding three strings of 50 bytes.
        let file = memcity_heapfile::HeapFile {
            meta: memcity_heapfile::Meta { trigger: Some("gc".into()), ..Default::default() },
            strings: vec!["builtins.list".into(), "builtins.str".into()],
            sites: Vec::new(),
            types: vec![0, 1, 1, 1].into(),
            site: vec![memcity_heapfile::format::NO_SITE; 4].into(),
            size: vec![56, 50, 50, 50].into(),
            address: vec![16, 32, 48, 64].into(),
            edge_start: vec![0, 3, 3, 3, 3].into(),
            edges: vec![1, 2, 3].into(),
            roots: vec![(0, memcity_heapgraph::RootKind::Global)],
            labels: Default::default(),
            root_names: Vec::new(),
            values: Default::default(),
        };
        let heaps = dir.join("heaps");
        std::fs::create_dir(&heaps).unwrap();
        std::fs::write(heaps.join("snap-1.mcheap"), file.to_bytes()).unwrap();
        let specs = [heaps.display().to_string()];
        let history = load(&specs[0]).unwrap();
        let mut list = String::new();
        history.snapshots[0].tree.walk(&mut |n, _| {
            if n.children.is_empty() && n.key.contains("builtins.list") {
                list = n.key.clone();
            }
        });
        let label = history.snapshots[0].label.clone().unwrap();
        assert_eq!(label, "snap-1 (gc)");
        assert_eq!(closure(&specs, 0, Some(&label), &list).unwrap(), (4, 206), "{list}");
        let err = closure(&specs, 0, Some("snap-2 (gc)"), &list).unwrap_err().to_string();
        assert!(err.contains("no heap file for the snapshot snap-2 (gc)"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
