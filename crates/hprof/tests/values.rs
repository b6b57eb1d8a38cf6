//! Values read back from hand-made dumps, exactly as written: JDK 9+ compact strings (Latin-1
//! and UTF-16), JDK 8's char[] strings and JDK 6's offset/count, every primitive type, boxed
//! values, null references and arrays cut to their first elements.

use memcity_heapgraph::{Contents, Value, Values};
use memcity_hprof::{Layout, typed_heap_with_values};

mod writer;
use writer::Writer;

const STRING: u64 = 0x20;
const KEY: u64 = 0x30;
const INTEGER: u64 = 0x40;

/// A primitive array sub-record.
fn primitives(w: &Writer, out: &mut Vec<u8>, id: u64, ty: u8, count: u32, elements: &[u8]) {
    out.push(0x23);
    w.id(id, out);
    out.extend(0u32.to_be_bytes());
    out.extend(count.to_be_bytes());
    out.push(ty);
    out.extend(elements);
}

/// java.lang.Object, java.lang.String with `fields`, a key class with one field of every
/// type, java.lang.Integer.
fn classes(w: &mut Writer, heap: &mut Vec<u8>, string_fields: &[(u64, u8)]) {
    let names = [
        (1, "java/lang/Object"),
        (2, "java/lang/String"),
        (3, "demo/Key"),
        (4, "java/lang/Integer"),
        (10, "value"),
        (11, "coder"),
        (12, "offset"),
        (13, "count"),
        (14, "city"),
        (15, "day"),
        (16, "big"),
        (17, "ratio"),
        (18, "tiny"),
        (19, "flag"),
        (20, "letter"),
        (21, "small"),
        (22, "short"),
        (23, "boxed"),
        (24, "nothing"),
    ];
    for (id, text) in names {
        w.string(id, text);
    }
    for (class, name) in [(0x10, 1), (STRING, 2), (KEY, 3), (INTEGER, 4)] {
        w.load_class(class, name);
    }
    w.class_dump(heap, 0x10, 0, &[]);
    w.class_dump(heap, STRING, 0x10, string_fields);
    let key_fields =
        [(14, 2), (15, 10), (16, 11), (17, 7), (18, 6), (19, 4), (20, 5), (21, 8), (22, 9), (23, 2), (24, 2)];
    w.class_dump(heap, KEY, 0x10, &key_fields);
    w.class_dump(heap, INTEGER, 0x10, &[(10, 10)]);
}

fn finish(mut w: Writer, heap: &[u8], name: &str) -> std::path::PathBuf {
    w.record(0x1C, heap);
    w.record(0x2C, &[]);
    let path = std::env::temp_dir().join(format!("memcity-values-{name}-{}.hprof", std::process::id()));
    std::fs::write(&path, &w.bytes).unwrap();
    path
}

fn field<'a>(contents: &'a Contents, name: &str) -> &'a Value {
    let Contents::Fields(fields) = contents else { panic!("not an instance: {contents:?}") };
    &fields.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no {name}")).value
}

#[test]
fn compact_strings_and_every_primitive_read_back_exactly() {
    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    classes(&mut w, &mut heap, &[(10, 2), (11, 8)]);
    // "Linz" in Latin-1, "Łódź" in UTF-16 (little-endian, as HotSpot on x86 and ARM keeps it).
    primitives(&w, &mut heap, 0x1000, 8, 4, b"Linz");
    let utf16: Vec<u8> = "Łódź".encode_utf16().flat_map(u16::to_le_bytes).collect();
    primitives(&w, &mut heap, 0x1100, 8, 8, &utf16);
    for (id, value, coder) in [(0x2000u64, 0x1000u64, 0u8), (0x2100, 0x1100, 1)] {
        let mut fields = Vec::new();
        w.id(value, &mut fields);
        fields.push(coder);
        w.instance(&mut heap, id, STRING, &fields);
    }
    w.instance(&mut heap, 0x3000, INTEGER, &7i32.to_be_bytes());
    let mut key = Vec::new();
    w.id(0x2100, &mut key);
    key.extend(3i32.to_be_bytes());
    key.extend(((1u64 << 53) + 1).to_be_bytes());
    key.extend(f64::NAN.to_bits().to_be_bytes());
    key.extend((-1.5f32).to_bits().to_be_bytes());
    key.push(1);
    key.extend(u16::from(b'x').to_be_bytes());
    key.push(0xFF);
    key.extend((-2i16).to_be_bytes());
    w.id(0x3000, &mut key);
    w.id(0, &mut key);
    w.instance(&mut heap, 0x4000, KEY, &key);
    let ints: Vec<u8> = (0..100i32).flat_map(i32::to_be_bytes).collect();
    primitives(&w, &mut heap, 0x5000, 10, 100, &ints);
    let path = finish(w, &heap, "compact");

    let (typed, values) = typed_heap_with_values(&path, &Layout::default(), None).unwrap();
    let node = |id: &str| values.find(id).unwrap_or_else(|| panic!("no {id}"));
    let key = node("0x4000");
    assert_eq!(values.id(key), "0x4000");
    assert_eq!(typed.heap.objects.type_name(key), "demo.Key");
    let contents = values.contents(key, 0).unwrap();
    let Value::Ref(city) = *field(&contents, "city") else { panic!() };
    assert_eq!(values.text(city).as_deref(), Some("Łódź"));
    assert_eq!(values.text(node("0x2000")).as_deref(), Some("Linz"));
    assert_eq!(*field(&contents, "day"), Value::Int(3));
    assert_eq!(*field(&contents, "big"), Value::Int((1 << 53) + 1));
    assert!(matches!(field(&contents, "ratio"), Value::Float(f) if f.is_nan()));
    assert_eq!(*field(&contents, "tiny"), Value::Float(-1.5));
    assert_eq!(*field(&contents, "flag"), Value::Bool(true));
    assert_eq!(*field(&contents, "letter"), Value::Char(u16::from(b'x')));
    assert_eq!(*field(&contents, "small"), Value::Int(-1));
    assert_eq!(*field(&contents, "short"), Value::Int(-2));
    assert_eq!(*field(&contents, "nothing"), Value::Null);
    let Value::Ref(boxed) = *field(&contents, "boxed") else { panic!() };
    assert_eq!(values.boxed(boxed), Some(Value::Int(7)));
    assert_eq!(values.boxed(key), None);
    assert_eq!(values.text(key), None, "not a string");
    let Contents::Fields(fields) = &contents else { panic!() };
    let city_field = fields.iter().find(|f| f.name == "city").unwrap();
    assert_eq!(city_field.type_name.as_deref(), Some("java.lang.String"));
    assert_eq!(fields.iter().find(|f| f.name == "nothing").unwrap().type_name, None);
    match values.contents(node("0x5000"), 3).unwrap() {
        Contents::Array { element_type, length, elements } => {
            assert_eq!((element_type.as_str(), length), ("int", 100));
            assert_eq!(elements, [Value::Int(0), Value::Int(1), Value::Int(2)]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(values.find("0x4001"), None);
    assert_eq!(values.find("4000"), None, "ids are written in hex with 0x");
    assert_eq!(values.find("0xZZ"), None);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn jdk8_and_jdk6_strings_read_their_char_arrays() {
    let mut w = Writer::new(8);
    let mut heap = Vec::new();
    // JDK 6: value, offset, count (JDK 8 has no offset and count: the whole array).
    classes(&mut w, &mut heap, &[(10, 2), (12, 10), (13, 10)]);
    let chars: Vec<u8> = "xxGrazyy".encode_utf16().flat_map(u16::to_be_bytes).collect();
    primitives(&w, &mut heap, 0x1000, 5, 8, &chars);
    let mut fields = Vec::new();
    w.id(0x1000, &mut fields);
    fields.extend(2i32.to_be_bytes());
    fields.extend(4i32.to_be_bytes());
    w.instance(&mut heap, 0x2000, STRING, &fields);
    // An offset past the array's end has no text.
    let mut bad = Vec::new();
    w.id(0x1000, &mut bad);
    bad.extend(6i32.to_be_bytes());
    bad.extend(4i32.to_be_bytes());
    w.instance(&mut heap, 0x2100, STRING, &bad);
    let path = finish(w, &heap, "jdk6");
    let (_, values) = typed_heap_with_values(&path, &Layout::default(), None).unwrap();
    assert_eq!(values.text(values.find("0x2000").unwrap()).as_deref(), Some("Graz"));
    assert_eq!(values.text(values.find("0x2100").unwrap()), None);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn corrupt_dumps_read_their_values_or_are_refused_never_panic() {
    use std::io::Read;
    let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump1.hprof.gz");
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(gz).unwrap()).read_to_end(&mut bytes).unwrap();
    let path = std::env::temp_dir().join(format!("memcity-values-corrupt-{}.hprof", std::process::id()));
    // A deterministic scatter of flipped bytes; a dump that is still read has every value read.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let (mut read, mut refused) = (0, 0);
    for _ in 0..24 {
        let mut corrupt = bytes.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % bytes.len() as u64) as usize;
            corrupt[at] ^= (state >> 32) as u8 | 1;
        }
        std::fs::write(&path, &corrupt).unwrap();
        match typed_heap_with_values(&path, &Layout::default(), None) {
            Ok((typed, values)) => {
                read += 1;
                for o in (0..typed.heap.graph.object_count() as u32).step_by(5) {
                    let _ = (values.contents(o, 16), values.text(o), values.boxed(o));
                    assert_eq!(values.find(&values.id(o)), Some(o));
                }
            }
            Err(e) => {
                assert!(!e.message.is_empty());
                refused += 1;
            }
        }
    }
    let _ = std::fs::remove_file(&path);
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}
