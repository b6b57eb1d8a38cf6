//! The HPROF records the generator writes: top-level records straight to the output, heap dump
//! sub-records gathered into HEAP DUMP SEGMENTs of a bounded size (HotSpot never splits a
//! sub-record across segments). Object ids are checked against a running address, so a
//! mistake in the generator's address arithmetic fails loudly instead of writing a wrong dump.

use std::io::{self, Write};

use crate::parse::OBJECT;

/// 8-byte identifiers, as a 64-bit HotSpot writes them.
pub const ID: usize = 8;

pub struct Records<W: Write> {
    out: W,
    segment: Vec<u8>,
    segment_bytes: usize,
    /// The address the next object must have.
    pub next: u64,
    pub written: u64,
    pub segments: u64,
}

impl<W: Write> Records<W> {
    pub fn new(
        mut out: W,
        segment_bytes: usize,
        timestamp_ms: u64,
        first_address: u64,
    ) -> io::Result<Records<W>> {
        out.write_all(b"JAVA PROFILE 1.0.2\0")?;
        out.write_all(&(ID as u32).to_be_bytes())?;
        out.write_all(&timestamp_ms.to_be_bytes())?;
        Ok(Records {
            out,
            segment: Vec::with_capacity(segment_bytes.min(64 << 20) + 4096),
            segment_bytes: segment_bytes.max(1),
            next: first_address,
            written: 31,
            segments: 0,
        })
    }

    fn record(&mut self, tag: u8, body: &[u8]) -> io::Result<()> {
        self.out.write_all(&[tag])?;
        self.out.write_all(&0u32.to_be_bytes())?;
        self.out.write_all(&(body.len() as u32).to_be_bytes())?;
        self.out.write_all(body)?;
        self.written += 9 + body.len() as u64;
        Ok(())
    }

    pub fn utf8(&mut self, id: u64, text: &str) -> io::Result<()> {
        let mut body = id.to_be_bytes().to_vec();
        body.extend(text.as_bytes());
        self.record(0x01, &body)
    }

    pub fn load_class(&mut self, serial: u32, class: u64, name: u64) -> io::Result<()> {
        let mut body = serial.to_be_bytes().to_vec();
        body.extend(class.to_be_bytes());
        body.extend(0u32.to_be_bytes());
        body.extend(name.to_be_bytes());
        self.record(0x02, &body)
    }

    /// A CLASS DUMP: instance fields and static fields as (name id, type), statics with values.
    pub fn class_dump(
        &mut self,
        class: u64,
        super_id: u64,
        instance_size: u32,
        statics: &[(u64, u64)],
        fields: &[(u64, u8)],
    ) -> io::Result<()> {
        let s = &mut self.segment;
        s.push(0x20);
        s.extend(class.to_be_bytes());
        s.extend(0u32.to_be_bytes());
        s.extend(super_id.to_be_bytes());
        // Loader, signers, protection domain, two reserved ids.
        s.extend([0u8; 5 * ID]);
        s.extend(instance_size.to_be_bytes());
        s.extend(0u16.to_be_bytes());
        s.extend((statics.len() as u16).to_be_bytes());
        for &(name, value) in statics {
            s.extend(name.to_be_bytes());
            s.push(OBJECT);
            s.extend(value.to_be_bytes());
        }
        s.extend((fields.len() as u16).to_be_bytes());
        for &(name, ty) in fields {
            s.extend(name.to_be_bytes());
            s.push(ty);
        }
        self.flush_if_full()
    }

    /// A GC root sub-record of `tag` with its extra bytes (zeros).
    pub fn root(&mut self, tag: u8, id: u64, extra: usize) -> io::Result<()> {
        self.segment.push(tag);
        self.segment.extend(id.to_be_bytes());
        self.segment.extend(std::iter::repeat_n(0, extra));
        self.flush_if_full()
    }

    /// Checks that `id` is the next address and moves past the object's `size` bytes.
    fn place(&mut self, id: u64, size: u64) -> io::Result<()> {
        if id != self.next {
            let msg = format!("generator: object 0x{id:x} placed where 0x{:x} was due", self.next);
            return Err(io::Error::new(io::ErrorKind::InvalidData, msg));
        }
        self.next += size;
        Ok(())
    }

    /// An INSTANCE DUMP of `size` bytes in the JVM; `fields` are its field values as the dump
    /// writes them (the class's own fields first, then its superclasses').
    pub fn instance(&mut self, id: u64, size: u64, class: u64, fields: &[u8]) -> io::Result<()> {
        self.place(id, size)?;
        let s = &mut self.segment;
        s.push(0x21);
        s.extend(id.to_be_bytes());
        s.extend(0u32.to_be_bytes());
        s.extend(class.to_be_bytes());
        s.extend((fields.len() as u32).to_be_bytes());
        s.extend(fields);
        self.flush_if_full()
    }

    /// An OBJECT ARRAY DUMP of `size` bytes; `elements(i)` is element `i` (0 for null). An
    /// array larger than a segment gets a segment of its own, streamed element by element
    /// (a map's table of millions of entries is not gathered in memory).
    pub fn object_array(
        &mut self,
        id: u64,
        size: u64,
        class: u64,
        length: u64,
        elements: impl Fn(u64) -> u64,
    ) -> io::Result<()> {
        self.place(id, size)?;
        let mut head = vec![0x22];
        head.extend(id.to_be_bytes());
        head.extend(0u32.to_be_bytes());
        head.extend((length as u32).to_be_bytes());
        head.extend(class.to_be_bytes());
        let record = head.len() as u64 + length * ID as u64;
        if record < self.segment_bytes as u64 {
            self.segment.extend(head);
            (0..length).for_each(|i| self.segment.extend(elements(i).to_be_bytes()));
            return self.flush_if_full();
        }
        self.flush_segment()?;
        let record = u32::try_from(record).map_err(|_| io::Error::other("generator: array over 4 GiB"))?;
        self.out.write_all(&[0x1C])?;
        self.out.write_all(&0u32.to_be_bytes())?;
        self.out.write_all(&record.to_be_bytes())?;
        self.out.write_all(&head)?;
        for i in 0..length {
            self.out.write_all(&elements(i).to_be_bytes())?;
        }
        self.written += 9 + u64::from(record);
        self.segments += 1;
        Ok(())
    }

    /// A `byte[]` of `size` bytes holding `bytes`.
    pub fn byte_array(&mut self, id: u64, size: u64, bytes: &[u8]) -> io::Result<()> {
        self.place(id, size)?;
        let s = &mut self.segment;
        s.push(0x23);
        s.extend(id.to_be_bytes());
        s.extend(0u32.to_be_bytes());
        s.extend((bytes.len() as u32).to_be_bytes());
        s.push(8);
        s.extend(bytes);
        self.flush_if_full()
    }

    fn flush_if_full(&mut self) -> io::Result<()> {
        if self.segment.len() >= self.segment_bytes { self.flush_segment() } else { Ok(()) }
    }

    fn flush_segment(&mut self) -> io::Result<()> {
        if self.segment.is_empty() {
            return Ok(());
        }
        let segment = std::mem::take(&mut self.segment);
        self.record(0x1C, &segment)?;
        self.segment = segment;
        self.segment.clear();
        self.segments += 1;
        Ok(())
    }

    /// Closes the last segment and the heap dump; hands back the segments and bytes written.
    pub fn finish(mut self) -> io::Result<(u64, u64)> {
        self.flush_segment()?;
        self.record(0x2C, &[])?;
        self.out.flush()?;
        Ok((self.segments, self.written))
    }
}
