//! The snapshot's string table: every name in one byte arena, each kept to a bounded prefix.

use std::borrow::Cow;
use std::io::Read;

use crate::error::Fault;
use crate::json::Lexer;

/// Longer strings (source text, long string values) keep only this many bytes: names are
/// shorter, and the table stays smaller than the text it comes from.
pub const MAX_STRING: usize = 1024;

#[derive(Debug, Default)]
pub struct Strings {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Strings {
    pub fn read(lx: &mut Lexer<impl Read>) -> Result<Strings, Fault> {
        let mut strings = Strings::default();
        lx.expect(b'[', "`[` (the strings)")?;
        let mut first = true;
        while lx.next_element(first)? {
            first = false;
            lx.string(&mut strings.bytes, MAX_STRING)?;
            strings.ends.push(strings.bytes.len());
        }
        Ok(strings)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i` (a prefix cut inside a character shows U+FFFD); "" when out of range.
    pub fn get(&self, i: u32) -> Cow<'_, str> {
        let i = i as usize;
        let Some(&end) = self.ends.get(i) else { return Cow::Borrowed("") };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        String::from_utf8_lossy(&self.bytes[start..end])
    }

    /// The index of the first string equal to `s`.
    pub fn find(&self, s: &str) -> Option<u32> {
        (0..self.len() as u32).find(|&i| self.raw(i) == s.as_bytes())
    }

    fn raw(&self, i: u32) -> &[u8] {
        let i = i as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    #[cfg(test)]
    pub fn of(list: &[&str]) -> Strings {
        let mut s = Strings::default();
        for item in list {
            s.bytes.extend_from_slice(item.as_bytes());
            s.ends.push(s.bytes.len());
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_kept_to_a_prefix_and_found_by_value() {
        let long = "x".repeat(5000);
        let text = format!(r#"["", "shared", "{long}", "é"]"#);
        let s = Strings::read(&mut Lexer::new(text.as_bytes())).unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s.get(2).len(), MAX_STRING);
        assert_eq!(s.get(3), "é");
        assert_eq!(s.get(9), "");
        assert_eq!(s.find("shared"), Some(1));
        assert_eq!(s.find("nope"), None);
    }
}
