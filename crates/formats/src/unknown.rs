//! The one line for a file memcity does not recognise: what its first bytes are.

use crate::head::Head;

/// How many of the first bytes are shown.
const SHOWN: usize = 32;

/// The reason line for an unrecognised file.
pub(crate) fn reason(head: &Head, known: &str) -> String {
    if head.raw.is_empty() {
        return format!("empty file: not {known}");
    }
    if head.gzip {
        if let Some(broken) = &head.broken_gzip
            && head.bytes.is_empty()
        {
            return format!("broken gzip data ({broken}): not {known}");
        }
        return format!("not {known}: gzip data whose first bytes are {}", describe_bytes(&head.bytes));
    }
    format!("not {known}: its first bytes are {}", describe_bytes(&head.raw))
}

/// The first bytes in quotes, printable ASCII as it is and everything else escaped (`\x1b`,
/// `\n`), so a hostile file cannot drive the terminal; `…` when there is more.
pub fn describe_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes.iter().take(SHOWN) {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    if bytes.len() > SHOWN {
        out.push('…');
    }
    out
}
