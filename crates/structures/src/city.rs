//! The city of a heap grouped with what structure detection found (docs/structures.md, "The
//! data-structure city"). Sources group their objects while they read them, before any
//! structure is known, so a classifier list with `containing-structure` or `leaf`, and the
//! data-structure view (only the heads of top-level structures), group typed heaps instead:
//! detect, regroup every object from its row of the typed table plus what detection says of
//! it, then the one heap pipeline, so retained sizes, pointer maps and retainer paths work as
//! in any city.

use memcity_heapgraph::{
    AnalysisOptions, Classifier, Grouper, Grouping, InStructure, LeafMemo, NO_SITE, OUTSIDE, ObjectFacts,
    ObjectTable, PathNames, RootKind, RootSet, SeriesHeap, TypedHeap, TypedSnapshot,
    group_heap_owned_labelled, history_of, reachable, root_sets,
};
use memcity_model::History;
use thiserror::Error;

use crate::detect::{Scratch, Structures, detect};
use crate::lang::Descriptions;
use crate::measure::{PathNamer, type_name};

/// How the structure classifiers name an object that two top-level structures share.
pub const IN_SEVERAL_STRUCTURES: &str = "(in several structures)";

/// The data-structure view: only the heads of structures no other one contains, grouped so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Type → allocation site.
    Site,
    /// Type → the instance's identity (`java.util.HashMap static app.Registry.people`): one
    /// building per structure, unless two share type and path.
    Identity,
}

impl View {
    /// The classifiers the kept heads are grouped by. A kept head's containing structure is
    /// its own, so `containing-structure` names the instance.
    pub fn classifiers(self) -> Vec<Classifier> {
        match self {
            View::Site => vec![Classifier::Type, Classifier::AllocationSite { depth: 1 }],
            View::Identity => vec![Classifier::Type, Classifier::ContainingStructure],
        }
    }
}

/// Which objects get a building; the others are outside the city ([`OUTSIDE`]) but still
/// count for the heap, retained sizes and retainer paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    All,
    /// The data-structure view's: the heads of top-level structures.
    TopLevelHeads,
}

/// A classifier that typed heaps cannot serve.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("classifier `{classifier}` cannot be combined with data structures: {why}")]
pub struct Unsupported {
    /// As the command line writes it.
    pub classifier: String,
    pub why: &'static str,
}

/// Checks that typed heaps know every fact `classifiers` need: types, the innermost frame of
/// allocation sites and root kinds are in every typed table; threads, ages, array lengths and
/// the engines' node types, scripts and DOM state are not.
pub fn check(classifiers: &[Classifier]) -> Result<(), Unsupported> {
    for c in classifiers {
        let why = match c {
            Classifier::Type
            | Classifier::Package
            | Classifier::AllocationSite { depth: 1 }
            | Classifier::RootKind
            | Classifier::ContainingStructure
            | Classifier::Leaf => continue,
            Classifier::AllocationSite { .. } | Classifier::DomainCallSite { .. } => {
                "typed heaps keep only the innermost frame of an allocation site (use allocation-site)"
            }
            Classifier::Thread => "typed heaps carry no threads",
            Classifier::Age => "typed heaps carry no object ages",
            Classifier::ObjectKind => "typed heaps carry no array lengths",
            Classifier::NodeType => "typed heaps carry no node types (the type names carry them)",
            Classifier::Script => "typed heaps carry no scripts",
            Classifier::Detached => "typed heaps carry no DOM state",
        };
        return Err(Unsupported { classifier: c.to_string(), why });
    }
    Ok(())
}

const NONE: u32 = u32::MAX;
const SEVERAL: u32 = u32::MAX - 1;

/// What detection says of each object of one heap: the top-level structure containing it and
/// whether it is a leaf there. A head counts as contained in its own structure. Nested
/// structures: the top-level one names the object (a HashSet's, not its inner HashMap's), and
/// the role is the innermost one's — an object that is part of any structure (a head or an
/// internal part) is `structure`, one that is only ever a leaf is `leaves`. An object that two
/// top-level structures share is [`IN_SEVERAL_STRUCTURES`].
#[derive(Debug, Clone)]
pub struct Membership {
    /// By object: the instance that is its top-level structure, NONE or SEVERAL.
    top: Vec<u32>,
    /// By object: a leaf of some structure and part of none.
    leaf: Vec<bool>,
    /// By instance: its head.
    heads: Vec<u32>,
    /// By instance: type and shown path, for the instances that are top-level ("" for others).
    names: Vec<String>,
}

impl Membership {
    /// Time: the structures' deep closures, one walk per top-level structure, plus one
    /// breadth-first walk of the heap to name them.
    pub fn of(heap: &TypedHeap, structures: &Structures) -> Membership {
        let n = heap.graph.object_count();
        let count = structures.instances.len();
        let mut part = vec![false; n];
        for i in 0..count {
            structures.parts(i).iter().for_each(|&o| part[o as usize] = true);
        }
        let mut leaf = vec![false; n];
        for i in 0..count {
            structures
                .leaves(i)
                .iter()
                .filter(|&&o| !part[o as usize])
                .for_each(|&o| leaf[o as usize] = true);
        }
        let heads: Vec<u32> = structures.instances.iter().map(|i| i.head).collect();
        let mut top = vec![NONE; n];
        let mut scratch = Scratch::new(n);
        // Top-level structures first; then any left unclaimed: a ring of structures that
        // contain each other has no top-level one, and its first member stands for it.
        let order = structures.top_level().chain(0..count);
        for i in order {
            if top[heads[i] as usize] != NONE {
                continue;
            }
            structures.visit_deep(i, &mut scratch, &mut |o| {
                let t = &mut top[o as usize];
                *t = if *t == NONE { i as u32 } else { SEVERAL };
            });
        }
        let namer = PathNamer::new(heap);
        let names = (0..count)
            .map(|i| match top[heads[i] as usize] == i as u32 {
                true => format!("{} {}", type_name(heap, heads[i]), namer.shown(heads[i])),
                false => String::new(),
            })
            .collect();
        Membership { top, leaf, heads, names }
    }

    /// What the structure classifiers read of object `o`.
    pub fn of_object(&self, o: u32) -> InStructure<'_> {
        let leaf = self.leaf[o as usize];
        match self.top[o as usize] {
            NONE => InStructure::Outside,
            SEVERAL => InStructure::Contained { top: IN_SEVERAL_STRUCTURES, leaf },
            t => InStructure::Contained { top: &self.names[t as usize], leaf },
        }
    }

    /// Whether `o` is the head of a top-level structure (what the data-structure view keeps).
    pub fn is_top_level_head(&self, o: u32) -> bool {
        let t = self.top[o as usize];
        (t as usize) < self.heads.len() && self.heads[t as usize] == o
    }

    /// The memo key of what detection says of `o`: equal keys, equal levels.
    fn key(&self, o: u32) -> (u32, bool) {
        (self.top[o as usize], self.leaf[o as usize])
    }
}

/// What the classifiers read of object `o`: its row of the typed table (type, the innermost
/// frame of its allocation site), its root kinds and what detection says of it. The one place
/// a typed heap's object becomes [`ObjectFacts`].
pub fn facts<'a>(
    objects: &'a ObjectTable,
    roots: &[RootSet],
    o: u32,
    structure: InStructure<'a>,
) -> ObjectFacts<'a> {
    let type_name = objects.type_of.get(o as usize).and_then(|&t| objects.types.get(t as usize));
    let site = match objects.site_of.get(o as usize) {
        Some(&s) if s != NO_SITE => objects.sites.get(s as usize).map_or(&[][..], std::slice::from_ref),
        _ => &[],
    };
    ObjectFacts {
        type_name: type_name.map_or("", |t| t.name.as_str()),
        site,
        roots: roots.get(o as usize).copied().unwrap_or(RootSet::NONE),
        structure,
        ..ObjectFacts::default()
    }
}

/// Sets every object's leaf group in `heap.graph.group`: the reachable objects `keep` keeps
/// get `grouper`'s leaf for their [`facts`], the others [`OUTSIDE`].
pub fn regroup(
    heap: &mut TypedHeap,
    roots: &[RootSet],
    live: &[bool],
    membership: &Membership,
    keep: Keep,
    grouper: &mut Grouper,
) {
    let uses = grouper.uses();
    let objects = &heap.objects;
    let at = |table: &[u32], o: u32| table.get(o as usize).copied().unwrap_or(NONE);
    let mut memo = LeafMemo::default();
    let groups = heap.graph.group.as_mut_slice();
    for o in 0..groups.len() as u32 {
        let kept = live[o as usize] && (keep == Keep::All || membership.is_top_level_head(o));
        groups[o as usize] = if !kept {
            OUTSIDE
        } else {
            let key = (
                if uses.type_name { at(&objects.type_of, o) } else { 0 },
                if uses.site { at(&objects.site_of, o) } else { 0 },
                if uses.roots { roots[o as usize] } else { RootSet::NONE },
                if uses.structure { membership.key(o) } else { (0, false) },
            );
            memo.leaf(grouper, key, || facts(objects, roots, o, membership.of_object(o)))
        };
    }
}

/// A series of typed heaps becoming a history, one heap at a time: each is detected, regrouped
/// and run through the pipeline, and only its grouped counts, maps and paths are kept.
pub struct CityBuilder {
    grouper: Grouper,
    analysis: AnalysisOptions,
    keep: Keep,
    descriptions: Descriptions,
    heaps: Vec<SeriesHeap>,
}

impl CityBuilder {
    /// Refuses classifiers typed heaps cannot serve ([`check`]).
    pub fn new(
        grouping: Grouping,
        keep: Keep,
        descriptions: Descriptions,
    ) -> Result<CityBuilder, Unsupported> {
        check(&grouping.classifiers)?;
        Ok(CityBuilder {
            grouper: Grouper::new(grouping.classifiers),
            analysis: grouping.analysis,
            keep,
            descriptions,
            heaps: Vec::new(),
        })
    }

    /// The data-structure view's city.
    pub fn view(view: View, analysis: AnalysisOptions, descriptions: Descriptions) -> CityBuilder {
        let grouping = Grouping { classifiers: view.classifiers(), analysis };
        CityBuilder::new(grouping, Keep::TopLevelHeads, descriptions)
            .expect("the view's classifiers are served")
    }

    /// Adds one snapshot (its heap is used up).
    pub fn add(&mut self, snapshot: TypedSnapshot) {
        let TypedSnapshot { time_ms, label, metrics, mut heap, .. } = snapshot;
        let membership = {
            let structures = detect(&heap, &self.descriptions);
            Membership::of(&heap, &structures)
        };
        let roots = root_sets(heap.graph.object_count(), heap.objects.root_kinds.iter().copied());
        let live = reachable(&heap.graph);
        regroup(&mut heap, &roots, &live, &membership, self.keep, &mut self.grouper);
        drop(membership);
        let TypedHeap { graph, objects, .. } = heap;
        let holder = |o: u32| holder_name(&objects, &roots, o);
        let grouped = group_heap_owned_labelled(
            graph,
            self.grouper.group_count(),
            &live,
            &roots,
            &holder,
            PathNames::Edges(&objects.labels),
            &self.analysis,
        );
        self.heaps.push(SeriesHeap { time_ms, label, heap: grouped, metrics });
    }

    /// The history, once every snapshot is in (keys are final only then).
    pub fn history(self) -> History {
        history_of(&self.grouper, self.heaps)
    }
}

/// The name the pipeline puts after a root's kind on retainer paths (`app.Registry.people`
/// after "Static Field"). Typed tables write the kind in front (`static app.Registry.people`,
/// `local variable main.args`, as instances are shown); the pipeline adds it itself.
fn holder_name(objects: &ObjectTable, roots: &[RootSet], o: u32) -> Option<String> {
    let name = objects.root_name(o)?;
    let kinds = roots.get(o as usize).copied().unwrap_or(RootSet::NONE);
    let bare = kinds.kinds().find_map(|kind| {
        let word = if kind == RootKind::Static { "static".into() } else { kind.label().to_lowercase() };
        name.strip_prefix(word.as_str())?.strip_prefix(' ')
    });
    Some(bare.unwrap_or(name).to_string())
}

#[cfg(test)]
mod tests;
