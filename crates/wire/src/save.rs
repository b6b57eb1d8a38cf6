//! Where the server may write. A client never chooses a path: a `save` message may only name a
//! plain file in the folder the person who started the server chose (`--save-dir`), and never
//! replace a file that is not a memcity history — a page that reached the server must not be
//! able to overwrite `~/.bashrc`.

use std::fs::OpenOptions;
use std::io::{BufWriter, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use memcity_model::{FORMAT, History, write_history};

/// The longest file name a client may give.
const MAX_NAME: usize = 255;
/// How much of an existing file is read to tell whether it is a history.
const SNIFF: usize = 4096;

/// The file `name` in `dir`, if a client may write it there.
pub(crate) fn path_in(dir: Option<&Path>, name: &str) -> Result<PathBuf, String> {
    let Some(dir) = dir else {
        return Err("clients may not choose where the server writes; leave \"path\" out to save to the \
                    server's --save FILE, or start it with --save-dir DIR and give a file name"
            .into());
    };
    check_name(name)?;
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(path),
        Err(e) => Err(format!("{name:?}: cannot look at it ({e})")),
        Ok(meta) if meta.file_type().is_symlink() => {
            Err(format!("{name:?} is a symbolic link; not followed"))
        }
        Ok(meta) if !meta.is_file() => Err(format!("{name:?} exists and is not a file")),
        Ok(_) if !is_history(&path) => {
            Err(format!("{name:?} exists and is not a {FORMAT} history; it is not replaced"))
        }
        Ok(_) => Ok(path),
    }
}

/// A plain file name: no folder, no way out of the folder, nothing hidden or unprintable.
fn check_name(name: &str) -> Result<(), String> {
    let refuse = |why: &str| Err(format!("{:?}: {why}", memcity_model::escape::terminal(name)));
    if name.is_empty() {
        return refuse("an empty file name");
    }
    if name.len() > MAX_NAME {
        return refuse("a file name longer than 255 bytes");
    }
    if name.contains(['/', '\\']) {
        return refuse("a path; give a plain file name inside the server's --save-dir");
    }
    if name.starts_with('.') {
        return refuse("a name starting with '.' (hidden files, '..') is not accepted");
    }
    if name.chars().any(char::is_control) {
        return refuse("a control character in the file name");
    }
    Ok(())
}

/// Whether the file starts like a `memcity/1` document (its first member is the format).
fn is_history(path: &Path) -> bool {
    let mut head = Vec::with_capacity(SNIFF);
    let Ok(file) = std::fs::File::open(path) else { return false };
    if file.take(SNIFF as u64).read_to_end(&mut head).is_err() {
        return false;
    }
    let text: String = String::from_utf8_lossy(&head).split_whitespace().collect();
    text.starts_with(&format!("{{\"format\":\"{FORMAT}\""))
}

/// Writes `history` to a new temporary file beside `path` and renames it over `path`, so a
/// reader never sees half a history and nothing at a planted temporary name is followed.
pub(crate) fn replace(history: &History, path: &Path) -> Result<(), String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let fail = |e: String| format!("{}: cannot save ({e})", path.display());
    let name = path.file_name().ok_or_else(|| fail("no file name".into()))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(
        ".{}.{}.partial",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let temporary = path.with_file_name(temporary_name);
    let file =
        OpenOptions::new().write(true).create_new(true).open(&temporary).map_err(|e| fail(e.to_string()))?;
    let mut out = BufWriter::new(file);
    let written = write_history(history, &mut out)
        .map_err(|e| e.to_string())
        .and_then(|()| out.into_inner().map_err(|e| e.to_string())?.sync_all().map_err(|e| e.to_string()));
    match written.and_then(|()| std::fs::rename(&temporary, path).map_err(|e| e.to_string())) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(fail(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("memcity-save-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn only_plain_names_inside_the_folder() {
        let dir = folder("names");
        assert!(path_in(None, "a.json").unwrap_err().contains("--save-dir"));
        for bad in ["../x", "/etc/x", "a/b", "a\\b", "..", ".", ".bashrc", "", "a\u{1b}b", &"x".repeat(300)] {
            assert!(path_in(Some(&dir), bad).is_err(), "{bad:?} is refused");
        }
        assert_eq!(path_in(Some(&dir), "run-1.json").unwrap(), dir.join("run-1.json"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn symlinks_folders_and_other_files_are_not_replaced() {
        let dir = folder("existing");
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "keep me").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("link.json")).unwrap();
        std::fs::create_dir(dir.join("sub.json")).unwrap();
        std::fs::write(dir.join("notes.json"), r#"{"not":"a history"}"#).unwrap();
        assert!(path_in(Some(&dir), "link.json").unwrap_err().contains("symbolic link"));
        assert!(path_in(Some(&dir), "sub.json").unwrap_err().contains("not a file"));
        assert!(path_in(Some(&dir), "notes.json").unwrap_err().contains("not a memcity/1 history"));
        assert!(path_in(Some(&dir), "victim.txt").unwrap_err().contains("not a memcity/1 history"));
        // A history written before may be replaced.
        let history =
            History { format: FORMAT.into(), metric_names: Default::default(), snapshots: Vec::new() };
        let earlier = dir.join("earlier.json");
        replace(&history, &earlier).unwrap();
        assert_eq!(path_in(Some(&dir), "earlier.json").unwrap(), earlier);
        replace(&history, &earlier).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(left.iter().all(|n| !n.to_string_lossy().ends_with(".partial")), "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
