//! Panes that share a corner of the room are stacked, never drawn over each other: the Tour with
//! the Settings below it at the top left, the Controls with the Leak suspects above them at the
//! bottom left, the Search with "Why is it alive?" above it at the bottom right, and the
//! Selection pane at the top right no taller than what the bottom-right stack leaves. Each pane is placed by the heights the panes below it had
//! in the last frame (so the order the pane systems run in does not matter) and records its own
//! for the next frame.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

/// A pane's place in its corner's stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Tour,
    Settings,
    Controls,
    LeakSuspects,
    Search,
    WhyAlive,
}

const PLACES: [Place; 6] =
    [Place::Tour, Place::Settings, Place::Controls, Place::LeakSuspects, Place::Search, Place::WhyAlive];

/// Distance from the room's edges and between stacked panes.
const GAP: f32 = 8.0;

impl Place {
    fn corner(self) -> egui::Align2 {
        match self {
            Place::Tour | Place::Settings => egui::Align2::LEFT_TOP,
            Place::Controls | Place::LeakSuspects => egui::Align2::LEFT_BOTTOM,
            Place::Search | Place::WhyAlive => egui::Align2::RIGHT_BOTTOM,
        }
    }

    /// The panes between this one and its corner.
    fn nearer(self) -> &'static [Place] {
        match self {
            Place::Tour | Place::Controls | Place::Search => &[],
            Place::Settings => &[Place::Tour],
            Place::LeakSuspects => &[Place::Controls],
            Place::WhyAlive => &[Place::Search],
        }
    }

    fn index(self) -> usize {
        PLACES.iter().position(|&p| p == self).unwrap_or(0)
    }
}

/// The height each stacked pane took: in the last frame (read) and in this one (written).
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct Stacks {
    last: [f32; PLACES.len()],
    now: [f32; PLACES.len()],
}

impl Stacks {
    /// Where a pane at `place` is anchored: its corner, past the panes nearer to it.
    pub fn anchor(&self, place: Place) -> (egui::Align2, [f32; 2]) {
        let corner = place.corner();
        let past: f32 = place.nearer().iter().map(|p| self.last[p.index()]).sum();
        let x = if corner.x() == egui::Align::LEFT { GAP } else { -GAP };
        let y = if corner.y() == egui::Align::TOP { GAP + past } else { -GAP - past };
        (corner, [x, y])
    }

    /// The window of a pane at `place`: kept inside `room`, anchored past the panes nearer its
    /// corner. Show it, then hand what `show` returned to [`Self::record`].
    pub fn window<'a>(&self, place: Place, title: &str, room: egui::Rect) -> egui::Window<'a> {
        let (corner, offset) = self.anchor(place);
        egui::Window::new(title).constrain_to(room).anchor(corner, offset)
    }

    /// Records the height of the pane at `place` for the next frame, if it was shown.
    pub fn record<R>(&mut self, place: Place, shown: Option<egui::InnerResponse<R>>) {
        if let Some(shown) = shown {
            self.shown(place, shown.response.rect);
        }
    }

    /// A pane at `place` was shown with this outer rectangle.
    fn shown(&mut self, place: Place, rect: egui::Rect) {
        self.now[place.index()] = rect.height() + GAP;
    }

    /// How tall a pane at the top right may be in `room` so that it ends above the bottom-right
    /// stack.
    pub fn room_above_right(&self, room: egui::Rect) -> f32 {
        let stack: f32 = [Place::Search, Place::WhyAlive].iter().map(|p| self.last[p.index()]).sum();
        (room.height() - stack - 3.0 * GAP).max(120.0)
    }

    /// Starts a frame: this frame reads what the last one recorded. True when the stacks moved,
    /// so the panes placed by them need one more frame.
    fn next_frame(&mut self) -> bool {
        let moved = self.now != self.last;
        self.last = std::mem::take(&mut self.now);
        moved
    }
}

/// Before the panes: last frame's heights become this frame's places; a change is drawn at once
/// (the window otherwise rests until the next input).
pub fn next_frame(mut stacks: ResMut<Stacks>, mut contexts: EguiContexts) {
    if stacks.bypass_change_detection().next_frame()
        && let Ok(ctx) = contexts.ctx_mut()
    {
        ctx.request_repaint();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_stack_on_the_heights_of_the_last_frame() {
        let mut stacks = Stacks::default();
        let room = egui::Rect::from_min_size(egui::pos2(0.0, 30.0), egui::vec2(1280.0, 560.0));
        assert_eq!(stacks.anchor(Place::LeakSuspects), (egui::Align2::LEFT_BOTTOM, [GAP, -GAP]));
        stacks.shown(Place::Controls, egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(340.0, 170.0)));
        stacks.shown(Place::Search, egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(300.0, 100.0)));
        // Placed by last frame's heights only.
        assert_eq!(stacks.anchor(Place::LeakSuspects).1, [GAP, -GAP]);
        assert!(stacks.next_frame(), "the stacks moved");
        assert_eq!(stacks.anchor(Place::LeakSuspects).1, [GAP, -GAP - 178.0]);
        assert_eq!(stacks.anchor(Place::WhyAlive), (egui::Align2::RIGHT_BOTTOM, [-GAP, -GAP - 108.0]));
        assert_eq!(stacks.anchor(Place::Controls).1, [GAP, -GAP]);
        // At the top the stack grows downwards.
        assert_eq!(stacks.anchor(Place::Settings), (egui::Align2::LEFT_TOP, [GAP, GAP]));
        assert_eq!(stacks.room_above_right(room), 560.0 - 108.0 - 3.0 * GAP);
        // A pane not shown this frame takes no room in the next.
        stacks.shown(Place::Controls, egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(340.0, 170.0)));
        assert!(stacks.next_frame());
        assert_eq!(stacks.anchor(Place::WhyAlive).1, [-GAP, -GAP]);
        stacks.shown(Place::Controls, egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(340.0, 170.0)));
        assert!(!stacks.next_frame(), "nothing moved");
    }
}
