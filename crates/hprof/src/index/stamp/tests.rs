use super::*;
use crate::index::seal::key_in;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-stamp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn identity(path: &Path) -> Identity {
    Identity::of(&std::fs::File::open(path).unwrap()).unwrap()
}

/// A check long enough after the file last changed.
fn later() -> SystemTime {
    SystemTime::now() + SETTLED + Duration::from_secs(1)
}

/// A stamp holds for the file it was made for, with the key and dump it was made with, and
/// for nothing else: not the file changed in place (even with its modification time set back),
/// not another file renamed over it, not a stamp cut short. A file changed just before its
/// check is not stamped.
#[cfg(unix)]
#[test]
fn a_stamp_holds_for_the_file_as_it_was_stamped_only() {
    let dir = folder("holds");
    let (mine, theirs) = (key_in(&dir.join("mine")).unwrap(), key_in(&dir.join("theirs")).unwrap());
    let sealed = dir.join("a.hprof-index");
    std::fs::write(&sealed, b"a sealed index's bytes").unwrap();
    let first = identity(&sealed);
    make(&sealed, &mine, b"dump A", &first, SystemTime::now());
    assert!(!path_of(&sealed).exists(), "changed just now: not stamped");
    make(&sealed, &mine, b"dump A", &first, later());
    assert_eq!(path_of(&sealed), dir.join("a.hprof-index-stamp"));
    assert!(holds(&sealed, &mine, b"dump A", &identity(&sealed)));
    assert!(!holds(&sealed, &theirs, b"dump A", &first), "another user's key");
    assert!(!holds(&sealed, &mine, b"dump B", &first), "beside another dump");

    // Changed in place after a tick of the clock, its modification time set back.
    std::thread::sleep(Duration::from_millis(50));
    let modified = std::fs::metadata(&sealed).unwrap().modified().unwrap();
    std::fs::write(&sealed, b"a sealed index's bytez").unwrap();
    std::fs::File::options().write(true).open(&sealed).unwrap().set_modified(modified).unwrap();
    let changed = identity(&sealed);
    assert_eq!(std::fs::metadata(&sealed).unwrap().modified().unwrap(), modified);
    assert!(!holds(&sealed, &mine, b"dump A", &changed), "changed in place");

    // Another file renamed over it.
    make(&sealed, &mine, b"dump A", &changed, later());
    assert!(holds(&sealed, &mine, b"dump A", &changed), "stamped again");
    let other = dir.join("b.tmp");
    std::fs::write(&other, b"a sealed index's bytez").unwrap();
    std::fs::rename(&other, &sealed).unwrap();
    assert!(!holds(&sealed, &mine, b"dump A", &identity(&sealed)), "replaced");

    // A stamp cut short, or with a byte more, or none.
    let replaced = identity(&sealed);
    make(&sealed, &mine, b"dump A", &replaced, later());
    let stamp = std::fs::read(path_of(&sealed)).unwrap();
    assert_eq!(stamp.len(), SEAL);
    std::fs::write(path_of(&sealed), &stamp[..SEAL - 1]).unwrap();
    assert!(!holds(&sealed, &mine, b"dump A", &replaced), "cut short");
    std::fs::write(path_of(&sealed), [&stamp[..], &[0u8][..]].concat()).unwrap();
    assert!(!holds(&sealed, &mine, b"dump A", &replaced), "a byte more");
    std::fs::remove_file(path_of(&sealed)).unwrap();
    assert!(!holds(&sealed, &mine, b"dump A", &replaced), "none");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO in a stamp's place (someone else's, in a shared index folder) is no stamp, found at
/// once rather than waited on.
#[cfg(unix)]
#[test]
fn a_fifo_in_a_stamps_place_is_no_stamp() {
    let dir = folder("fifo");
    let mine = key_in(&dir.join("mine")).unwrap();
    let sealed = dir.join("a.hprof-tree");
    std::fs::write(&sealed, b"a sealed tree's bytes").unwrap();
    let fifo = std::ffi::CString::new(path_of(&sealed).into_os_string().into_encoded_bytes()).unwrap();
    // SAFETY: a valid path string; mkfifo only makes a file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let identity = identity(&sealed);
    let (sent, answer) = std::sync::mpsc::channel();
    let key = mine.clone();
    std::thread::spawn(move || sent.send(holds(&sealed, &key, b"dump A", &identity)));
    assert_eq!(answer.recv_timeout(Duration::from_secs(20)), Ok(false), "answered at once");
    let _ = std::fs::remove_dir_all(&dir);
}
