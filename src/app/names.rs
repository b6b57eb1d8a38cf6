//! Names a newcomer can tell apart. A group is named by the shortest suffix of its path that no
//! other shown group shares, with package prefixes dropped where that stays unique: two
//! allocation sites `app.model.Person.<init>` under `java.lang.String` and under `char[]` read
//! "String ‹ Person.<init>" and "char[] ‹ Person.<init>". Computed when the city changes, read
//! by labels, lists, search and tooltips.

use bevy::prelude::*;
use memcity_model::Timeline;
use std::collections::HashMap;

use crate::app::model::CityModel;

/// Between a group and the ancestor that tells it apart.
pub const SEPARATOR: &str = " ‹ ";

/// The unique short name of every group of the city (empty for groups not shown).
#[derive(Resource, Default)]
pub struct GroupNames {
    names: Vec<String>,
    generation: Option<u64>,
}

impl GroupNames {
    /// The names of the groups `model` shows.
    pub fn of(model: &CityModel) -> GroupNames {
        let layout = &model.layout;
        let shown = |g: u32| layout.building(g).is_some() || layout.district(g).is_some();
        GroupNames { names: unique_names(&model.timeline, shown), generation: Some(model.generation) }
    }

    pub fn get(&self, group: u32) -> &str {
        self.names.get(group as usize).map_or("", String::as_str)
    }
}

pub struct NamesPlugin;

impl Plugin for NamesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<GroupNames>()
            .add_systems(PreUpdate, rename.after(crate::app::model::ModelSystems::Load));
    }
}

pub fn rename(model: Res<CityModel>, mut names: ResMut<GroupNames>) {
    if names.generation == Some(model.generation) {
        return;
    }
    *names = GroupNames::of(&model);
}

/// `app.model.Person` → `Person`, `app.model.Registry.register` → `Registry.register`,
/// `java.util.LinkedList$Node` → `LinkedList$Node`; anything else as it is.
pub fn short(name: &str) -> &str {
    if name.contains(char::is_whitespace) || !name.contains('.') {
        return name;
    }
    let mut dots = name.rmatch_indices('.').map(|(i, _)| i);
    let Some(last) = dots.next() else { return name };
    let tail = &name[last + 1..];
    // A method (lower case or <init>) keeps its class.
    let method = tail.starts_with('<') || tail.starts_with(|c: char| c.is_lowercase());
    match (method, dots.next()) {
        (true, Some(before)) => &name[before + 1..],
        (true, None) => name,
        (false, _) => tail,
    }
}

/// The shortest unique name of every group for which `shown` holds (others get "").
pub fn unique_names(timeline: &Timeline, shown: impl Fn(u32) -> bool) -> Vec<String> {
    let n = timeline.groups.len();
    // Two compared runs are named side by side as two cities: a group and its twin share a
    // name, and no name carries its run's district (the side is shown on its own).
    let is_side = |g: u32| memcity_model::compare::SIDES.contains(&timeline.groups[g as usize].key.as_str());
    // Each group's path from itself up to (not including) the root or its run's district.
    let path = |g: u32| {
        let mut parts = Vec::new();
        let mut cur = Some(g);
        while let Some(i) = cur {
            let group = &timeline.groups[i as usize];
            if (group.parent.is_none() && n > 1 || is_side(i)) && i != g {
                break;
            }
            parts.push(group.name.as_str());
            cur = group.parent;
        }
        parts
    };
    let groups: Vec<u32> = (0..n as u32).filter(|&g| shown(g)).collect();
    let sides: Vec<Option<usize>> =
        groups.iter().map(|&g| memcity_layout::compare::side_of(timeline, g)).collect();
    let paths: Vec<Vec<&str>> = groups.iter().map(|&g| path(g)).collect();
    let label = |parts: &[&str], k: usize, abbreviate: bool| {
        let k = k.min(parts.len());
        parts[..k]
            .iter()
            .rev()
            .map(|p| if abbreviate { short(p) } else { p })
            .collect::<Vec<_>>()
            .join(SEPARATOR)
    };
    // Lengthen the names that collide until none do (or their whole path is used).
    let mut depth = vec![1usize; groups.len()];
    let mut abbreviate = vec![true; groups.len()];
    loop {
        let names: Vec<String> =
            paths.iter().enumerate().map(|(i, p)| label(p, depth[i], abbreviate[i])).collect();
        let mut seen: HashMap<(Option<usize>, &str), Vec<usize>> = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            seen.entry((sides[i], name.as_str())).or_default().push(i);
        }
        let mut changed = false;
        for same in seen.values().filter(|v| v.len() > 1) {
            for &i in same {
                if depth[i] < paths[i].len() {
                    depth[i] += 1;
                    changed = true;
                } else if abbreviate[i] {
                    abbreviate[i] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            let mut out = vec![String::new(); n];
            for (i, name) in names.into_iter().enumerate() {
                out[groups[i] as usize] = name;
            }
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_drop_packages_and_keep_a_methods_class() {
        assert_eq!(short("app.model.Person"), "Person");
        assert_eq!(short("app.model.Registry.register"), "Registry.register");
        assert_eq!(short("app.model.Person.<init>"), "Person.<init>");
        assert_eq!(short("java.util.LinkedList$Node"), "LinkedList$Node");
        assert_eq!(short("char[]"), "char[]");
        assert_eq!(short("java.lang.Object[]"), "Object[]");
        assert_eq!(short("Heap"), "Heap");
    }

    #[test]
    fn names_of_the_teaching_city_are_unique_and_say_which_type() {
        let history = crate::input::load("scenario:linked-list").unwrap();
        let timeline = Timeline::new(&history);
        let names = unique_names(&timeline, |g| g != 0);
        let shown: Vec<&String> = names.iter().skip(1).collect();
        let mut sorted = shown.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), shown.len(), "every name is unique");
        // The same allocation site under two types says which type it is.
        let init: Vec<&&String> = shown.iter().filter(|n| n.ends_with("Person.<init>")).collect();
        assert!(init.len() >= 2, "{init:?}");
        assert!(init.iter().all(|n| n.contains(SEPARATOR)), "{init:?}");
        assert!(init.iter().any(|n| n.starts_with("String ‹")), "{init:?}");
        // A type on its own is just its simple name.
        assert!(shown.iter().any(|n| *n == "Person"), "{shown:?}");
    }

    #[test]
    fn two_compared_runs_name_a_group_and_its_twin_alike_without_their_run() {
        let history =
            crate::input::compare::pair("scenario:linked-list", "scenario:linked-list-fixed").unwrap();
        let timeline = Timeline::new(&history);
        let names = unique_names(&timeline, |g| g != 0);
        let person = |side: usize| {
            let key = memcity_model::compare::side_key(side, "Heap#Type:app.model.Person");
            timeline.group(&key).map(|g| names[g as usize].clone())
        };
        let (before, after) = (person(0).expect("before's Person"), person(1).expect("after's Person"));
        assert_eq!(before, "Person");
        assert_eq!(before, after, "twins share their name");
        assert!(names.iter().all(|n| !n.contains("scenario:")), "no name carries its run: {names:?}");
    }
}
