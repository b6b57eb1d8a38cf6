//! Multi-level grouping: objects go down a trie of group names, one level per classifier level;
//! the node an object ends in is its leaf group. One trie serves a whole history, so a group
//! keeps its id (and key) across snapshots, whichever source the heaps come from.

use rustc_hash::FxHashMap as HashMap;

use memcity_model::Node;

use crate::classify::{Classifier, FactUse, ObjectFacts};

/// The key and name of the root of every grouping tree.
pub const ROOT_KEY: &str = "Heap";

/// The group of objects outside the city: the root's own, in no building (the data-structure
/// view puts everything but the heads it keeps there). They still count for the heap's size,
/// for retained sizes and on retainer paths, where their steps carry [`OUTSIDE_KEY`].
pub const OUTSIDE: u32 = 0;

/// The key of [`OUTSIDE`]'s steps on retainer paths.
pub const OUTSIDE_KEY: &str = "Heap#(outside the city)";

#[derive(Debug, Clone)]
struct TrieNode {
    key: String,
    name: String,
    role: &'static str,
    children: Vec<u32>,
}

/// What one snapshot holds in one group (indexed by group id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GroupCounts {
    pub objects: u64,
    pub bytes: u64,
    /// Bytes the group's objects dominate (see `retained::dominated_sizes`).
    pub retained: Option<u64>,
    /// Bytes of the group's exact GC closure.
    pub closure: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct Grouper {
    classifiers: Vec<Classifier>,
    nodes: Vec<TrieNode>,
    child: HashMap<(u32, &'static str, String), u32>,
}

impl Grouper {
    pub fn new(classifiers: Vec<Classifier>) -> Grouper {
        let root = TrieNode { key: ROOT_KEY.into(), name: ROOT_KEY.into(), role: "Root", children: vec![] };
        Grouper { classifiers, nodes: vec![root], child: HashMap::default() }
    }

    pub fn classifiers(&self) -> &[Classifier] {
        &self.classifiers
    }

    /// Which facts decide an object's leaf.
    pub fn uses(&self) -> FactUse {
        FactUse::of(&self.classifiers)
    }

    /// Number of groups so far (group ids are `0..group_count()`; 0 is the root, never a leaf:
    /// see [`OUTSIDE`]).
    pub fn group_count(&self) -> usize {
        self.nodes.len()
    }

    /// The leaf group of an object with these facts. Sources memoize it by the facts they
    /// know (see [`FactUse`]): it formats and hashes the level names.
    pub fn leaf(&mut self, facts: &ObjectFacts) -> u32 {
        let mut node = 0u32;
        for i in 0..self.classifiers.len() {
            let role = self.classifiers[i].role();
            for name in self.classifiers[i].levels(facts) {
                node = self.child_of(node, role, name);
            }
        }
        node
    }

    fn child_of(&mut self, parent: u32, role: &'static str, name: String) -> u32 {
        if let Some(&c) = self.child.get(&(parent, role, name.clone())) {
            return c;
        }
        let id = self.nodes.len() as u32;
        let key = format!("{}#{role}:{name}", self.nodes[parent as usize].key);
        // The key keeps the name as the source wrote it; people read a type's source form.
        let shown = if role == "Type" { memcity_model::names::source_name(&name) } else { name.clone() };
        self.nodes.push(TrieNode { key, name: shown, role, children: vec![] });
        self.nodes[parent as usize].children.push(id);
        self.child.insert((parent, role, name), id);
        id
    }

    /// The key of a leaf group in the history. A group that also has subgroups somewhere in the
    /// history (a package with classes and subpackages) keeps its own objects in a `(self)` child,
    /// decided over the whole history so keys stay stable.
    pub fn leaf_key(&self, group: u32) -> String {
        if group == OUTSIDE {
            return OUTSIDE_KEY.into();
        }
        let n = &self.nodes[group as usize];
        if n.children.is_empty() { n.key.clone() } else { format!("{}#(self)", n.key) }
    }

    /// The group whose leaf key is `key`, if any.
    pub fn group_of_key(&self, key: &str) -> Option<u32> {
        (1..self.nodes.len() as u32).find(|&g| self.leaf_key(g) == key)
    }

    /// The grouping tree of one snapshot; groups without objects are left out. Built without
    /// recursion (classifier chains can be deep).
    pub fn tree(&self, counts: &[GroupCounts]) -> Node {
        let count = |id: u32| counts.get(id as usize).copied().unwrap_or_default();
        // Post-order over the trie: children are finished before their parent.
        let mut done: Vec<Option<Node>> = vec![None; self.nodes.len()];
        let mut stack = vec![(0u32, false)];
        while let Some((id, expanded)) = stack.pop() {
            let t = &self.nodes[id as usize];
            if !expanded {
                stack.push((id, true));
                stack.extend(t.children.iter().map(|&c| (c, false)));
                continue;
            }
            // The root's own objects are outside the city (OUTSIDE).
            let own = if id == OUTSIDE { GroupCounts::default() } else { count(id) };
            let mut children: Vec<Node> =
                t.children.iter().filter_map(|&c| done[c as usize].take()).collect();
            if !t.children.is_empty() && own.objects > 0 {
                children.push(leaf_node(&format!("{}#(self)", t.key), "(self)", t.role, own));
            }
            if children.is_empty() && own.objects == 0 && id != 0 {
                continue;
            }
            children.sort_by(|a, b| a.key.cmp(&b.key));
            let node = if t.children.is_empty() {
                leaf_node(&t.key, &t.name, t.role, own)
            } else {
                let mut node = Node::leaf(&t.key, &t.name, t.role, 0, 0);
                node.objects = children.iter().map(|c| c.objects).sum();
                node.bytes = children.iter().map(|c| c.bytes).sum();
                node.children = children;
                node
            };
            done[id as usize] = Some(node);
        }
        done[0].take().unwrap_or_else(|| Node::leaf(ROOT_KEY, ROOT_KEY, "Root", 0, 0))
    }
}

fn leaf_node(key: &str, name: &str, role: &str, c: GroupCounts) -> Node {
    let mut node = Node::leaf(key, name, role, c.objects, c.bytes);
    node.retained_bytes = c.retained;
    node.closure_bytes = c.closure;
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::parse_list;

    fn counts(n: usize, of: &[(u32, u64)]) -> Vec<GroupCounts> {
        let mut c = vec![GroupCounts::default(); n];
        for &(g, objects) in of {
            c[g as usize] = GroupCounts { objects, bytes: objects * 8, retained: Some(1), closure: None };
        }
        c
    }

    #[test]
    fn leaves_get_stable_keys_and_self_children() {
        let mut g = Grouper::new(parse_list("package").unwrap());
        let lang = g.leaf(&ObjectFacts { type_name: "java.lang.String", ..Default::default() });
        let tree = g.tree(&counts(g.group_count(), &[(lang, 2)]));
        assert_eq!(tree.children[0].children[0].key, "Heap#Package:java#Package:java.lang");
        let r#ref = g.leaf(&ObjectFacts { type_name: "java.lang.ref.Cleaner", ..Default::default() });
        assert_eq!(g.leaf_key(lang), "Heap#Package:java#Package:java.lang#(self)");
        let tree = g.tree(&counts(g.group_count(), &[(lang, 2), (r#ref, 3)]));
        let lang_node = &tree.children[0].children[0];
        assert_eq!((lang_node.objects, lang_node.children.len()), (5, 2));
        assert_eq!(lang_node.children[0].retained_bytes, Some(1));
        assert_eq!(g.group_of_key(&g.leaf_key(r#ref)), Some(r#ref));
    }

    #[test]
    fn array_types_are_named_in_source_form_and_keyed_as_the_dump_wrote_them() {
        let mut g = Grouper::new(parse_list("package,type").unwrap());
        let objects = g.leaf(&ObjectFacts { type_name: "[Ljava.lang.Object;", ..Default::default() });
        let bytes = g.leaf(&ObjectFacts { type_name: "[B", ..Default::default() });
        let tree = g.tree(&counts(g.group_count(), &[(objects, 1), (bytes, 2)]));
        let mut named = Vec::new();
        tree.walk(&mut |n, _| named.push((n.key.clone(), n.name.clone())));
        let key = "Heap#Package:java#Package:java.lang#Type:[Ljava.lang.Object;";
        assert!(named.contains(&(key.into(), "java.lang.Object[]".into())), "{named:?}");
        let key = "Heap#Package:(primitive arrays)#Type:[B";
        assert!(named.contains(&(key.into(), "byte[]".into())), "{named:?}");
        assert_eq!(g.group_of_key(key), Some(bytes));
    }

    #[test]
    fn deep_chains_build_without_recursion() {
        let mut g = Grouper::new(parse_list("package").unwrap());
        let name = (0..1000).map(|i| format!("p{i}")).collect::<Vec<_>>().join(".") + ".T";
        let leaf = g.leaf(&ObjectFacts { type_name: &name, ..Default::default() });
        let tree = g.tree(&counts(g.group_count(), &[(leaf, 1)]));
        assert_eq!(tree.objects, 1);
        let mut depth = 0;
        tree.walk(&mut |_, _| depth += 1);
        assert_eq!(depth, 1001);
    }
}
