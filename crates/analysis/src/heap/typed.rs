//! The replayed heap with everything known of its objects (memcity_heapgraph's `TypedHeap`):
//! types, allocation sites, trace ids (stable across GCs) and field names on references, for
//! the analyses of single objects (data structures).

use memcity_heapgraph::{EdgeLabels, Label, ObjectTable, ObjectType, TypeKind, TypedHeap};

use super::Heap;

/// Primitive element types: arrays of these hold no references.
const PRIMITIVES: [&str; 8] = ["boolean", "byte", "char", "short", "int", "long", "float", "double"];

impl Heap {
    /// The heap as it stands (call it right after a GC, when every object left is live).
    pub fn typed(&self) -> TypedHeap {
        let graph = self.graph();
        let fields = &self.strings.fields.values;
        let field_label: Vec<Label> = fields.iter().enumerate().map(|(i, f)| label_of(f, i as u32)).collect();
        let mut of_edge = Vec::with_capacity(graph.edges.len());
        for &first in &self.objects.first_ref {
            let mut entry = first;
            while let Some(&(field, _, next)) = self.references.entries.get(entry as usize) {
                of_edge.push(field_label.get(field as usize).copied().unwrap_or(Label::NONE));
                entry = next;
            }
        }
        debug_assert_eq!(of_edge.len(), graph.edges.len());
        let types = self
            .strings
            .types
            .values
            .iter()
            .map(|name| ObjectType { name: name.clone(), kind: kind_of(name) })
            .collect();
        let sites = self
            .strings
            .sites
            .values
            .iter()
            .map(|frames| frames.first().cloned().unwrap_or_default())
            .collect();
        let objects = ObjectTable {
            types,
            type_of: self.objects.type_id.clone().into(),
            sites,
            site_of: self.objects.site_id.clone().into(),
            identity: self.objects.id.clone().into(),
            identity_stable: true,
            labels: EdgeLabels { names: fields.clone(), of_edge: of_edge.into() },
            root_names: self.root_labels(),
            root_kinds: self.roots.iter().map(|(&(slot, _), &kind)| (slot, kind)).collect(),
        };
        TypedHeap { graph, objects, tree: None }
    }
}

impl Heap {
    /// How object `from` (a slot) references object `to`: `.next`, or `[3]` for an element;
    /// None when it does not. What retainer paths name their steps by, read from the heap's own
    /// references (no table per reference).
    pub fn reference_name(&self, from: u32, to: u32) -> Option<String> {
        let mut entry = *self.objects.first_ref.get(from as usize)?;
        while let Some(&(field, target, next)) = self.references.entries.get(entry as usize) {
            if target == to {
                let name = self.strings.fields.values.get(field as usize)?;
                return Some(match label_of(name, 0).get() {
                    Some(memcity_heapgraph::LabelKind::Index(i)) => format!("[{i}]"),
                    _ => format!(".{name}"),
                });
            }
            entry = next;
        }
        None
    }

    /// Each rooted object named by its roots: `static app.Registry.people` for a static field,
    /// the kind and name for others.
    fn root_labels(&self) -> Vec<(u32, String)> {
        let mut names: Vec<(u32, String)> = self
            .roots
            .iter()
            .map(|(&(slot, name), &kind)| {
                let name = self.strings.root_names.get(name);
                let label = match kind {
                    memcity_heapgraph::RootKind::Static => format!("static {name}"),
                    kind => format!("{} {name}", kind.label().to_lowercase()),
                };
                (slot, label)
            })
            .collect();
        names.sort();
        names.dedup_by_key(|(slot, _)| *slot);
        names
    }
}

/// A field named `[3]` is element 3 of an array.
fn label_of(field: &str, id: u32) -> Label {
    match field.strip_prefix('[').and_then(|f| f.strip_suffix(']')).and_then(|i| i.parse::<u64>().ok()) {
        Some(index) => Label::index(index),
        None => Label::field(id),
    }
}

fn kind_of(type_name: &str) -> TypeKind {
    match type_name.strip_suffix("[]") {
        Some(element) if PRIMITIVES.contains(&element) => TypeKind::PrimitiveArray,
        Some(_) => TypeKind::ReferenceArray,
        None => TypeKind::Instance,
    }
}

#[cfg(test)]
mod tests {
    use memcity_heapgraph::LabelKind;

    use super::*;
    use crate::trace::Event;

    #[test]
    fn references_keep_their_field_names_and_elements_their_indices() {
        let mut heap = Heap::default();
        let alloc = |id, type_name: &str| Event::Alloc {
            id,
            type_name: type_name.into(),
            size: 16,
            len: None,
            site: vec!["app.Main.run".into()],
            thread: "main".into(),
        };
        for event in [
            alloc(1, "app.Holder"),
            alloc(2, "java.lang.Object[]"),
            alloc(3, "app.Item"),
            alloc(4, "char[]"),
            Event::Ptr { from: 1, to: Some(2), field: "items".into() },
            Event::Ptr { from: 2, to: Some(3), field: "[7]".into() },
            Event::Root { id: 1, kind: memcity_heapgraph::RootKind::Static, name: "app.Main.HOLDER".into() },
        ] {
            heap.apply(&event).unwrap();
        }
        let typed = heap.typed();
        let o = &typed.objects;
        let slot = |id: u64| o.identity.iter().position(|&i| i == id).unwrap() as u32;
        let labels: Vec<_> = (0..typed.graph.edges.len()).map(|e| o.labels.text(e)).collect();
        assert_eq!(labels, [Some(".items".to_string()), Some("[7]".to_string())]);
        assert_eq!(o.labels.of_edge[1].get(), Some(LabelKind::Index(7)));
        assert_eq!(o.type_name(slot(2)), "java.lang.Object[]");
        assert_eq!(o.types[o.type_of[slot(2) as usize] as usize].kind, TypeKind::ReferenceArray);
        assert_eq!(o.types[o.type_of[slot(4) as usize] as usize].kind, TypeKind::PrimitiveArray);
        assert_eq!(o.site(slot(3)), Some("app.Main.run"));
        assert_eq!(o.root_name(slot(1)), Some("static app.Main.HOLDER"));
        assert!(o.identity_stable);
    }
}
