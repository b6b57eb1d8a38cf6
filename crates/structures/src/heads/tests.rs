use memcity_heapgraph::{Label, TypedHeap, dominators};

use super::*;
use crate::detect::tests::Builder;
use crate::lang::builtin;
use crate::measure::{Options, measure_with};
use crate::series::RetainedSeries;

/// A registry class whose static `maps` array holds `maps` HashMaps of 3 people, the first
/// one (`[0]`) holding `growing` more, each map's people in a list under `.lists`; `padding`
/// objects come first, so that object indices differ between heaps as a dump's addresses do.
/// Every reference is named (fields by name, array slots by index), as a dump's are.
fn registry(maps: usize, growing: usize, padding: usize) -> TypedHeap {
    let mut b = Builder::new();
    let class = b.object("java.lang.Class", 0, &[]);
    for _ in 0..padding {
        b.object("app.Padding", 8, &[]);
    }
    let mut names: Vec<(u32, String)> = Vec::new();
    let heads: Vec<u32> = (0..maps).map(|_| b.object("java.util.HashMap", 48, &[])).collect();
    let array = b.object("java.util.HashMap[]", 16 + 4 * maps as u64, &heads);
    b.point(class, array);
    for (i, &map) in heads.iter().enumerate() {
        let people: Vec<u32> =
            (0..3 + if i == 0 { growing } else { 0 }).map(|_| b.object("app.Person", 24, &[])).collect();
        let items = b.object("java.lang.Object[]", 16 + 4 * people.len() as u64, &people);
        let list = b.object("java.util.ArrayList", 24, &[items]);
        let table = b.object("java.util.HashMap$Node[]", 16, &[list]);
        b.point(map, table);
    }
    let mut heap = b.heap();
    names.push((class, "class app.Registry".to_string()));
    let g = &heap.graph;
    let field = |name: &str, names: &mut Vec<String>| {
        let at = names.iter().position(|n| n == name).unwrap_or_else(|| {
            names.push(name.to_string());
            names.len() - 1
        });
        Label::field(at as u32)
    };
    let mut label_names = Vec::new();
    let mut of_edge = Vec::new();
    for o in 0..g.object_count() {
        let t = heap.objects.type_name(o as u32).to_string();
        for (i, _) in g.referents(o as u32).iter().enumerate() {
            of_edge.push(match t.as_str() {
                "java.lang.Class" => field("maps", &mut label_names),
                "java.util.HashMap" => field("table", &mut label_names),
                "java.util.ArrayList" => field("elementData", &mut label_names),
                _ => Label::index(i as u64),
            });
        }
    }
    heap.objects.labels.names = label_names;
    heap.objects.labels.of_edge = of_edge.into();
    heap.objects.root_names = names;
    heap.objects.identity_stable = false;
    heap
}

fn heads_of(heap: &TypedHeap, named_above: u64) -> HeapHeads {
    heads_retained(heap, &builtin(), &|| dominators(&heap.graph).retained.to_vec(), named_above)
}

#[test]
fn heads_are_the_instances_measure_finds_with_their_retained_sizes_and_paths() {
    let heap = registry(6, 20, 0);
    let measured = measure_with(&heap, &builtin(), Options { deep: false, leaves: false });
    let named_above = 200;
    let heads = heads_of(&heap, named_above);
    assert_eq!(heads.heads.len(), measured.instances.len());
    assert_eq!(heads.heap_bytes, measured.heap_bytes);
    for (h, m) in heads.heads.iter().zip(&measured.instances) {
        assert_eq!(h.retained, m.measure.retained.bytes);
        assert_eq!(heads.types[h.type_index as usize], m.type_name);
        match h.retained > named_above {
            true => assert_eq!(h.path.as_deref(), Some(m.path.as_str())),
            false => assert_eq!(h.path, None, "{} is too small to be named", m.path),
        }
    }
    // The growing map is named, as the gate shows it; small ones are not.
    assert!(heads.heads.iter().any(|h| h.path.as_deref() == Some("static app.Registry.maps [0]")));
    // One key per path: equal where the paths are, different where they are not.
    for (a, ma) in heads.heads.iter().zip(&measured.instances) {
        for (b, mb) in heads.heads.iter().zip(&measured.instances) {
            assert_eq!(a.key == b.key, ma.key == mb.key, "{} / {}", ma.path, mb.path);
        }
    }
}

#[test]
fn an_instance_keeps_its_key_where_its_objects_move() {
    let mut series = RetainedSeries::default();
    for (growing, padding) in [(0, 0), (10, 7), (20, 3)] {
        series.push_heads(&heads_of(&registry(4, growing, padding), 500));
    }
    // Four maps and four lists, each followed over the three heaps.
    assert_eq!(series.instances().len(), 8);
    let leak = series
        .instances()
        .iter()
        .find(|t| t.path == "static app.Registry.maps [0]")
        .expect("the growing map, named where it is large");
    assert_eq!(leak.type_name, "java.util.HashMap");
    assert!(leak.retained.windows(2).all(|w| w[1] > w[0]), "{:?}", leak.retained);
    assert!(leak.retained.iter().all(|&r| r > 0), "found in every heap: {:?}", leak.retained);
    // The small ones keep one size throughout, unnamed.
    let small: Vec<&Tracked> = series.instances().iter().filter(|t| t.path.is_empty()).collect();
    assert_eq!(small.len(), 6);
    assert!(small.iter().all(|t| t.retained.iter().all(|&r| r == t.retained[0] && r > 0)));
}

use crate::series::Tracked;
