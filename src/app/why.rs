//! "Why is it alive?": the selected building's retainer path — listed in a pane whose entries fly
//! to their buildings, drawn as arcs (render::retainer_arcs), and pinned so pruning never hides
//! it — the leak suspects ranked by growth of retained bytes, and the selected group's exact GC
//! closure, computed on demand in the background from the input the city came from.

use std::collections::{BTreeSet, HashMap};
use std::sync::mpsc::{Receiver, channel};

use bevy::prelude::*;
use memcity_model::RetainerPath;

use crate::app::inspect::{Selection, Target};
use crate::app::model::{CityModel, LayoutSettings};
use crate::app::time::TimeCursor;
pub use memcity_analysis::suspects::{Suspect, SuspectLine};

pub struct WhyPlugin;

impl Plugin for WhyPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RetainerView>()
            .init_resource::<CitySource>()
            .init_resource::<Closures>()
            .init_resource::<LeakSuspects>()
            .init_resource::<SuspectFolds>()
            .add_systems(
                Update,
                (follow_selection, pin_path, request_closure, receive_closure, rank_suspects).chain(),
            );
    }
}

/// The inputs the shown city was loaded from (empty for live and pushed cities): what an exact
/// GC closure is computed again from.
#[derive(Resource, Default, Clone, Debug)]
pub struct CitySource(pub Vec<String>);

/// The group whose retainer path is shown: the selected building.
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct RetainerView {
    pub key: Option<String>,
}

impl RetainerView {
    /// The path at `snapshot`, if the source gave one.
    pub fn path<'a>(&self, model: &'a CityModel, snapshot: usize) -> Option<&'a RetainerPath> {
        model.history.snapshots.get(snapshot)?.retainers.get(self.key.as_deref()?)
    }

    /// The path's groups at `snapshot`, from the selected one up to the root-most holder.
    pub fn groups(&self, model: &CityModel, snapshot: usize) -> Vec<u32> {
        let Some(path) = self.path(model, snapshot) else { return Vec::new() };
        path.steps.iter().filter_map(|s| model.timeline.group(&s.key)).collect()
    }
}

fn follow_selection(selection: Res<Selection>, model: Res<CityModel>, mut view: ResMut<RetainerView>) {
    let key = selection
        .selected
        .clone()
        .filter(|k| model.timeline.group(k).is_some_and(|g| model.timeline.groups[g as usize].is_leaf()));
    if view.key != key {
        view.key = key;
    }
}

/// Keys the layout must show for the selection: the selected group and every group on its
/// retainer path at any snapshot (so stepping through time never hides a step).
pub fn keys_to_pin(model: &CityModel, selected: &str) -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = [selected.to_string()].into();
    for snapshot in &model.history.snapshots {
        if let Some(path) = snapshot.retainers.get(selected) {
            keys.extend(path.steps.iter().map(|s| s.key.clone()));
        }
    }
    keys
}

/// Pins the selection and its path where pruning hid them; keys already shown are left alone, so
/// selecting a visible building does not relayout the city.
fn pin_path(selection: Res<Selection>, model: Res<CityModel>, mut settings: ResMut<LayoutSettings>) {
    if !selection.is_changed() && !model.is_changed() {
        return;
    }
    let Some(selected) = &selection.selected else { return };
    let shown = |key: &str| {
        model
            .timeline
            .group(key)
            .is_some_and(|g| model.layout.building(g).is_some() || model.layout.district(g).is_some())
    };
    let mut pinned = settings.pinned.clone();
    pinned.retain(|k| model.timeline.group(k).is_some());
    pinned.extend(keys_to_pin(&model, selected).into_iter().filter(|k| !shown(k)));
    if pinned != settings.pinned {
        settings.pinned = pinned;
    }
}

/// An exact GC closure: being computed, or its `(objects, bytes)`, or why it cannot be.
#[derive(Clone, Debug, PartialEq)]
pub enum Closure {
    Computing,
    Done(u64, u64),
    Failed(String),
}

/// The closure being computed: for which (snapshot, key), and where its result arrives.
type ClosureJob = ((usize, String), std::sync::Mutex<Receiver<Result<(u64, u64), String>>>);

/// Exact GC closures by (snapshot, key), computed one at a time.
#[derive(Resource, Default)]
pub struct Closures {
    pub cache: HashMap<(usize, String), Closure>,
    running: Option<ClosureJob>,
    /// The city the cache belongs to (its model generation when loaded).
    history: usize,
}

impl Closures {
    pub fn is_computing(&self) -> bool {
        self.running.is_some()
    }

    pub fn get(&self, snapshot: usize, key: &str) -> Option<&Closure> {
        self.cache.get(&(snapshot, key.to_string()))
    }
}

fn request_closure(
    view: Res<RetainerView>,
    cursor: Res<TimeCursor>,
    model: Res<CityModel>,
    source: Res<CitySource>,
    mut closures: ResMut<Closures>,
) {
    // A new history (not a relayout of the same one) invalidates every closure.
    let history = std::sync::Arc::as_ptr(&model.history) as usize;
    if closures.history != history {
        closures.cache.clear();
        closures.history = history;
    }
    let Some(key) = view.key.clone() else { return };
    if source.0.is_empty() || closures.running.is_some() {
        return;
    }
    let snapshot = cursor.current;
    if closures.cache.contains_key(&(snapshot, key.clone())) {
        return;
    }
    let label = model.history.snapshots.get(snapshot).and_then(|s| s.label.clone());
    let (specs, job_key) = (source.0.clone(), key.clone());
    let (send, receive) = channel();
    let spawned = std::thread::Builder::new().name("memcity-closure".into()).spawn(move || {
        let result = crate::app::crash::guarded("the closure", || {
            crate::input::closure(&specs, snapshot, label.as_deref(), &job_key)
        });
        let _ = send.send(result);
    });
    let state = match spawned {
        Ok(_) => {
            closures.running = Some(((snapshot, key.clone()), std::sync::Mutex::new(receive)));
            Closure::Computing
        }
        Err(e) => Closure::Failed(format!("cannot start: {e}")),
    };
    closures.cache.insert((snapshot, key), state);
}

fn receive_closure(mut closures: ResMut<Closures>) {
    let Some((job, receiver)) = &closures.running else { return };
    let received = receiver.lock().ok().map(|r| r.try_recv());
    let job = job.clone();
    let state = match received {
        Some(Ok(Ok((objects, bytes)))) => Closure::Done(objects, bytes),
        Some(Ok(Err(e))) => Closure::Failed(e),
        Some(Err(std::sync::mpsc::TryRecvError::Empty)) => return,
        _ => Closure::Failed("the computation stopped without a result".into()),
    };
    closures.running = None;
    closures.cache.insert(job, state);
}

/// One line of the pane per step: what it is, how much it holds, where it flies.
#[derive(Debug, Clone, PartialEq)]
pub struct StepLine {
    pub group: Option<u32>,
    pub name: String,
    pub objects: u64,
    pub retained_bytes: u64,
    /// Retained bytes as a share of the snapshot's heap.
    pub share: f64,
}

/// The retainer path at `snapshot` as the pane lists it: its steps, the roots it ends at, and
/// the references along it in field names where the source names them.
pub struct PathLines {
    pub lines: Vec<StepLine>,
    pub roots: Vec<String>,
    pub references: Option<String>,
}

pub fn step_lines(model: &CityModel, view: &RetainerView, snapshot: usize) -> Option<PathLines> {
    let path = view.path(model, snapshot)?;
    let s = model.history.snapshots.get(snapshot)?;
    let heap = s.heap.as_ref().and_then(|h| h.reachable_bytes).unwrap_or(s.tree.bytes).max(1);
    let lines = path
        .steps
        .iter()
        .map(|step| {
            let group = model.timeline.group(&step.key);
            StepLine {
                group,
                name: group.map_or_else(|| step.key.clone(), |g| model.timeline.path_label(g)),
                objects: step.objects,
                retained_bytes: step.retained_bytes,
                share: step.retained_bytes as f64 / heap as f64,
            }
        })
        .collect();
    Some(PathLines { lines, roots: path.roots.clone(), references: path.reference_path() })
}

/// The leak suspects at the shown snapshot, ranked once when the city, the time or the folds
/// change (the pane draws them every frame).
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct LeakSuspects {
    /// (city generation, snapshot) they were ranked for.
    pub at: Option<(u64, usize)>,
    pub ranked: Vec<SuspectLine>,
}

/// How many lines the pane lists.
pub const SUSPECTS: usize = 6;

/// How many growing groups are ranked before they are folded (a structure's line may stand
/// for many of them).
pub const FOLD_CANDIDATES: usize = 200;

/// The growing data structures that hold most of a group's growth over the whole history
/// (`memcity_structures::fold`, as `memcity check` folds its findings): what the suspects fold
/// into. Filled by the Data structures plugin from its measurement of the city.
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct SuspectFolds {
    /// The city they were measured for.
    pub city: u64,
    pub structures: Vec<FoldedStructure>,
    /// Group → its structure (an index of `structures`).
    pub into: HashMap<u32, usize>,
}

/// A growing data structure, as a suspect line names it.
#[derive(Clone, Debug, PartialEq)]
pub struct FoldedStructure {
    /// Its field path from a GC root.
    pub path: String,
    pub type_name: String,
    /// Its retained bytes' growth over the history.
    pub growth: i64,
    /// Why it grows ("cause duplicate-keys: …"), where memcity can tell.
    pub causes: Vec<String>,
}

fn rank_suspects(
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    folds: Res<SuspectFolds>,
    mut suspects: ResMut<LeakSuspects>,
) {
    let at = Some((model.generation, cursor.current));
    if suspects.at != at || folds.is_changed() {
        *suspects = LeakSuspects { at, ranked: suspect_lines(&model, &folds, cursor.current) };
    }
}

/// The suspects at `snapshot`, folded under the structures that hold their growth.
pub fn suspect_lines(model: &CityModel, folds: &SuspectFolds, snapshot: usize) -> Vec<SuspectLine> {
    let ranked = leak_suspects(model, snapshot, FOLD_CANDIDATES);
    let into = |g: u32| folds.into.get(&g).copied().filter(|_| folds.city == model.city);
    memcity_analysis::suspects::fold_suspects(ranked, into, SUSPECTS)
}

/// The leak suspects of the city at `snapshot` (one home: memcity_analysis::suspects).
pub fn leak_suspects(model: &CityModel, snapshot: usize, limit: usize) -> Vec<Suspect> {
    memcity_analysis::suspects::leak_suspects(&model.history, &model.timeline, snapshot, limit)
}

/// Where the camera goes for a step: its building, else its district.
pub fn target_of(model: &CityModel, group: u32) -> Option<Target> {
    if model.layout.building(group).is_some() {
        Some(Target::Building(group))
    } else {
        model.layout.district(group).map(|_| Target::District(group))
    }
}

#[cfg(test)]
mod tests;
