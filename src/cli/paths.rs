//! Inputs and outputs named on the command line, checked before any work starts: an output
//! that cannot be written fails at once rather than after minutes of work (or never, as a
//! history lost at shutdown), and an input that is not a regular file or folder (a FIFO, a
//! device) is refused rather than read forever.

use std::fs::OpenOptions;
use std::path::Path;

use anyhow::{Result, bail};

/// Checks that `path` can be created or replaced as a file: not a folder, in a folder that
/// exists, writable (tried by creating and removing a sibling file, so an existing file is
/// left untouched).
pub fn check_output_file(path: &Path, flag: &str) -> Result<()> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        bail!("{flag}: the path is empty");
    }
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            bail!("{flag} {shown}: is a folder; give a file path");
        }
        if !meta.is_file() {
            bail!("{flag} {shown}: not a regular file (a FIFO or device); give a file path");
        }
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!("{flag} {shown}: the folder {} does not exist", parent.display());
    }
    let mut probe = path.as_os_str().to_owned();
    probe.push(format!(".memcity-probe-{}", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => bail!("{flag} {shown}: cannot write there ({e})"),
    }
}

/// Refuses an input path that exists but is neither a regular file nor a folder: reading a
/// FIFO or a device would block or never end.
pub fn check_input(path: &Path) -> Result<()> {
    let Ok(meta) = std::fs::metadata(path) else { return Ok(()) };
    if meta.is_file() || meta.is_dir() {
        return Ok(());
    }
    bail!(
        "{}: not a regular file or folder (a FIFO, socket or device); save the data to a file first",
        path.display()
    )
}

/// Reads a small text file a flag names (a baseline, a settings file): a regular file of at
/// most `max` bytes, so a FIFO or a huge file is refused instead of read forever.
pub fn read_small_file(path: &Path, flag: &str, max: u64) -> Result<String> {
    use std::io::Read;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| anyhow::anyhow!("{flag} {shown}: {e}"))?;
    if !meta.is_file() {
        bail!("{flag} {shown}: not a regular file");
    }
    if meta.len() > max {
        bail!("{flag} {shown}: {} bytes is more than the {max} such a file may have", meta.len());
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_string(&mut text))
        .map_err(|e| anyhow::anyhow!("{flag} {shown}: {e}"))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_checked_without_touching_existing_files() {
        let dir = std::env::temp_dir().join(format!("memcity-paths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("keep.json");
        std::fs::write(&file, "kept").unwrap();
        check_output_file(&file, "--out").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "the probe is removed");
        let e = check_output_file(&dir, "--save").unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = check_output_file(&dir.join("no/such/x.json"), "--out").unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
