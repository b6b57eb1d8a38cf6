//! Multi-level grouping: objects go down a trie of group names, one level per classifier level;
//! the node an object ends in is its leaf group. The trie lives for the whole replay, so a group
//! keeps its id (and key) across snapshots.

use rustc_hash::FxHashMap as HashMap;

use memcity_model::Node;

use crate::classify::{Classifier, ObjectFacts};
use crate::heap::Heap;

#[derive(Debug, Clone)]
struct TrieNode {
    key: String,
    name: String,
    role: String,
    children: Vec<u32>,
    /// Some object ended here (the node is a leaf group).
    terminal: bool,
}

/// Which facts the classifiers look at; an object's leaf depends only on these.
type FactsKey = (u32, u32, u32, u32, u8, u8);

pub struct Grouper {
    classifiers: Vec<Classifier>,
    nodes: Vec<TrieNode>,
    child: HashMap<(u32, String), u32>,
    memo: HashMap<FactsKey, u32>,
}

/// Where objects of one snapshot went: `(objects, bytes, retained bytes)` per trie node.
pub type Counts = Vec<(u64, u64, Option<u64>)>;

impl Grouper {
    pub fn new(classifiers: Vec<Classifier>) -> Grouper {
        let root = TrieNode {
            key: "Heap".into(),
            name: "Heap".into(),
            role: "Root".into(),
            children: vec![],
            terminal: false,
        };
        Grouper { classifiers, nodes: vec![root], child: HashMap::default(), memo: HashMap::default() }
    }

    /// Number of groups so far (group ids are `0..group_count()`).
    pub fn group_count(&self) -> usize {
        self.nodes.len()
    }

    /// The leaf group of every live slot (dead slots get group 0, the root, never a leaf).
    pub fn assign(&mut self, heap: &Heap, live: &[bool]) -> Vec<u32> {
        let roots = heap.root_kinds();
        let o = &heap.objects;
        let uses = |f: fn(&Classifier) -> bool| self.classifiers.iter().any(f);
        let (by_type, by_site, by_thread, by_age, by_kind, by_root) = (
            uses(|c| matches!(c, Classifier::Type | Classifier::Package)),
            uses(|c| matches!(c, Classifier::AllocationSite { .. } | Classifier::DomainCallSite { .. })),
            uses(|c| matches!(c, Classifier::Thread)),
            uses(|c| matches!(c, Classifier::Age)),
            uses(|c| matches!(c, Classifier::ObjectKind)),
            uses(|c| matches!(c, Classifier::RootKind)),
        );
        let mut groups = vec![0; live.len()];
        for s in 0..live.len() {
            if !live[s] {
                continue;
            }
            let age = heap.gc_count - o.birth_gc[s];
            let kind = match o.len[s] {
                None => 0,
                Some(n) if n < 255 => 1,
                Some(_) => 2,
            };
            let key: FactsKey = (
                if by_type { o.type_id[s] } else { 0 },
                if by_site { o.site_id[s] } else { 0 },
                if by_thread { o.thread_id[s] } else { 0 },
                if by_age { age } else { 0 },
                if by_kind { kind } else { 0 },
                if by_root { roots[s].map_or(0, |k| k as u8 + 1) } else { 0 },
            );
            groups[s] = match self.memo.get(&key) {
                Some(&g) => g,
                None => {
                    let facts = ObjectFacts {
                        type_name: heap.strings.types.get(o.type_id[s]),
                        site: heap.strings.sites.get(o.site_id[s]),
                        thread: heap.strings.threads.get(o.thread_id[s]),
                        age,
                        len: o.len[s],
                        root: roots[s],
                    };
                    let g = self.leaf(&facts);
                    self.memo.insert(key, g);
                    g
                }
            };
        }
        groups
    }

    fn leaf(&mut self, facts: &ObjectFacts) -> u32 {
        let mut node = 0u32;
        for i in 0..self.classifiers.len() {
            let role = self.classifiers[i].role();
            for name in self.classifiers[i].levels(facts) {
                node = self.child_of(node, role, name);
            }
        }
        self.nodes[node as usize].terminal = true;
        node
    }

    fn child_of(&mut self, parent: u32, role: &str, name: String) -> u32 {
        let label = format!("{role}:{name}");
        if let Some(&c) = self.child.get(&(parent, label.clone())) {
            return c;
        }
        let id = self.nodes.len() as u32;
        let key = format!("{}#{label}", self.nodes[parent as usize].key);
        self.nodes.push(TrieNode { key, name, role: role.into(), children: vec![], terminal: false });
        self.nodes[parent as usize].children.push(id);
        self.child.insert((parent, label), id);
        id
    }

    /// The key of a leaf group in the history. A group that also has subgroups somewhere in the
    /// history (a package with classes and subpackages) keeps its own objects in a `(self)` child,
    /// decided over the whole history so keys stay stable.
    pub fn leaf_key(&self, group: u32) -> String {
        let n = &self.nodes[group as usize];
        if n.children.is_empty() { n.key.clone() } else { format!("{}#(self)", n.key) }
    }

    /// The grouping tree of one snapshot; groups without objects are left out.
    pub fn tree(&self, counts: &Counts) -> Node {
        self.node(0, counts).unwrap_or_else(|| Node::leaf("Heap", "Heap", "Root", 0, 0))
    }

    fn node(&self, id: u32, counts: &Counts) -> Option<Node> {
        let t = &self.nodes[id as usize];
        let own = counts.get(id as usize).copied().unwrap_or_default();
        let mut children: Vec<Node> = t.children.iter().filter_map(|&c| self.node(c, counts)).collect();
        if !t.children.is_empty() && own.0 > 0 {
            let mut own_node = Node::leaf(&format!("{}#(self)", t.key), "(self)", &t.role, own.0, own.1);
            own_node.retained_bytes = own.2;
            children.push(own_node);
        }
        if children.is_empty() && own.0 == 0 && id != 0 {
            return None;
        }
        children.sort_by(|a, b| a.key.cmp(&b.key));
        let mut node = Node::leaf(&t.key, &t.name, &t.role, own.0, own.1);
        if t.children.is_empty() {
            node.retained_bytes = own.2;
        } else {
            node.objects = children.iter().map(|c| c.objects).sum();
            node.bytes = children.iter().map(|c| c.bytes).sum();
        }
        node.children = children;
        Some(node)
    }
}
