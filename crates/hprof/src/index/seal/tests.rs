use super::*;

fn folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memcity-seal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The first run makes the key (a folder only the user can open, a file only the user can
/// read), the next runs read the same one, and what it seals only it unseals.
#[test]
fn a_key_is_made_once_and_read_again() {
    let dir = folder("made");
    let key = key_in(&dir.join("cache")).unwrap();
    assert_eq!(key_in(&dir.join("cache")).unwrap(), key, "read again, the same");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join("cache").join(KEY_FILE)), 0o600);
        assert_eq!(mode(&dir.join("cache")), 0o700);
    }
    let other = key_in(&dir.join("elsewhere")).unwrap();
    assert_ne!(other, key, "random");
    let mut sealing = Sealing::new(&key, b"dump A");
    sealing.add(b"a tree's ");
    sealing.add(b"body");
    let seal = sealing.seal();
    assert!(is_sealed(&key, b"dump A", b"a tree's body", &seal));
    assert!(!is_sealed(&other, b"dump A", b"a tree's body", &seal), "another user's key");
    assert!(!is_sealed(&key, b"dump A", b"a tree's bodY", &seal), "a changed body");
    assert!(!is_sealed(&key, b"dump B", b"a tree's body", &seal), "beside another dump");
    assert!(!is_sealed(&key, b"dump A", b"a tree's body", &seal[..31]), "a cut seal");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A key others could read or change, or of the wrong length, is refused in one line that
/// names it (kept trees are then checked in full).
#[cfg(unix)]
#[test]
fn a_key_others_could_read_is_refused() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = folder("refused");
    key_in(&dir).unwrap();
    let path = dir.join(KEY_FILE);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let why = key_in(&dir).unwrap_err();
    assert!(why.contains("can be read or written by others (mode 644)") && why.contains("seal-key"), "{why}");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(&path, [7u8; 5]).unwrap();
    let why = key_in(&dir).unwrap_err();
    assert!(why.contains("has 5 bytes, not 32"), "{why}");
    std::fs::write(&path, [7u8; 64]).unwrap();
    assert!(key_in(&dir).unwrap_err().contains("has 33 bytes"), "read no further than a key and one byte");
    let _ = std::fs::remove_dir_all(&dir);
}
