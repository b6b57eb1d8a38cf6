//! Classifiers: each puts an object into one group per level (hierarchical ones, like Package,
//! give a chain of levels). Grouping applies them in the user's order (see `group`). Every heap
//! source (trace replay, HPROF, V8 snapshots, the Python probe) describes its objects with the
//! same [`ObjectFacts`], so one list of classifiers serves them all.

use std::str::FromStr;

use crate::roots::RootSet;

/// One way to group objects (docs/design.md, "Classifiers").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classifier {
    Type,
    /// The package (module, namespace) as a chain of levels: `java` → `java.util`.
    Package,
    /// The innermost `depth` frames of the allocating call chain, as one level.
    AllocationSite {
        depth: usize,
    },
    /// The first frame whose name starts with `prefix` (the program's own code).
    DomainCallSite {
        prefix: String,
    },
    Thread,
    /// GCs survived, in buckets 0, 1, 2, 3–4, 5–8, 9–16, …
    Age,
    /// Instance, small array (< 255 elements) or big array.
    ObjectKind,
    /// The kinds of GC roots that hold the object directly, if any.
    RootKind,
    /// The engine's kind of node (V8: object, closure, string, hidden, native, …).
    NodeType,
    /// The script or file that defined the object's constructor or function.
    Script,
    /// Whether a DOM node is detached from its document.
    Detached,
    /// The top-level data structure that contains the object (bottom-up analysis; needs
    /// structures detected, see [`InStructure`]).
    ContainingStructure,
    /// The object's role in the data structure that contains it: one of its leaves (the data
    /// it holds) or the structure itself (its head and internal parts).
    Leaf,
}

/// What data-structure detection says of an object (docs/structures.md, "The data-structure
/// city"). Only a grouping that detects structures fills it; the importers of each source do
/// not, so their objects read [`InStructure::NotDetected`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InStructure<'a> {
    #[default]
    NotDetected,
    /// Detected, and the object is part of no structure.
    Outside,
    /// A part or leaf of a structure.
    Contained {
        /// The top-level structure containing it, named by type and identity
        /// (`java.util.HashMap static app.Registry.people`).
        top: &'a str,
        /// A leaf (the data a structure holds) rather than a head or an internal part.
        leaf: bool,
    },
}

/// How the structure classifiers name an object in no structure.
pub const IN_NO_STRUCTURE: &str = "(in no structure)";

/// What a classifier needs to know about one object. Sources fill what they know; the rest
/// stays at its default (empty names are shown as "(unknown …)").
#[derive(Debug, Clone, Copy, Default)]
pub struct ObjectFacts<'a> {
    pub type_name: &'a str,
    /// The allocating call chain, innermost frame first.
    pub site: &'a [String],
    pub thread: &'a str,
    pub age: u32,
    /// The element count of an array.
    pub len: Option<u64>,
    pub roots: RootSet,
    pub node_type: &'a str,
    pub script: &'a str,
    /// `Some(detached)` for DOM nodes.
    pub detached: Option<bool>,
    pub structure: InStructure<'a>,
}

/// Which facts a list of classifiers looks at: objects that agree on these share a leaf, so a
/// source can key its memo of leaves by them alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FactUse {
    pub type_name: bool,
    pub site: bool,
    pub thread: bool,
    pub age: bool,
    pub len: bool,
    pub roots: bool,
    pub node_type: bool,
    pub script: bool,
    pub detached: bool,
    pub structure: bool,
}

impl FactUse {
    pub fn of(classifiers: &[Classifier]) -> FactUse {
        let uses = |f: fn(&Classifier) -> bool| classifiers.iter().any(f);
        FactUse {
            type_name: uses(|c| matches!(c, Classifier::Type | Classifier::Package)),
            site: uses(|c| {
                matches!(c, Classifier::AllocationSite { .. } | Classifier::DomainCallSite { .. })
            }),
            thread: uses(|c| matches!(c, Classifier::Thread)),
            age: uses(|c| matches!(c, Classifier::Age)),
            len: uses(|c| matches!(c, Classifier::ObjectKind)),
            roots: uses(|c| matches!(c, Classifier::RootKind)),
            node_type: uses(|c| matches!(c, Classifier::NodeType)),
            script: uses(|c| matches!(c, Classifier::Script)),
            detached: uses(|c| matches!(c, Classifier::Detached)),
            structure: uses(Classifier::needs_structures),
        }
    }
}

impl Classifier {
    /// The names accepted on the command line, for help texts.
    pub const SYNTAX: &'static str = "type, package, allocation-site[:DEPTH], domain-call-site:PREFIX, thread, age, object-kind, root-kind, node-type, script, detached, containing-structure, leaf";

    /// Whether this classifier groups by data structures, which must be detected first
    /// (docs/structures.md, "The data-structure city").
    pub fn needs_structures(&self) -> bool {
        matches!(self, Classifier::ContainingStructure | Classifier::Leaf)
    }

    /// The role of the nodes this classifier makes (shown in the app, part of the keys).
    pub fn role(&self) -> &'static str {
        match self {
            Classifier::Type => "Type",
            Classifier::Package => "Package",
            Classifier::AllocationSite { .. } => "Allocation Site",
            Classifier::DomainCallSite { .. } => "Closest Domain Call Site",
            Classifier::Thread => "Thread",
            Classifier::Age => "Age",
            Classifier::ObjectKind => "Object Kind",
            Classifier::RootKind => "GC Root Kind",
            Classifier::NodeType => "Node Type",
            Classifier::Script => "Script",
            Classifier::Detached => "Detachedness",
            Classifier::ContainingStructure => "Containing Structure",
            Classifier::Leaf => "Role in Structure",
        }
    }

    /// The object's group names on this classifier's levels, outermost first.
    pub fn levels(&self, o: &ObjectFacts) -> Vec<String> {
        let or = |name: &str, unknown: &str| if name.is_empty() { unknown.into() } else { name.to_string() };
        match self {
            Classifier::Type => vec![or(o.type_name, "(unknown type)")],
            Classifier::Package => package_levels(o.type_name),
            Classifier::AllocationSite { depth } => {
                let frames = &o.site[..o.site.len().min(*depth)];
                vec![if frames.is_empty() { "(unknown site)".into() } else { frames.join(" ← ") }]
            }
            Classifier::DomainCallSite { prefix } => {
                let frame = o.site.iter().find(|f| f.starts_with(prefix.as_str()));
                vec![frame.cloned().unwrap_or_else(|| "(no domain frame)".into())]
            }
            Classifier::Thread => vec![or(o.thread, "(unknown thread)")],
            Classifier::Age => vec![age_bucket(o.age)],
            Classifier::ObjectKind => vec![
                match o.len {
                    None => "instance",
                    Some(n) if n < 255 => "small array",
                    Some(_) => "big array",
                }
                .into(),
            ],
            Classifier::RootKind => vec![o.roots.label()],
            Classifier::NodeType => vec![or(o.node_type, "(unknown node type)")],
            Classifier::Script => vec![or(o.script, "(no script)")],
            Classifier::Detached => vec![
                match o.detached {
                    None => "not a DOM node",
                    Some(true) => "detached",
                    Some(false) => "attached",
                }
                .into(),
            ],
            Classifier::ContainingStructure => vec![
                match o.structure {
                    InStructure::NotDetected => NOT_DETECTED,
                    InStructure::Outside => IN_NO_STRUCTURE,
                    InStructure::Contained { top, .. } => top,
                }
                .into(),
            ],
            Classifier::Leaf => vec![
                match o.structure {
                    InStructure::NotDetected => NOT_DETECTED,
                    InStructure::Outside => IN_NO_STRUCTURE,
                    InStructure::Contained { leaf: true, .. } => "leaves",
                    InStructure::Contained { leaf: false, .. } => "structure",
                }
                .into(),
            ],
        }
    }
}

/// What the structure classifiers say where no structures were detected (a source's own
/// import): honest rather than "(in no structure)" for every object.
const NOT_DETECTED: &str = "(structures not detected)";

/// The classifier as the command line writes it (`allocation-site:2`).
impl std::fmt::Display for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Classifier::Type => "type",
            Classifier::Package => "package",
            Classifier::AllocationSite { depth: 1 } => "allocation-site",
            Classifier::AllocationSite { depth } => return write!(f, "allocation-site:{depth}"),
            Classifier::DomainCallSite { prefix } => return write!(f, "domain-call-site:{prefix}"),
            Classifier::Thread => "thread",
            Classifier::Age => "age",
            Classifier::ObjectKind => "object-kind",
            Classifier::RootKind => "root-kind",
            Classifier::NodeType => "node-type",
            Classifier::Script => "script",
            Classifier::Detached => "detached",
            Classifier::ContainingStructure => "containing-structure",
            Classifier::Leaf => "leaf",
        };
        f.write_str(name)
    }
}

/// The package levels of a type name, for dotted names (`java.util.HashMap`, Python's
/// `app.models.Session`) and the JVM's array names (`[Ljava.lang.String;`, `[I`) alike.
pub fn package_levels(type_name: &str) -> Vec<String> {
    let package = package_of(type_name);
    if package.starts_with('(') {
        return vec![package.to_string()];
    }
    package.match_indices('.').map(|(i, _)| package[..i].to_string()).chain([package.to_string()]).collect()
}

/// The package of a type, of an array's element type; primitive arrays and types in the
/// unnamed package get a name in parentheses.
pub fn package_of(type_name: &str) -> &str {
    let element = if let Some(descriptor) = type_name.strip_prefix('[') {
        match descriptor.trim_start_matches('[').strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
            Some(e) => e,
            None => return "(primitive arrays)",
        }
    } else {
        let element = type_name.trim_end_matches("[]");
        if element.len() < type_name.len() && PRIMITIVES.contains(&element) {
            return "(primitive arrays)";
        }
        element
    };
    match element.rfind('.') {
        Some(i) if i > 0 => &element[..i],
        _ => "(default package)",
    }
}

const PRIMITIVES: [&str; 8] = ["boolean", "byte", "char", "short", "int", "long", "float", "double"];

fn age_bucket(age: u32) -> String {
    if age <= 2 {
        return format!("{age} GCs");
    }
    let high = age.next_power_of_two();
    format!("{}–{high} GCs", high / 2 + 1)
}

impl FromStr for Classifier {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (name, arg) = s.split_once(':').map_or((s, None), |(n, a)| (n, Some(a)));
        let no_arg = |c: Classifier| match arg {
            None => Ok(c),
            Some(_) => Err(format!("classifier `{name}` takes no argument")),
        };
        match name {
            "type" => no_arg(Classifier::Type),
            "package" => no_arg(Classifier::Package),
            "allocation-site" => match arg {
                None => Ok(Classifier::AllocationSite { depth: 1 }),
                Some(d) => match d.parse() {
                    Ok(depth) if depth > 0 && depth <= 1024 => Ok(Classifier::AllocationSite { depth }),
                    _ => Err(format!("allocation-site depth must be an integer in 1..=1024, not `{d}`")),
                },
            },
            "domain-call-site" => match arg {
                Some(prefix) if !prefix.is_empty() => {
                    Ok(Classifier::DomainCallSite { prefix: prefix.into() })
                }
                _ => Err("domain-call-site needs a package prefix: domain-call-site:PREFIX".into()),
            },
            "thread" => no_arg(Classifier::Thread),
            "age" => no_arg(Classifier::Age),
            "object-kind" => no_arg(Classifier::ObjectKind),
            "root-kind" => no_arg(Classifier::RootKind),
            "node-type" => no_arg(Classifier::NodeType),
            "script" => no_arg(Classifier::Script),
            "detached" => no_arg(Classifier::Detached),
            "containing-structure" => no_arg(Classifier::ContainingStructure),
            "leaf" => no_arg(Classifier::Leaf),
            _ => Err(format!("unknown classifier `{name}` (known: {})", Classifier::SYNTAX)),
        }
    }
}

/// Parses a comma-separated classifier list such as `type,allocation-site:2`.
pub fn parse_list(s: &str) -> Result<Vec<Classifier>, String> {
    if s.trim().is_empty() {
        return Err(format!("no classifiers given (known: {})", Classifier::SYNTAX));
    }
    s.split(',').map(|c| c.trim().parse()).collect()
}

#[cfg(test)]
mod tests;
