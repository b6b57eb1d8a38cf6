//! The layout and frame rules of docs/design.md ("Layout", "Frames", "Growth color") on the sample history and synthetic ones.

use std::path::Path;

use memcity_layout::frame::{GRAY, ORANGE, RED, footprint, growth_color, height, opacity, visible};
use memcity_layout::pick::{BuildingBox, PickGrid, ray_box};
use memcity_layout::references::{Direction, arc, frustum, references};
use memcity_layout::{AreaMode, CityLayout, Rect, Settings, frame, frames, layout};
use memcity_model::{Metric, Timeline, load_path, synthetic};

fn sample() -> Timeline {
    Timeline::new(
        &load_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample-leak.json")).unwrap(),
    )
}

fn all_settings() -> Vec<Settings> {
    let mut out = Vec::new();
    for metric in [Metric::Objects, Metric::Bytes] {
        for area in [AreaMode::Linear, AreaMode::Sqrt] {
            out.push(Settings { metric, area, ..Settings::default() });
        }
    }
    out
}

/// Cells of the children of every district, with the area they were laid out for.
fn check_geometry(t: &Timeline, city: &CityLayout) {
    let mapped = |g: u32| city.settings.area.map(t.max.get(city.settings.metric)[g as usize] as f64);
    for d in &city.districts {
        let inner = d.rect.inset(city.settings.street * d.rect.w.min(d.rect.d));
        let kids: Vec<(Rect, f64)> = t.groups[d.group as usize]
            .children
            .iter()
            .filter_map(|&c| {
                if let Some(b) = city.building(c) {
                    Some((city.buildings[b].cell, mapped(c)))
                } else {
                    city.district(c).map(|i| (city.districts[i].rect, f64::NAN))
                }
            })
            .collect();
        for (i, (a, _)) in kids.iter().enumerate() {
            assert!(inner.encloses(a, 1e-6), "cell {a:?} outside its district's inner area {inner:?}");
            for (b, _) in &kids[i + 1..] {
                assert!(a.overlap(b) < 1e-6, "siblings overlap: {a:?} {b:?}");
            }
        }
        // Within a district, building areas are proportional to their mapped max values.
        let leaves: Vec<&(Rect, f64)> = kids.iter().filter(|(_, v)| !v.is_nan()).collect();
        if let Some((r0, v0)) = leaves.first() {
            for (r, v) in &leaves {
                let want = r0.area() / v0 * v;
                assert!((r.area() - want).abs() <= 0.01 * want + 1e-9, "area {} want {want}", r.area());
            }
        }
    }
}

#[test]
fn cells_nest_never_overlap_and_are_proportional() {
    let t = sample();
    for s in all_settings() {
        check_geometry(&t, &layout(&t, &s));
    }
    let big = Timeline::new(&synthetic::history(5_000, 3, 9));
    let city = layout(&big, &Settings { children: 100, ..Settings::default() });
    assert!(city.buildings.len() > 4_000);
    check_geometry(&big, &city);
}

#[test]
fn proportional_across_districts_when_every_node_is_a_leaf_district() {
    // Linear areas: a district's area is the sum of its children's, so a package's whole cell
    // (inset by its street) holds exactly its children's share.
    let t = sample();
    let city = layout(&t, &Settings { area: AreaMode::Linear, street: 0.0, ..Settings::default() });
    let total: f64 = city.buildings.iter().map(|b| b.cell.area()).sum();
    for b in &city.buildings {
        let share = t.max.objects[b.group as usize] as f64
            / city.buildings.iter().map(|o| t.max.objects[o.group as usize] as f64).sum::<f64>();
        assert!((b.cell.area() / total - share).abs() <= 0.01 * share, "{}", t.groups[b.group as usize].key);
    }
}

#[test]
fn pruning_keeps_the_n_largest_children() {
    let t = sample();
    let city = layout(&t, &Settings { children: 2, area: AreaMode::Linear, ..Settings::default() });
    let util = t.group("Heap#java.util").unwrap();
    let mut kids: Vec<u32> = t.groups[util as usize].children.clone();
    kids.sort_by_key(|&c| std::cmp::Reverse(t.max.objects[c as usize]));
    let shown: Vec<u32> = kids.iter().copied().filter(|&c| city.building(c).is_some()).collect();
    assert_eq!(shown, kids[..2].to_vec());
    assert_eq!(city.districts.len(), 1 + 2, "the root keeps its two largest packages");
    assert_eq!(city.buildings.len(), 2 * 2, "two buildings each");
}

#[test]
fn pinned_groups_survive_pruning_with_their_districts() {
    let t = sample();
    let util = t.group("Heap#java.util").unwrap();
    let mut kids: Vec<u32> = t.groups[util as usize].children.clone();
    kids.sort_by_key(|&c| std::cmp::Reverse(t.max.objects[c as usize]));
    let smallest = *kids.last().unwrap();
    let key = t.groups[smallest as usize].key.clone();
    let pruned = Settings { children: 1, area: AreaMode::Linear, ..Settings::default() };
    assert!(layout(&t, &pruned).building(smallest).is_none());
    let pinned = Settings { pinned: [key].into(), ..pruned };
    let city = layout(&t, &pinned);
    assert!(city.building(smallest).is_some(), "a pinned group is shown");
    assert!(city.building(kids[0]).is_some(), "the largest child stays");
    assert!(city.district(util).is_some());
}

#[test]
fn zero_and_equal_values_and_determinism() {
    let mut h = synthetic::history(50, 2, 1);
    for s in &mut h.snapshots {
        for p in &mut s.tree.children {
            for t in &mut p.children {
                for leaf in &mut t.children {
                    leaf.objects = if leaf.key.ends_with("site0") { 0 } else { 7 };
                }
            }
        }
    }
    let t = Timeline::new(&h);
    let a = layout(&t, &Settings::default());
    assert_eq!(a, layout(&t, &Settings::default()), "same input, same layout");
    assert!(a.buildings.iter().all(|b| t.max.objects[b.group as usize] > 0), "zero-size groups get no cell");
    let f = frame(&a, 1);
    assert!(f.states.iter().all(|s| s.scale.is_finite() && s.growth == 0.0));
}

#[test]
fn buildings_never_move_and_follow_the_formulas() {
    let t = sample();
    let settings = Settings { solid: 4, opacity: 0.25, ..Settings::default() };
    let city = layout(&t, &settings);
    let all = frames(&city);
    assert_eq!(all.len(), 8);
    let node = city.building(t.group("Heap#java.util#LinkedList$Node").unwrap()).unwrap();
    let b = &city.buildings[node];
    for (s, f) in all.iter().enumerate() {
        for (building, state) in city.buildings.iter().zip(&f.states) {
            let fp = footprint(building, *state);
            let (cx, cz) = fp.center();
            let (ex, ez) = building.cell.center();
            assert!((cx - ex).abs() < 1e-6 && (cz - ez).abs() < 1e-6, "footprint centered in its cell");
            assert!(building.cell.encloses(&fp, 1e-6));
        }
        let (cur, max) =
            (t.values[s].objects[b.group as usize] as f64, t.max.objects[b.group as usize] as f64);
        let scale = (cur.sqrt() / max.sqrt()).sqrt();
        let state = f.states[node];
        assert!((state.scale as f64 - scale).abs() < 1e-6);
        let fp = footprint(b, state);
        assert!((fp.area() - b.cell.area() * scale * scale).abs() < 1e-6 * b.cell.area());
        assert!((height(b, state) - 2.0 * fp.area().sqrt()).abs() < 1e-9);
        let grown = cur - t.values[0].objects[b.group as usize] as f64;
        assert!((state.growth as f64 - (grown / city.full_red).clamp(0.0, 1.0)).abs() < 1e-6);
    }
    // The strongest growers (String, char[]) reach red at the end, LinkedList$Node grew half as
    // much; shrinking groups stay gray.
    let string = city.building(t.group("Heap#java.lang#String").unwrap()).unwrap();
    assert_eq!(all[7].states[string].growth, 1.0);
    assert_eq!(all[7].states[node].growth, 0.5);
    let request = city.building(t.group("Heap#com.example.app#Request").unwrap()).unwrap();
    assert!(all[7].states[request].growth == 0.0 && visible(all[7].states[request]));
    assert_eq!(growth_color(0.0), GRAY);
    assert_eq!(growth_color(0.5), ORANGE);
    assert_eq!(growth_color(1.0), RED);
    assert_eq!(growth_color(-0.3), GRAY);
    // Opacity: the four strongest overall growers are solid.
    let growth = &t.growth.objects;
    let mut ranked: Vec<usize> = (0..city.buildings.len()).collect();
    ranked.sort_by_key(|&i| std::cmp::Reverse(growth[city.buildings[i].group as usize]));
    for (rank, &i) in ranked.iter().enumerate() {
        let want = if rank < 4 && growth[city.buildings[i].group as usize] > 0 { 1.0 } else { 0.25 };
        assert_eq!(opacity(&city, &city.buildings[i]), want);
    }
}

#[test]
fn districts_stack_by_depth_with_blue_gradient() {
    let t = sample();
    let city = layout(&t, &Settings::default());
    let root = &city.districts[0];
    assert_eq!(root.depth, 0);
    let package = city.districts.iter().find(|d| d.depth == 1).unwrap();
    assert!(package.top() > root.top());
    assert!(package.color[2] > root.color[2] && package.color[0] > root.color[0], "lighter blue deeper");
    let b = &city.buildings[0];
    assert_eq!(b.base, package.top(), "buildings stand on their district");
}

#[test]
fn references_of_person_lead_to_causes_and_effects() {
    let t = sample();
    let city = layout(&t, &Settings::default());
    let person = city.building(t.group("Heap#com.example.app#Person").unwrap()).unwrap();
    let refs = references(&city, &t, 7, person);
    let name = |b: usize| t.groups[city.buildings[b].group as usize].name.clone();
    let incoming: Vec<String> =
        refs.iter().filter(|r| r.direction == Direction::Incoming).map(|r| name(r.from)).collect();
    let outgoing: Vec<String> =
        refs.iter().filter(|r| r.direction == Direction::Outgoing).map(|r| name(r.to)).collect();
    assert_eq!(incoming, vec!["LinkedList$Node".to_string(), "Order".to_string()]);
    assert_eq!(outgoing, vec!["String".to_string()]);
    // LinkedList$Node → Person: every Person is referenced (to_fraction 1).
    let node = &refs[0];
    assert_eq!(node.to_fraction, 1.0);
    // Order → Person: few Persons referenced from many Orders: a cone narrowing at Person.
    let order = &refs[1];
    assert!(order.to_fraction < 0.1 && order.from_fraction > order.to_fraction);
    let f7 = frame(&city, 7);
    let f = frustum(&city, &f7, order).unwrap();
    let half_side = |b: usize| {
        let fp = footprint(&city.buildings[b], f7.states[b]);
        memcity_layout::references::FULL_RADIUS * fp.w.min(fp.d)
    };
    assert!((f.radius_from - half_side(order.from) * (order.from_fraction as f64).max(0.08)).abs() < 1e-5);
    assert!((f.radius_to - half_side(order.to) * 0.08).abs() < 1e-6, "thin ends keep a minimum radius");
    let points = arc(&f, 8);
    assert_eq!(points.len(), 9);
    assert_eq!(points[0], f.from);
    assert!(points[4][1] > f.from[1].max(f.to[1]), "the arc rises over the city");
}

#[test]
fn picking_agrees_with_brute_force() {
    let t = Timeline::new(&synthetic::history(3_000, 2, 5));
    let city = layout(&t, &Settings { children: 100, ..Settings::default() });
    let f = frame(&city, 1);
    let grid = PickGrid::new(&city);
    let box_of = |b: usize| {
        let (building, state) = (&city.buildings[b], f.states[b]);
        visible(state).then(|| BuildingBox {
            footprint: footprint(building, state),
            base: building.base,
            height: height(building, state),
        })
    };
    let mut rng = 3u64;
    let mut hits = 0;
    for _ in 0..300 {
        let r = |rng: &mut u64| (memcity_model::synthetic::next_random(rng) % 10_000) as f64 / 10.0;
        let origin = [r(&mut rng) - 200.0, 300.0 + r(&mut rng) / 5.0, r(&mut rng) - 200.0];
        let target = [r(&mut rng), 0.0, r(&mut rng)];
        let dir = [target[0] - origin[0], target[1] - origin[1], target[2] - origin[2]];
        let brute = (0..city.buildings.len())
            .filter_map(|b| Some((b, ray_box(origin, dir, &box_of(b)?)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let fast = grid.pick(origin, dir, box_of);
        assert_eq!(fast.map(|h| h.0), brute.map(|h| h.0));
        hits += fast.is_some() as usize;
    }
    assert!(hits > 100, "most rays at the city hit a building ({hits})");
}

#[test]
fn opacity_setting_and_unsolid_healthy_city() {
    let t = sample();
    let city = layout(&t, &Settings { solid: 0, opacity: 0.4, ..Settings::default() });
    assert!(city.buildings.iter().all(|b| opacity(&city, b) == 0.4));
}

/// A one-district history: `snaps` lists each snapshot's leaves as (name, objects).
fn history_of(snaps: &[&[(&str, u64)]]) -> memcity_model::History {
    let snapshots: Vec<String> = snaps
        .iter()
        .enumerate()
        .map(|(i, leaves)| {
            let total: u64 = leaves.iter().map(|l| l.1).sum();
            let kids: Vec<String> = leaves
                .iter()
                .map(|(n, o)| {
                    format!(r#"{{"key":"H#{n}","name":"{n}","role":"Type","objects":{o},"bytes":{}}}"#, o * 16)
                })
                .collect();
            format!(
                r#"{{"time_ms":{i},"tree":{{"key":"H","name":"H","role":"Root","objects":{total},"bytes":{},"children":[{}]}}}}"#,
                total * 16,
                kids.join(",")
            )
        })
        .collect();
    let text = format!(r#"{{"format":"memcity/1","snapshots":[{}]}}"#, snapshots.join(","));
    memcity_model::load_bytes(text.as_bytes(), "test").unwrap()
}

#[test]
fn relayout_after_growth_keeps_siblings_in_their_order() {
    let first: &[(&str, u64)] = &[("a", 100), ("b", 50), ("c", 10)];
    // c overtakes everyone and a new group d appears.
    let grown: &[(&str, u64)] = &[("a", 100), ("b", 50), ("c", 900), ("d", 40)];
    let before = Timeline::new(&history_of(&[first]));
    let after = Timeline::new(&history_of(&[first, grown]));
    let settings = Settings::default();
    let old = layout(&before, &settings);
    let fresh = layout(&after, &settings);
    let kept = memcity_layout::relayout(&after, &settings, &old);
    let names = |city: &CityLayout| -> Vec<String> {
        city.placed.iter().map(|&g| after.groups[g as usize].key.clone()).collect()
    };
    // A fresh layout puts the new largest first; the relayout keeps a, b, c and appends d.
    assert_eq!(names(&fresh), ["H", "H#c", "H#a", "H#b", "H#d"]);
    assert_eq!(names(&kept), ["H", "H#a", "H#b", "H#c", "H#d"]);
    check_geometry(&after, &kept);
    // The first-placed building still holds the district's first corner.
    let corner = |city: &CityLayout, key: &str| {
        let g = after.groups.iter().position(|g| g.key == key).unwrap() as u32;
        let cell = city.buildings[city.building(g).unwrap()].cell;
        (cell.x, cell.z)
    };
    assert_eq!(corner(&old, "H#a"), corner(&kept, "H#a"));
    assert_ne!(corner(&fresh, "H#a"), corner(&kept, "H#a"));
}

/// One snapshot (or a series in which nothing grew) has no growth to rank: the largest
/// buildings stand solid instead, so the city is not all glass.
#[test]
fn without_growth_the_largest_buildings_are_solid() {
    let mut history =
        load_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sample-leak.json")).unwrap();
    history.snapshots.drain(..history.snapshots.len() - 1);
    let t = Timeline::new(&history);
    let settings = Settings { solid: 3, ..Settings::default() };
    let city = layout(&t, &settings);
    assert!(city.solid_by_size);
    let size = |b: usize| city.values[0][b];
    let solid: Vec<usize> = (0..city.buildings.len()).filter(|&b| city.buildings[b].solid).collect();
    assert_eq!(solid.len(), 3.min(city.buildings.len()), "{solid:?}");
    let smallest_solid = solid.iter().map(|&b| size(b)).fold(f32::INFINITY, f32::min);
    assert!((0..city.buildings.len()).filter(|b| !solid.contains(b)).all(|b| size(b) <= smallest_solid));
    // A growing history keeps the growers solid.
    let grown = layout(&sample(), &settings);
    assert!(!grown.solid_by_size);
    assert!(grown.buildings.iter().any(|b| b.solid));
}
