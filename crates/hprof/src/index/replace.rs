//! Files of the index folder are written whole under a temporary name beside their place and
//! renamed into it, so a reader never sees half a file and two runs writing one file at once
//! leave one whole file; the temporary files of runs killed meanwhile are removed later.

use std::path::Path;

/// Makes the file at `path` with `fill` under a temporary name beside it, then renames it into
/// place with the permissions `mode`.
pub fn replace(
    path: &Path,
    mode: Option<u32>,
    fill: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = path.with_extension(format!("{}-{n}.tmp", std::process::id()));
    let written = fill(&temporary).and_then(|()| {
        set_mode(&temporary, mode)?;
        std::fs::rename(&temporary, path)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Removes the temporary files that runs killed while writing left in `dir`: those of
/// processes that no longer exist (Linux; elsewhere they stay).
pub fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".tmp")) else { continue };
        let pid = stem.rsplit('.').next().and_then(|last| last.split('-').next());
        let Some(pid) = pid.and_then(|p| p.parse::<u32>().ok()) else { continue };
        if cfg!(target_os = "linux")
            && pid != std::process::id()
            && !Path::new("/proc").join(pid.to_string()).exists()
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: Option<u32>) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    match mode {
        Some(mode) => std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o666)),
        None => Ok(()),
    }
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: Option<u32>) -> std::io::Result<()> {
    Ok(())
}
