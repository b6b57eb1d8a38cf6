use std::path::PathBuf;

use memcity_heapgraph::RootKind;

use super::*;
use crate::format::{LABEL_INDEX, LABEL_KEY, NO_NAME, NO_SITE};

/// A module dict holding a list of sessions, each with a name string; one frame holds a temp.
pub(crate) fn sample(sessions: u32, time_ms: u64) -> HeapFile {
    let strings = [
        "builtins.dict",
        "builtins.list",
        "app.Session",
        "builtins.str",
        "app.py:3 SESSIONS = []",
        "app.py:9 Session()",
        "'SESSIONS'",
        "name",
        "module app",
    ];
    // 0 dict, 1 list, then sessions and their names.
    let mut types = vec![0, 1];
    let mut site = vec![NO_SITE, 0];
    let mut edges = vec![vec![1], vec![]];
    let mut labels = vec![vec![LABEL_KEY | 6], vec![]];
    for s in 0..sessions {
        let session = 2 + 2 * s;
        edges[1].push(session);
        labels[1].push(LABEL_INDEX | s);
        types.extend([2, 3]);
        site.extend([1, NO_SITE]);
        edges.push(vec![session + 1]);
        labels.push(vec![7]);
        edges.push(vec![]);
        labels.push(vec![]);
    }
    // Each session's name has its text.
    let mut values = ValueTable::default();
    for s in 0..sessions {
        let text = format!("user-{s}");
        values.push(3 + 2 * s, ValueKind::Str, false, text.len() as u64, text.as_bytes());
    }
    let mut edge_start = vec![0];
    for e in &edges {
        edge_start.push(edge_start.last().unwrap() + e.len() as u32);
    }
    let n = types.len();
    HeapFile {
        meta: Meta { time_ms, cost_ms: Some(1.5), trigger: Some("gc".into()), ..Meta::default() },
        strings: strings.iter().map(|s| s.to_string()).collect(),
        sites: vec![vec![4], vec![5]],
        types: types.into(),
        site: site.into(),
        size: vec![48; n].into(),
        address: (0..n as u64).map(|a| 0x1000 + 16 * a).collect(),
        edge_start: edge_start.into(),
        edges: edges.concat().into(),
        roots: vec![(0, RootKind::Global)],
        labels: labels.concat().into(),
        root_names: vec![8],
        values,
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-heapfile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn files_round_trip() {
    let file = sample(3, 7);
    assert_eq!(parse(&file.to_bytes(), "a.mcheap").unwrap(), file);
}

#[test]
fn every_truncation_is_one_error_naming_file_and_offset() {
    let bytes = sample(2, 1).to_bytes();
    for len in 0..bytes.len() {
        let error = parse(&bytes[..len], "cut.mcheap").unwrap_err().to_string();
        assert!(error.starts_with("cut.mcheap: at byte "), "{len}: {error}");
        assert!(!error.contains('\n'), "{error}");
    }
    let error = parse(&bytes[..100], "cut.mcheap").unwrap_err().to_string();
    assert!(error.contains("truncated"), "{error}");
}

#[test]
fn every_flipped_byte_is_caught() {
    let bytes = sample(2, 1).to_bytes();
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        let error = parse(&bad, "bad.mcheap").unwrap_err().to_string();
        assert!(error.starts_with("bad.mcheap: at byte "), "{at}: {error}");
    }
    let mut bad = bytes.clone();
    bad[40] ^= 1;
    let error = parse(&bad, "bad.mcheap").unwrap_err().to_string();
    assert!(error.contains("CRC-32 mismatch"), "{error}");
}

#[test]
fn unknown_versions_and_other_files_are_refused() {
    let mut bytes = sample(1, 1).to_bytes();
    bytes[8] = 4;
    let error = parse(&bytes, "v4.mcheap").unwrap_err();
    assert!(matches!(error, HeapFileError::Version { version: 4, offset: 8, .. }), "{error:?}");
    assert!(
        error.to_string().contains("format version 4 is not supported (this memcity reads versions 1 to 3)")
    );
    bytes[8] = 0;
    assert!(matches!(parse(&bytes, "v0.mcheap").unwrap_err(), HeapFileError::Version { version: 0, .. }));
    let error = parse(b"{\"format\":\"memcity/1\"}", "h.json").unwrap_err().to_string();
    assert_eq!(error, "h.json: at byte 0: not a memcity heap file (no MEMCITYH magic)");
}

/// A count that claims more than the section holds is refused before anything is allocated.
#[test]
fn tables_are_sized_by_their_bytes() {
    let mut file = sample(1, 1);
    file.strings.clear();
    file.sites.clear();
    let mut bytes = file.to_bytes();
    // OBJS is the third section; its payload starts with the object count.
    let objs = bytes.windows(4).position(|w| w == b"OBJS").unwrap();
    bytes[objs + 16..objs + 20].copy_from_slice(&u32::MAX.to_le_bytes());
    let crc = crc32fast::hash(
        &bytes[objs + 16
            ..objs
                + 16
                + usize::try_from(u64::from_le_bytes(bytes[objs + 8..objs + 16].try_into().unwrap()))
                    .unwrap()],
    );
    bytes[objs + 4..objs + 8].copy_from_slice(&crc.to_le_bytes());
    let error = parse(&bytes, "big.mcheap").unwrap_err().to_string();
    assert!(error.contains("4294967295 objects need 28 bytes each"), "{error}");
}

#[test]
fn a_series_goes_through_the_pipeline_with_retainer_paths() {
    let dir = temp_dir("series");
    for (i, sessions) in [2, 5, 9].into_iter().enumerate() {
        let path = dir.join(format!("snapshot-{i:06}.mcheap"));
        std::fs::write(path, sample(sessions, 100 * i as u64).to_bytes()).unwrap();
    }
    std::fs::write(dir.join(".snapshot-000003.mcheap.tmp"), b"MEMCITYH").unwrap();
    assert!(is_heap_input(&dir));
    let history = import(std::slice::from_ref(&dir), &default_grouping()).unwrap();
    assert_eq!(history.snapshots.len(), 3);
    let last = history.snapshots.last().unwrap();
    assert_eq!(last.label.as_deref(), Some("snapshot-000002 (gc; cost 2 ms)"));
    let key = "Heap#Package:app#Type:app.Session#Allocation Site:app.py:9 Session()";
    let path = &last.retainers[key];
    assert_eq!(path.steps[0].objects, 9);
    assert_eq!(
        path.steps[1].key,
        "Heap#Package:builtins#Type:builtins.list#Allocation Site:app.py:3 SESSIONS = []"
    );
    assert_eq!(path.roots, vec!["Global".to_string()]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_follower_adds_new_files_and_skips_bad_ones() {
    let dir = temp_dir("follow");
    let mut follower = Follower::new(&dir, default_grouping()).unwrap();
    assert!(follower.poll().history.is_none());
    std::fs::write(dir.join("snapshot-000001.mcheap"), sample(1, 10).to_bytes()).unwrap();
    assert_eq!(follower.poll().history.unwrap().snapshots.len(), 1);
    assert!(follower.poll().history.is_none(), "nothing new");
    let bytes = sample(2, 20).to_bytes();
    std::fs::write(dir.join("snapshot-000002.mcheap"), &bytes[..bytes.len() - 3]).unwrap();
    std::fs::write(dir.join("snapshot-000003.mcheap"), sample(3, 30).to_bytes()).unwrap();
    let poll = follower.poll();
    assert_eq!(poll.history.unwrap().snapshots.len(), 2);
    assert_eq!(poll.errors.len(), 1);
    assert!(poll.errors[0].to_string().contains("snapshot-000002.mcheap: at byte"), "{}", poll.errors[0]);
    assert_eq!(follower.snapshots(), 2);
    assert!(Follower::new(&dir.join("nope"), default_grouping()).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fifos_are_neither_sniffed_nor_read() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe.mcheap");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert!(!is_heap_input(&fifo));
    let error = read_file(&fifo).unwrap_err().to_string();
    assert!(error.ends_with("pipe.mcheap: not a regular file"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_closure_of_one_group_matches_the_imported_one() {
    let dir = temp_dir("closure");
    let path = dir.join("snapshot-000000.mcheap");
    std::fs::write(&path, sample(3, 0).to_bytes()).unwrap();
    let options = Grouping {
        analysis: memcity_heapgraph::AnalysisOptions {
            retained: memcity_heapgraph::Retained::Closure,
            ..Default::default()
        },
        ..default_grouping()
    };
    let history = import(std::slice::from_ref(&path), &options).unwrap();
    let snapshot = &history.snapshots[0];
    let list = "Heap#Package:builtins#Type:builtins.list#Allocation Site:app.py:3 SESSIONS = []";
    // The list frees itself, the three sessions and their names: 7 objects of 48 bytes.
    assert_eq!(closure_of(&path, &options, list).unwrap(), (7, 7 * 48));
    let imported = snapshot.tree.children.iter().flat_map(|p| &p.children).flat_map(|t| &t.children);
    assert_eq!(imported.clone().find(|n| n.key == list).unwrap().closure_bytes, Some(7 * 48));
    assert!(labels_file(snapshot.label.as_deref().unwrap(), &path));
    assert!(!labels_file("snapshot-0000001 (gc)", &path));
    let e = closure_of(&path, &options, "Heap#Type:Nothing").unwrap_err();
    assert!(matches!(e, HeapFileError::NoGroup { .. }), "{e}");
    assert!(e.to_string().contains("snapshot-000000.mcheap"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file the version 1 writer wrote (before reference and root names): still read, without
/// names; a version 2 file with the same heap differs only in its names.
#[test]
fn version_1_files_are_still_read() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/version-1.mcheap");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    let old = read_file(&path).unwrap();
    assert!(old.labels.is_empty() && old.root_names.is_empty());
    let new = sample(2, 5);
    assert_eq!(old.edges, new.edges);
    assert_eq!(old.types, new.types);
    assert_eq!(old.roots, new.roots);
    assert_eq!(&old.strings[..], &new.strings[..6], "version 1's sample had no name strings");
    // Through the typed reader: no names, every reference unnamed, the root by its type.
    let typed = typed::typed_of(old);
    assert!(typed.heap.objects.labels.of_edge.is_empty() && typed.heap.objects.root_names.is_empty());
    let history = import(std::slice::from_ref(&path), &default_grouping()).unwrap();
    assert_eq!(history.snapshots.len(), 1);
}

#[test]
fn the_typed_heap_names_references_and_roots() {
    let file = sample(3, 1);
    let typed = typed::typed_of(file);
    let (g, o) = (&typed.heap.graph, &typed.heap.objects);
    assert_eq!(o.labels.of_edge.len(), g.edges.len());
    let texts: Vec<String> = (0..g.edges.len()).map(|e| o.labels.text(e).unwrap_or_default()).collect();
    assert_eq!(texts[..4], ["['SESSIONS']", "[0]", "[1]", "[2]"]);
    assert_eq!(texts[4], ".name");
    assert_eq!(o.root_name(0), Some("module app"));
    assert_eq!(o.type_name(2), "app.Session");
    assert_eq!(o.identity[2], 0x1000 + 32);
    assert!(!o.identity_stable, "no pid: addresses of an unknown process");
    assert_eq!(o.site(2), Some("app.py:9 Session()"));
    assert_eq!(typed.reachable_bytes, 8 * 48);
    let paths = memcity_heapgraph::RootPaths::new(g);
    let name = |r: u32| o.root_name(r).unwrap_or("?").to_string();
    let described = memcity_heapgraph::root_path::describe(&paths.path(5), &o.labels, &name, 8);
    assert_eq!(described, "module app ['SESSIONS'] [1] .name");
    let mut with_pid = sample(1, 1);
    with_pid.meta.pid = Some(42);
    assert!(typed::typed_of(with_pid).heap.objects.identity_stable);
}

/// Sets the payload of `tag` in `bytes` to `payload`, with its length and CRC-32.
/// Edge offsets are 32 bits: counts that add up past them are one line naming the place, not a
/// wrapped offset or a panic later in the pipeline.
#[test]
fn edge_counts_beyond_32_bits_are_refused() {
    let bytes = sample(1, 1).to_bytes();
    let at = bytes.windows(4).position(|w| w == b"OBJS").unwrap();
    let len = usize::try_from(u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap())).unwrap();
    let mut objs = bytes[at + 16..at + 16 + len].to_vec();
    let n = u32::from_le_bytes(objs[..4].try_into().unwrap()) as usize;
    // The count, then types, sites, sizes, addresses, and the edge counts last.
    let counts = 4 + 24 * n;
    for c in 0..2 {
        objs[counts + 4 * c..counts + 4 * c + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    }
    let error = parse(&replace_section(&bytes, b"OBJS", &objs), "e.mcheap").unwrap_err().to_string();
    assert!(error.contains("memcity counts edges with 32 bits"), "{error}");
    assert!(error.contains("e.mcheap") && !error.contains('\n'), "{error}");
}

pub(crate) fn replace_section(bytes: &[u8], tag: &[u8; 4], payload: &[u8]) -> Vec<u8> {
    let at = bytes.windows(4).position(|w| w == tag).unwrap();
    let len = usize::try_from(u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap())).unwrap();
    let mut out = bytes[..at + 4].to_vec();
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&bytes[at + 16 + len..]);
    out
}

#[test]
fn bad_names_are_refused_with_their_place() {
    let file = sample(2, 1);
    let bytes = file.to_bytes();
    let name_at = bytes.windows(4).position(|w| w == b"NAME").unwrap();
    let edges = file.edges.len();
    let names = |labels: &[u32], count: u64| -> Vec<u8> {
        let mut p = count.to_le_bytes().to_vec();
        labels.iter().for_each(|l| p.extend_from_slice(&l.to_le_bytes()));
        p
    };
    // A label naming a string beyond the table.
    let mut labels = file.labels.clone();
    labels[3] = 9999;
    let error = parse(&replace_section(&bytes, b"NAME", &names(&labels, edges as u64)), "n.mcheap")
        .unwrap_err()
        .to_string();
    let at = name_at + 16 + 8 + 4 * 3;
    assert_eq!(error, format!("n.mcheap: at byte {at}: a reference's name is string 9999, but there are 9"));
    // A dict key beyond the table.
    labels[3] = LABEL_KEY | 12;
    let error = parse(&replace_section(&bytes, b"NAME", &names(&labels, edges as u64)), "n.mcheap")
        .unwrap_err()
        .to_string();
    assert!(error.ends_with("a reference's name is string 12, but there are 9"), "{error}");
    // Indices and unknown names need no string.
    labels[3] = LABEL_INDEX | 0x7fff_ffff;
    labels[4] = NO_NAME;
    assert!(parse(&replace_section(&bytes, b"NAME", &names(&labels, edges as u64)), "n.mcheap").is_ok());
    // A count that disagrees with the references, and names cut short.
    let error = parse(&replace_section(&bytes, b"NAME", &names(&file.labels, 99)), "n.mcheap")
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "n.mcheap: at byte {}: 99 reference names, but the file has {edges} references",
            name_at + 16
        )
    );
    let short = names(&file.labels[..2], edges as u64);
    let error = parse(&replace_section(&bytes, b"NAME", &short), "n.mcheap").unwrap_err().to_string();
    assert!(error.contains("the reference names does not fit"), "{error}");
    let error = parse(&replace_section(&bytes, b"NAME", &[1, 2, 3]), "n.mcheap").unwrap_err().to_string();
    assert!(error.contains("the name count does not fit"), "{error}");
    // A root's name beyond the strings.
    let mut root = 1u32.to_le_bytes().to_vec();
    root.extend_from_slice(&0u32.to_le_bytes());
    root.push(0);
    root.extend_from_slice(&77u32.to_le_bytes());
    let error = parse(&replace_section(&bytes, b"ROOT", &root), "r.mcheap").unwrap_err().to_string();
    assert!(error.ends_with("a root's name is string 77, but there are 9"), "{error}");
    // Through the typed reader and `typed_heap`: one line naming the file, never a panic.
    let dir = temp_dir("bad-names");
    let path = dir.join("snapshot-000001.mcheap");
    std::fs::write(&path, replace_section(&bytes, b"NAME", &names(&file.labels, 99))).unwrap();
    let error = typed_heap(&path).err().unwrap().to_string();
    assert!(error.contains("snapshot-000001.mcheap: at byte") && !error.contains('\n'), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn meta_alone_is_read_without_the_heap() {
    let dir = temp_dir("meta");
    let path = dir.join("snapshot-000001.mcheap");
    let mut file = sample(4, 250);
    file.meta.pid = Some(7);
    let bytes = file.to_bytes();
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(read_meta(&path).unwrap(), file.meta);
    let v1 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/version-1.mcheap");
    assert_eq!(read_meta(&v1).unwrap().time_ms, 5);
    for len in [0, 5, 20, 100, bytes.len() - 40] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let error = read_meta(&path).unwrap_err().to_string();
        assert!(error.contains("snapshot-000001.mcheap: at byte") && !error.contains('\n'), "{len}: {error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
