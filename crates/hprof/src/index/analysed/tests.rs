use std::path::{Path, PathBuf};
use std::sync::Mutex;

use memcity_heapgraph::{Grouping, Phase, Progress, parse_list};
use memcity_model::History;

use crate::import::{ImportOptions, import};

/// A folder of its own for each test, with a generated dump and an index folder.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("memcity-analysed-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let spec =
            crate::generate::Spec { segment_bytes: 1 << 16, ..crate::generate::Spec::for_objects(3_000) };
        crate::generate::write_file(&dir.join("generated.hprof"), &spec).unwrap();
        Folder(dir)
    }

    fn dump(&self) -> PathBuf {
        self.0.join("generated.hprof")
    }

    /// Imports the dump grouped by `classifiers`, from the index folder (`None`: read in full).
    fn import(&self, classifiers: &str, index: bool) -> (History, Vec<Phase>) {
        let options = ImportOptions {
            index: index.then(|| self.0.join("index")),
            grouping: Grouping::new(parse_list(classifiers).unwrap()),
            ..ImportOptions::default()
        };
        let heard = Heard(Mutex::default());
        let history = import(&[self.dump()], &options, &heard).unwrap();
        (history, heard.0.into_inner().unwrap())
    }

    fn kept(&self) -> Vec<PathBuf> {
        let all = std::fs::read_dir(self.0.join("index")).unwrap().map(|e| e.unwrap().path());
        let mut kept: Vec<PathBuf> =
            all.filter(|p| p.extension().is_some_and(|e| e == "analysed-heap")).collect();
        kept.sort();
        kept
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Heard(Mutex<Vec<Phase>>);

impl Progress for Heard {
    fn read(&self, _: u64, _: u64) {}
    fn phase(&self, phase: Phase) {
        self.0.lock().unwrap().push(phase);
    }
}

fn analysed(heard: &[Phase]) -> bool {
    heard.contains(&Phase::RetainedAndPaths)
}

#[test]
fn a_grouping_that_parts_the_objects_alike_reads_the_analysis_kept_and_others_do_not() {
    let folder = Folder::new("alike");
    let (_, heard) = folder.import("package,type", true);
    assert!(analysed(&heard));
    assert_eq!(folder.kept().len(), 1, "one analysis kept");

    // By type alone the leaves are the same: nothing is analysed, and the history is the one
    // a full analysis of the dump gives.
    let (by_type, heard) = folder.import("type", true);
    assert!(!analysed(&heard) && heard.contains(&Phase::OpeningAnalysed), "{heard:?}");
    assert!(!heard.contains(&Phase::OpeningTree), "the kept tree is not opened: {heard:?}");
    assert_eq!(by_type, folder.import("type", false).0);
    assert_eq!(folder.kept().len(), 1);

    // By package alone a leaf holds several types: analysed, and kept beside.
    let (by_package, heard) = folder.import("package", true);
    assert!(analysed(&heard));
    assert_eq!(by_package, folder.import("package", false).0);
    assert_eq!(folder.kept().len(), 2);
    // Below other levels the leaves are still the types (the generated dump's classes each
    // hold one kind of object): the first analysis again.
    let (by_kind, heard) = folder.import("object-kind,type", true);
    assert!(!analysed(&heard), "{heard:?}");
    assert_eq!(by_kind, folder.import("object-kind,type", false).0);
}

#[test]
fn a_kept_analysis_that_does_not_read_is_removed_and_the_dump_analysed_again() {
    let folder = Folder::new("damaged");
    let (first, _) = folder.import("package,type", true);
    let kept = folder.kept().pop().unwrap();
    let text = std::fs::read_to_string(&kept).unwrap();
    let key = text.split("\"key\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let damaged = [
        text[..text.len() / 2].to_string(),
        text.replace(&key, &"0".repeat(key.len())),
        text.replace("\"version\":\"memcity analysed heap 1\"", "\"version\":\"memcity analysed heap 0\""),
        // A group id past the grouping's.
        text.replacen("\"group\":", "\"group\":4000000,\"x\":", 1),
        format!(
            "{{\"version\":\"memcity analysed heap 1\",\"key\":\"{key}\",\"heap\":{{\"counts\":[],\"maps\":null,\"paths\":[],\"reachable_bytes\":0}}}}"
        ),
    ];
    for (i, bad) in damaged.iter().enumerate() {
        // The grouped history would answer before the analysis is looked for.
        remove_histories(folder.0.join("index").as_path());
        std::fs::write(&kept, bad).unwrap();
        let (again, heard) = folder.import("package,type", true);
        assert!(analysed(&heard), "damage {i} analysed again");
        assert_eq!(again, first, "damage {i}");
        let mended = std::fs::read_to_string(&kept).unwrap();
        assert_eq!(mended, text, "damage {i}: kept again as it was");
    }
    remove_histories(folder.0.join("index").as_path());
    // Larger than the dump (and than 64 MiB): not read at all.
    let file = std::fs::File::options().append(true).open(&kept).unwrap();
    file.set_len(65 << 20).unwrap();
    let (again, heard) = folder.import("package,type", true);
    assert!(analysed(&heard) && again == first);
}

fn remove_histories(index: &Path) {
    for entry in std::fs::read_dir(index).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "grouped-history") {
            std::fs::remove_file(path).unwrap();
        }
    }
}
