//! A real Node heap snapshot read as a typed heap: a known property and a known array element
//! are named. Skipped (with a note) where `node` is not installed.

use std::process::Command;

#[test]
fn a_node_snapshot_names_a_property_and_an_element() {
    let dir = std::env::temp_dir().join(format!("memcity-v8-labels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("labels.heapsnapshot");
    let program = format!(
        "class Registry {{ constructor() {{ this.people = [new Person('a'), new Person('b')]; }} }}\n\
         class Person {{ constructor(n) {{ this.name = n; }} }}\n\
         globalThis.REGISTRY = new Registry();\n\
         require('v8').writeHeapSnapshot({:?});\n",
        file.display().to_string()
    );
    let ran = match Command::new("node").arg("-e").arg(&program).status() {
        Ok(status) => status,
        Err(_) => {
            eprintln!("node is not installed: skipped");
            return;
        }
    };
    assert!(ran.success());
    let typed = memcity_v8::typed_heap(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let (g, o) = (&typed.heap.graph, &typed.heap.objects);
    let of_type = |name: &'static str| (0..g.object_count() as u32).filter(move |&x| o.type_name(x) == name);
    let registry = of_type("Registry").next().expect("the registry");
    // registry.people → an Array whose elements store holds the two people by index.
    let people = g.referents(registry).iter().position(|&t| o.type_name(t) == "Array").unwrap();
    let start = g.edge_range(registry).start;
    assert_eq!(o.labels.text(start + people).as_deref(), Some(".people"));
    let array = g.referents(registry)[people];
    let persons: Vec<u32> = of_type("Person").collect();
    assert_eq!(persons.len(), 2);
    let mut elements = Vec::new();
    for (i, &store) in g.referents(array).iter().enumerate() {
        let store_edge = g.edge_range(array).start + i;
        for (j, &t) in g.referents(store).iter().enumerate() {
            if persons.contains(&t) {
                elements.push((o.labels.text(store_edge), o.labels.text(g.edge_range(store).start + j)));
            }
        }
    }
    assert_eq!(
        elements,
        [
            (Some(".elements".to_string()), Some("[0]".to_string())),
            (Some(".elements".into()), Some("[1]".into()))
        ]
    );
    assert!(o.identity_stable && o.identity[registry as usize] > 0);
}
