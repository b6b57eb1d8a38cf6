use bevy_egui::egui;
use egui_dock::{DockArea, TabViewer};

use super::*;
use crate::app::ui::workspace::state::{LayoutChoice, read_layout, starting_workspace, write_layout};

/// Draws each tab as a label; records where each shown tab's body went.
#[derive(Default)]
struct Recorder {
    drawn: Vec<(String, egui::Rect)>,
}

impl TabViewer for Recorder {
    type Tab = TabId;

    fn id(&mut self, tab: &mut TabId) -> egui::Id {
        egui::Id::new(&tab.0)
    }

    fn title(&mut self, tab: &mut TabId) -> egui::WidgetText {
        tab.0.clone().into()
    }

    fn ui(&mut self, ui: &mut egui::Ui, tab: &mut TabId) {
        self.drawn.push((tab.0.clone(), ui.max_rect()));
        ui.label(&tab.0);
    }
}

/// Two passes of the dock in a window of `size` (the first lays out, the second is measured).
fn draw(dock: &mut DockState<TabId>, size: (f32, f32)) -> (egui::Rect, Vec<(String, egui::Rect)>) {
    let ctx = egui::Context::default();
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size.0, size.1));
    let mut recorder = Recorder::default();
    for _ in 0..2 {
        recorder.drawn.clear();
        let input = egui::RawInput { screen_rect: Some(window), ..Default::default() };
        ctx.run_ui(input, |ui| {
            let style = crate::app::ui::workspace::dock_style(ui.style());
            DockArea::new(dock).style(style).show_inside(ui, &mut recorder)
        })
        .drop_without_applying_deltas();
    }
    (window, recorder.drawn)
}

#[test]
fn the_built_in_layouts_show_the_city_beside_the_panes_and_nothing_overlaps() {
    for (name, layout) in
        [("default", default_layout as fn() -> DockState<TabId>), ("teaching", teaching_layout)]
    {
        for size in [(1280.0, 720.0), (1024.0, 600.0)] {
            let mut dock = layout();
            let (window, drawn) = draw(&mut dock, size);
            let names: Vec<&str> = drawn.iter().map(|d| d.0.as_str()).collect();
            let mut expected = vec![CITY, TIMELINE, SELECTION, WHY];
            if name == "teaching" {
                expected.push(TOUR);
            }
            for tab in expected {
                assert!(names.contains(&tab), "{name} at {size:?}: {tab} not shown ({names:?})");
            }
            for (i, (a, ra)) in drawn.iter().enumerate() {
                assert!(window.contains_rect(*ra), "{name} at {size:?}: {a} {ra:?} leaves the window");
                for (b, rb) in &drawn[i + 1..] {
                    assert!(
                        !ra.intersects(rb.shrink(0.5)),
                        "{name} at {size:?}: {a} {ra:?} overlaps {b} {rb:?}"
                    );
                }
            }
            // The Tree tab waits behind the city, in its group.
            let at = |t: &str| dock.find_tab(&TabId::new(t)).map(|p| p.node_path());
            assert_eq!(at(TREE), at(CITY), "{name}");
            assert!(!names.contains(&TREE), "{name}: the city is in front");
            let city = drawn.iter().find(|d| d.0 == CITY).unwrap().1;
            assert!(
                city.area() > 0.3 * window.area(),
                "{name} at {size:?}: the city gets {:.0}% of the window",
                100.0 * city.area() / window.area()
            );
            // Every pane is wide and tall enough to read.
            for (tab, rect) in &drawn {
                assert!(
                    rect.width() >= 200.0 && rect.height() >= 90.0,
                    "{name} at {size:?}: {tab} is {rect:?}"
                );
            }
        }
    }
}

#[test]
fn the_teaching_layout_puts_the_tour_above_the_panes_and_the_city_keeps_a_third() {
    for size in [(1280.0, 720.0), (1024.0, 600.0)] {
        let mut dock = teaching_layout();
        let (window, drawn) = draw(&mut dock, size);
        let at = |tab: &str| drawn.iter().find(|d| d.0 == tab).unwrap().1;
        let (tour, city, selection) = (at(TOUR), at(CITY), at(SELECTION));
        assert!(tour.left() >= city.right() && tour.bottom() <= selection.top(), "{size:?}: {tour:?}");
        assert!(
            city.area() > window.area() / 3.0,
            "{size:?}: the city gets {:.0}%",
            100.0 * city.area() / window.area()
        );
    }
}

#[test]
fn a_tab_shown_that_is_not_open_joins_the_panes_or_splits_off_the_city() {
    let mut dock = default_layout();
    open_beside_panes(&mut dock, TabId::new(TOUR));
    let tour = dock.find_tab(&TabId::new(TOUR)).unwrap();
    let selection = dock.find_tab(&TabId::new(SELECTION)).unwrap();
    assert_eq!(tour.node_path(), selection.node_path(), "beside the Selection");
    let mut alone = DockState::new(vec![TabId::new(CITY)]);
    open_beside_panes(&mut alone, TabId::new(SEARCH));
    let (_, drawn) = draw(&mut alone, (1280.0, 720.0));
    let names: Vec<&str> = drawn.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(names.len(), 2, "both shown: {names:?}");
}

#[test]
fn layouts_keep_only_known_tabs_and_always_the_city() {
    let mut dock = DockState::new(vec![TabId::new("from-a-later-version"), TabId::new(SEARCH)]);
    dock = sanitized(dock, &|t| t.0 != "from-a-later-version");
    let tabs: Vec<String> = dock.iter_all_tabs().map(|(_, t)| t.0.clone()).collect();
    assert!(tabs.contains(&SEARCH.to_string()) && tabs.contains(&CITY.to_string()), "{tabs:?}");
    assert!(!tabs.iter().any(|t| t == "from-a-later-version"));
}

#[test]
fn a_saved_layout_round_trips_and_a_bad_one_falls_back_to_the_default() {
    let dir = std::env::temp_dir().join(format!("memcity-layout-{}", std::process::id()));
    let path = dir.join("layout.json");
    let mut dock = teaching_layout();
    open_beside_panes(&mut dock, TabId::new("structures"));
    write_layout(&path, &dock).unwrap();
    let back = read_layout(&path).unwrap();
    let tabs = |d: &DockState<TabId>| d.iter_all_tabs().map(|(at, t)| (at, t.clone())).collect::<Vec<_>>();
    assert_eq!(tabs(&back), tabs(&dock));
    assert!(!dir.join("layout.json.partial").exists(), "written through a temporary file");

    for (bytes, needle) in [
        (&b"{ not json"[..], "not a memcity layout file"),
        (&b"{\"memcity_layout\": 9, \"dock\": null}"[..], "not a memcity layout file"),
        (&b"\xff\xfe"[..], "layout.json"),
    ] {
        std::fs::write(&path, bytes).unwrap();
        let e = read_layout(&path).unwrap_err();
        assert!(e.contains(needle) && e.contains("layout.json") && !e.contains('\n'), "{e}");
    }
    let e = read_layout(&dir.join("none.json")).unwrap_err();
    assert!(e.contains("none.json"), "{e}");
    let huge = dir.join("huge.json");
    std::fs::write(&huge, vec![b' '; 2 << 20]).unwrap();
    assert!(read_layout(&huge).unwrap_err().contains("too large"));
    // The saved layout is unreadable: the default, and nothing saved over it until exit.
    // SAFETY: tests of this module are the only readers of MEMCITY_CONFIG_DIR.
    unsafe { std::env::set_var("MEMCITY_CONFIG_DIR", &dir) };
    let start = starting_workspace(&LayoutChoice::Saved, false);
    let tabs_now: Vec<String> = start.workspace.dock.iter_all_tabs().map(|(_, t)| t.0.clone()).collect();
    let default: Vec<String> = default_layout().iter_all_tabs().map(|(_, t)| t.0.clone()).collect();
    assert_eq!(tabs_now, default);
    assert!(start.saving.path.is_none(), "not saved when not asked to");
    std::fs::remove_dir_all(&dir).unwrap();
}
