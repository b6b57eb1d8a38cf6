//! The Ownership tab (docs/ownership.md, "The display"): which classes own the heap, as the
//! paper's picture — the ownership tree of the current snapshot with its self-size gaps,
//! colours, hatching and sparklines, and the heap's history bar on the right. The input is
//! read again on a thread of its own when the tab is shown, and only its new snapshots when a
//! live city grows; a click focuses a subtree (Back returns), the bar moves in time.

mod pane;

use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use memcity_ownership::{Options, Series};

use crate::app::descriptions::StructureDescriptions;
use crate::app::live::LiveServer;
use crate::app::model::CityModel;
use crate::app::ui::workspace::layouts::tabs::OWNERSHIP;
use crate::app::ui::workspace::{AddTab, TabBusy};
use crate::app::why::CitySource;

pub struct OwnershipPlugin;

impl Plugin for OwnershipPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OwnershipAnalysis>()
            .init_resource::<OwnershipView>()
            .init_resource::<StructureDescriptions>()
            .init_resource::<CitySource>()
            .add_message::<ReadOwnership>()
            .add_message::<OwnershipClicked>()
            .init_resource::<TabBusy>()
            .add_message::<RequestRedraw>()
            .add_tab(OWNERSHIP, "Ownership", pane::ownership_pane)
            .add_systems(Update, (start_reading, receive_series, apply_clicks, report_busy).chain())
            .add_systems(Last, redraw_while_reading);
    }
}

/// Bring the series up to the city's snapshots (sent by the tab while it is shown).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOwnership;

/// A click on a node (by path): focus its subtree, or, on the focused root, go back; `None`:
/// back.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnershipClicked(pub Option<u32>);

/// The series shown and the reading under way.
#[derive(Resource, Default)]
pub struct OwnershipAnalysis {
    /// The city the series is of, and the series.
    pub shown: Option<(u64, Arc<Series>)>,
    reading: Option<Mutex<Receiver<Result<Series, String>>>>,
    /// The city and snapshot count last read for (a read that found nothing new is not
    /// repeated every frame).
    read_for: Option<(u64, usize)>,
    pub failed: Option<String>,
}

impl OwnershipAnalysis {
    pub fn is_reading(&self) -> bool {
        self.reading.is_some()
    }

    /// The series, if it is of this city.
    pub fn series(&self, city: u64) -> Option<&Arc<Series>> {
        self.shown.as_ref().filter(|(c, _)| *c == city).map(|(_, s)| s)
    }
}

/// What the tab shows of the tree.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct OwnershipView {
    /// The focused subtree's root by path (kept through time steps); `None`: the heap.
    pub focus: Option<u32>,
    /// The focus before each click, for Back.
    pub back: Vec<Option<u32>>,
    /// Nodes owning less than this share of the heap are hidden.
    pub min_share: f64,
}

impl Default for OwnershipView {
    fn default() -> Self {
        OwnershipView { focus: None, back: Vec::new(), min_share: 0.001 }
    }
}

impl OwnershipView {
    fn click(&mut self, path: Option<u32>) {
        match path {
            Some(p) if self.focus != Some(p) => self.back.push(self.focus.replace(p)),
            _ => self.focus = self.back.pop().unwrap_or(None),
        }
    }
}

/// Busy from the tab's first ask until the series covers the city (or reading failed).
fn report_busy(
    mut asked: MessageReader<ReadOwnership>,
    mut wanted: Local<bool>,
    model: Res<CityModel>,
    analysis: Res<OwnershipAnalysis>,
    mut busy: ResMut<TabBusy>,
) {
    *wanted |= asked.read().count() > 0;
    let covered = analysis.series(model.city).is_some_and(|s| s.snapshots().len() >= model.snapshot_count());
    let now = TabBusy(*wanted && analysis.failed.is_none() && (analysis.is_reading() || !covered));
    if *busy != now {
        *busy = now;
    }
}

/// Where the city's objects can be read again: its input, or a live city's folder.
fn source_of(city: &CitySource, live: Option<&LiveServer>) -> Vec<String> {
    match live {
        Some(live) if city.0.is_empty() => live.source.clone(),
        _ => city.0.clone(),
    }
}

fn start_reading(
    mut asked: MessageReader<ReadOwnership>,
    model: Res<CityModel>,
    (city_source, live): (Res<CitySource>, Option<Res<LiveServer>>),
    descriptions: Res<StructureDescriptions>,
    mut analysis: ResMut<OwnershipAnalysis>,
) {
    if asked.read().last().is_none() || analysis.is_reading() {
        return;
    }
    let want = (model.city, model.snapshot_count());
    let specs = source_of(&city_source, live.as_deref());
    if specs.is_empty() || analysis.read_for == Some(want) {
        return;
    }
    // The series so far where it is this city's: a live city reads its new snapshots only.
    let mut series = match analysis.series(model.city) {
        Some(s) if s.snapshots().len() >= want.1 => return,
        Some(s) => (**s).clone(),
        None => Series::new(Options::default()),
    };
    let descriptions = descriptions.0.clone();
    let (send, receive) = channel();
    let spawned = std::thread::Builder::new().name("memcity-ownership".into()).spawn(move || {
        let read = crate::app::crash::guarded("reading the series", || {
            crate::input::extend_series(&specs, &mut series, &descriptions).map(|_| series)
        });
        let _ = send.send(read);
    });
    analysis.read_for = Some(want);
    match spawned {
        Ok(_) => analysis.reading = Some(Mutex::new(receive)),
        Err(e) => analysis.failed = Some(format!("cannot start: {e}")),
    }
}

fn receive_series(model: Res<CityModel>, mut analysis: ResMut<OwnershipAnalysis>) {
    let Some(receiver) = &analysis.reading else { return };
    let received = receiver.lock().ok().map(|r| r.try_recv());
    let city = analysis.read_for.map_or(model.city, |(city, _)| city);
    match received {
        Some(Err(TryRecvError::Empty)) => return,
        Some(Ok(Ok(series))) => {
            analysis.shown = Some((city, Arc::new(series)));
            analysis.failed = None;
        }
        Some(Ok(Err(e))) => analysis.failed = Some(e),
        _ => analysis.failed = Some("the reading stopped without a result".into()),
    }
    analysis.reading = None;
}

fn apply_clicks(
    mut clicks: MessageReader<OwnershipClicked>,
    model: Res<CityModel>,
    mut view: ResMut<OwnershipView>,
    mut city: Local<Option<u64>>,
) {
    // Paths are the series' own: another city starts from its heap.
    if *city != Some(model.city) {
        *city = Some(model.city);
        if view.focus.is_some() || !view.back.is_empty() {
            view.focus = None;
            view.back.clear();
        }
    }
    for OwnershipClicked(path) in clicks.read() {
        view.click(*path);
    }
}

/// The window rests when idle: a reading finishing must still show up.
fn redraw_while_reading(analysis: Res<OwnershipAnalysis>, mut redraw: MessageWriter<RequestRedraw>) {
    if analysis.is_reading() {
        redraw.write(RequestRedraw);
    }
}

#[cfg(test)]
mod tests;
