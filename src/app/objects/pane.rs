//! The tab's body: what is looked at, a structure's entries as key → value rows, the objects
//! with their fields (a reference opens its object), "more" for the next page, Back.

use bevy::prelude::*;
use bevy_egui::egui;
use memcity_structures::Target;
use memcity_structures::objects::{EntryShown, ObjectShown};

use super::{LookInside, Looked, ObjectsView, PAGE};
use crate::app::why::CitySource;
use crate::cli::objects::{around_lines, entry_line, field_text, object_line};

pub fn objects_pane(
    InMut(ui): InMut<egui::Ui>,
    source: Res<CitySource>,
    mut view: ResMut<ObjectsView>,
    mut look: MessageWriter<LookInside>,
) {
    if source.0.is_empty() {
        ui.label(
            "Objects are read from an input file (heap dumps, V8 heap snapshots, heap files); this \
             city has none to read again.",
        );
        return;
    }
    let Some(asked) = view.asked.clone() else {
        ui.label(
            "Pick a data structure in the Data structures tab, or select a group, and choose \
             \"Look inside\" to see its entries, objects, fields and values.",
        );
        return;
    };
    ui.horizontal(|ui| {
        if !view.back.is_empty() && ui.button("◀ Back").clicked() {
            let previous = view.back.pop().expect("not empty");
            view.asked = None;
            look.write(LookInside(previous));
        }
        ui.strong(format!("{} at snapshot {}", name(&asked.target), asked.time));
    });
    let done = match &view.state {
        Looked::Done(done) => done.clone(),
        Looked::Reading(_) | Looked::Nothing => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("reading…");
            });
            return;
        }
        Looked::Failed(e) => {
            ui.colored_label(egui::Color32::LIGHT_RED, e);
            return;
        }
    };
    let (inspection, label) = &*done;
    let t = &inspection.target;
    let mut summary = format!("{label}: {} {}", t.kind, t.type_name.as_deref().unwrap_or(""));
    if t.kind == "group" {
        summary.push_str(&format!(", {} objects", t.objects));
    }
    if let Some(n) = t.entries {
        summary.push_str(&format!(", {n} entries"));
    }
    ui.label(summary);
    let open = egui::ScrollArea::vertical().auto_shrink([false, true]).show(ui, |ui| {
        let mut open = None;
        if !inspection.entries.is_empty() {
            ui.label(egui::RichText::new("entries").strong());
            for (k, entry) in inspection.entries.iter().enumerate() {
                open = entry_row(ui, k, entry).or(open);
            }
        }
        for object in &inspection.objects {
            open = object_rows(ui, object).or(open);
        }
        let shown = inspection.entries.len().max(inspection.objects.len()) as u64;
        let total = t.entries.unwrap_or(t.objects);
        if shown >= asked.limit as u64 && shown < total && ui.button(format!("{PAGE} more")).clicked() {
            look.write(LookInside(asked.target.clone()));
        }
        open
    });
    if let Some(id) = open.inner {
        look.write(LookInside(Target::Object(id)));
        ui.ctx().request_repaint();
    }
}

fn name(target: &Target) -> String {
    match target {
        Target::Group(key) => format!("group {key}"),
        Target::Structure(path) => format!("structure {path}"),
        Target::Object(id) => format!("object {id}"),
    }
}

/// An entry's key → value line; a click on a side opens that object.
fn entry_row(ui: &mut egui::Ui, k: usize, entry: &EntryShown) -> Option<String> {
    let line = ui.add(
        egui::Label::new(egui::RichText::new(entry_line(k, entry)).monospace())
            .wrap()
            .sense(egui::Sense::click()),
    );
    let side = entry.value.as_ref().or(entry.key.as_ref()).and_then(|s| s.as_ref());
    let clicked = line.on_hover_text("click: open its value (or key)").clicked();
    clicked.then(|| side.map(|o| o.id.clone())).flatten()
}

/// An object's line, its fields under it; a reference's field opens the object it leads to.
fn object_rows(ui: &mut egui::Ui, object: &ObjectShown) -> Option<String> {
    let mut open = None;
    let header = egui::CollapsingHeader::new(egui::RichText::new(object_line(object)).monospace())
        .id_salt(("memcity_object", &object.id));
    header.show(ui, |ui| {
        for line in around_lines(object) {
            ui.add(egui::Label::new(egui::RichText::new(line).small()).wrap());
        }
        for field in object.fields.iter().flatten().chain(object.elements.iter().flatten()) {
            let text = egui::RichText::new(field_text(field)).monospace();
            match &field.reference {
                Some(Some(id)) => {
                    if ui.link(text).on_hover_text("open the object it refers to").clicked() {
                        open = Some(id.clone());
                    }
                }
                _ => {
                    ui.label(text);
                }
            }
        }
    });
    open
}
