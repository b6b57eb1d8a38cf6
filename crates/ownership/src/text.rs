//! A node in words, the same in the SVG's tooltips, the app's and the command line's: short
//! labels that fit a block, and the details a tooltip gives.

use memcity_model::units::bytes;

use crate::{Kind, Ownership};

/// `name` with package prefixes dropped from each dotted word: `java.util.HashMap in
/// app.model.Session` → `HashMap in Session`, `static app.Registry.people` → `static
/// Registry.people`; an all-lowercase word keeps its last part (`builtins.dict` → `dict`).
pub fn short_name(name: &str) -> String {
    name.split(' ').map(short_word).collect::<Vec<_>>().join(" ")
}

fn short_word(word: &str) -> &str {
    if !word.contains('.') || word.starts_with('(') {
        return word;
    }
    let mut at = 0;
    for part in word.split('.') {
        if part.starts_with(|c: char| c.is_uppercase()) {
            return &word[at..];
        }
        at += part.len() + 1;
    }
    word.rsplit('.').next().unwrap_or(word)
}

/// Members of a cycle a tooltip lists before "…".
const MEMBERS_SHOWN: usize = 8;

/// What a tooltip says of tree node `t`: its full name, kind, sizes, share, sharing, and
/// what changed since the previous snapshot.
pub fn details(own: &Ownership, t: u32) -> Vec<String> {
    let node = &own.tree[t as usize];
    let class = own.class_of(t);
    let share = |b: u64| if own.heap_bytes == 0 { 0.0 } else { 100.0 * b as f64 / own.heap_bytes as f64 };
    let objects =
        if node.objects == 1 { "1 object".to_string() } else { format!("{} objects", node.objects) };
    let mut lines = vec![class.full_name(), format!("{} · {objects}", class.kind.name())];
    lines.push(format!(
        "self {} · owns {} ({:.1} % of the heap)",
        bytes(node.self_bytes),
        bytes(node.owned_bytes),
        share(node.owned_bytes)
    ));
    if node.fraction < 1.0 - 1e-9 {
        let owners = class.parents.len();
        lines.push(format!(
            "shared: this copy holds {:.1} % of {} (owned by {owners} class nodes)",
            100.0 * node.fraction,
            bytes(class.owned_bytes)
        ));
    }
    let sign = if node.growth_bytes < 0 { "−" } else { "+" };
    lines.push(format!(
        "since the previous snapshot: {} new objects, {sign}{}",
        node.new_objects,
        bytes(node.growth_bytes.unsigned_abs())
    ));
    if class.kind == Kind::Cycle {
        let more = class.members.len().saturating_sub(MEMBERS_SHOWN);
        let mut members: Vec<&str> = class.members.iter().take(MEMBERS_SHOWN).map(String::as_str).collect();
        let tail = format!("… {more} more");
        if more > 0 {
            members.push(&tail);
        }
        lines.push(format!("members: {}", members.join(", ")));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_drop_packages() {
        assert_eq!(short_name("java.util.HashMap in app.model.Session"), "HashMap in Session");
        assert_eq!(short_name("java.util.HashMap$Node[]"), "HashMap$Node[]");
        assert_eq!(short_name("static app.Registry.people"), "static Registry.people");
        assert_eq!(short_name("builtins.dict in global __main__.SESSIONS"), "dict in global SESSIONS");
        assert_eq!(short_name("(object elements)"), "(object elements)");
        assert_eq!(short_name("system / Context"), "system / Context");
        assert_eq!(short_name("large byte[]"), "large byte[]");
    }
}
