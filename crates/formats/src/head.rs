//! A file's first bytes, and what they say it is.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::Kind;

/// How many bytes (inflated, for gzip) are looked at: enough for every format's magic and the
/// first key of a JSON document after some white space.
pub const HEAD_LEN: usize = 256;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const HPROF_MAGIC: &[u8] = b"JAVA PROFILE 1.0.";
const HEAP_FILE_MAGIC: &[u8] = b"MEMCITYH";
const BINARY_TRACE_MAGIC: &[u8] = b"MCTRACE\x01";

/// The first bytes of a file.
#[derive(Debug, Clone, Default)]
pub struct Head {
    /// At most [`HEAD_LEN`] bytes, inflated when the file is gzip.
    pub bytes: Vec<u8>,
    /// The file starts with the gzip magic bytes.
    pub gzip: bool,
    /// The gzip data broke before [`HEAD_LEN`] bytes came out (the message).
    pub broken_gzip: Option<String>,
    /// The file's raw first bytes (what a user would see with `head -c`).
    pub raw: Vec<u8>,
}

/// Reads a regular file's first bytes, inflating gzip (bounded: [`HEAD_LEN`] bytes out).
pub fn read_head(path: &Path) -> std::io::Result<Head> {
    let mut raw = Vec::with_capacity(HEAD_LEN);
    File::open(path)?.take(HEAD_LEN as u64).read_to_end(&mut raw)?;
    if !raw.starts_with(&GZIP_MAGIC) {
        return Ok(Head { bytes: raw.clone(), raw, ..Head::default() });
    }
    let mut bytes = Vec::with_capacity(HEAD_LEN);
    let inflated = MultiGzDecoder::new(File::open(path)?).take(HEAD_LEN as u64).read_to_end(&mut bytes);
    Ok(Head { bytes, gzip: true, broken_gzip: inflated.err().map(|e| e.to_string()), raw })
}

/// What a file's (inflated) first bytes say it is.
pub fn kind_of_head(head: &[u8]) -> Option<Kind> {
    if head.starts_with(HPROF_MAGIC) {
        return Some(Kind::HprofDump);
    }
    if head.starts_with(HEAP_FILE_MAGIC) {
        return Some(Kind::HeapFile);
    }
    if head.starts_with(BINARY_TRACE_MAGIC) {
        return Some(Kind::BinaryTrace);
    }
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head).trim_ascii_start();
    match text.first()? {
        // AntTracks' export of several trees.
        b'[' => Some(Kind::History),
        b'{' => Some(match first_key(&text[1..]) {
            Some(b"snapshot") => Kind::V8Snapshot,
            // A JSON Lines trace: every event is tagged by "e" first.
            Some(b"e") => Kind::JsonLinesTrace,
            // memcity/1 ("format", "snapshots"), one snapshot ("tree", "time_ms"), AntTracks
            // ("time", "root"): the history reader tells them apart and explains the rest.
            _ if looks_like_json_object(&text[1..]) => Kind::History,
            _ => return None,
        }),
        _ => None,
    }
}

/// The first key of a JSON object whose `{` was just read, when it is a plain string.
fn first_key(rest: &[u8]) -> Option<&[u8]> {
    let rest = rest.trim_ascii_start().strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    (rest[end] == b'"').then_some(&rest[..end])
}

/// After `{`: white space, then a key or the closing brace; anything else is not JSON.
fn looks_like_json_object(rest: &[u8]) -> bool {
    let rest = rest.trim_ascii_start();
    rest.is_empty() || rest[0] == b'"' || rest[0] == b'}'
}
