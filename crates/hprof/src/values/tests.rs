//! Values of the committed sample dump (gzipped, so read from its inflated copy): every
//! `LeakApp$Person` was made as `Person("person-N", "pN@example.org", N % 90)`.

use std::path::Path;

use memcity_heapgraph::{Contents, Value, Values};

use super::typed_heap_with_values;
use crate::Layout;

#[test]
fn the_sample_dumps_people_read_back_as_the_program_made_them() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/hprof/dump1.hprof.gz");
    let (typed, values) = typed_heap_with_values(&file, &Layout::default(), None).unwrap();
    let objects = &typed.heap.objects;
    let people: Vec<u32> =
        (0..objects.type_of.len() as u32).filter(|&o| objects.type_name(o) == "LeakApp$Person").collect();
    assert_eq!(people.len(), 2000);
    for &person in &people {
        assert_eq!(values.find(&values.id(person)), Some(person), "ids read back to their object");
        let Some(Contents::Fields(fields)) = values.contents(person, 0) else { panic!("no fields") };
        let get = |name: &str| fields.iter().find(|f| f.name == name).unwrap().value.clone();
        let text = |name: &str| match get(name) {
            Value::Ref(s) => values.text(s).unwrap(),
            other => panic!("{name}: {other:?}"),
        };
        let name = text("name");
        let serial: i64 = name.strip_prefix("person-").unwrap().parse().unwrap();
        assert_eq!(text("email"), format!("p{serial}@example.org"));
        assert_eq!(get("age"), Value::Int(serial % 90));
    }
    // A class object's contents are its statics: LeakApp's hold the list of people.
    let class =
        (0..objects.type_of.len() as u32).find(|&o| objects.root_name(o) == Some("class LeakApp")).unwrap();
    let Some(Contents::Fields(statics)) = values.contents(class, 0) else { panic!() };
    let people_list = statics.iter().find(|f| f.name == "PEOPLE").unwrap();
    assert_eq!(people_list.type_name.as_deref(), Some("java.util.LinkedList"));
}
