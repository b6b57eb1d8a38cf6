//! Which types of one heap are collections and which make up their insides, as the
//! descriptions say (the same plan detection follows), for analyses that look at types rather
//! than instances: the ownership graph splits collections by what refers to them and their
//! parts by the collection they belong to (docs/ownership.md).

use memcity_heapgraph::TypedHeap;

use super::plan::{INTERNAL, Plan};
use crate::lang::Descriptions;

/// Per type of a heap: whether it is a collection (a described head), and per collection type
/// the types of its inside — what detection would take as its internal parts, contained
/// structures excluded (a HashSet's HashMap is a collection of its own).
#[derive(Debug, Clone, Default)]
pub struct CollectionTypes {
    head: Vec<bool>,
    /// Per head type, the index into `inside` of its row's closure.
    inside_of: Vec<u32>,
    /// Per distinct head row, whether each type is part of such a collection.
    inside: Vec<Vec<bool>>,
}

const NO_INSIDE: u32 = u32::MAX;

impl CollectionTypes {
    /// The collection types of `heap` under `descriptions`. Time: rows reached × types per
    /// distinct head description (a few dozen descriptions, thousands of types).
    pub fn new(heap: &TypedHeap, descriptions: &Descriptions) -> CollectionTypes {
        let plan = Plan::new(heap, descriptions);
        let types = heap.objects.types.len() as u32;
        // A head only some of whose objects are structures (a JavaScript object with a
        // dictionary store) does not make its whole type a collection.
        let roles = crate::entries::Roles::new(heap, descriptions);
        let head: Vec<bool> = (0..types).map(|t| plan.is_head(t) && !roles.conditional(t)).collect();
        let mut inside_of = vec![NO_INSIDE; types as usize];
        let mut inside = Vec::new();
        let mut of_row = vec![NO_INSIDE; plan.row_count()];
        for t in (0..types).filter(|&t| head[t as usize]) {
            let Some(r) = plan.row_index(t) else { continue };
            if of_row[r] == NO_INSIDE {
                inside.push(closure(&plan, r, &head));
                of_row[r] = (inside.len() - 1) as u32;
            }
            inside_of[t as usize] = of_row[r];
        }
        CollectionTypes { head, inside_of, inside }
    }

    /// Whether objects of type `t` are collections (heads of a description).
    pub fn is_collection(&self, t: u32) -> bool {
        self.head.get(t as usize).copied().unwrap_or(false)
    }

    /// Whether objects of type `t` make up the inside of a collection of type `head`: its
    /// internal parts, however deep (a HashMap's table and its nodes).
    pub fn is_part(&self, head: u32, t: u32) -> bool {
        let Some(&i) = self.inside_of.get(head as usize) else { return false };
        i != NO_INSIDE && self.inside[i as usize].get(t as usize).copied().unwrap_or(false)
    }
}

/// The types reached from row `start` through internal parts that have rows of their own
/// (detection descends into those), heads excluded: a row at a time, as rows are shared.
fn closure(plan: &Plan, start: usize, head: &[bool]) -> Vec<bool> {
    let mut part = vec![false; head.len()];
    let mut reached = vec![false; plan.row_count()];
    reached[start] = true;
    let mut pending = vec![start];
    while let Some(r) = pending.pop() {
        for (t, &kind) in plan.row_at(r).iter().enumerate() {
            if kind != INTERNAL || head[t] || part[t] {
                continue;
            }
            let Some(next) = plan.row_index(t as u32) else { continue };
            part[t] = true;
            if !reached[next] {
                reached[next] = true;
                pending.push(next);
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::super::tests::Builder;
    use super::*;
    use crate::lang::builtin;

    #[test]
    fn maps_and_lists_are_collections_with_their_tables_and_nodes_inside() {
        let mut b = Builder::new();
        let node = b.object("java.util.HashMap$Node", 32, &[]);
        let table = b.object("java.util.HashMap$Node[]", 64, &[node]);
        let map = b.object("java.util.HashMap", 48, &[table]);
        let set = b.object("java.util.HashSet", 16, &[map]);
        let list_node = b.object("java.util.LinkedList$Node", 24, &[]);
        let list = b.object("java.util.LinkedList", 32, &[list_node]);
        let person = b.object("app.Person", 24, &[]);
        let _ = (set, list, person);
        let heap = b.heap();
        let c = CollectionTypes::new(&heap, &builtin());
        let t = |name: &str| heap.objects.types.iter().position(|t| t.name == name).unwrap() as u32;
        for head in ["java.util.HashMap", "java.util.HashSet", "java.util.LinkedList"] {
            assert!(c.is_collection(t(head)), "{head}");
        }
        assert!(!c.is_collection(t("java.util.HashMap$Node")) && !c.is_collection(t("app.Person")));
        assert!(c.is_part(t("java.util.HashMap"), t("java.util.HashMap$Node[]")));
        assert!(c.is_part(t("java.util.HashMap"), t("java.util.HashMap$Node")), "deeper parts too");
        assert!(c.is_part(t("java.util.LinkedList"), t("java.util.LinkedList$Node")));
        assert!(
            !c.is_part(t("java.util.HashSet"), t("java.util.HashMap")),
            "a contained collection is its own"
        );
        assert!(!c.is_part(t("java.util.HashMap"), t("app.Person")), "leaves are not parts");
        assert!(!c.is_part(t("app.Person"), t("java.util.HashMap$Node")), "no collection, no parts");
        assert!(!c.is_part(99, 0) && !c.is_collection(99), "types beyond the heap's are nothing");
    }
}
