//! A generated heap shaped like a JVM's, for the benchmarks (`dominators`, `structures`):
//! doubly linked lists, hash maps with entry tables and collision chains, array lists, every
//! item with a String holding a char[], some items shared across containers, a few thousand
//! roots (the holders of the containers) and 250 groups, one per type. `MEMCITY_BENCH_OBJECTS`
//! sets the heap size (default 1M).

// Each benchmark uses a part of it.
#![allow(dead_code)]

use memcity_heapgraph::HeapGraph;

pub fn objects() -> usize {
    std::env::var("MEMCITY_BENCH_OBJECTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

pub const HOLDER: u32 = 0;
pub const LINKED_LIST: u32 = 1;
pub const LIST_NODE: u32 = 2;
pub const HASH_MAP: u32 = 3;
pub const TABLE: u32 = 4;
pub const MAP_NODE: u32 = 5;
pub const ARRAY_LIST: u32 = 6;
pub const ARRAY: u32 = 7;
pub const STRING: u32 = 8;
pub const CHARS: u32 = 9;
pub const ITEM_TYPES: u32 = 240;
pub const GROUPS: usize = 10 + ITEM_TYPES as usize;

/// A heap under construction; references are collected as pairs, sorted into rows at the end.
pub struct Heap {
    rng: u64,
    group: Vec<u32>,
    shallow: Vec<u64>,
    refs: Vec<(u32, u32)>,
    roots: Vec<u32>,
    items: Vec<u32>,
}

impl Heap {
    fn below(&mut self, n: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % n
    }

    fn object(&mut self, group: u32, bytes: u64, refs: &[u32]) -> u32 {
        let o = self.group.len() as u32;
        self.group.push(group);
        self.shallow.push(bytes);
        self.refs.extend(refs.iter().map(|&t| (o, t)));
        o
    }

    fn string(&mut self) -> u32 {
        let chars = 16 + 2 * self.below(40);
        let chars = self.object(CHARS, chars, &[]);
        self.object(STRING, 24, &[chars])
    }

    /// An item of type `t` with a name; a fifth also reference an earlier item anywhere.
    fn item(&mut self, t: u32) -> u32 {
        let name = self.string();
        let bytes = 16 + 8 * self.below(6);
        let item = self.object(10 + t, bytes, &[name]);
        if !self.items.is_empty() && self.below(5) == 0 {
            let at = self.below(self.items.len() as u64) as usize;
            let shared = self.items[at];
            self.refs.push((item, shared));
        }
        self.items.push(item);
        item
    }

    fn linked_list(&mut self, k: usize, t: u32) -> u32 {
        let nodes: Vec<u32> = (0..k)
            .map(|_| {
                let item = self.item(t);
                self.object(LIST_NODE, 24, &[item])
            })
            .collect();
        for pair in nodes.windows(2) {
            self.refs.extend([(pair[0], pair[1]), (pair[1], pair[0])]);
        }
        self.object(LINKED_LIST, 32, &[nodes[0], nodes[k - 1]])
    }

    fn hash_map(&mut self, k: usize, t: u32) -> u32 {
        let mut slots: Vec<u32> = Vec::new();
        for i in 0..k {
            let (key, value) = (self.string(), self.item(t));
            let chained = (i % 4 == 3).then(|| slots.pop().unwrap());
            let refs: Vec<u32> = [key, value].into_iter().chain(chained).collect();
            let node = self.object(MAP_NODE, 32, &refs);
            slots.push(node);
        }
        let table = self.object(TABLE, 16 + 4 * k.next_power_of_two() as u64, &slots);
        self.object(HASH_MAP, 48, &[table])
    }

    fn array_list(&mut self, k: usize, t: u32) -> u32 {
        let items: Vec<u32> = (0..k).map(|_| self.item(t)).collect();
        let array = self.object(ARRAY, 16 + 4 * k as u64, &items);
        self.object(ARRAY_LIST, 24, &[array])
    }

    pub fn generate(n: usize) -> HeapGraph {
        let mut heap = Heap {
            rng: 0x2545_F491_4F6C_DD1D,
            group: vec![],
            shallow: vec![],
            refs: vec![],
            roots: vec![],
            items: vec![],
        };
        while heap.group.len() < n {
            let k = 1 + heap.below(1000) as usize;
            let t = heap.below(ITEM_TYPES as u64) as u32;
            let container = match heap.below(10) {
                0..4 => heap.linked_list(k, t),
                4..7 => heap.hash_map(k, t),
                _ => heap.array_list(k, t),
            };
            let holder = heap.object(HOLDER, 96, &[container]);
            heap.roots.push(holder);
        }
        heap.into_graph()
    }

    fn into_graph(self) -> HeapGraph {
        let n = self.group.len();
        let mut edge_start = vec![0u32; n + 1];
        for &(s, _) in &self.refs {
            edge_start[s as usize + 1] += 1;
        }
        for i in 0..n {
            edge_start[i + 1] += edge_start[i];
        }
        let mut fill = edge_start.clone();
        let mut edges = vec![0u32; self.refs.len()];
        for &(s, t) in &self.refs {
            edges[fill[s as usize] as usize] = t;
            fill[s as usize] += 1;
        }
        HeapGraph {
            group: self.group.into(),
            shallow: self.shallow.into(),
            edge_start: edge_start.into(),
            edges: edges.into(),
            roots: self.roots,
        }
    }
}
