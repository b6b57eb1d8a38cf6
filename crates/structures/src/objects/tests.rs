use memcity_heapgraph::{Classifier, Contents, FieldValue, Value, Values};

use super::*;
use crate::entries::tests::Heap;
use crate::lang::builtin;

/// Object 1 is the key `(city: "Linz", day: 3, big: 2^53 + 1, ratio: NaN, none: null)`, 2 its
/// city, 3 a value `long[]`.
struct Fixed;

impl Values for Fixed {
    fn contents(&self, o: u32, elements: usize) -> Option<Contents> {
        let field = |name: &str, type_name: Option<&str>, value| FieldValue {
            name: name.into(),
            type_name: type_name.map(String::from),
            value,
        };
        match o {
            1 => Some(Contents::Fields(vec![
                field("city", Some("java.lang.String"), Value::Ref(2)),
                field("day", Some("int"), Value::Int(3)),
                field("big", Some("long"), Value::Int((1 << 53) + 1)),
                field("ratio", Some("double"), Value::Float(f64::NAN)),
                field("none", None, Value::Null),
            ])),
            3 => Some(Contents::Array {
                element_type: "long".into(),
                length: 1000,
                elements: (0..1000).take(elements).map(Value::Int).collect(),
            }),
            _ => None,
        }
    }
    fn text(&self, o: u32) -> Option<String> {
        (o == 2).then(|| "Linz".into())
    }
    fn boxed(&self, _: u32) -> Option<Value> {
        None
    }
    fn id(&self, o: u32) -> String {
        format!("0x{o:x}")
    }
    fn find(&self, id: &str) -> Option<u32> {
        u32::from_str_radix(id.strip_prefix("0x")?, 16).ok().filter(|&o| o < 7)
    }
}

fn heap() -> memcity_heapgraph::TypedHeap {
    let mut h = Heap::default();
    let root = h.object("Root", &[]);
    let key = h.object("app.Key", &[]);
    let city = h.object("java.lang.String", &[]);
    let value = h.object("long[]", &[]);
    h.point(key, "city", city);
    let node = h.object("java.util.HashMap$Node", &[("key", key), ("value", value)]);
    let table = h.object("java.util.HashMap$Node[]", &[("[0]", node)]);
    let map = h.object("java.util.HashMap", &[("table", table)]);
    h.point(root, "cache", map);
    h.typed()
}

fn snapshot<'a>(heap: &'a memcity_heapgraph::TypedHeap, descriptions: &'a Descriptions) -> Snapshot<'a> {
    Snapshot {
        time: 2,
        heap,
        values: &Fixed,
        descriptions,
        classifiers: &[Classifier::Type],
        id_hint: " (ids are written 0x…)",
    }
}

#[test]
fn a_maps_entries_show_their_fields_exactly_as_json_carries_them() {
    let (heap, descriptions) = (heap(), builtin());
    let s = snapshot(&heap, &descriptions);
    let path = crate::measure_with(&heap, &descriptions, Options { deep: false, leaves: false }).instances[0]
        .path
        .clone();
    let found = look(&s, &Target::Structure(path.clone()), 20).unwrap();
    let json = serde_json::to_value(&found).unwrap();
    assert_eq!(json["time"], 2);
    assert_eq!(
        json["target"],
        serde_json::json!({"kind": "structure", "name": path, "type": "java.util.HashMap", "objects": 1, "entries": 1})
    );
    assert_eq!(json["objects"][0]["id"], "0x6");
    let key = &json["entries"][0]["key"];
    assert_eq!(key["type"], "app.Key");
    assert_eq!(
        key["fields"][0],
        serde_json::json!({"name": "city", "type": "java.lang.String", "value": "Linz", "ref": "0x2"})
    );
    assert_eq!(key["fields"][1], serde_json::json!({"name": "day", "type": "int", "value": 3}));
    assert_eq!(key["fields"][2]["value"], "9007199254740993", "a long beyond 2^53 is text");
    assert_eq!(key["fields"][3]["value"], "NaN");
    assert_eq!(
        key["fields"][4],
        serde_json::json!({"name": "none", "type": null, "value": null, "ref": null})
    );
    let value = &json["entries"][0]["value"];
    assert_eq!(value["length"], 1000);
    assert_eq!(value["elements"].as_array().unwrap().len(), ELEMENTS);
    assert_eq!(value["elements"][9], serde_json::json!({"name": "[9]", "type": "long", "value": 9}));
    assert!(json["entries"][0].get("index").is_none(), "a map's entry has no index");
    assert_eq!(json_value(&Value::Float(f64::NEG_INFINITY)), Shown::Text("-Infinity".into()));
    assert_eq!(json_value(&Value::Int(-(1 << 53))), Shown::Int(-(1 << 53)));
    assert_eq!(json_value(&Value::Char(0xD800)), Shown::Text("\\ud800".into()), "a lone surrogate");
}

#[test]
fn groups_objects_and_missing_targets() {
    let (heap, descriptions) = (heap(), builtin());
    let s = snapshot(&heap, &descriptions);
    let group = look(&s, &Target::Group("Heap#Type:app.Key".into()), 5).unwrap();
    assert_eq!((group.target.objects, group.objects.len()), (1, 1));
    assert_eq!(group.objects[0].id, "0x1");
    let object = look(&s, &Target::Object("0x6".into()), 5).unwrap();
    assert_eq!((object.target.type_name.as_deref(), object.entries.len()), (Some("java.util.HashMap"), 1));
    let string = look(&s, &Target::Object("0x2".into()), 5).unwrap();
    assert_eq!(string.objects[0].value, Some(Shown::Text("Linz".into())));
    assert!(string.entries.is_empty(), "not a structure");
    let e = look(&s, &Target::Object("0x99".into()), 5).unwrap_err();
    assert_eq!(e.to_string(), "no object has the id \"0x99\" in this snapshot (ids are written 0x…)");
    let e = look(&s, &Target::Structure("static Nope.X".into()), 5).unwrap_err().to_string();
    assert!(
        e.starts_with("no data structure has the path \"static Nope.X\" in this snapshot; the largest: "),
        "{e}"
    );
    let e = look(&s, &Target::Group("Heap#Type:nope".into()), 5).unwrap_err().to_string();
    assert!(
        e.contains("no group has the key \"Heap#Type:nope\"") && e.contains("keys read like \"Heap#Type:"),
        "{e}"
    );
    let threads = Snapshot { classifiers: &[Classifier::Thread], ..snapshot(&heap, &descriptions) };
    let e = look(&threads, &Target::Group("Heap#Thread:main".into()), 5).unwrap_err().to_string();
    assert!(e.starts_with("--group: classifier `thread`"), "{e}");
}

#[test]
fn an_object_looked_at_shows_its_referrers_and_its_path_from_a_root() {
    let (heap, descriptions) = (heap(), builtin());
    let s = snapshot(&heap, &descriptions);
    // The key (1): the node's `.key` references it; the root reaches it through the map.
    let key = look(&s, &Target::Object("0x1".into()), 5).unwrap();
    let shown = &key.objects[0];
    assert_eq!(shown.referrer_count, Some(1));
    assert_eq!(
        shown.referrers,
        [around::Referrer {
            id: "0x4".into(),
            type_name: "java.util.HashMap$Node".into(),
            field: Some(".key".into())
        }]
    );
    let path = shown.path.as_deref().expect("reached from the root");
    assert!(path.ends_with(".cache .table [0] .key"), "{path}");
    // An entry's sides are not walked around (open them for that).
    let map = look(&s, &Target::Object("0x6".into()), 5).unwrap();
    let side = map.entries[0].key.clone().flatten().unwrap();
    assert!(side.referrers.is_empty() && side.path.is_none() && side.referrer_count.is_none());
    let json = serde_json::to_value(&key).unwrap();
    assert_eq!(json["objects"][0]["referrers"][0]["field"], ".key");
    assert_eq!(json["objects"][0]["referrer_count"], 1);
}
