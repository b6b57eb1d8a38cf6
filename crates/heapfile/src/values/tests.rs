use std::path::PathBuf;

use memcity_heapgraph::{Contents, EqualBy, Value, Values, value_identity};

use super::*;
use crate::tests::{replace_section, sample};
use crate::{parse, read_file, typed};

/// A heap of ten atoms, one of each kind (object `o` has the `o`-th value) and a cut str.
fn atoms() -> ValueTable {
    let mut t = ValueTable::default();
    t.push(0, ValueKind::None, false, 4, b"None");
    t.push(1, ValueKind::Bool, false, 4, b"True");
    t.push(2, ValueKind::Int, false, 2, b"-3");
    t.push(3, ValueKind::Int, false, 22, b"1234567890123456789012");
    t.push(4, ValueKind::Float, false, 3, b"0.1");
    t.push(5, ValueKind::Float, false, 3, b"nan");
    t.push(6, ValueKind::Str, false, 5, "Linz\u{1b}".as_bytes());
    t.push(7, ValueKind::Str, true, 5000, b"Li");
    t.push(8, ValueKind::Bytes, false, 4, b"\0a'\xff");
    t
}

fn with_atoms() -> crate::HeapFile {
    let mut file = sample(5, 1);
    file.values = atoms();
    file
}

#[test]
fn values_round_trip_and_read_as_the_program_wrote_them() {
    let file = with_atoms();
    let read = parse(&file.to_bytes(), "v.mcheap").unwrap();
    assert_eq!(read.values, file.values);
    let typed = typed::typed_of(read);
    let values = FileValues { heap: &typed.heap, values: &typed.values };
    assert_eq!(values.boxed(0), Some(Value::Null));
    assert_eq!(values.boxed(1), Some(Value::Bool(true)));
    assert_eq!(values.boxed(2), Some(Value::Int(-3)));
    assert_eq!((values.boxed(3), values.text(3)), (None, Some("1234567890123456789012".into())));
    assert_eq!(values.boxed(4), Some(Value::Float(0.1)));
    assert!(matches!(values.boxed(5), Some(Value::Float(f)) if f.is_nan()));
    assert_eq!((values.text(6), values.cut(6)), (Some("Linz\u{1b}".into()), None));
    assert_eq!((values.text(7), values.cut(7)), (Some("Li…".into()), Some(5000)));
    assert_eq!(values.text(8), Some("b'\\x00a\\'\\xff'".into()));
    assert_eq!((values.text(9), values.boxed(9)), (None, None), "a session has no value");
    // Its references stay fields by name, and ids are addresses.
    assert!(matches!(values.contents(2, 0), Some(Contents::Fields(f)) if f.len() == 1));
    assert_eq!(values.find(&values.id(7)), Some(7));
}

#[test]
fn a_cut_text_never_equals_another() {
    let mut table = ValueTable::default();
    table.push(3, ValueKind::Str, true, 300, b"same");
    table.push(5, ValueKind::Str, true, 300, b"same");
    table.push(7, ValueKind::Str, false, 4, b"same");
    table.push(9, ValueKind::Str, false, 4, b"same");
    let mut file = sample(5, 1);
    file.values = table;
    let typed = typed::typed_of(file);
    let values = FileValues { heap: &typed.heap, values: &typed.values };
    let by_value = |o| value_identity(&values, 3, o);
    assert_eq!(by_value(7), by_value(9), "whole texts compare by text");
    assert_eq!(by_value(7).unwrap().1, [EqualBy::Text("same".into())]);
    assert_eq!((by_value(3), by_value(5)), (None, None), "cut ones by nothing");
    // A session whose name is cut is equal to no other by value.
    let session = |o| value_identity(&values, 2, o).unwrap().1;
    assert_eq!(session(6), session(8));
    assert_ne!(session(2), session(4));
}

#[test]
fn version_2_files_are_still_read_without_values() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/version-2.mcheap");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    let old = read_file(&path).unwrap();
    let new = sample(2, 7);
    assert!(old.values.is_empty());
    assert_eq!((old.edges, old.labels, old.strings), (new.edges, new.labels, new.strings));
}

/// VALS with `table`'s columns, `fix` changing its bytes first.
fn vals(table: &ValueTable, fix: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut payload = table.to_bytes();
    fix(&mut payload);
    replace_section(&with_atoms().to_bytes(), b"VALS", &payload)
}

fn refused(bytes: &[u8]) -> String {
    let error = parse(bytes, "v.mcheap").unwrap_err().to_string();
    assert!(error.starts_with("v.mcheap: at byte ") && !error.contains('\n'), "{error}");
    error
}

#[test]
fn malformed_values_are_refused_in_one_line() {
    let cases: Vec<(ValueTable, &str)> = vec![
        (one(99, ValueKind::Int, false, 1, b"1"), "valued object 99 is out of order or out of range"),
        (
            one(1, ValueKind::Int, false, 2, b"1x"),
            "the value of object 1 is malformed: \"1x\" is not an int in decimal",
        ),
        (one(1, ValueKind::Int, false, 1, b"-"), "is not an int in decimal"),
        (one(1, ValueKind::Float, false, 4, b"1.5."), "is not a float"),
        (one(1, ValueKind::None, false, 4, b"Nope"), "is not None"),
        (one(1, ValueKind::Bool, false, 4, b"true"), "is not True or False"),
        (one(1, ValueKind::Int, true, 9, b"1"), "only a str or bytes value can be cut"),
        (one(1, ValueKind::Int, false, 7, b"12"), "2 bytes, but its length says 7"),
        (one(1, ValueKind::Str, false, 9, b"Linz"), "4 long, but its length says 9"),
        (one(1, ValueKind::Str, true, 2, b"Linz"), "cut, but 4 long of a length of 2"),
        (one(1, ValueKind::Str, false, 2, b"\xc3("), "not UTF-8 at its byte 0"),
        (one(1, ValueKind::Bytes, false, 3, b"ab"), "2 long, but its length says 3"),
    ];
    for (table, expected) in cases {
        let error = refused(&vals(&table, |_| {}));
        assert!(error.contains(expected), "{expected}: {error}");
    }
    let mut twice = one(2, ValueKind::Int, false, 1, b"1");
    twice.push(3, ValueKind::Int, false, 1, b"2");
    twice.objects[1] = 2;
    assert!(refused(&vals(&twice, |_| {})).contains("valued object 2 is out of order"));
    let table = one(1, ValueKind::Int, false, 1, b"1");
    // An unknown kind; data longer than allowed; more data than the section has; a count that
    // claims more values than the section holds; bytes left over.
    assert!(refused(&vals(&table, |p| p[8] = 9)).contains("unknown value kind 9"));
    let big = (MAX_VALUE_BYTES as u32 + 1).to_le_bytes();
    assert!(refused(&vals(&table, |p| p[17..21].copy_from_slice(&big))).contains("at most 4096"));
    let long = 5u32.to_le_bytes();
    assert!(
        refused(&vals(&table, |p| p[17..21].copy_from_slice(&long))).contains("a value's data does not fit")
    );
    let many = u32::MAX.to_le_bytes();
    assert!(refused(&vals(&table, |p| p[..4].copy_from_slice(&many))).contains("does not fit"));
    assert!(
        refused(&vals(&table, |p| p.push(0))).contains("1 unexpected bytes at the end of the VALS section")
    );
}

fn one(o: u32, kind: ValueKind, cut: bool, length: u64, data: &[u8]) -> ValueTable {
    let mut t = ValueTable::default();
    t.push(o, kind, cut, length, data);
    t
}

#[test]
fn bytes_read_as_python_literals() {
    assert_eq!(bytes_repr(b"a\\\t\n\r\x7f~ "), "b'a\\\\\\t\\n\\r\\x7f~ '");
}

/// Mutated VALS payloads (their CRC-32 made right, so the value checks are what is tested):
/// each is refused in one line or read whole, and what is read goes through the fuzz target's
/// checks, never a panic.
#[test]
fn mutated_values_are_refused_or_read_never_a_panic() {
    let payload = atoms().to_bytes();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut read, mut refused) = (0, 0);
    for _ in 0..3000 {
        let mut bad = payload.clone();
        for _ in 0..1 + next() % 3 {
            let at = (next() % bad.len() as u64) as usize;
            bad[at] = next() as u8;
        }
        let bytes = replace_section(&with_atoms().to_bytes(), b"VALS", &bad);
        match crate::fuzzing::heap_file(&bytes) {
            true => read += 1,
            false => refused += 1,
        }
        if let Err(e) = parse(&bytes, "m.mcheap") {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}
