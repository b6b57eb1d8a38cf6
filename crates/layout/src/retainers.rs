//! Retainer paths drawn over the city: one high arc per step, from the roof of each holder down
//! to the roof of the group it keeps alive, so the chain reads from the selected building up to
//! the building closest to the GC roots.

use crate::city::CityLayout;
use crate::frame::{Frame, footprint, height, visible};

/// One step of a retainer path on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct RetainerArc {
    /// The holder's roof center.
    pub from: [f64; 3],
    /// The held group's roof center.
    pub to: [f64; 3],
    /// The index of the held group's step on the path.
    pub step: usize,
}

/// The arcs of the path `groups[0] ← groups[1] ← …` (group ids) in `frame`. A step whose
/// group has no building or is not visible at this time is skipped: its neighbours are joined.
pub fn retainer_arcs(city: &CityLayout, frame: &Frame, groups: &[u32]) -> Vec<RetainerArc> {
    let roof = |group: u32| {
        let b = city.building(group)?;
        let (building, state) = (&city.buildings[b], *frame.states.get(b)?);
        visible(state).then(|| {
            let (x, z) = footprint(building, state).center();
            [x, building.base + height(building, state), z]
        })
    };
    let roofs: Vec<(usize, [f64; 3])> =
        groups.iter().enumerate().filter_map(|(i, &g)| Some((i, roof(g)?))).collect();
    roofs
        .windows(2)
        .filter(|w| w[0].1 != w[1].1)
        .map(|w| RetainerArc { from: w[1].1, to: w[0].1, step: w[0].0 })
        .collect()
}

/// Points along the arc (a quadratic Bézier whose apex clears both roofs by 40% of their
/// distance: higher than reference arcs, so the two read apart).
pub fn arc_points(arc: &RetainerArc, segments: usize) -> Vec<[f64; 3]> {
    let (from, to) = (arc.from, arc.to);
    let dist = ((to[0] - from[0]).powi(2) + (to[2] - from[2]).powi(2)).sqrt();
    let apex = from[1].max(to[1]) + 0.4 * dist + 2.0;
    let control = [(from[0] + to[0]) / 2.0, 2.0 * apex - (from[1] + to[1]) / 2.0, (from[2] + to[2]) / 2.0];
    let n = segments.max(1);
    (0..=n)
        .map(|i| {
            let t = i as f64 / n as f64;
            let (a, b, c) = ((1.0 - t) * (1.0 - t), 2.0 * (1.0 - t) * t, t * t);
            [0, 1, 2].map(|k| a * from[k] + b * control[k] + c * to[k])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Settings, frames, layout};
    use memcity_model::{History, Node, Snapshot, Timeline};

    fn city() -> (Timeline, CityLayout) {
        let mut root = Node::leaf("Heap", "Heap", "Root", 0, 0);
        for (i, name) in ["A", "B", "C"].into_iter().enumerate() {
            root.children.push(Node::leaf(&format!("Heap#{name}"), name, "Type", 10 * (i as u64 + 1), 100));
        }
        root.objects = 60;
        root.bytes = 300;
        let history = History {
            format: memcity_model::FORMAT.into(),
            metric_names: Default::default(),
            snapshots: vec![Snapshot::new(1, root)],
        };
        let t = Timeline::new(&history);
        let city = layout(&t, &Settings::default());
        (t, city)
    }

    #[test]
    fn arcs_run_from_each_holder_to_what_it_holds() {
        let (t, city) = city();
        let frame = &frames(&city)[0];
        let ids: Vec<u32> = ["Heap#A", "Heap#B", "Heap#C"].iter().map(|k| t.group(k).unwrap()).collect();
        let arcs = retainer_arcs(&city, frame, &ids);
        assert_eq!(arcs.len(), 2);
        assert_eq!((arcs[0].step, arcs[1].step), (0, 1));
        assert_eq!(arcs[0].from, arcs[1].to, "the chain is connected");
        let points = arc_points(&arcs[0], 8);
        assert_eq!((points[0], points[8]), (arcs[0].from, arcs[0].to));
        assert!(points[4][1] > arcs[0].from[1].max(arcs[0].to[1]), "the arc rises over both roofs");
    }

    #[test]
    fn missing_and_repeated_steps_are_joined() {
        let (t, city) = city();
        let frame = &frames(&city)[0];
        let (a, c) = (t.group("Heap#A").unwrap(), t.group("Heap#C").unwrap());
        let arcs = retainer_arcs(&city, frame, &[a, 0, a, c]);
        assert_eq!(arcs.len(), 1, "the root has no building and A ← A draws nothing");
        assert_eq!(arcs[0].step, 2);
    }
}
