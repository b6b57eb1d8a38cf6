//! The Objects tab: inside a group, a data structure or one object at the current snapshot —
//! a structure's entries as key → value rows, a group's instances with their fields and values,
//! largest retained first, references that open the object they lead to. Read in the
//! background from the city's input by the same look `memcity objects` takes ("reading…"
//! meanwhile); one action from the Data structures tab's picked structure and from a selected
//! group.

mod pane;

use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use memcity_structures::{Inspection, Target};

use crate::app::camera::FlyTo;
use crate::app::descriptions::StructureDescriptions;
use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::time::TimeCursor;
use crate::app::ui::workspace::layouts::tabs::OBJECTS;
use crate::app::ui::workspace::{AddTab, ShowTab};
use crate::app::why::CitySource;

/// Entries or objects read at first; "more" reads this many more.
pub const PAGE: usize = 20;

/// Look inside this target at the current snapshot (from the Data structures tab, the
/// Selection pane, or a reference in the tab itself).
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct LookInside(pub Target);

/// What the tab shows, and the read under way.
#[derive(Resource, Default)]
pub struct ObjectsView {
    /// The target, the snapshot and the city it is read at, and how many rows are asked for.
    pub asked: Option<Asked>,
    pub state: Looked,
    /// Targets looked at before, for Back.
    pub back: Vec<Target>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Asked {
    pub target: Target,
    pub time: usize,
    pub city: u64,
    pub limit: usize,
}

#[derive(Default)]
pub enum Looked {
    #[default]
    Nothing,
    Reading(Mutex<Receiver<Result<(Inspection, String), String>>>),
    Done(Arc<(Inspection, String)>),
    Failed(String),
}

pub struct ObjectsPlugin;

impl Plugin for ObjectsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ObjectsView>()
            .init_resource::<StructureDescriptions>()
            .init_resource::<CitySource>()
            .add_message::<LookInside>()
            .add_message::<ShowTab>()
            .add_message::<RequestRedraw>()
            .add_message::<FlyTo>()
            .init_resource::<Selection>()
            .add_tab(OBJECTS, "Objects", pane::objects_pane)
            .add_systems(Update, (forget_other_cities, start_looking, receive).chain())
            .add_systems(Last, redraw_while_reading);
    }
}

/// Another city's objects are not this one's: the tab starts over.
fn forget_other_cities(model: Res<CityModel>, mut view: ResMut<ObjectsView>) {
    if view.asked.as_ref().is_some_and(|a| a.city != model.city) {
        *view = ObjectsView::default();
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn start_looking(
    mut asks: MessageReader<LookInside>,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    source: Res<CitySource>,
    descriptions: Res<StructureDescriptions>,
    mut view: ResMut<ObjectsView>,
    mut show: MessageWriter<ShowTab>,
) {
    let Some(LookInside(target)) = asks.read().last().cloned() else { return };
    show.write(ShowTab::named(OBJECTS));
    if source.0.is_empty() || model.snapshot_count() == 0 {
        return;
    }
    let time = cursor.current.min(model.snapshot_count() - 1);
    let limit = match &view.asked {
        // The same target again: the next page.
        Some(a) if a.target == target && a.time == time && a.city == model.city => a.limit + PAGE,
        _ => PAGE,
    };
    if let Some(previous) = view.asked.as_ref().map(|a| a.target.clone()).filter(|p| *p != target) {
        view.back.push(previous);
    }
    let (specs, descriptions, job) = (source.0.clone(), descriptions.0.clone(), target.clone());
    let (send, receive) = channel();
    let spawned = std::thread::Builder::new().name("memcity-objects".into()).spawn(move || {
        let read = crate::app::crash::guarded("reading the objects", || {
            crate::cli::objects::inspect(&specs, Some(time), &job, limit, &descriptions)
        });
        let _ = send.send(read);
    });
    view.asked = Some(Asked { target, time, city: model.city, limit });
    view.state = match spawned {
        Ok(_) => Looked::Reading(Mutex::new(receive)),
        Err(e) => Looked::Failed(format!("cannot start: {e}")),
    };
}

fn receive(
    mut view: ResMut<ObjectsView>,
    model: Res<CityModel>,
    mut selection: ResMut<Selection>,
    mut fly: MessageWriter<FlyTo>,
) {
    let Looked::Reading(receiver) = &view.state else { return };
    let received = receiver.lock().map(|r| r.try_recv()).unwrap_or(Err(TryRecvError::Disconnected));
    view.state = match received {
        Err(TryRecvError::Empty) => return,
        Ok(Ok(done)) => Looked::Done(Arc::new(done)),
        Ok(Err(e)) => Looked::Failed(e),
        Err(TryRecvError::Disconnected) => Looked::Failed("the read stopped without a result".into()),
    };
    // An object opened (from a reference, an entry or by id) selects and frames its type's
    // group in the city, so the tab and the city show the same thing.
    let Looked::Done(done) = &view.state else { return };
    let opened = matches!(view.asked.as_ref().map(|a| &a.target), Some(Target::Object(_)));
    let type_name = done.0.target.type_name.as_deref().filter(|_| opened);
    let Some(group) = type_name.and_then(|t| group_of_type(&model.timeline, t)) else { return };
    selection.selected = Some(model.timeline.groups[group as usize].key.clone());
    if let Some(target) = crate::app::why::target_of(&model, group) {
        fly.write(FlyTo::Target { target, with_references: false });
    }
}

/// The city's group of a type: the group at its Type level of that name.
pub fn group_of_type(timeline: &memcity_model::Timeline, type_name: &str) -> Option<u32> {
    let role = memcity_heapgraph::Classifier::Type.role();
    timeline.groups.iter().position(|g| g.role == role && g.name == type_name).map(|g| g as u32)
}

/// The window rests when idle: a read finishing must still show up.
fn redraw_while_reading(view: Res<ObjectsView>, mut redraw: MessageWriter<RequestRedraw>) {
    if matches!(view.state, Looked::Reading(_)) {
        redraw.write(RequestRedraw);
    }
}

#[cfg(test)]
mod tests;
