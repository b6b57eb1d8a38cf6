//! `memcity structures`: the data structures of a heap and how each one grew over a time window
//! (docs/structures.md): detected at the window's two ends, paired by identity, ranked by the
//! growth of the chosen metric, each read as one of five growth patterns.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Result;
use memcity_heapgraph::{RootPaths, TypedHeap, root_path};
use memcity_structures::{Descriptions, Growth, Measure, Scratch, Sizes, Status, Structures};
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct StructuresArgs {
    /// HPROF heap dumps (files or folders; one snapshot per dump), a trace (.jsonl, .mctrace)
    /// or scenario:NAME.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// The window's first GC (default: the first).
    #[arg(long, value_name = "I")]
    pub from: Option<usize>,
    /// The window's last GC (default: the last).
    #[arg(long, value_name = "J")]
    pub to: Option<usize>,
    /// More data-structure descriptions: a .ds file or a folder of them; repeatable. They
    /// replace built-in descriptions of the same types.
    #[arg(long = "structures", value_name = "FILE|DIR")]
    pub structures: Vec<PathBuf>,
    /// The growth to rank by.
    #[arg(long, value_enum, default_value_t = SortBy::Retained)]
    pub sort: SortBy,
    /// How many instances to show (0: all).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Retained,
    Deep,
    Structure,
    DeepStructure,
}

/// The longest field path shown as an identity.
const PATH_STEPS: usize = 8;
/// Leaf types listed per instance.
const LEAF_TYPES: usize = 10;

/// One end of the window: a heap, its structures, and each instance's identity.
struct End {
    heap: TypedHeap,
    structures: Structures,
    /// By instance: the key it is matched by, and the field path shown.
    keys: Vec<String>,
    paths: Vec<String>,
    reachable_bytes: u64,
    scratch: Scratch,
}

impl End {
    fn new(heap: TypedHeap, reachable_bytes: u64, descriptions: &Descriptions) -> End {
        let structures = memcity_structures::detect(&heap, descriptions);
        let root_paths = RootPaths::new(&heap.graph);
        let objects = &heap.objects;
        let name_root = |o: u32| {
            objects.root_name(o).map_or_else(|| format!("root {}", objects.type_name(o)), String::from)
        };
        let paths: Vec<String> = structures
            .instances
            .iter()
            .map(|i| root_path::describe(&root_paths.path(i.head), &objects.labels, &name_root, PATH_STEPS))
            .collect();
        let keys = if objects.identity_stable {
            structures.instances.iter().map(|i| format!("@{}", objects.identity[i.head as usize])).collect()
        } else {
            paths.clone()
        };
        let scratch = Scratch::new(heap.graph.object_count());
        End { heap, structures, keys, paths, reachable_bytes, scratch }
    }

    fn measure(&mut self, i: usize, deep: bool) -> Measure {
        let instance = &self.structures.instances[i];
        let deep =
            if deep { self.structures.deep_size(&self.heap, i, &mut self.scratch) } else { Sizes::default() };
        Measure {
            retained: instance.retained,
            deep,
            structure: instance.structure,
            deep_structure: instance.deep_structure,
        }
    }

    /// The instance's deep leaves by type and allocation site.
    fn leaves(&mut self, i: usize) -> HashMap<(String, String), Sizes> {
        let mut by_type: HashMap<(String, String), Sizes> = HashMap::new();
        let objects = &self.heap.objects;
        for o in self.structures.deep_leaves(i, &mut self.scratch) {
            let key = (objects.type_name(o).to_string(), objects.site(o).unwrap_or("").to_string());
            let sizes = by_type.entry(key).or_default();
            sizes.objects += 1;
            sizes.bytes += self.heap.graph.shallow[o as usize];
        }
        by_type
    }

    fn type_name(&self, i: usize) -> &str {
        self.heap.objects.type_name(self.structures.instances[i].head)
    }

    fn site(&self, i: usize) -> &str {
        self.heap.objects.site(self.structures.instances[i].head).unwrap_or("")
    }
}

pub fn run(args: StructuresArgs) -> Result<()> {
    let mut descriptions = memcity_structures::builtin();
    for path in &args.structures {
        descriptions
            .extend(memcity_structures::load_path(path).map_err(|e| anyhow::anyhow!("--structures: {e}"))?);
    }
    let heaps = crate::input::typed_heaps(&args.inputs, args.from, args.to)?;
    let mut heaps = heaps.into_iter();
    let first = heaps.next().ok_or_else(|| anyhow::anyhow!("no heap in the window"))?;
    let from = first.index;
    // The window's ends; a window of one snapshot has one, detected once.
    let mut ends = vec![End::new(first.heap, first.reachable_bytes, &descriptions)];
    let mut to = from;
    if let Some(last) = heaps.next() {
        to = last.index;
        ends.push(End::new(last.heap, last.reachable_bytes, &descriptions));
    }
    let (s_end, e_end) = (0, ends.len() - 1);
    let heap_growth = ends[e_end].reachable_bytes as i64 - ends[s_end].reachable_bytes as i64;
    let end_heap = ends[e_end].reachable_bytes;
    let pairs = memcity_structures::pair(&ends[s_end].keys, &ends[e_end].keys);
    let rank = |g: &Growth| match args.sort {
        SortBy::Retained => g.retained.bytes,
        SortBy::Deep => g.deep.bytes,
        SortBy::Structure => g.structure.bytes,
        SortBy::DeepStructure => g.deep_structure.bytes,
    };
    // Rank the survivors (the transitive size only where it is the ranking), then measure
    // the shown ones whole.
    let want_deep = args.sort == SortBy::Deep;
    let mut survivors: Vec<(usize, usize, Growth)> = Vec::new();
    for (s, e) in pairs.iter().filter_map(|&(s, e, status)| (status == Status::Survived).then_some((s?, e?)))
    {
        let a = ends[s_end].measure(s, want_deep);
        let b = ends[e_end].measure(e, want_deep);
        survivors.push((s, e, memcity_structures::compare(&a, &b, heap_growth, end_heap)));
    }
    survivors
        .sort_by_key(|(_, e, g)| (std::cmp::Reverse(rank(g)), ends[e_end].structures.instances[*e].head));
    if args.top > 0 {
        survivors.truncate(args.top);
    }
    let mut rows = Vec::new();
    for (s, e, _) in survivors {
        let (a, b) = (ends[s_end].measure(s, true), ends[e_end].measure(e, true));
        let growth = memcity_structures::compare(&a, &b, heap_growth, end_heap);
        let leaves = leaf_rows(ends[s_end].leaves(s), ends[e_end].leaves(e));
        rows.push(Row { start: a, end: b, growth, leaves, e });
    }
    let end = &ends[e_end];
    let appeared = pairs.iter().filter(|p| p.2 == Status::Appeared).count();
    let died = pairs.iter().filter(|p| p.2 == Status::Died).count();
    if args.json {
        say!("{}", serde_json::to_string_pretty(&report_json(end, from, to, heap_growth, &rows))?);
    } else {
        say_raw!(
            "{}",
            report_text(end, from, to, heap_growth, &rows, (pairs.len() - appeared - died, appeared, died))
        );
    }
    Ok(())
}

struct Row {
    start: Measure,
    end: Measure,
    growth: Growth,
    leaves: Vec<LeafRow>,
    /// The instance's index at the end of the window.
    e: usize,
}

struct LeafRow {
    type_name: String,
    site: String,
    start: Sizes,
    end: Sizes,
}

/// Leaf types of both ends, the largest at the end first.
fn leaf_rows(start: HashMap<(String, String), Sizes>, end: HashMap<(String, String), Sizes>) -> Vec<LeafRow> {
    let mut keys: Vec<&(String, String)> = start.keys().chain(end.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut rows: Vec<LeafRow> = keys
        .into_iter()
        .map(|k| LeafRow {
            type_name: k.0.clone(),
            site: k.1.clone(),
            start: start.get(k).copied().unwrap_or_default(),
            end: end.get(k).copied().unwrap_or_default(),
        })
        .collect();
    rows.sort_by_key(|r| (std::cmp::Reverse(r.end.bytes), std::cmp::Reverse(r.start.bytes)));
    rows.truncate(LEAF_TYPES);
    rows
}

fn report_json(end: &End, from: usize, to: usize, heap_growth: i64, rows: &[Row]) -> Value {
    let hgp = |h: Option<f64>| h.map_or(Value::Null, |h| json!((h * 10.0).round() / 10.0));
    let instances: Vec<Value> = rows
        .iter()
        .map(|r| {
            let leaves: Vec<Value> = r
                .leaves
                .iter()
                .map(|l| {
                    json!({"type": l.type_name, "allocation_site": l.site, "objects_start": l.start.objects,
                           "objects_end": l.end.objects, "bytes_start": l.start.bytes, "bytes_end": l.end.bytes})
                })
                .collect();
            json!({
                "type": end.type_name(r.e),
                "identity": end.paths[r.e],
                "allocation_site": end.site(r.e),
                "status": Status::Survived.name(),
                "objects_start": r.start.deep_structure.objects,
                "objects_end": r.end.deep_structure.objects,
                "retained_bytes_start": r.start.retained.bytes,
                "retained_bytes_end": r.end.retained.bytes,
                "deep_bytes_start": r.start.deep.bytes,
                "deep_bytes_end": r.end.deep.bytes,
                "structure_bytes_start": r.start.structure.bytes,
                "structure_bytes_end": r.end.structure.bytes,
                "deep_structure_bytes_start": r.start.deep_structure.bytes,
                "deep_structure_bytes_end": r.end.deep_structure.bytes,
                "hgp": {"retained": hgp(r.growth.hgp[0]), "deep": hgp(r.growth.hgp[1]),
                        "structure": hgp(r.growth.hgp[2]), "deep_structure": hgp(r.growth.hgp[3])},
                "pattern": r.growth.pattern.name(),
                "leaves": leaves,
            })
        })
        .collect();
    json!({"window": {"from": from, "to": to}, "heap_growth_bytes": heap_growth, "instances": instances})
}

fn report_text(
    end: &End,
    from: usize,
    to: usize,
    heap_growth: i64,
    rows: &[Row],
    counts: (usize, usize, usize),
) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let (survived, appeared, died) = counts;
    let _ = writeln!(
        out,
        "GC {from} → {to}: the heap grew by {heap_growth} bytes; {survived} structures survived, {appeared} appeared, {died} died"
    );
    let percent = |h: Option<f64>| h.map_or("–".to_string(), |h| format!("{h:.1}%"));
    for (rank, r) in rows.iter().enumerate() {
        let g = &r.growth;
        let _ = writeln!(out, "\n{:>3}. {} {}", rank + 1, end.type_name(r.e), end.paths[r.e]);
        if !end.site(r.e).is_empty() {
            let _ = writeln!(out, "     allocated at {}", end.site(r.e));
        }
        let _ = writeln!(
            out,
            "     HGP retained {} ({:+} B), deep {} ({:+} B), structure {} ({:+} B), deep structure {} ({:+} B)",
            percent(g.hgp[0]),
            g.retained.bytes,
            percent(g.hgp[1]),
            g.deep.bytes,
            percent(g.hgp[2]),
            g.structure.bytes,
            percent(g.hgp[3]),
            g.deep_structure.bytes
        );
        let _ = writeln!(
            out,
            "     {} objects → {}; {}",
            r.start.deep_structure.objects,
            r.end.deep_structure.objects,
            g.pattern.name()
        );
        if rank < 3 {
            for l in r.leaves.iter().take(5) {
                let site = if l.site.is_empty() { String::new() } else { format!(" ‹ {}", l.site) };
                let _ = writeln!(
                    out,
                    "       leaves {}{site}: {} → {} objects, {} → {} B",
                    l.type_name, l.start.objects, l.end.objects, l.start.bytes, l.end.bytes
                );
            }
        }
    }
    out
}
