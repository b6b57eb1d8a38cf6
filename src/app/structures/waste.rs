//! The Data structures tab's waste section: what the shown snapshot wastes — duplicate
//! strings, empty and sparse collections, boxed primitives in collections — read in the
//! background on demand by the same measure `memcity waste` takes.

use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::window::RequestRedraw;
use bevy_egui::egui;
use memcity_structures::waste::{SPARSE_PERCENT, Waste};

use crate::app::descriptions::StructureDescriptions;
use crate::app::model::CityModel;
use crate::app::time::TimeCursor;
use crate::app::ui::style::bytes;
use crate::app::why::CitySource;

/// Lines shown of each kind.
pub const TOP: usize = 8;

/// Measure the waste of the shown snapshot.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeasureWaste;

/// The waste measured, or the measurement under way, for (city, snapshot).
#[derive(Resource, Default)]
pub struct WasteView {
    pub at: Option<(u64, usize)>,
    pub state: Wasted,
}

#[derive(Default)]
pub enum Wasted {
    #[default]
    Nothing,
    Reading(Mutex<Receiver<Result<Waste, String>>>),
    Done(Arc<Waste>),
    Failed(String),
}

pub fn start_waste(
    mut asks: MessageReader<MeasureWaste>,
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    source: Res<CitySource>,
    descriptions: Res<StructureDescriptions>,
    mut view: ResMut<WasteView>,
) {
    if asks.read().last().is_none() || source.0.is_empty() || model.snapshot_count() == 0 {
        return;
    }
    let time = cursor.current.min(model.snapshot_count() - 1);
    let (specs, descriptions) = (source.0.clone(), descriptions.0.clone());
    let (send, receive) = channel();
    let spawned = std::thread::Builder::new().name("memcity-waste".into()).spawn(move || {
        let measured = crate::app::crash::guarded("measuring the waste", || {
            let valued = crate::input::valued_snapshot(&specs, Some(time))?;
            let heap = &valued.snapshot.heap;
            Ok(valued
                .with_values(|values| memcity_structures::waste::waste(heap, values, &descriptions, TOP)))
        });
        let _ = send.send(measured);
    });
    view.at = Some((model.city, time));
    view.state = match spawned {
        Ok(_) => Wasted::Reading(Mutex::new(receive)),
        Err(e) => Wasted::Failed(format!("cannot start: {e}")),
    };
}

pub fn receive_waste(mut view: ResMut<WasteView>, model: Res<CityModel>) {
    if view.at.is_some_and(|(city, _)| city != model.city) {
        // Another city's waste is not this one's.
        *view = WasteView::default();
        return;
    }
    let Wasted::Reading(receiver) = &view.state else { return };
    let received = receiver.lock().map(|r| r.try_recv()).unwrap_or(Err(TryRecvError::Disconnected));
    view.state = match received {
        Err(TryRecvError::Empty) => return,
        Ok(Ok(waste)) => Wasted::Done(Arc::new(waste)),
        Ok(Err(e)) => Wasted::Failed(e),
        Err(TryRecvError::Disconnected) => Wasted::Failed("the measurement stopped without a result".into()),
    };
}

/// The window rests when idle: a measurement finishing must still show up.
pub fn redraw_while_wasting(view: Res<WasteView>, mut redraw: MessageWriter<RequestRedraw>) {
    if matches!(view.state, Wasted::Reading(_)) {
        redraw.write(RequestRedraw);
    }
}

/// The section: a button to measure the shown snapshot, then its lists.
pub fn waste_ui(ui: &mut egui::Ui, view: &WasteView, time: usize, measure: &mut MessageWriter<MeasureWaste>) {
    egui::CollapsingHeader::new("Waste").id_salt("memcity_waste").show(ui, |ui| {
        let shown = view.at.map(|(_, t)| t);
        let label = if shown == Some(time) { "measure again" } else { "measure this snapshot's waste" };
        if !matches!(view.state, Wasted::Reading(_)) && ui.button(label).clicked() {
            measure.write(MeasureWaste);
            ui.ctx().request_repaint();
        }
        match &view.state {
            Wasted::Nothing => {
                ui.label("duplicate strings, empty and sparse collections, boxed primitives in collections");
            }
            Wasted::Reading(_) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("reading…");
                });
            }
            Wasted::Failed(e) => {
                ui.colored_label(egui::Color32::LIGHT_RED, e);
            }
            Wasted::Done(waste) => lists(ui, waste, shown.unwrap_or(time)),
        }
    });
}

fn lists(ui: &mut egui::Ui, w: &Waste, time: usize) {
    ui.label(format!("at snapshot {time}:"));
    let section = |ui: &mut egui::Ui, title: String, lines: Vec<String>| {
        ui.label(egui::RichText::new(title).strong());
        if lines.is_empty() {
            ui.label("none");
        }
        for line in lines {
            ui.add(egui::Label::new(egui::RichText::new(line).monospace()).truncate());
        }
    };
    let strings = w.duplicate_strings.iter().map(|d| {
        let text: String = d.text.chars().take(40).collect();
        format!("{:>9}  {} copies  {text:?}", bytes(d.wasted_bytes), d.count)
    });
    section(ui, "duplicate strings".into(), strings.collect());
    let empty = w
        .empty_collections
        .iter()
        .map(|e| format!("{:>9}  {} empty  {}", bytes(e.wasted_bytes), e.count, e.type_name));
    section(ui, "empty collections".into(), empty.collect());
    let sparse = w.sparse_collections.iter().map(|s| {
        format!(
            "{:>9}  {} sparse  {}  ({} entries in {} slots)",
            bytes(s.wasted_bytes),
            s.count,
            s.type_name,
            s.entries,
            s.slots
        )
    });
    section(ui, format!("sparse collections (at most {SPARSE_PERCENT}% full)"), sparse.collect());
    let boxed = w.boxed_primitives.iter().map(|b| {
        format!(
            "{:>9}  {} {} in {}  ({} boxes)",
            bytes(b.wasted_bytes),
            b.count,
            b.box_type,
            b.collection_type,
            b.boxes
        )
    });
    section(ui, "boxed primitives in collections".into(), boxed.collect());
}
