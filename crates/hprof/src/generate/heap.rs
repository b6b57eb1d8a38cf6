//! The generated heap: its classes, where every object lives, and the objects written in
//! address order.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::records::Records;
use super::{Spec, Summary};
use crate::layout::Layout;
use crate::parse::OBJECT;

const INT: u8 = 10;
const LONG: u8 = 11;
const BYTE: u8 = 8;
const BOOLEAN: u8 = 4;
const FLOAT: u8 = 6;

/// Where the heap starts; class objects sit just below it.
const HEAP_BASE: u64 = 0x7_0000_0000;
const CLASS_BASE: u64 = HEAP_BASE - (1 << 20);

/// A class: its name as HotSpot writes it, superclass, own instance fields, static references.
struct Class {
    name: &'static str,
    superclass: Option<usize>,
    fields: &'static [(&'static str, u8)],
    statics: &'static [&'static str],
}

const fn class(name: &'static str, superclass: usize, fields: &'static [(&'static str, u8)]) -> Class {
    Class { name, superclass: Some(superclass), fields, statics: &[] }
}

// Class indices.
const OBJ: usize = 0;
const INTEGER: usize = 2;
const STRING: usize = 3;
const HASH_MAP: usize = 5;
const NODE: usize = 6;
const ARRAY_LIST: usize = 9;
const ITEM: usize = 10;
const OBJECT_ARRAY: usize = 12;
const NODE_ARRAY: usize = 13;
const STRING_ARRAY: usize = 14;

/// JDK 17's fields for these classes (`String.hashIsZero` tells the reader it is JDK 13+).
const CLASSES: [Class; 16] = [
    Class { name: "java/lang/Object", superclass: None, fields: &[], statics: &[] },
    class("java/lang/Number", OBJ, &[]),
    class("java/lang/Integer", 1, &[("value", INT)]),
    class(
        "java/lang/String",
        OBJ,
        &[("value", OBJECT), ("hash", INT), ("coder", BYTE), ("hashIsZero", BOOLEAN)],
    ),
    class("java/util/AbstractMap", OBJ, &[("keySet", OBJECT), ("values", OBJECT)]),
    class(
        "java/util/HashMap",
        4,
        &[
            ("table", OBJECT),
            ("entrySet", OBJECT),
            ("size", INT),
            ("modCount", INT),
            ("threshold", INT),
            ("loadFactor", FLOAT),
        ],
    ),
    class(
        "java/util/HashMap$Node",
        OBJ,
        &[("hash", INT), ("key", OBJECT), ("value", OBJECT), ("next", OBJECT)],
    ),
    class("java/util/AbstractCollection", OBJ, &[]),
    class("java/util/AbstractList", 7, &[("modCount", INT)]),
    class("java/util/ArrayList", 8, &[("elementData", OBJECT), ("size", INT)]),
    class("BigHeap$Item", OBJ, &[("id", LONG), ("size", INT), ("name", OBJECT)]),
    Class { name: "BigHeap", superclass: Some(OBJ), fields: &[], statics: &["INDEX", "SMALL", "NAMES"] },
    class("[Ljava/lang/Object;", OBJ, &[]),
    class("[Ljava/util/HashMap$Node;", OBJ, &[]),
    class("[Ljava/lang/String;", OBJ, &[]),
    class("java/lang/Class", OBJ, &[]),
];

fn class_id(k: usize) -> u64 {
    CLASS_BASE + k as u64 * 128
}

/// The JVM size of an instance of class `k`: its fields along the superclass chain, packed.
fn instance_size(k: usize) -> u64 {
    let mut types = Vec::new();
    let mut at = Some(k);
    while let Some(c) = at {
        types.extend(CLASSES[c].fields.iter().map(|&(_, ty)| ty));
        at = CLASSES[c].superclass;
    }
    Layout::default().instance(types.into_iter(), 0)
}

/// The bytes of the class objects (`java.lang.Class` mirrors with their statics).
fn class_objects_bytes() -> u64 {
    let l = Layout::default();
    CLASSES.iter().map(|c| l.class_object(c.statics.iter().map(|_| OBJECT))).sum()
}

/// The smallest HashMap table (a power of two, at least 16) that holds `n` entries at load 0.75.
fn table_capacity(n: u64) -> u64 {
    let mut cap = 16;
    while cap * 3 / 4 < n {
        cap *= 2;
    }
    cap
}

/// `HashMap.hash`: the key's hash with its high half folded into the low.
fn spread(h: i32) -> i32 {
    h ^ ((h as u32) >> 16) as i32
}

/// `String.hashCode` of a Latin-1 string.
fn java_hash(text: &[u8]) -> i32 {
    text.iter().fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `item-NNNNNNNNN-K`: every name 16 bytes, so every entry the same size.
fn item_name(entry: u64, k: u64) -> [u8; 16] {
    let mut name = *b"item-000000000-0";
    let mut n = entry;
    for at in (5..14).rev() {
        name[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    name[15] = b'0' + k as u8;
    name
}

/// Every object's address, from the spec alone.
#[derive(Debug, Clone)]
pub struct Plan {
    pub entries: u64,
    pub small_maps: u64,
    s_int: u64,
    s_str: u64,
    s_map: u64,
    s_node: u64,
    s_list: u64,
    s_item: u64,
    s_name: u64,
    s_array4: u64,
    args: u64,
    index_map: u64,
    index_cap: u64,
    index_table: u64,
    entry_base: u64,
    block: u64,
    names: u64,
    names_cap: u64,
    names_nodes: u64,
    names_table: u64,
    names_map: u64,
    small_list: u64,
    small_array: u64,
    hits: u64,
    errors: u64,
    zero: u64,
    small_base: u64,
    small_stride: u64,
    pub end: u64,
}

impl Plan {
    pub fn new(spec: &Spec) -> Plan {
        let l = Layout::default();
        let (s_int, s_str, s_map) = (instance_size(INTEGER), instance_size(STRING), instance_size(HASH_MAP));
        let (s_node, s_list, s_item) = (instance_size(NODE), instance_size(ARRAY_LIST), instance_size(ITEM));
        let (s_name, s_array4) = (l.array(BYTE, 16), l.array(OBJECT, 4));
        let block = s_node + s_int + s_list + s_array4 + 4 * (s_item + s_str + s_name);
        let index_cap = table_capacity(spec.entries);
        let names = spec.entries.div_ceil(8);
        let names_cap = table_capacity(names);
        let args = HEAP_BASE;
        let index_map = args + l.array(OBJECT, 0);
        let index_table = index_map + s_map;
        let entry_base = index_table + l.array(OBJECT, index_cap);
        let names_nodes = entry_base + spec.entries * block;
        let names_table = names_nodes + names * s_node;
        let names_map = names_table + l.array(OBJECT, names_cap);
        let small_list = names_map + s_map;
        let small_array = small_list + s_list;
        let hits = small_array + l.array(OBJECT, spec.small_maps);
        let errors = hits + s_str + l.array(BYTE, 4);
        let zero = errors + s_str + l.array(BYTE, 6);
        let small_base = zero + s_int;
        let small_stride = s_map + l.array(OBJECT, 16) + 2 * s_node + s_int;
        Plan {
            entries: spec.entries,
            small_maps: spec.small_maps,
            s_int,
            s_str,
            s_map,
            s_node,
            s_list,
            s_item,
            s_name,
            s_array4,
            args,
            index_map,
            index_cap,
            index_table,
            entry_base,
            block,
            names,
            names_cap,
            names_nodes,
            names_table,
            names_map,
            small_list,
            small_array,
            hits,
            errors,
            zero,
            small_base,
            small_stride,
            end: small_base + spec.small_maps * small_stride,
        }
    }

    fn node(&self, entry: u64) -> u64 {
        self.entry_base + entry * self.block
    }

    fn item(&self, entry: u64, k: u64) -> u64 {
        self.node(entry)
            + self.s_node
            + self.s_int
            + self.s_list
            + self.s_array4
            + k * (self.s_item + self.s_str + self.s_name)
    }

    fn small_map(&self, m: u64) -> u64 {
        self.small_base + m * self.small_stride
    }
}

/// Field values as a dump writes them.
#[derive(Default)]
struct Fields(Vec<u8>, u64);

impl Fields {
    fn r(&mut self, id: u64) -> &mut Self {
        self.1 += u64::from(id != 0);
        self.0.extend(id.to_be_bytes());
        self
    }
    fn i(&mut self, v: i32) -> &mut Self {
        self.0.extend(v.to_be_bytes());
        self
    }
    fn b(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
}

pub(super) struct Generator<W: Write> {
    out: Records<W>,
    plan: Plan,
    summary: Summary,
    fields: Fields,
    /// Objects and bytes per class index.
    tally: [(u64, u64); CLASSES.len()],
    /// `byte[]` objects and bytes (a class the dump names only implicitly).
    bytes_tally: (u64, u64),
}

impl<W: Write> Generator<W> {
    pub fn new(out: W, spec: &Spec) -> io::Result<Generator<W>> {
        let plan = Plan::new(spec);
        let out = Records::new(out, spec.segment_bytes, spec.timestamp_ms, plan.args)?;
        let tally = [(0, 0); CLASSES.len()];
        Ok(Generator {
            out,
            plan,
            summary: Summary::default(),
            fields: Fields::default(),
            tally,
            bytes_tally: (0, 0),
        })
    }

    pub fn run(mut self) -> io::Result<Summary> {
        self.classes()?;
        self.index()?;
        self.names()?;
        self.small()?;
        if self.out.next != self.plan.end {
            return Err(io::Error::other("generator: the heap did not end where it was planned"));
        }
        self.out.root(0x03, self.plan.args, 8)?;
        let mut summary = self.summary;
        (summary.segments, summary.bytes) = self.out.finish()?;
        for (k, &(count, bytes)) in self.tally.iter().enumerate().filter(|(_, t)| t.0 > 0) {
            summary.histogram.insert(crate::classes::external_name(CLASSES[k].name), (count, bytes));
        }
        summary.histogram.insert("[B".into(), self.bytes_tally);
        summary.objects = summary.histogram.values().map(|t| t.0).sum();
        let mirrors = (CLASSES.len() as u64, class_objects_bytes());
        summary.histogram.insert("java.lang.Class".into(), mirrors);
        Ok(summary)
    }

    /// Names, LOAD CLASS and CLASS DUMP records, a sticky-class root for each class; the
    /// statics of `BigHeap` hold the three collections.
    fn classes(&mut self) -> io::Result<()> {
        let mut names: BTreeMap<&str, u64> = BTreeMap::new();
        let mut next_name = 1u64;
        let mut name = |out: &mut Records<W>, text: &'static str| -> io::Result<u64> {
            if let Some(&id) = names.get(text) {
                return Ok(id);
            }
            next_name += 1;
            names.insert(text, next_name);
            out.utf8(next_name, text).map(|_| next_name)
        };
        let mut described = Vec::new();
        for (k, c) in CLASSES.iter().enumerate() {
            let class_name = name(&mut self.out, c.name)?;
            self.out.load_class(k as u32 + 1, class_id(k), class_name)?;
            let fields: Vec<(u64, u8)> = c
                .fields
                .iter()
                .map(|&(f, ty)| Ok((name(&mut self.out, f)?, ty)))
                .collect::<io::Result<_>>()?;
            let statics = [self.plan.index_map, self.plan.small_list, self.plan.names_map];
            let statics: Vec<(u64, u64)> = c
                .statics
                .iter()
                .zip(statics)
                .map(|(&s, v)| Ok((name(&mut self.out, s)?, v)))
                .collect::<io::Result<_>>()?;
            described.push((fields, statics));
        }
        for (k, (fields, statics)) in described.iter().enumerate() {
            let superclass = CLASSES[k].superclass.map_or(0, class_id);
            self.out.class_dump(class_id(k), superclass, instance_size(k) as u32, statics, fields)?;
            self.summary.references += statics.len() as u64;
        }
        for k in 0..CLASSES.len() {
            self.out.root(0x05, class_id(k), 0)?;
        }
        let args = Layout::default().array(OBJECT, 0);
        self.out.object_array(self.plan.args, args, class_id(STRING_ARRAY), 0, |_| 0)?;
        self.tally[STRING_ARRAY] = (1, args);
        Ok(())
    }

    fn instance(&mut self, k: usize, id: u64) -> io::Result<()> {
        let size = instance_size(k);
        let fields = std::mem::take(&mut self.fields);
        self.out.instance(id, size, class_id(k), &fields.0)?;
        self.summary.references += fields.1;
        self.tally[k].0 += 1;
        self.tally[k].1 += size;
        self.fields = Fields(fields.0, 0);
        self.fields.0.clear();
        Ok(())
    }

    fn array(&mut self, k: usize, id: u64, length: u64, elements: impl Fn(u64) -> u64) -> io::Result<()> {
        let size = Layout::default().array(OBJECT, length);
        let references = (0..length).filter(|&i| elements(i) != 0).count() as u64;
        self.out.object_array(id, size, class_id(k), length, elements)?;
        self.summary.references += references;
        self.tally[k].0 += 1;
        self.tally[k].1 += size;
        Ok(())
    }

    fn string(&mut self, id: u64, text: &[u8], hash: i32) -> io::Result<()> {
        let value = id + self.plan.s_str;
        // Latin-1 coder; `hashIsZero` false.
        self.fields.r(value).i(hash).b(0).b(0);
        self.instance(STRING, id)?;
        let size = Layout::default().array(BYTE, text.len() as u64);
        self.out.byte_array(value, size, text)?;
        self.bytes_tally.0 += 1;
        self.bytes_tally.1 += size;
        Ok(())
    }

    /// A `HashMap` of `size` entries over `table` of `cap` buckets.
    fn hash_map(&mut self, id: u64, table: u64, size: u64, cap: u64) -> io::Result<()> {
        self.fields.r(table).r(0).i(size as i32).i(size as i32).i((cap * 3 / 4) as i32);
        self.fields.0.extend(0.75f32.to_be_bytes());
        self.fields.r(0).r(0);
        self.instance(HASH_MAP, id)
    }

    fn node(&mut self, id: u64, hash: i32, key: u64, value: u64, next: u64) -> io::Result<()> {
        self.fields.i(hash).r(key).r(value).r(next);
        self.instance(NODE, id)
    }

    fn array_list(&mut self, id: u64, data: u64, size: u64) -> io::Result<()> {
        self.fields.r(data).i(size as i32).i(size as i32);
        self.instance(ARRAY_LIST, id)
    }

    /// `INDEX`: Integer keys hash to distinct buckets (`HashMap.hash` is a bijection on the
    /// table's indices), as in BigHeap.
    fn index(&mut self) -> io::Result<()> {
        let p = self.plan.clone();
        self.hash_map(p.index_map, p.index_table, p.entries, p.index_cap)?;
        let entry_of_bucket = |b: u64| b ^ (b >> 16);
        self.array(NODE_ARRAY, p.index_table, p.index_cap, |b| {
            let i = entry_of_bucket(b);
            if i < p.entries { p.node(i) } else { 0 }
        })?;
        for i in 0..p.entries {
            let node = p.node(i);
            let key = node + p.s_node;
            let list = key + p.s_int;
            let data = list + p.s_list;
            self.node(node, spread(i as i32), key, list, 0)?;
            self.fields.i(i as i32);
            self.instance(INTEGER, key)?;
            self.array_list(list, data, 4)?;
            self.array(OBJECT_ARRAY, data, 4, |k| p.item(i, k))?;
            for k in 0..4 {
                let item = p.item(i, k);
                let name = item_name(i, k);
                self.fields.0.extend(((i * 4 + k) as i64).to_be_bytes());
                self.fields.i(k as i32).r(item + p.s_item);
                self.instance(ITEM, item)?;
                // Names that key `NAMES` have had their hash computed.
                let hash = if k == 0 && i % 8 == 0 { java_hash(&name) } else { 0 };
                self.string(item + p.s_item, &name, hash)?;
            }
        }
        Ok(())
    }

    /// `NAMES`: every eighth entry's first item by its name. String hashes collide in the
    /// table, so buckets hold chains (each node's `next` is the one put before it).
    fn names(&mut self) -> io::Result<()> {
        let p = self.plan.clone();
        let mut last = vec![u32::MAX; p.names_cap as usize];
        let node_at = |n: u32| if n == u32::MAX { 0 } else { p.names_nodes + u64::from(n) * p.s_node };
        for n in 0..p.names {
            let entry = n * 8;
            let hash = spread(java_hash(&item_name(entry, 0)));
            let bucket = (hash as u32 as u64 & (p.names_cap - 1)) as usize;
            let item = p.item(entry, 0);
            self.node(node_at(n as u32), hash, item + p.s_item, item, node_at(last[bucket]))?;
            last[bucket] = n as u32;
        }
        self.array(NODE_ARRAY, p.names_table, p.names_cap, |b| node_at(last[b as usize]))?;
        self.hash_map(p.names_map, p.names_table, p.names, p.names_cap)
    }

    /// `SMALL`: maps of two entries, `hits` and `errors`, over two shared key strings; every
    /// `errors` value is one shared `Integer` 0 (the JDK's cache).
    fn small(&mut self) -> io::Result<()> {
        let p = self.plan.clone();
        self.array_list(p.small_list, p.small_array, p.small_maps)?;
        self.array(OBJECT_ARRAY, p.small_array, p.small_maps, |m| p.small_map(m))?;
        let (hits, errors) = (java_hash(b"hits"), java_hash(b"errors"));
        self.string(p.hits, b"hits", hits)?;
        self.string(p.errors, b"errors", errors)?;
        self.fields.i(0);
        self.instance(INTEGER, p.zero)?;
        let (hits, errors) = (spread(hits), spread(errors));
        let (hit_bucket, error_bucket) = ((hits & 15) as u64, (errors & 15) as u64);
        for m in 0..p.small_maps {
            let map = p.small_map(m);
            let table = map + p.s_map;
            let hit_node = table + Layout::default().array(OBJECT, 16);
            let error_node = hit_node + p.s_node;
            let value = error_node + p.s_node;
            self.hash_map(map, table, 2, 16)?;
            self.array(NODE_ARRAY, table, 16, |b| match b {
                _ if b == hit_bucket => hit_node,
                _ if b == error_bucket => error_node,
                _ => 0,
            })?;
            let chained = if hit_bucket == error_bucket { error_node } else { 0 };
            self.node(hit_node, hits, p.hits, value, chained)?;
            self.node(error_node, errors, p.errors, p.zero, 0)?;
            self.fields.i(m as i32);
            self.instance(INTEGER, value)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jdk_hashes_and_sizes() {
        assert_eq!(java_hash(b"hits"), 3202880);
        assert_eq!(java_hash(b"errors"), -1294635157);
        assert_eq!(&item_name(42, 3), b"item-000000042-3");
        assert_eq!((instance_size(HASH_MAP), instance_size(NODE), instance_size(ARRAY_LIST)), (48, 32, 24));
        assert_eq!((instance_size(STRING), instance_size(INTEGER), instance_size(ITEM)), (24, 16, 32));
        assert_eq!((table_capacity(12), table_capacity(13), table_capacity(1_000)), (16, 32, 2048));
        // The table's buckets and the Integer keys 0..cap are one-to-one.
        let cap = 1u64 << 20;
        let mut seen = vec![false; cap as usize];
        for i in 0..cap {
            let b = (spread(i as i32) as u32 as u64) & (cap - 1);
            assert_eq!(b ^ (b >> 16), i);
            assert!(!std::mem::replace(&mut seen[b as usize], true));
        }
    }
}
