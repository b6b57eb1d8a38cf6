//! What a V8 node is called in the city: its type name from the node type and name (close to
//! DevTools' "Constructor" column), its root kind when it is one of the synthetic GC roots, and
//! its detachedness.

use std::borrow::Cow;

use memcity_heapgraph::RootKind;

/// The type name (leaf name) of a node: constructor names for objects and DOM/native objects,
/// `system / …` for V8's internal structures, and a parenthesized kind for the rest.
pub fn type_name<'a>(node_type: &str, name: &'a str) -> Cow<'a, str> {
    match node_type {
        "object" | "native" => {
            let name = name.strip_prefix("Detached ").unwrap_or(name);
            if name.is_empty() { "(anonymous object)".into() } else { name.into() }
        }
        "hidden" | "object shape" | "code" if name.starts_with("system / ") => name.into(),
        "hidden" => "(system)".into(),
        "object shape" => "(object shape)".into(),
        "code" => "(compiled code)".into(),
        "array" if name.starts_with('(') => name.into(),
        "synthetic" if !name.is_empty() => name.into(),
        "closure" => "(closure)".into(),
        "string" | "concatenated string" | "sliced string" => "(string)".into(),
        "regexp" => "RegExp".into(),
        other => format!("({other})").into(),
    }
}

/// Whether [`type_name`] depends on the node's name for this node type (if not, all nodes of
/// the type share one leaf and their names need not be looked at).
pub fn name_matters(node_type: &str) -> bool {
    matches!(node_type, "object" | "native" | "hidden" | "object shape" | "code" | "array" | "synthetic")
}

/// The root kind of a synthetic root node's children, by its name; node 0 (the snapshot's own
/// root) holds the user's global objects.
pub fn root_kind(container: &str, is_snapshot_root: bool) -> RootKind {
    match container {
        _ if is_snapshot_root => RootKind::Global,
        "(Stack roots)" => RootKind::StackFrame,
        // The engine's own local handles (what the C++ writing the snapshot holds), not the
        // program's: an object the program holds elsewhere is then named by the program's path.
        "(Handle scope)" => RootKind::Internal,
        "(Global handles)" | "(Eternal handles)" | "(Traced handles)" => RootKind::Handle,
        name if name.starts_with('(') => RootKind::Internal,
        _ => RootKind::Embedder,
    }
}

/// V8's `detachedness` (1 attached, 2 detached) or, in snapshots without it, Blink's old
/// "Detached " name prefix; `None` for nodes that are not DOM nodes.
pub fn detached(node_type: &str, name: &str, detachedness: Option<u8>) -> Option<bool> {
    match detachedness {
        Some(1) => Some(false),
        Some(2) => Some(true),
        _ if node_type == "native" && name.starts_with("Detached ") => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_follow_devtools_constructors() {
        assert_eq!(type_name("object", "RequestContext"), "RequestContext");
        assert_eq!(type_name("native", "Detached HTMLDivElement"), "HTMLDivElement");
        assert_eq!(type_name("hidden", "system / Context"), "system / Context");
        assert_eq!(type_name("hidden", "foo"), "(system)");
        assert_eq!(type_name("closure", "handler"), "(closure)");
        assert_eq!(type_name("concatenated string", "ab"), "(string)");
        assert_eq!(type_name("code", "RequestContext"), "(compiled code)");
        assert_eq!(type_name("array", "(object elements)"), "(object elements)");
        assert_eq!(type_name("array", ""), "(array)");
        assert_eq!(type_name("bigint", ""), "(bigint)");
        assert!(!name_matters("string") && name_matters("native"));
    }

    #[test]
    fn root_kinds_and_detachedness() {
        assert_eq!(root_kind("", true), RootKind::Global);
        assert_eq!(root_kind("(Stack roots)", false), RootKind::StackFrame);
        assert_eq!(root_kind("(Handle scope)", false), RootKind::Internal);
        assert_eq!(root_kind("(Global handles)", false), RootKind::Handle);
        assert_eq!(root_kind("(Builtins)", false), RootKind::Internal);
        assert_eq!(root_kind("Node / Environment", false), RootKind::Embedder);
        assert_eq!(detached("native", "HTMLDivElement", Some(2)), Some(true));
        assert_eq!(detached("native", "Detached HTMLDivElement", Some(0)), Some(true));
        assert_eq!(detached("native", "HTMLDivElement", None), None);
        assert_eq!(detached("native", "HTMLDivElement", Some(1)), Some(false));
    }
}
