//! The Data structures tab (docs/structures.md, "In the app"): the instances of the city's input
//! that grew most over a window, as the paper's bar chart of four heap growth portions each, and
//! the leaves of the picked one at the window's start and end. Picking an instance marks the
//! buildings of what it holds, selects its head's group and names its field path in the Why
//! pane. The input is measured again on a thread of its own, once for each city loaded (so a
//! selected group's panes can say which structure holds it, held.rs) and again for another
//! window or metric.

pub mod held;
pub mod measured;
pub mod pane;
pub mod waste;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use bevy::prelude::*;
use bevy::window::RequestRedraw;

use crate::app::camera::FlyTo;
pub use crate::app::descriptions::StructureDescriptions;
use crate::app::inspect::{Marked, Selection};
use crate::app::model::CityModel;
use crate::app::ui::workspace::layouts::tabs::STRUCTURES;
use crate::app::ui::workspace::{AddTab, ShowTab};
use crate::app::why::{CitySource, FOLD_CANDIDATES, FoldedStructure, SuspectFolds, leak_suspects};
use measured::{Measured, Request};

pub struct StructuresPlugin;

impl Plugin for StructuresPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<StructureAnalysis>()
            .init_resource::<PickedStructure>()
            .init_resource::<StructureDescriptions>()
            .init_resource::<held::HeldIn>()
            .init_resource::<SuspectFolds>()
            .init_resource::<waste::WasteView>()
            .init_resource::<crate::app::time::TimeCursor>()
            .add_message::<waste::MeasureWaste>()
            .init_resource::<Selection>()
            .add_message::<MeasureStructures>()
            .add_message::<held::PickStructure>()
            .add_message::<FlyTo>()
            .add_message::<ShowTab>()
            .add_tab(STRUCTURES, "Data structures", pane::structures_pane)
            .add_systems(
                Update,
                (
                    measure_each_city,
                    start_measuring,
                    receive_measured,
                    pick_structures,
                    mark_picked,
                    held::update_held_in,
                    waste::start_waste,
                    waste::receive_waste,
                )
                    .chain(),
            )
            .add_systems(Last, (redraw_while_measuring, waste::redraw_while_wasting));
    }
}

/// Measure the city's input for this request (sent by the tab when what it shows is stale).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeasureStructures(pub Request);

/// What a measurement was for: the request and the city (another input is another city).
type Asked = (Request, u64);

/// The measurement the tab shows, or the one under way.
#[derive(Resource, Default)]
pub struct StructureAnalysis {
    /// The request the tab's controls show.
    pub request: Request,
    pub state: Analysis,
}

#[derive(Default)]
pub enum Analysis {
    #[default]
    None,
    Measuring(Asked, Mutex<Receiver<Result<Measured, String>>>),
    Done(Asked, Arc<Measured>),
    Failed(Asked, String),
}

impl StructureAnalysis {
    fn asked(&self) -> Option<Asked> {
        match &self.state {
            Analysis::None => None,
            Analysis::Measuring(a, _) | Analysis::Done(a, _) | Analysis::Failed(a, _) => Some(*a),
        }
    }

    pub fn is_measuring(&self) -> bool {
        matches!(self.state, Analysis::Measuring(..))
    }

    /// Whether the tab shows what it was asked for, on this city.
    pub fn is_current(&self, city: u64) -> bool {
        self.asked() == Some((self.request, city))
    }
}

/// The instance picked in the tab: its name for the Why pane and what it holds for the city.
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct PickedStructure {
    pub picked: Option<Picked>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Picked {
    /// Its row in the measurement shown.
    pub row: usize,
    pub type_name: String,
    pub path: String,
    /// The key of the group selected for it (its head's type), to tell whether the selection
    /// still is the instance.
    pub selected: Option<String>,
    /// Sorted.
    pub types: Vec<String>,
    pub city: u64,
}

fn start_measuring(
    mut asked: MessageReader<MeasureStructures>,
    model: Res<CityModel>,
    source: Res<CitySource>,
    descriptions: Res<StructureDescriptions>,
    mut analysis: ResMut<StructureAnalysis>,
) {
    let Some(MeasureStructures(request)) = asked.read().last().copied() else { return };
    let key = (request, model.city);
    if analysis.is_measuring() || analysis.asked() == Some(key) || source.0.is_empty() {
        return;
    }
    let (specs, descriptions) = (source.0.clone(), descriptions.0.clone());
    let groups = fold_candidates(&model, request);
    let (send, receive) = channel();
    let spawned = std::thread::Builder::new().name("memcity-structures".into()).spawn(move || {
        let result = crate::app::crash::guarded("measuring", || {
            measured::measure(&specs, request, &descriptions, &groups)
        });
        let _ = send.send(result);
    });
    analysis.state = match spawned {
        Ok(_) => Analysis::Measuring(key, Mutex::new(receive)),
        Err(e) => Analysis::Failed(key, format!("cannot start: {e}")),
    };
}

/// The groups the leak suspects may fold, when the request spans the whole history (as the
/// suspects' growth does): those whose retained bytes grew by the last snapshot.
fn fold_candidates(model: &CityModel, request: Request) -> Vec<String> {
    let last = model.snapshot_count().saturating_sub(1);
    let whole = request.from.unwrap_or(0) == 0 && request.to.unwrap_or(last) == last;
    let suspects = if whole { leak_suspects(model, last, FOLD_CANDIDATES) } else { Vec::new() };
    suspects.iter().map(|s| model.timeline.groups[s.group as usize].key.clone()).collect()
}

fn receive_measured(
    mut analysis: ResMut<StructureAnalysis>,
    mut picked: ResMut<PickedStructure>,
    model: Res<CityModel>,
    mut folds: ResMut<SuspectFolds>,
) {
    let Analysis::Measuring(asked, receiver) = &analysis.state else { return };
    let received = receiver.lock().ok().map(|r| r.try_recv());
    let asked = *asked;
    analysis.state = match received {
        Some(Ok(Ok(measured))) => {
            if asked.1 == model.city && !measured.folds.is_empty() {
                *folds = suspect_folds(&model, &measured);
            }
            Analysis::Done(asked, Arc::new(measured))
        }
        Some(Ok(Err(e))) => Analysis::Failed(asked, e),
        Some(Err(TryRecvError::Empty)) => return,
        _ => Analysis::Failed(asked, "the measurement stopped without a result".into()),
    };
    // Rows of another measurement are other instances.
    picked.picked = None;
}

/// What the leak suspects fold into, from a measurement of the whole history.
fn suspect_folds(model: &CityModel, measured: &Measured) -> SuspectFolds {
    let mut rows: Vec<usize> = measured.folds.iter().map(|&(_, row)| row).collect();
    rows.sort_unstable();
    rows.dedup();
    let structures = rows
        .iter()
        .map(|&r| {
            let row = &measured.rows[r];
            FoldedStructure {
                path: row.path.clone(),
                type_name: row.type_name.clone(),
                growth: row.growth[0],
                causes: row.causes.iter().map(|c| format!("cause {}: {}", c.kind, c.message)).collect(),
            }
        })
        .collect();
    let into = measured
        .folds
        .iter()
        .filter_map(|(key, row)| Some((model.timeline.group(key)?, rows.binary_search(row).ok()?)))
        .collect();
    SuspectFolds { city: model.city, structures, into }
}

/// Every city read from an input is measured once in the background, so a selected group's
/// panes can name the structures that hold it (the tab measures again for its own window).
fn measure_each_city(
    model: Res<CityModel>,
    source: Res<CitySource>,
    analysis: Res<StructureAnalysis>,
    mut measure: MessageWriter<MeasureStructures>,
) {
    let measured_city = analysis.asked().map(|(_, city)| city);
    if model.snapshot_count() > 0 && !source.0.is_empty() && measured_city != Some(model.city) {
        measure.write(MeasureStructures(analysis.request));
    }
}

/// Picks a row of the measurement shown: selects its head's group, marks what it holds, frames
/// the marks and brings the tab to the front.
#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn pick_structures(
    mut picks: MessageReader<held::PickStructure>,
    model: Res<CityModel>,
    analysis: Res<StructureAnalysis>,
    mut picked: ResMut<PickedStructure>,
    (mut selection, mut marked): (ResMut<Selection>, ResMut<Marked>),
    mut fly: MessageWriter<FlyTo>,
    mut show: MessageWriter<ShowTab>,
) {
    let Some(&held::PickStructure(row)) = picks.read().last() else { return };
    let Analysis::Done((_, city), measured) = &analysis.state else { return };
    let Some(r) = measured.rows.get(row).filter(|_| *city == model.city) else { return };
    let group = measured::head_group(&model.timeline, &r.type_name, r.site.as_deref());
    let key = group.and_then(|g| model.timeline.groups.get(g as usize)).map(|g| g.key.clone());
    selection.selected.clone_from(&key);
    picked.picked = Some(Picked {
        row,
        type_name: r.type_name.clone(),
        path: r.path.clone(),
        selected: key,
        types: r.types.clone(),
        city: model.city,
    });
    // Marked now, so the flight frames them.
    mark(&mut marked, measured::groups_of_types(&model.timeline, &r.types));
    fly.write(FlyTo::Marked);
    show.write(ShowTab::named(STRUCTURES));
}

/// The city's groups of what the picked instance holds are marked while it is picked and the
/// city is the one it was picked in.
fn mark_picked(picked: Res<PickedStructure>, model: Res<CityModel>, mut marked: ResMut<Marked>) {
    if !picked.is_changed() && !model.is_changed() {
        return;
    }
    let groups = match &picked.picked {
        Some(p) if p.city == model.city => measured::groups_of_types(&model.timeline, &p.types),
        _ => Vec::new(),
    };
    mark(&mut marked, groups);
}

/// Sets the marks, and their version only where they change (the city redraws for a new one).
fn mark(marked: &mut Marked, groups: Vec<bool>) {
    if marked.groups != groups {
        marked.groups = groups;
        marked.version += 1;
    }
}

/// The window rests when idle: a measurement finishing must still show up.
fn redraw_while_measuring(analysis: Res<StructureAnalysis>, mut redraw: MessageWriter<RequestRedraw>) {
    if analysis.is_measuring() {
        redraw.write(RequestRedraw);
    }
}

#[cfg(test)]
mod tests;
