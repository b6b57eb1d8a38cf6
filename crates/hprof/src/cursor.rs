//! Bounds-checked big-endian reading over a dump's bytes; every read past the end is a
//! [`Fault`] at the offset where the missing value starts.

use crate::error::Fault;

pub struct Cursor<'a> {
    data: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], pos: usize) -> Cursor<'a> {
        Cursor { data, pos }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The next `n` bytes; `what` names the value for the error message.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], Fault> {
        let end = self.pos.checked_add(n).filter(|&end| end <= self.data.len()).ok_or_else(|| {
            Fault::new(
                self.pos,
                format!(
                    "truncated dump: {what} needs {n} bytes but only {} remain",
                    self.data.len().saturating_sub(self.pos)
                ),
            )
        })?;
        let slice = &self.data[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    /// All bytes left, without moving.
    pub fn peek_rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }

    /// All bytes left.
    pub fn rest(&mut self) -> &'a [u8] {
        let rest = &self.data[self.pos.min(self.data.len())..];
        self.pos = self.data.len();
        rest
    }

    pub fn u1(&mut self, what: &str) -> Result<u8, Fault> {
        Ok(self.bytes(1, what)?[0])
    }

    pub fn u2(&mut self, what: &str) -> Result<u16, Fault> {
        Ok(u16::from_be_bytes(self.bytes(2, what)?.try_into().expect("2 bytes")))
    }

    pub fn u4(&mut self, what: &str) -> Result<u32, Fault> {
        Ok(u32::from_be_bytes(self.bytes(4, what)?.try_into().expect("4 bytes")))
    }

    pub fn u8(&mut self, what: &str) -> Result<u64, Fault> {
        Ok(u64::from_be_bytes(self.bytes(8, what)?.try_into().expect("8 bytes")))
    }

    /// An object or name id of the dump's id size (4 or 8).
    pub fn id(&mut self, id_size: usize, what: &str) -> Result<u64, Fault> {
        Ok(read_id(self.bytes(id_size, what)?))
    }
}

/// A big-endian id of 4 or 8 bytes (the caller checked the length).
pub fn read_id(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}
