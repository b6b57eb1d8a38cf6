//! `--visit-tabs`: once a city is loaded, bring every tab to the front in turn (the Tree tab in
//! each of its views), select the top grower as a click would, then play time — what a
//! newcomer does first. The window tests drive every input kind through it, so a view that
//! cannot show some city fails there and not on a user's first frame. Each city loaded is
//! visited again; a log line says when a visit ended.

use bevy::prelude::*;
use bevy::window::RequestRedraw;

use crate::app::inspect::Selection;
use crate::app::model::CityModel;
use crate::app::objects::LookInside;
use crate::app::time::{TimeCommand, TimeCursor};
use crate::app::tour::top_grower;
use crate::app::trees::TreeKind;
use crate::app::ui::workspace::layouts::tabs::*;
use crate::app::ui::workspace::{CITY, ShowTab};

/// Frames each tab stays in front.
const FRAMES_A_TAB: u32 = 6;

/// Every tab, and the Tree tab in each view, in the order visited.
const STOPS: [(&str, Option<TreeKind>); 17] = [
    (CITY, None),
    (TREE, Some(TreeKind::Icicle)),
    (TREE, Some(TreeKind::Sunburst)),
    (TREE, Some(TreeKind::Timeline)),
    (OWNERSHIP, None),
    (STRUCTURES, None),
    (OBJECTS, None),
    (SELECTION, None),
    (WHY, None),
    (SUSPECTS, None),
    (SEARCH, None),
    (OPEN, None),
    (SETTINGS, None),
    (TOUR, None),
    (CONTROLS, None),
    (TIMELINE, None),
    (CITY, None),
];

/// Where the visit of the current city is.
#[derive(Resource, Default)]
struct Visit {
    /// The city visited (its [`CityModel::city`]) and the stop reached.
    city: Option<u64>,
    stop: usize,
    frames: u32,
}

pub struct VisitTabsPlugin;

impl Plugin for VisitTabsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Visit>().add_systems(Update, visit);
    }
}

#[allow(clippy::too_many_arguments)] // a Bevy system: its parameters are what it touches
fn visit(
    model: Res<CityModel>,
    cursor: Res<TimeCursor>,
    mut visit: ResMut<Visit>,
    mut kind: ResMut<TreeKind>,
    mut selection: ResMut<Selection>,
    mut show: MessageWriter<ShowTab>,
    mut time: MessageWriter<TimeCommand>,
    (mut redraw, mut look): (MessageWriter<RequestRedraw>, MessageWriter<LookInside>),
) {
    // An empty city (loading, or live before its first snapshot) is visited too, once.
    if visit.city != Some(model.city) {
        *visit = Visit { city: Some(model.city), stop: 0, frames: 0 };
        info!("visiting every tab of city {} ({} snapshots)", model.city, model.snapshot_count());
    }
    if visit.stop > STOPS.len() {
        return;
    }
    redraw.write(RequestRedraw);
    if visit.frames > 0 {
        visit.frames -= 1;
        return;
    }
    let Some(&(tab, view)) = STOPS.get(visit.stop) else {
        if !cursor.playing && model.snapshot_count() > 1 {
            time.write(TimeCommand::TogglePlay);
        }
        info!("visited every tab of city {} ({} snapshots)", model.city, model.snapshot_count());
        visit.stop += 1;
        return;
    };
    if let Some(view) = view {
        *kind = view;
    }
    let grower = top_grower(&model).and_then(|g| model.timeline.groups.get(g as usize));
    if tab == OBJECTS
        && let Some(group) = grower
    {
        // As "Look inside" on the top grower would.
        look.write(LookInside(memcity_structures::Target::Group(group.key.clone())));
    }
    if tab == SELECTION {
        // As a click on the tallest grower would.
        if let Some(group) = grower {
            selection.selected = Some(group.key.clone());
        }
    }
    show.write(ShowTab::named(tab));
    visit.stop += 1;
    visit.frames = FRAMES_A_TAB;
}
