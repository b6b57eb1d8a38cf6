use std::path::PathBuf;

use memcity_heapgraph::RootKind;

use super::*;
use crate::format::NO_SITE;

/// A module dict holding a list of sessions, each with a name string; one frame holds a temp.
fn sample(sessions: u32, time_ms: u64) -> HeapFile {
    let strings = [
        "builtins.dict",
        "builtins.list",
        "app.Session",
        "builtins.str",
        "app.py:3 SESSIONS = []",
        "app.py:9 Session()",
    ];
    // 0 dict, 1 list, then sessions and their names.
    let mut types = vec![0, 1];
    let mut site = vec![NO_SITE, 0];
    let mut edges = vec![vec![1], vec![]];
    for s in 0..sessions {
        let session = 2 + 2 * s;
        edges[1].push(session);
        types.extend([2, 3]);
        site.extend([1, NO_SITE]);
        edges.push(vec![session + 1]);
        edges.push(vec![]);
    }
    let mut edge_start = vec![0];
    for e in &edges {
        edge_start.push(edge_start.last().unwrap() + e.len());
    }
    let n = types.len();
    HeapFile {
        meta: Meta { time_ms, cost_ms: Some(1.5), trigger: Some("gc".into()), ..Meta::default() },
        strings: strings.iter().map(|s| s.to_string()).collect(),
        sites: vec![vec![4], vec![5]],
        types,
        site,
        size: vec![48; n],
        address: (0..n as u64).map(|a| 0x1000 + 16 * a).collect(),
        edge_start,
        edges: edges.concat(),
        roots: vec![(0, RootKind::Global)],
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
    bytes[8] = 2;
    let error = parse(&bytes, "v2.mcheap").unwrap_err();
    assert!(matches!(error, HeapFileError::Version { version: 2, offset: 8, .. }), "{error:?}");
    assert!(error.to_string().contains("format version 2 is not supported (this memcity reads version 1)"));
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
