//! Cheap checks of every dump of a series before any is parsed, so a bad file is reported at
//! once instead of after the good ones were read: the file can be read, its header is an HPROF
//! header, and a dump written in heap dump segments (as HotSpot writes them) still ends with its
//! HEAP DUMP END record. A gzipped dump has its header checked; damage further in is found when
//! it is read.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::HprofError;
use crate::parse::check_header;

/// Enough for the longest header: the format name, its NUL, the identifier size and the time.
const HEAD: usize = 31;
/// A HEAP DUMP END record: tag 0x2C, a time, a body length of 0.
const END_TAG: u8 = 0x2C;
const SEGMENT_TAG: u8 = 0x1C;

pub fn precheck(path: &Path) -> Result<(), HprofError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| HprofError::new(&name, format!("cannot read: {e}"));
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut head = Vec::with_capacity(HEAD);
    (&mut file).take(HEAD as u64).read_to_end(&mut head).map_err(io)?;
    if head.starts_with(&[0x1f, 0x8b]) {
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut inflated = Vec::with_capacity(HEAD);
        let read = MultiGzDecoder::new(file).take(HEAD as u64).read_to_end(&mut inflated);
        read.map_err(|e| HprofError {
            offset: Some(0),
            ..HprofError::new(&name, format!("broken gzip data: {e}"))
        })?;
        return check_header(&inflated).map_err(|f| f.in_file(&name));
    }
    check_header(&head).map_err(|f| f.in_file(&name))?;
    if uses_segments(&mut file, &head)? && !ends_with_end_record(&mut file, len).map_err(io)? {
        return Err(HprofError {
            offset: Some(len),
            ..HprofError::new(
                &name,
                "truncated dump: it ends without the HEAP DUMP END record that closes its heap dump segments",
            )
        });
    }
    Ok(())
}

/// Whether the dump's heap is written in segments: the first heap record after the header says.
/// Only the records before it (strings, classes) are skipped over, by their lengths.
fn uses_segments(file: &mut File, head: &[u8]) -> Result<bool, HprofError> {
    let Some(nul) = head.iter().position(|&b| b == 0) else { return Ok(false) };
    let mut pos = (nul + 1 + 4 + 8) as u64;
    let mut record = [0u8; 9];
    for _ in 0..1_000_000 {
        if file.seek(SeekFrom::Start(pos)).is_err() || file.read_exact(&mut record).is_err() {
            return Ok(false);
        }
        match record[0] {
            SEGMENT_TAG => return Ok(true),
            0x0C => return Ok(false),
            _ => pos += 9 + u32::from_be_bytes([record[5], record[6], record[7], record[8]]) as u64,
        }
    }
    Ok(false)
}

fn ends_with_end_record(file: &mut File, len: u64) -> std::io::Result<bool> {
    if len < 9 {
        return Ok(false);
    }
    let mut tail = [0u8; 9];
    file.seek(SeekFrom::Start(len - 9))?;
    file.read_exact(&mut tail)?;
    Ok(tail[0] == END_TAG && tail[5..] == [0, 0, 0, 0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_dumps_pass_and_cut_or_foreign_files_fail_at_once() {
        let dir = std::env::temp_dir().join(format!("memcity-precheck-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump1.hprof.gz");
        precheck(&sample).unwrap();
        let mut bytes = Vec::new();
        MultiGzDecoder::new(File::open(&sample).unwrap()).read_to_end(&mut bytes).unwrap();
        let whole = dir.join("whole.hprof");
        std::fs::write(&whole, &bytes).unwrap();
        precheck(&whole).unwrap();
        let cut = dir.join("cut.hprof");
        std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
        let e = precheck(&cut).unwrap_err();
        assert!(e.to_string().contains("truncated dump") && e.file.ends_with("cut.hprof"), "{e}");
        let text = dir.join("notes.hprof");
        std::fs::write(&text, b"hello, this is not a heap dump at all").unwrap();
        assert!(precheck(&text).unwrap_err().message.contains("not an HPROF heap dump"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
