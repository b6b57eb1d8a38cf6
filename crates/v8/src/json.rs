//! A streaming JSON tokenizer over any reader, made for heap snapshots: it never holds the
//! text, reads the big integer arrays straight into the caller's tables, and names the byte
//! offset of every problem. Only the grammar a snapshot needs is exposed (objects, arrays of
//! unsigned integers, strings, and skipping any value).

use std::io::Read;

use crate::error::Fault;

/// Bytes read from the source at a time.
const CHUNK: usize = 1 << 20;
/// Nesting deeper than this is refused when skipping a value.
const MAX_DEPTH: usize = 10_000;

pub struct Lexer<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Offset of `buf[0]` in the text.
    base: u64,
    eof: bool,
}

impl<R: Read> Lexer<R> {
    pub fn new(src: R) -> Lexer<R> {
        Lexer { src, buf: vec![0; CHUNK], pos: 0, end: 0, base: 0, eof: false }
    }

    /// The offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn fault(&self, message: impl Into<String>) -> Fault {
        Fault::at(self.offset(), message)
    }

    /// Makes at least one byte available; false at the end of the text.
    fn fill(&mut self) -> Result<bool, Fault> {
        if self.pos < self.end {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.src.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.fault(format!("cannot read: {e}"))),
            }
        }
    }

    /// The next byte that is not white space, without consuming it; `None` at the end.
    pub fn peek(&mut self) -> Result<Option<u8>, Fault> {
        loop {
            if !self.fill()? {
                return Ok(None);
            }
            let b = self.buf[self.pos];
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                return Ok(Some(b));
            }
        }
    }

    /// Consumes `byte` (after white space) or fails naming `what` was expected.
    pub fn expect(&mut self, byte: u8, what: &str) -> Result<(), Fault> {
        match self.peek()? {
            Some(b) if b == byte => {
                self.pos += 1;
                Ok(())
            }
            found => Err(self.unexpected(found, what)),
        }
    }

    pub fn unexpected(&self, found: Option<u8>, what: &str) -> Fault {
        match found {
            None => self.fault(format!("the text ends where {what} was expected (truncated file?)")),
            Some(b) => self.fault(format!("expected {what}, found {}", shown(b))),
        }
    }

    /// After `{` or a member: `Some(key)` of the next member, `None` at `}`.
    pub fn next_key(&mut self, first: bool, limit: usize) -> Result<Option<String>, Fault> {
        match self.peek()? {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !first => self.pos += 1,
            found if !first => return Err(self.unexpected(found, "`,` or `}`")),
            _ => {}
        }
        let mut key = Vec::new();
        self.string(&mut key, limit)?;
        self.expect(b':', "`:` after an object key")?;
        Ok(Some(String::from_utf8_lossy(&key).into_owned()))
    }

    /// Reads a string into `out`, keeping at most `limit` bytes of it (the rest is read and
    /// dropped). Escapes are decoded; unpaired surrogates become U+FFFD.
    pub fn string(&mut self, out: &mut Vec<u8>, limit: usize) -> Result<(), Fault> {
        self.expect(b'"', "a string")?;
        let start = out.len();
        loop {
            if !self.fill()? {
                return Err(self.unexpected(None, "the end of a string"));
            }
            // Copy the plain run up to the next quote or backslash in one go.
            let chunk = &self.buf[self.pos..self.end];
            let run = chunk.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(chunk.len());
            let room = (start + limit).saturating_sub(out.len());
            out.extend_from_slice(&chunk[..run.min(room)]);
            self.pos += run;
            if run == chunk.len() {
                continue;
            }
            match self.buf[self.pos] {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    let c = self.escape()?;
                    if out.len() - start < limit {
                        let mut utf8 = [0; 4];
                        out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                    }
                }
                b => return Err(self.fault(format!("control byte {} inside a string", shown(b)))),
            }
        }
        // A kept prefix may end inside a character; the lossy view repairs it on use.
        Ok(())
    }

    fn byte(&mut self, what: &str) -> Result<u8, Fault> {
        if !self.fill()? {
            return Err(self.unexpected(None, what));
        }
        self.pos += 1;
        Ok(self.buf[self.pos - 1])
    }

    fn escape(&mut self) -> Result<char, Fault> {
        Ok(match self.byte("an escape")? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4()?;
                if (0xD800..0xDC00).contains(&high) && self.peek_raw() == Some(b'\\') {
                    self.pos += 1;
                    if self.byte("an escape")? != b'u' {
                        return Err(self.fault("expected a \\u escape after a high surrogate"));
                    }
                    let low = self.hex4()?;
                    if (0xDC00..0xE000).contains(&low) {
                        let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                        return Ok(char::from_u32(c).unwrap_or('\u{fffd}'));
                    }
                    return Ok(char::from_u32(low).unwrap_or('\u{fffd}'));
                }
                char::from_u32(high).unwrap_or('\u{fffd}')
            }
            b => return Err(self.fault(format!("unknown escape \\{}", shown(b)))),
        })
    }

    fn peek_raw(&mut self) -> Option<u8> {
        self.fill().ok().filter(|&more| more).map(|_| self.buf[self.pos])
    }

    fn hex4(&mut self) -> Result<u32, Fault> {
        let mut v = 0;
        for _ in 0..4 {
            let b = self.byte("a hex digit")?;
            let d = (b as char).to_digit(16).ok_or_else(|| self.fault("bad \\u escape"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// Reads an array of unsigned integers, calling `each(value)` for each; `each` may fail
    /// (its fault gets this offset). Returns how many there were.
    pub fn uints(&mut self, mut each: impl FnMut(u64) -> Result<(), String>) -> Result<u64, Fault> {
        self.records(1, |batch| batch.iter().try_for_each(|&v| each(v)))
    }

    /// Reads an array of unsigned integers as records of `stride` values: `each` gets batches
    /// of whole records (a fault it returns gets the offset reached). Returns how many numbers
    /// there were; a last partial record is counted but not passed on.
    pub fn records(
        &mut self,
        stride: usize,
        mut each: impl FnMut(&[u64]) -> Result<(), String>,
    ) -> Result<u64, Fault> {
        self.expect(b'[', "`[`")?;
        let stride = stride.max(1);
        let batch_len = stride * 4096;
        let mut batch: Vec<u64> = Vec::with_capacity(batch_len);
        let mut count = 0u64;
        let mut value = 0u64;
        // Digits of the number being read (it may continue in the next buffer); 0 between numbers.
        let mut digits = 0usize;
        // After `[` or `,` a number must come (or `]` right after `[`).
        let mut need = true;
        loop {
            if !self.fill()? {
                return Err(self.unexpected(None, "a number, `,` or `]`"));
            }
            let end = self.end;
            let mut i = self.pos;
            while i < end {
                let b = self.buf[i];
                if b.wrapping_sub(b'0') < 10 {
                    if digits == 0 {
                        if !need {
                            self.pos = i;
                            return Err(self.fault("expected `,` or `]` between numbers"));
                        }
                        need = false;
                        value = 0;
                    }
                    // The digit run, in a tight loop.
                    let start = i;
                    let buf = &self.buf[..end];
                    while i < end {
                        let d = buf[i].wrapping_sub(b'0');
                        if d >= 10 {
                            break;
                        }
                        value = value.wrapping_mul(10).wrapping_add(d as u64);
                        i += 1;
                    }
                    digits += i - start;
                    // 19 digits always fit in a u64; longer numbers are not sizes or indices.
                    if digits > 19 {
                        self.pos = i;
                        return Err(self.fault("number too large"));
                    }
                    continue;
                }
                if digits > 0 {
                    digits = 0;
                    batch.push(value);
                    count += 1;
                    if batch.len() == batch_len {
                        self.pos = i;
                        each(&batch).map_err(|m| self.fault(m))?;
                        batch.clear();
                    }
                }
                match b {
                    b',' if !need => need = true,
                    b']' if !need || count == 0 => {
                        self.pos = i;
                        let whole = batch.len() - batch.len() % stride;
                        each(&batch[..whole]).map_err(|m| self.fault(m))?;
                        self.pos = i + 1;
                        return Ok(count);
                    }
                    b' ' | b'\n' | b'\r' | b'\t' => {}
                    b'-' | b'.' | b'e' | b'E' => {
                        self.pos = i;
                        return Err(
                            self.fault("expected an unsigned integer (no sign, fraction or exponent)")
                        );
                    }
                    b => {
                        self.pos = i;
                        let what = if need { "a number" } else { "`,` or `]`" };
                        return Err(self.fault(format!("expected {what}, found {}", shown(b))));
                    }
                }
                i += 1;
            }
            self.pos = i;
        }
    }

    /// Reads one unsigned integer.
    pub fn uint(&mut self) -> Result<u64, Fault> {
        match self.peek()? {
            Some(b'0'..=b'9') => {}
            found => return Err(self.unexpected(found, "an unsigned integer")),
        }
        let mut value = 0u64;
        while let Some(b) = self.peek_raw().filter(u8::is_ascii_digit) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add((b - b'0') as u64))
                .ok_or_else(|| self.fault("number too large"))?;
            self.pos += 1;
        }
        Ok(value)
    }

    /// Skips one value of any kind, copying its text into `keep` while `keep` has room
    /// (`capture` bytes at most; more is an error naming `what`).
    pub fn skip(&mut self, mut keep: Option<(&mut Vec<u8>, usize, &str)>) -> Result<(), Fault> {
        let mut stack: Vec<u8> = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        let mut started = false;
        loop {
            if started && keep.is_none() && !stack.is_empty() && !escaped {
                // Inside a container only these bytes change the state: skip the rest in runs.
                if !self.fill()? {
                    return Err(self.unexpected(None, "the rest of a value"));
                }
                let chunk = &self.buf[self.pos..self.end];
                let run = if in_string {
                    chunk.iter().position(|&b| b == b'"' || b == b'\\')
                } else {
                    chunk.iter().position(|&b| matches!(b, b'"' | b'[' | b']' | b'{' | b'}'))
                };
                self.pos += run.unwrap_or(chunk.len());
                if run.is_none() {
                    continue;
                }
            }
            let b = if started {
                if !self.fill()? {
                    return Err(self.unexpected(None, "the rest of a value"));
                }
                self.buf[self.pos]
            } else {
                match self.peek()? {
                    Some(b) => b,
                    None => return Err(self.unexpected(None, "a value")),
                }
            };
            started = true;
            self.pos += 1;
            if let Some((out, limit, what)) = keep.as_mut() {
                if out.len() >= *limit {
                    return Err(self.fault(format!("{what} is longer than {limit} bytes")));
                }
                out.push(b);
            }
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'[' | b'{' => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(self.fault(format!("values nested deeper than {MAX_DEPTH}")));
                        }
                        stack.push(if b == b'[' { b']' } else { b'}' });
                    }
                    b']' | b'}' if stack.pop() != Some(b) => {
                        self.pos -= 1;
                        return Err(self.fault(format!("unbalanced {}", shown(b))));
                    }
                    _ => {}
                }
            }
            // A scalar ends at the next delimiter (left for the caller).
            if !in_string && stack.is_empty() {
                if b == b'"' || b == b']' || b == b'}' {
                    return Ok(());
                }
                if b != b'[' && b != b'{' {
                    while let Some(n) = self.peek_raw() {
                        if matches!(n, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t') {
                            break;
                        }
                        if let Some((out, limit, what)) = keep.as_mut() {
                            if out.len() >= *limit {
                                return Err(self.fault(format!("{what} is longer than {limit} bytes")));
                            }
                            out.push(n);
                        }
                        self.pos += 1;
                    }
                    return Ok(());
                }
            }
        }
    }

    /// After `[` or an element: whether another element follows (consuming the `,`).
    pub fn next_element(&mut self, first: bool) -> Result<bool, Fault> {
        match self.peek()? {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.pos += 1;
                Ok(true)
            }
            found if !first => Err(self.unexpected(found, "`,` or `]`")),
            _ => Ok(true),
        }
    }

    /// Fails unless only white space is left.
    pub fn finish(&mut self) -> Result<(), Fault> {
        match self.peek()? {
            None => Ok(()),
            found => Err(self.unexpected(found, "the end of the text")),
        }
    }
}

/// A byte as an error message shows it.
fn shown(b: u8) -> String {
    if b.is_ascii_graphic() { format!("`{}`", b as char) } else { format!("byte 0x{b:02x}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexer(text: &str) -> Lexer<&[u8]> {
        Lexer::new(text.as_bytes())
    }

    #[test]
    fn integer_arrays_stream_with_offsets_in_errors() {
        let mut values = Vec::new();
        let n = lexer(" [1, 22 ,333\n,0]")
            .uints(|v| {
                values.push(v);
                Ok(())
            })
            .unwrap();
        assert_eq!((n, values), (4, vec![1, 22, 333, 0]));
        assert_eq!(lexer("[]").uints(|_| Ok(())).unwrap(), 0);
        let e = lexer("[1,2,]").uints(|_| Ok(())).unwrap_err();
        assert_eq!(e.offset, Some(5));
        let e = lexer("[1,-2]").uints(|_| Ok(())).unwrap_err();
        assert!(e.message.contains("unsigned"), "{e:?}");
        let e = lexer("[1 2]").uints(|_| Ok(())).unwrap_err();
        assert_eq!(e.offset, Some(3));
        let e = lexer("[1,2").uints(|_| Ok(())).unwrap_err();
        assert!(e.message.contains("truncated"), "{e:?}");
        let e = lexer("[99999999999999999999999]").uints(|_| Ok(())).unwrap_err();
        assert!(e.message.contains("too large"), "{e:?}");
        let e = lexer("[1,2]").uints(|v| if v == 2 { Err("no twos".into()) } else { Ok(()) }).unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (Some(4), "no twos"));
    }

    #[test]
    fn long_numbers_are_read_whole() {
        let text = "[1234567890123, 99999999, 100000000,7 ,\n0,9999999999999999999]";
        let mut values = Vec::new();
        lexer(text)
            .uints(|v| {
                values.push(v);
                Ok(())
            })
            .unwrap();
        assert_eq!(values, [1_234_567_890_123, 99_999_999, 100_000_000, 7, 0, 9_999_999_999_999_999_999]);
    }

    #[test]
    fn strings_decode_escapes_and_keep_a_bounded_prefix() {
        let mut out = Vec::new();
        lexer(r#""a\"b\\\u00e9\ud83d\ude00\n""#).string(&mut out, 100).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a\"b\\é😀\n");
        let mut out = Vec::new();
        lexer(r#""abcdefgh""#).string(&mut out, 3).unwrap();
        assert_eq!(out, b"abc");
        let mut out = Vec::new();
        lexer("\"\\ud800x\"").string(&mut out, 100).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "\u{fffd}x");
        assert!(lexer("\"abc").string(&mut Vec::new(), 9).is_err());
        assert!(lexer("\"a\\q\"").string(&mut Vec::new(), 9).is_err());
    }

    #[test]
    fn skipping_and_capturing_values() {
        let mut l = lexer(r#"{"a": [1, {"b": "]}"}], "c": 7} ,"#);
        let mut kept = Vec::new();
        l.skip(Some((&mut kept, 100, "value"))).unwrap();
        assert_eq!(kept, br#"{"a": [1, {"b": "]}"}], "c": 7}"#);
        assert_eq!(l.peek().unwrap(), Some(b','));
        let mut l = lexer("12345 ]");
        l.skip(None).unwrap();
        assert_eq!(l.peek().unwrap(), Some(b']'));
        let e = lexer("[1, [2]").skip(None).unwrap_err();
        assert!(e.message.contains("truncated"), "{e:?}");
        let e = lexer("[1, 2}").skip(None).unwrap_err();
        assert_eq!(e.offset, Some(5));
        // Skipped without keeping: brackets and escaped quotes inside strings are text.
        let mut l = lexer(r#"{"a": "x\"]}\\", "b": [1, "[", {}]} ,"#);
        l.skip(None).unwrap();
        assert_eq!(l.peek().unwrap(), Some(b','));
        let e = lexer(r#"[1, "a\"]"#).skip(None).unwrap_err();
        assert!(e.message.contains("truncated"), "{e:?}");
        let e = lexer(&"[".repeat(20_000)).skip(None).unwrap_err();
        assert!(e.message.contains("nested"), "{e:?}");
        let e = lexer("[1,2,3]").skip(Some((&mut Vec::new(), 3, "meta"))).unwrap_err();
        assert!(e.message.contains("meta is longer than 3 bytes"), "{e:?}");
    }

    #[test]
    fn keys_of_objects() {
        let mut l = lexer(r#"{"a":1,"b":2}"#);
        l.expect(b'{', "{").unwrap();
        assert_eq!(l.next_key(true, 64).unwrap().as_deref(), Some("a"));
        assert_eq!(l.uint().unwrap(), 1);
        assert_eq!(l.next_key(false, 64).unwrap().as_deref(), Some("b"));
        assert_eq!(l.uint().unwrap(), 2);
        assert_eq!(l.next_key(false, 64).unwrap(), None);
        l.finish().unwrap();
    }
}
