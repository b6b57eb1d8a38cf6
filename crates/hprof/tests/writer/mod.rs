//! A tiny HPROF writer for hand-made dumps, shared by the tests.
#![allow(dead_code)] // each test file uses some of it

/// A tiny HPROF writer for hand-made dumps.
pub struct Writer {
    pub bytes: Vec<u8>,
    id: usize,
}

impl Writer {
    pub fn new(id: u32) -> Writer {
        Writer::with_version(id, "1.0.2")
    }
    /// A dump of format `JAVA PROFILE <version>`.
    pub fn with_version(id: u32, version: &str) -> Writer {
        let mut bytes = format!("JAVA PROFILE {version}\0").into_bytes();
        bytes.extend(id.to_be_bytes());
        bytes.extend(1_700_000_000_000u64.to_be_bytes());
        Writer { bytes, id: id as usize }
    }
    pub fn id(&self, v: u64, out: &mut Vec<u8>) {
        out.extend(&v.to_be_bytes()[8 - self.id..]);
    }
    pub fn record(&mut self, tag: u8, body: &[u8]) {
        self.bytes.push(tag);
        self.bytes.extend(0u32.to_be_bytes());
        self.bytes.extend((body.len() as u32).to_be_bytes());
        self.bytes.extend(body);
    }
    pub fn string(&mut self, id: u64, text: &str) {
        let mut b = Vec::new();
        self.id(id, &mut b);
        b.extend(text.as_bytes());
        self.record(0x01, &b);
    }
    pub fn load_class(&mut self, class: u64, name: u64) {
        let mut b = 1u32.to_be_bytes().to_vec();
        self.id(class, &mut b);
        b.extend(0u32.to_be_bytes());
        self.id(name, &mut b);
        self.record(0x02, &b);
    }
    /// A CLASS_DUMP sub-record: instance fields as (name id, type).
    pub fn class_dump(&self, out: &mut Vec<u8>, class: u64, super_id: u64, fields: &[(u64, u8)]) {
        out.push(0x20);
        self.id(class, out);
        out.extend(0u32.to_be_bytes());
        self.id(super_id, out);
        for _ in 0..5 {
            self.id(0, out);
        }
        out.extend(0u32.to_be_bytes());
        out.extend(0u16.to_be_bytes());
        out.extend(0u16.to_be_bytes());
        out.extend((fields.len() as u16).to_be_bytes());
        for &(name, ty) in fields {
            self.id(name, out);
            out.push(ty);
        }
    }
    pub fn instance(&self, out: &mut Vec<u8>, id: u64, class: u64, fields: &[u8]) {
        out.push(0x21);
        self.id(id, out);
        out.extend(0u32.to_be_bytes());
        self.id(class, out);
        out.extend((fields.len() as u32).to_be_bytes());
        out.extend(fields);
    }
}
