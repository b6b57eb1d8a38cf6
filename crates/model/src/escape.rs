//! One escaping helper per output format. Names in a heap (classes, fields, sites, keys) come
//! from other people's machines and must be shown, never obeyed: a class named
//! `ESC ]0;title BEL` must not retitle the terminal, and one named `</script><img onerror=…>`
//! must not run in a report.

use std::borrow::Cow;
use std::fmt::Write;

/// Text for a terminal: every control character but newline and tab is written as an escape
/// (`\x1b`, `\u{9b}`), and so are the invisible characters that reorder text (bidirectional
/// overrides), so what the terminal shows is what the name holds.
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_terminal_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !needs_terminal_escape(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

fn needs_terminal_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        // C0 controls, DEL and C1 controls (U+009B is a one-character CSI to many terminals).
        '\0'..='\x1f' | '\x7f'..='\u{9f}' => true,
        // Bidirectional embeddings, overrides and isolates, which make text read differently
        // from what it holds.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// Text for HTML and SVG, in element content and in quoted attribute values alike.
pub fn html(text: &str) -> Cow<'_, str> {
    markup(text)
}

/// Text for XML 1.0 (JUnit reports), in element content and quoted attributes alike. Characters
/// that XML 1.0 cannot hold at all (most controls) become U+FFFD, so the file stays well-formed.
pub fn xml(text: &str) -> Cow<'_, str> {
    markup(text)
}

fn markup(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| markup_entity(c).is_some() || !xml_char(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match markup_entity(c) {
            Some(entity) => out.push_str(entity),
            None if xml_char(c) => out.push(c),
            None => out.push('\u{fffd}'),
        }
    }
    Cow::Owned(out)
}

fn markup_entity(c: char) -> Option<&'static str> {
    Some(match c {
        '&' => "&amp;",
        '<' => "&lt;",
        '>' => "&gt;",
        '"' => "&quot;",
        '\'' => "&#39;",
        _ => return None,
    })
}

/// The characters XML 1.0 allows.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// JSON for pages and scripts: serde_json already escapes quotes and controls; this also writes
/// `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`, so the JSON can stand inside a `<script>`
/// element or be pasted into HTML without closing it. (Those characters occur in JSON text only
/// inside strings, where the escapes mean the same.)
pub fn json_for_markup(json: &str) -> Cow<'_, str> {
    if !json.contains(['<', '>', '&']) {
        return Cow::Borrowed(json);
    }
    Cow::Owned(json.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026"))
}

/// A writer that passes JSON through [`json_for_markup`]'s escapes as it streams, for documents
/// too large to hold twice. Bytewise is safe: `<`, `>` and `&` are never part of a longer UTF-8
/// sequence, and in JSON text they stand only inside strings.
pub struct JsonForMarkup<W>(pub W);

impl<W: std::io::Write> std::io::Write for JsonForMarkup<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (i, &b) in buf.iter().enumerate() {
            let escape: &[u8] = match b {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                b'&' => b"\\u0026",
                _ => continue,
            };
            self.0.write_all(&buf[start..i])?;
            self.0.write_all(escape)?;
            start = i + 1;
        }
        self.0.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "</script><img id=pwned src=x onerror=alert(1)>";

    #[test]
    fn terminal_text_holds_no_control_byte_but_newline_and_tab() {
        let name = "Evil\x1b]0;PWNED\x07\x1b[31mRed\u{9b}2J\u{202e}cod.exe\r\nnext\tcolumn\x7f";
        let shown = terminal(name);
        assert_eq!(
            shown,
            "Evil\\x1b]0;PWNED\\x07\\x1b[31mRed\\u{9b}2J\\u{202e}cod.exe\\x0d\nnext\tcolumn\\x7f"
        );
        assert!(shown.bytes().all(|b| b >= 0x20 || b == b'\n' || b == b'\t'));
        assert!(matches!(terminal("java.util.HashMap$Node[] ‹ ü"), Cow::Borrowed(_)));
    }

    #[test]
    fn markup_shows_tags_and_runs_nothing() {
        assert_eq!(html(HOSTILE), "&lt;/script&gt;&lt;img id=pwned src=x onerror=alert(1)&gt;");
        assert_eq!(html(r#"a"b'c&d"#), "a&quot;b&#39;c&amp;d");
        assert!(matches!(html("Map<K, V>"), Cow::Owned(_)));
        assert!(matches!(html("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn xml_replaces_what_xml_cannot_hold() {
        assert_eq!(xml("a\x00b\x1bc\td\u{fffe}"), "a\u{fffd}b\u{fffd}c\td\u{fffd}");
        assert_eq!(xml(HOSTILE), html(HOSTILE));
    }

    #[test]
    fn json_for_markup_cannot_close_a_script() {
        let json = serde_json::to_string(&serde_json::json!({ "name": HOSTILE, "n": 1 })).unwrap();
        let safe = json_for_markup(&json);
        assert!(!safe.contains('<') && !safe.contains('>'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["name"], HOSTILE, "the escapes mean the same text");
        let mut streamed = JsonForMarkup(Vec::new());
        serde_json::to_writer(&mut streamed, &serde_json::json!({ "name": HOSTILE, "n": 1 })).unwrap();
        assert_eq!(String::from_utf8(streamed.0).unwrap(), safe);
    }
}
