//! The one heap pipeline every source goes through: a heap graph whose objects carry their
//! leaf group becomes what a snapshot shows — counts, pointer maps, retained sizes and retainer
//! paths per group ([`group_heap`]) — and, once the history's groups are all known, a snapshot
//! with keys ([`Grouper::snapshot`]).

use std::collections::BTreeMap;
use std::hash::Hash;
use std::sync::Arc;

use memcity_model::{HeapMetrics, PointerMap, RetainerPath, RetainerStep, Snapshot};
use rustc_hash::FxHashMap as HashMap;

use crate::Live;
use crate::classify::{Classifier, ObjectFacts};
use crate::dominators::{DominatorTree, VIRTUAL_ROOT};
use crate::dominators::{Dominators, RetainedBytes, assemble_with, immediate_dominators};
use crate::group::{GroupCounts, Grouper, OUTSIDE};
use crate::maps::{PointerMaps, pointed_from, pointer_maps, pointer_maps_reached, points_to};
use crate::narrow::{Narrow, NarrowSizes, Unit};
use crate::objects::EdgeLabels;
use crate::progress::{Phase, Progress, Silent};
use crate::retained::dominated_sizes;
use crate::retainers::{dominated_and_paths_beside, dominated_and_paths_spending, spending_part_starts};
use crate::roots::RootKind;
use crate::roots::RootSet;
use crate::spanning::{Spanning, Unreached};
use crate::table::Table;
use crate::{HeapGraph, retained_sizes};

/// How much of "why is it alive" to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retained {
    None,
    /// What each group dominates (one dominator tree per snapshot: fast).
    Dominated,
    /// Also every group's exact GC closure (one marking pass per group: slow on big heaps).
    Closure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisOptions {
    pub pointer_maps: bool,
    pub retained: Retained,
    pub retainer_paths: bool,
}

impl Default for AnalysisOptions {
    fn default() -> AnalysisOptions {
        AnalysisOptions { pointer_maps: true, retained: Retained::Dominated, retainer_paths: true }
    }
}

/// How a source's objects become snapshots: the classifiers that group them (outermost first)
/// and what is computed per group. Each source has its own default classifiers (its crate's
/// `default_grouping`), so there is no `Default`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouping {
    pub classifiers: Vec<Classifier>,
    pub analysis: AnalysisOptions,
}

impl Grouping {
    /// These classifiers, with pointer maps, dominated sizes and retainer paths.
    pub fn new(classifiers: Vec<Classifier>) -> Grouping {
        Grouping { classifiers, analysis: AnalysisOptions::default() }
    }

    /// Without retained sizes and retainer paths (no dominator tree per snapshot).
    pub fn without_retained(mut self) -> Grouping {
        self.analysis.retained = Retained::None;
        self.analysis.retainer_paths = false;
        self
    }
}

/// A retainer path in group ids, with the root kinds it ends at.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroupPath {
    pub steps: Vec<crate::retainers::RetainerStep>,
    pub roots: Vec<String>,
    /// Per step, how its representative object is referenced (see [`PathNames`]); empty when
    /// the source names no references.
    pub via: Vec<Option<String>>,
}

/// How a source names the references on retainer paths, so that a path reads
/// `static app.Registry.people → .first .next → .item`. Each step's representative object
/// ([`crate::RetainerPath::representatives`]) is named by the references from the next step's
/// representative: along the dominator tree, each hop from an object to the one it immediately
/// dominates (the names of at most [`MAX_HOPS`] hops, with `…` for the middle of longer chains;
/// `?` where the dominator references the object only through others, or the source has no
/// name). The last step is named from its root holder down.
#[derive(Clone, Copy, Default)]
pub enum PathNames<'a> {
    /// No names (the paths' `via` stay empty).
    #[default]
    None,
    /// A name per reference of the graph. With [`group_heap_owned_labelled`] the references are
    /// then kept until the paths are named.
    Edges(&'a EdgeLabels),
    /// The source names the reference from `from` to `to` itself (`.next`, `[3]`), from what it
    /// keeps anyway; None when it has no name for it or `from` does not reference `to`.
    Namer(&'a (dyn Fn(u32, u32) -> Option<String> + Sync)),
}

/// The most reference names a step's `via` spells out.
pub const MAX_HOPS: usize = 8;

/// Dominator chains longer than this between two representatives are not followed (`…`).
const MAX_CLIMB: usize = 1 << 12;

/// One heap grouped, in group ids.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroupedHeap {
    pub counts: Vec<GroupCounts>,
    pub maps: Option<PointerMaps>,
    /// By group; `None` for groups without live objects or when paths are off.
    pub paths: Vec<Option<GroupPath>>,
    pub reachable_bytes: u64,
}

/// Groups a heap whose `g.group` holds each object's leaf group (`0..group_count`). `live`
/// marks the reachable objects (what [`crate::reachable`] marks); `roots[o]` are the root kinds
/// that hold object `o` directly.
pub fn group_heap(
    g: &HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    options: &AnalysisOptions,
) -> GroupedHeap {
    group_heap_named(g, group_count, live, roots, &|_| None, options)
}

/// [`group_heap`], naming the objects retainer paths end at where the source can
/// (`holder(o)`: a static field's name, `class LeakApp`), so a path says which root holds it.
pub fn group_heap_named(
    g: &HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
) -> GroupedHeap {
    analyse(Graph::Borrowed(g), group_count, live.into(), roots, holder, options, Ask::default()).0
}

/// [`group_heap_named`] for a caller that keeps the graph to look at single objects (`memcity
/// check`'s data structures): with `object_retained`, every object's retained bytes come back
/// too (its dominator subtree's, 0 where unreachable), from the tree the groups' sizes come
/// from, so it is built once; the tree comes from `tree`, and comes back when
/// [`TreeSource::BuildAndKeep`] asks for it. Each phase is told to `progress` as it begins.
#[allow(clippy::too_many_arguments)] // group_heap_named's, the tree's source and what comes back
pub fn group_heap_inspected(
    g: &HeapGraph,
    tree: TreeSource,
    object_retained: bool,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
    progress: &dyn Progress,
) -> (GroupedHeap, Vec<u64>, Option<DominatorTree>) {
    let ask = Ask { source: tree, object_retained, progress, ..Ask::default() };
    analyse(Graph::Borrowed(g), group_count, live.into(), roots, holder, options, ask)
}

/// [`group_heap_named`], naming the references along each retainer path (`names`).
pub fn group_heap_labelled(
    g: &HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    names: PathNames,
    options: &AnalysisOptions,
) -> GroupedHeap {
    let ask = Ask { names, ..Ask::default() };
    analyse(Graph::Borrowed(g), group_count, live.into(), roots, holder, options, ask).0
}

/// [`group_heap_named`] for a caller that has no further use for the graph: its references are
/// freed as soon as the last step that follows them is done (before the dominator tree is
/// built), so the biggest heaps need less memory.
pub fn group_heap_owned(
    g: HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
) -> GroupedHeap {
    analyse(Graph::Owned(g), group_count, live.into(), roots, holder, options, Ask::default()).0
}

/// [`group_heap_owned`], naming the references along each retainer path (`names`). With
/// [`PathNames::Edges`] the graph's references are kept until the paths are named (more memory
/// than [`group_heap_owned`]); a [`PathNames::Namer`] costs nothing beyond what it keeps.
pub fn group_heap_owned_labelled(
    g: HeapGraph,
    group_count: usize,
    live: &[bool],
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    names: PathNames,
    options: &AnalysisOptions,
) -> GroupedHeap {
    let ask = Ask { names, ..Ask::default() };
    analyse(Graph::Owned(g), group_count, live.into(), roots, holder, options, ask).0
}

/// The graph being analysed: borrowed, or owned so that its references can go early.
#[allow(clippy::large_enum_variant)] // one per analysis, made once and never moved in a loop
enum Graph<'a> {
    Borrowed(&'a HeapGraph),
    Owned(HeapGraph),
}

impl Graph<'_> {
    fn get(&self) -> &HeapGraph {
        match self {
            Graph::Borrowed(g) => g,
            Graph::Owned(g) => g,
        }
    }

    /// Frees the references of an owned graph (objects, groups and sizes stay).
    fn free_references(&mut self) {
        if let Graph::Owned(g) = self {
            g.edges = Table::default();
            g.edge_start = Table::default();
        }
    }
}

/// Where a grouping's dominator tree comes from.
#[derive(Debug, Default)]
#[allow(clippy::large_enum_variant)] // one per analysis, handed over once
pub enum TreeSource {
    /// Built from the graph: a depth-first search, then Lengauer–Tarjan.
    #[default]
    Build,
    /// Built, and handed back for the source to keep (the HPROF index keeps it beside a dump).
    BuildAndKeep,
    /// This very graph's tree, kept from an earlier opening: neither the search nor
    /// Lengauer–Tarjan runs, and the points-to maps gather each object's referrers from the
    /// graph instead of the search.
    Known(DominatorTree),
}

/// [`group_heap_owned`] with its dominator tree from `tree`; the tree comes back when
/// [`TreeSource::BuildAndKeep`] asks for it (and the options needed one: retained sizes or
/// retainer paths). Each phase is told to `progress` as it begins. `live` may be
/// [`Live::All`]: no marks to make where every object counts.
#[allow(clippy::too_many_arguments)] // group_heap_owned's, where the tree comes from, progress
pub fn group_heap_owned_with_tree<'a>(
    g: HeapGraph,
    tree: TreeSource,
    group_count: usize,
    live: impl Into<Live<'a>>,
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
    progress: &dyn Progress,
) -> (GroupedHeap, Option<DominatorTree>) {
    let ask = Ask { source: tree, progress, ..Ask::default() };
    let (heap, _, tree) = analyse(Graph::Owned(g), group_count, live.into(), roots, holder, options, ask);
    (heap, tree)
}

/// [`group_heap_owned_with_tree`] building the tree and handing it to `hand`, if any, as soon as
/// it is assembled (to be kept), before the retained sizes and paths: where the paths' references
/// are not named, the tree's dominators and preorder, which only the pass down the preorder
/// reads, then go before the climbs' tables are made. The objects the GC roots do not reach
/// become what `unreached` says; those [`Unreached::Held`] makes roots are handed over too, in
/// id order, and the retainer paths name them as held by the VM ([`RootKind::Internal`]).
#[allow(clippy::too_many_arguments)] // group_heap_owned's, the hand, the unreached, progress
pub fn group_heap_owned_handing_tree<'a>(
    g: HeapGraph,
    hand: Option<Hand>,
    unreached: Unreached,
    group_count: usize,
    live: impl Into<Live<'a>>,
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
    progress: &dyn Progress,
) -> GroupedHeap {
    let ask = Ask { hand, unreached, progress, ..Ask::default() };
    analyse(Graph::Owned(g), group_count, live.into(), roots, holder, options, ask).0
}

/// Handed a built dominator tree as soon as it is assembled, and the objects the search made
/// roots for want of another, in id order.
type Hand<'a> = &'a dyn Fn(&DominatorTree, &[u32]);

/// What an analysis is asked for beyond the heap and its options.
struct Ask<'a> {
    /// Where the dominator tree comes from.
    source: TreeSource,
    /// How the references along retainer paths are named.
    names: PathNames<'a>,
    /// Every object's retained bytes are handed back.
    object_retained: bool,
    /// Told each phase as it begins.
    progress: &'a dyn Progress,
    /// Handed a built tree as soon as it is assembled, with the objects made roots for want of
    /// another.
    hand: Option<Hand<'a>>,
    /// What a built tree makes of the objects the GC roots do not reach.
    unreached: Unreached,
}

impl Default for Ask<'_> {
    fn default() -> Self {
        Ask {
            source: TreeSource::default(),
            names: PathNames::default(),
            object_retained: false,
            progress: &Silent,
            hand: None,
            unreached: Unreached::default(),
        }
    }
}

/// The steps, in an order that keeps the fewest tables alive at once (docs/why.md): the
/// dominator tree ([`build_tree`], unless it is known), then, side by side, the groups'
/// retained sizes and their retainer paths, both read from the tree. With `object_retained`,
/// every object's retained bytes come back too (else an empty table); the tree comes back when
/// it was built to be kept.
fn analyse(
    mut graph: Graph,
    group_count: usize,
    live: Live,
    roots: &[RootSet],
    holder: &dyn Fn(u32) -> Option<String>,
    options: &AnalysisOptions,
    ask: Ask,
) -> (GroupedHeap, Vec<u64>, Option<DominatorTree>) {
    let Ask { source, names, object_retained, progress, hand, unreached } = ask;
    let g = graph.get();
    // The caller's tables count against the budget of the tables made here.
    let _held = crate::table::Held::new((live.bytes() + roots.len() * 2) as u64);
    let counts_of = || group_counts(g, group_count, live, options.retained);
    let want_retained = options.retained != Retained::None;
    if !want_retained && !options.retainer_paths && !object_retained {
        let (counts, reachable_bytes) = counts_of();
        let maps = options.pointer_maps.then(|| pointer_maps(g, group_count, live));
        let heap = GroupedHeap { counts, maps, paths: vec![None; group_count], reachable_bytes };
        return (heap, Vec::new(), None);
    }
    let keep = matches!(source, TreeSource::BuildAndKeep);
    let named = !matches!(names, PathNames::None);
    // With a kept tree, the counts and pointer maps need only the references and the tree:
    // they are made beside the paths (the holders' pass down the preorder and the climbs),
    // filling the workers' idle time, and the references stay until then. (A kept tree comes
    // with an index, whose references are mapped from its file: no memory of the process's
    // own.)
    let beside_paths = matches!(source, TreeSource::Known(_)) && options.retainer_paths;
    let (early, mut tree, narrow, held) = match source {
        TreeSource::Known(tree) if beside_paths => (None, tree, None, Vec::new()),
        TreeSource::Known(tree) => {
            if options.pointer_maps {
                progress.phase(Phase::PointerMaps);
            }
            (Some(counts_and_maps(g, &tree, group_count, live, options)), tree, None, Vec::new())
        }
        TreeSource::Build | TreeSource::BuildAndKeep => {
            let counts = counts_of();
            progress.phase(Phase::Dominators);
            // Where the tree goes nowhere but to the retainer paths' pass: if that pass alone
            // reads its retained bytes (through the narrow ones, where there are any), they may
            // stay narrow; if the paths are not named, the pass is the spending one below, which
            // reads the dominators only above its parts' starts.
            let for_the_paths = options.retainer_paths && !keep && hand.is_none();
            let reads = TreeReads {
                narrow_enough: for_the_paths && !object_retained,
                spent: for_the_paths && !named,
            };
            let (maps, tree, narrow, held) =
                build_tree(&mut graph, group_count, live, names, unreached, reads, options);
            if let Some(hand) = hand {
                hand(&tree, &held);
            }
            (Some((counts, maps)), tree, narrow, held)
        }
    };
    let roots = RootKinds { records: roots, held: &held };
    if !matches!(names, PathNames::Edges(_)) && !beside_paths {
        graph.free_references();
    }
    let g = graph.get();
    if want_retained || options.retainer_paths {
        progress.phase(Phase::RetainedAndPaths);
    }
    // The dominated sizes are also the paths' first steps. (A tree built here for this pass
    // alone has only the dominators it reads: `TreeReads::spent`.)
    let spend = early.is_some() && !keep && !named;
    let (dominated, paths, beside) = match options.retainer_paths {
        // Nobody reads the tree's dominators or preorder after the pass down it.
        true if spend => {
            let (dominated, paths) = dominated_and_paths_spending(g, &mut tree, narrow, group_count);
            (Some(dominated), Some(paths), None)
        }
        true => {
            let beside = || early.is_none().then(|| counts_and_maps(g, &tree, group_count, live, options));
            let (dominated, paths, beside) =
                dominated_and_paths_beside(g, &tree, narrow, group_count, named, beside);
            (Some(dominated), Some(paths), beside)
        }
        false => (want_retained.then(|| dominated_sizes(g, &tree, group_count)), None, None),
    };
    let ((mut counts, reachable_bytes), maps) =
        early.or(beside).expect("the counts, early or beside the paths");
    let via = match &paths {
        Some(paths) if named => {
            paths.iter().map(|p| p.as_ref().map(|p| name_steps(g, &tree, p, names))).collect()
        }
        _ => Vec::new(),
    };
    let dominated = dominated.filter(|_| want_retained);
    let per_object = if object_retained { tree.retained.to_vec() } else { Vec::new() };
    for (c, (_, bytes)) in counts.iter_mut().zip(dominated.unwrap_or_default()) {
        c.retained = (c.objects > 0).then_some(bytes);
    }
    let mut via: Vec<Option<StepNames>> = via;
    let paths = match paths {
        Some(paths) => paths
            .into_iter()
            .enumerate()
            .map(|(group, p)| {
                p.map(|p| GroupPath {
                    roots: root_labels(&p.rooted, &roots, holder),
                    steps: p.steps,
                    via: via
                        .get_mut(group)
                        .and_then(Option::take)
                        .map(|(via, top)| with_holder(via, top, &roots, holder))
                        .unwrap_or_default(),
                })
            })
            .collect(),
        None => vec![None; group_count],
    };
    (GroupedHeap { counts, maps, paths, reachable_bytes }, per_object, keep.then_some(tree))
}

/// The counts ([`group_counts`]) and, if asked, the pointer maps, from a kept tree: two sweeps
/// over the objects, on two workers (the maps' sweep over the references is the longer).
fn counts_and_maps(
    g: &HeapGraph,
    tree: &DominatorTree,
    group_count: usize,
    live: Live,
    options: &AnalysisOptions,
) -> ((Vec<GroupCounts>, u64), Option<PointerMaps>) {
    rayon::join(
        || group_counts(g, group_count, live, options.retained),
        || options.pointer_maps.then(|| pointer_maps_reached(g, &tree.idom, group_count, live)),
    )
}

/// Each group's live objects and their bytes (and, with [`Retained::Closure`], its exact GC
/// closure), and the bytes of all live objects.
fn group_counts(
    g: &HeapGraph,
    group_count: usize,
    live: Live,
    retained: Retained,
) -> (Vec<GroupCounts>, u64) {
    let mut counts = vec![GroupCounts::default(); group_count];
    let mut reachable_bytes = 0;
    match (live, g.group.totals()) {
        // Every object counts, and the reader counted each key's: no sweep of the objects.
        (Live::All, Some(totals)) => {
            for (key, total) in totals.iter().enumerate().filter(|(_, t)| t.objects > 0) {
                let c = &mut counts[g.group.group_of_key(key) as usize];
                c.objects += total.objects;
                c.bytes += total.bytes;
                reachable_bytes += total.bytes;
            }
        }
        _ => {
            for o in (0..g.object_count()).filter(|&o| live.has(o)) {
                let c = &mut counts[g.group[o] as usize];
                c.objects += 1;
                c.bytes += g.shallow[o];
                reachable_bytes += g.shallow[o];
            }
        }
    }
    if retained == Retained::Closure {
        for (c, (_, bytes)) in counts.iter_mut().zip(retained_sizes(g, group_count, live)) {
            c.closure = (c.objects > 0).then_some(bytes);
        }
    }
    (counts, reachable_bytes)
}

/// Who reads the tree [`build_tree`] makes, and so what it must hold.
struct TreeReads {
    /// Only the retainer paths' pass reads its retained bytes, so they may stay narrow.
    narrow_enough: bool,
    /// Only [`dominated_and_paths_spending`] reads it: of the dominators, those above its
    /// parts' starts.
    spent: bool,
}

/// The dominator tree, and the pointer maps beside it: the references are followed forward
/// (pointed-from maps beside the depth-first numbering, or just before it where the references
/// are in a work file) and reversed once into the numbering's referrers, which the points-to
/// maps read with the spanning tree's parents beside the dominator forest. The graph's
/// references go as soon as they are followed, unless the paths are named from them. Each
/// table goes as soon as its last reader is done: the points-to maps usually finish before
/// the dominator forest, so the tree is assembled without the referrers and parents.
fn build_tree(
    graph: &mut Graph,
    group_count: usize,
    live: Live,
    names: PathNames,
    unreached: Unreached,
    reads: TreeReads,
    options: &AnalysisOptions,
) -> (Option<PointerMaps>, DominatorTree, Option<NarrowSizes>, Vec<u32>) {
    let TreeReads { narrow_enough, spent } = reads;
    let g = graph.get();
    // The sizes are read again once the tree is assembled, and by the retainer paths' pass
    // down its preorder. Where they are in a work file, a byte each beside it: the passes then
    // read it only where a size escapes, and the retained sizes come a byte each too (in a 2
    // GiB cgroup the assembly took 5.6 s instead of 11, the pass 2.6 s instead of 5.4-6.3). In
    // memory, the narrow tables would only be fresh memory to make (1.08x unbounded).
    let narrow = || {
        let shallow = g.shallow.is_mapped().then(|| Narrow::of(&g.shallow, Unit::of_sample(&g.shallow)));
        g.shallow.set_aside();
        shallow
    };
    let pointed_from = || options.pointer_maps.then(|| pointed_from(g, group_count, live));
    // References in a work file are read in turn: the maps read them in order, the search at
    // random (which turns the file's read-around off), and side by side the maps' reads went
    // a page a fault, as slow as the search. The sizes, read in order from a file of their
    // own, are narrowed beside the maps instead (in a 2 GiB cgroup the two took 1.5 s
    // together, 1.9 s one after the other).
    let (shallow, (pointed_from, spanning)) = match g.edges.is_mapped() {
        true => {
            let (shallow, pointed_from) = rayon::join(narrow, pointed_from);
            (shallow, (pointed_from, Spanning::with(g, unreached)))
        }
        false => (narrow(), rayon::join(pointed_from, || Spanning::with(g, unreached))),
    };
    if !matches!(names, PathNames::Edges(_)) {
        graph.free_references();
    }
    let g = graph.get();
    let Spanning { vertex, parent, referrers, held } = spanning;
    let (referrers, vertex, parent) = (Arc::new(referrers), Arc::new(vertex), Arc::new(parent));
    let (tree_referrers, tree_vertex, tree_parent) =
        (Arc::clone(&referrers), Arc::clone(&vertex), Arc::clone(&parent));
    let (points_to, tree) = rayon::join(
        move || options.pointer_maps.then(|| points_to(&g.group, group_count, &vertex, &parent, &referrers)),
        move || {
            let idom = immediate_dominators(&tree_parent, &tree_referrers);
            drop((tree_parent, tree_referrers));
            let mut retained = shallow.as_ref().map(|shallow| Narrow::zeros(g.object_count(), shallow.unit));
            let bytes = |o| match &shallow {
                Some(shallow) => shallow.get(o, &g.shallow),
                None => g.shallow[o],
            };
            let into = match retained.as_mut() {
                Some(narrow) if narrow_enough => RetainedBytes::Narrow(narrow),
                Some(narrow) => RetainedBytes::FullAndNarrow(narrow),
                None => RetainedBytes::Full,
            };
            let starts = spent.then(|| spending_part_starts(tree_vertex.len().saturating_sub(1)));
            let written = starts.as_deref().map_or(Dominators::Every, Dominators::Above);
            let tree = assemble_with(g.object_count(), bytes, &tree_vertex, &idom, into, written);
            drop((idom, tree_vertex));
            (tree, shallow.zip(retained).map(|(shallow, retained)| NarrowSizes { shallow, retained }))
        },
    );
    let maps =
        pointed_from.zip(points_to).map(|(pointed_from, points_to)| PointerMaps { points_to, pointed_from });
    let (tree, narrow) = tree;
    (maps, tree, narrow, held)
}

/// The `via` of each step of a path, and the object its last step is rooted at.
type StepNames = (Vec<Option<String>>, Option<u32>);

/// The `via` of each step of a path (see [`PathNames`]), and the object the last step is
/// rooted at (for its holder's name).
fn name_steps(
    g: &HeapGraph,
    tree: &DominatorTree,
    path: &crate::retainers::RetainerPath,
    names: PathNames,
) -> StepNames {
    let reps = &path.representatives;
    if reps.len() != path.steps.len() || reps.is_empty() {
        return (Vec::new(), None);
    }
    let name = |from: u32, to: u32| -> String {
        let named = match names {
            PathNames::None => None,
            PathNames::Edges(labels) => {
                let start = g.edge_start.get(from as usize).map_or(0, |&s| s as usize);
                let referents = if g.edges.is_empty() { &[][..] } else { g.referents(from) };
                referents.iter().position(|&t| t == to).and_then(|i| labels.text(start + i))
            }
            PathNames::Namer(namer) => namer(from, to),
        };
        named.unwrap_or_else(|| "?".into())
    };
    let mut via: Vec<Option<String>> = reps
        .windows(2)
        .map(|pair| {
            let (object, holder) = (pair[0], pair[1]);
            let chain = climb(tree, object, |d| d == holder)?;
            Some(hops(&chain, &name))
        })
        .collect();
    // The last step, from its root holder down (within its own group); the holder is named by
    // the caller.
    let top_rep = *reps.last().expect("a step");
    let group = g.group[top_rep as usize];
    let last = climb(tree, top_rep, |d| tree.idom[d as usize] == VIRTUAL_ROOT)
        .filter(|chain| chain.iter().all(|&o| g.group[o as usize] == group));
    let top = last.as_ref().map(|chain| chain[0]);
    via.push(match last {
        Some(chain) if chain.len() > 1 => Some(hops(&chain, &name)),
        Some(_) => None,
        None => Some("…".into()),
    });
    (via, top)
}

/// The last step's `via` with its root holder's name in front.
fn with_holder(
    mut via: Vec<Option<String>>,
    top: Option<u32>,
    roots: &RootKinds,
    holder: &dyn Fn(u32) -> Option<String>,
) -> Vec<Option<String>> {
    let Some(top) = top else { return via };
    let Some(h) = holder(top) else { return via };
    let h = match roots.of(top).kinds().any(|k| k == RootKind::Static) {
        true if !h.starts_with("class ") => format!("static {h}"),
        _ => h,
    };
    if let Some(last) = via.last_mut() {
        *last = Some(match last.take() {
            Some(below) => format!("{h} {below}"),
            None => h,
        });
    }
    via
}

/// The dominator chain from the first dominator of `o` for which `stop` holds down to `o`
/// (`o` itself when `stop(o)`), top first; None when it is longer than [`MAX_CLIMB`] or ends at
/// the virtual root first.
fn climb(tree: &DominatorTree, o: u32, stop: impl Fn(u32) -> bool) -> Option<Vec<u32>> {
    let mut chain = vec![o];
    let mut at = o;
    while !stop(at) {
        at = tree.idom[at as usize];
        if at == VIRTUAL_ROOT || at == crate::dominators::UNREACHABLE || chain.len() > MAX_CLIMB {
            return None;
        }
        chain.push(at);
    }
    chain.reverse();
    Some(chain)
}

/// The names of the hops along a dominator chain (top first), at most [`MAX_HOPS`] of them with
/// `…` for the middle: `.first .next .next`, `.table [3] … .value`.
fn hops(chain: &[u32], name: &dyn Fn(u32, u32) -> String) -> String {
    let count = chain.len().saturating_sub(1);
    let hop = |i: usize| name(chain[i], chain[i + 1]);
    let words: Vec<String> = if count <= MAX_HOPS {
        (0..count).map(hop).collect()
    } else {
        let head = MAX_HOPS / 2;
        let tail = MAX_HOPS - head;
        (0..head).map(hop).chain(std::iter::once("…".into())).chain((count - tail..count).map(hop)).collect()
    };
    words.join(" ")
}

/// How the objects a path ends at are rooted: their root kinds and, where the source knows it,
/// the holder's name ("Static Field app.Registry.people"); objects that no root holds alone are
/// held jointly by several. At most [`NAMED_ROOTS`] labels, then how many more.
fn root_labels(rooted: &[u32], roots: &RootKinds, holder: &dyn Fn(u32) -> Option<String>) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    let mut more = 0;
    for &o in rooted {
        let kinds = roots.of(o);
        let label = match (kinds.is_empty(), holder(o)) {
            (false, Some(name)) => format!("{} {name}", kinds.label()),
            (false, None) => kinds.label(),
            (true, Some(name)) => format!("{name}, held by {SEVERAL_ROOTS}"),
            (true, None) => SEVERAL_ROOTS.into(),
        };
        if labels.contains(&label) {
            continue;
        }
        if labels.len() == NAMED_ROOTS {
            more += 1;
        } else {
            labels.push(label);
        }
    }
    if more > 0 {
        labels.push(format!("and {more} more"));
    }
    labels
}

/// How many distinct root labels a retainer path lists.
pub const NAMED_ROOTS: usize = 3;

/// The root kinds of each object: those its source gave, and the VM's own for the objects the
/// search made roots for want of another ([`Unreached::Held`]).
struct RootKinds<'a> {
    records: &'a [RootSet],
    /// In id order.
    held: &'a [u32],
}

impl RootKinds<'_> {
    fn of(&self, o: u32) -> RootSet {
        let kinds = self.records[o as usize];
        match self.held.binary_search(&o) {
            Ok(_) => kinds.with(RootKind::Internal),
            Err(_) => kinds,
        }
    }
}

/// How a retainer path names objects that only several roots together keep alive.
pub const SEVERAL_ROOTS: &str = "several roots";

/// What a snapshot says about its GC point besides the grouped heap.
#[derive(Debug, Clone, Default)]
pub struct SnapshotInfo {
    pub time_ms: u64,
    pub gc_id: Option<u64>,
    pub label: Option<String>,
    pub heap: Option<HeapMetrics>,
}

impl Grouper {
    /// The snapshot of a grouped heap, with this grouper's keys (build it once the history's
    /// groups are all known, so `(self)` keys are stable).
    /// Objects outside the city ([`OUTSIDE`]) have no building: no pointer map or retainer
    /// path of their own, and none points to them.
    pub fn snapshot(&self, grouped: &GroupedHeap, info: SnapshotInfo) -> Snapshot {
        let keyed = |maps: &[BTreeMap<u32, u64>]| -> PointerMap {
            maps.iter()
                .enumerate()
                .filter(|&(g, _)| g as u32 != OUTSIDE)
                .map(|(g, m)| {
                    let inner: BTreeMap<String, u64> = m
                        .iter()
                        .filter(|(h, _)| **h != OUTSIDE)
                        .map(|(&h, &n)| (self.leaf_key(h), n))
                        .collect();
                    (self.leaf_key(g as u32), inner)
                })
                .filter(|(_, m)| !m.is_empty())
                .collect()
        };
        let retainers = grouped
            .paths
            .iter()
            .enumerate()
            .filter(|&(group, _)| group as u32 != OUTSIDE)
            .filter_map(|(group, path)| Some((self.leaf_key(group as u32), self.keyed_path(path.as_ref()?))))
            .collect();
        Snapshot {
            time_ms: info.time_ms,
            gc_id: info.gc_id,
            label: info.label,
            tree: self.tree(&grouped.counts),
            points_to: grouped.maps.as_ref().map(|m| keyed(&m.points_to)).unwrap_or_default(),
            pointed_from: grouped.maps.as_ref().map(|m| keyed(&m.pointed_from)).unwrap_or_default(),
            heap: info.heap,
            retainers,
        }
    }

    /// A path in keys. A step outside the city ([`OUTSIDE`]) has no building to name: it is
    /// folded into the step below, whose `via` then reads through it (`static Service.INSTANCE
    /// .cache` for a map held by a hidden service object).
    fn keyed_path(&self, path: &GroupPath) -> RetainerPath {
        let mut steps: Vec<RetainerStep> = Vec::with_capacity(path.steps.len());
        for (i, s) in path.steps.iter().enumerate() {
            let via = path.via.get(i).cloned().flatten();
            match steps.last_mut() {
                Some(below) if s.group == OUTSIDE => below.via = through(via, below.via.take()),
                _ => steps.push(RetainerStep {
                    key: self.leaf_key(s.group),
                    objects: s.objects,
                    bytes: s.bytes,
                    retained_bytes: s.retained_bytes,
                    via,
                }),
            }
        }
        RetainerPath { steps, roots: path.roots.clone() }
    }
}

/// The references to a step's object through a folded step above it: `upper` then `lower`,
/// a class and its field reading as the static field (`class S .f` → `static S.f`).
fn through(upper: Option<String>, lower: Option<String>) -> Option<String> {
    let (upper, lower) = match (upper, lower) {
        (Some(upper), Some(lower)) => (upper, lower),
        (upper, lower) => return upper.or(lower),
    };
    let text = format!("{upper} {lower}");
    let field = text.strip_prefix("class ").and_then(|rest| {
        let (class, tail) = rest.split_once(' ')?;
        Some(format!("static {class}.{}", tail.strip_prefix('.')?))
    });
    Some(field.unwrap_or(text))
}

/// Leaves by what a source knows of its objects: objects with equal keys share a leaf, so the
/// level names are formatted once per key, not once per object.
#[derive(Debug, Clone)]
pub struct LeafMemo<K>(HashMap<K, u32>);

impl<K> Default for LeafMemo<K> {
    fn default() -> Self {
        LeafMemo(HashMap::default())
    }
}

impl<K: Hash + Eq> LeafMemo<K> {
    pub fn leaf<'a>(
        &mut self,
        grouper: &mut Grouper,
        key: K,
        facts: impl FnOnce() -> ObjectFacts<'a>,
    ) -> u32 {
        *self.0.entry(key).or_insert_with(|| grouper.leaf(&facts()))
    }
}

mod partition;
pub use partition::Partition;
#[cfg(test)]
mod tests;
