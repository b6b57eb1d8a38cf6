//! Classifiers: each puts an object into one group per level (hierarchical ones, like Package,
//! give a chain of levels). Grouping applies them in the user's order (see `group`).

use std::str::FromStr;

use crate::trace::RootKind;

/// One way to group objects (DESIGN §7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classifier {
    Type,
    /// The package as a chain of levels: `java` → `java.util`.
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
    /// The kind of GC root that holds the object directly, if any.
    RootKind,
}

/// What a classifier needs to know about one object.
#[derive(Debug, Clone, Copy)]
pub struct ObjectFacts<'a> {
    pub type_name: &'a str,
    pub site: &'a [String],
    pub thread: &'a str,
    pub age: u32,
    pub len: Option<u64>,
    pub root: Option<RootKind>,
}

impl Classifier {
    /// The names accepted on the command line, for help texts.
    pub const SYNTAX: &'static str = "type, package, allocation-site[:DEPTH], domain-call-site:PREFIX, thread, age, object-kind, root-kind";

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
        }
    }

    /// The object's group names on this classifier's levels, outermost first.
    pub fn levels(&self, o: &ObjectFacts) -> Vec<String> {
        match self {
            Classifier::Type => vec![o.type_name.to_string()],
            Classifier::Package => package_levels(o.type_name),
            Classifier::AllocationSite { depth } => {
                let frames = &o.site[..o.site.len().min(*depth)];
                vec![if frames.is_empty() { "(unknown site)".into() } else { frames.join(" ← ") }]
            }
            Classifier::DomainCallSite { prefix } => {
                let frame = o.site.iter().find(|f| f.starts_with(prefix.as_str()));
                vec![frame.cloned().unwrap_or_else(|| "(no domain frame)".into())]
            }
            Classifier::Thread => vec![o.thread.to_string()],
            Classifier::Age => vec![age_bucket(o.age)],
            Classifier::ObjectKind => vec![
                match o.len {
                    None => "instance",
                    Some(n) if n < 255 => "small array",
                    Some(_) => "big array",
                }
                .into(),
            ],
            Classifier::RootKind => vec![o.root.map_or("not a root", RootKind::label).into()],
        }
    }
}

fn package_levels(type_name: &str) -> Vec<String> {
    let element = type_name.trim_end_matches("[]");
    match element.rfind('.') {
        None => vec!["(default package)".into()],
        Some(end) => {
            let package = &element[..end];
            package
                .match_indices('.')
                .map(|(i, _)| package[..i].to_string())
                .chain([package.to_string()])
                .collect()
        }
    }
}

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
                    Ok(depth) if depth > 0 => Ok(Classifier::AllocationSite { depth }),
                    _ => Err(format!("allocation-site depth must be a positive integer, not `{d}`")),
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
            _ => Err(format!("unknown classifier `{name}` (known: {})", Classifier::SYNTAX)),
        }
    }
}

/// Parses a comma-separated classifier list such as `type,allocation-site:2`.
pub fn parse_list(s: &str) -> Result<Vec<Classifier>, String> {
    let list: Vec<Classifier> = s.split(',').map(|c| c.trim().parse()).collect::<Result<_, _>>()?;
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(type_name: &str) -> ObjectFacts<'_> {
        ObjectFacts { type_name, site: &[], thread: "main", age: 0, len: None, root: None }
    }

    #[test]
    fn each_classifier_names_its_levels() {
        let site = ["app.Cache.put".to_string(), "lib.Util.run".into(), "app.Main.main".into()];
        let o = ObjectFacts {
            site: &site,
            age: 6,
            len: Some(300),
            root: Some(RootKind::Jni),
            ..facts("java.util.HashMap$Node[]")
        };
        assert_eq!(Classifier::Type.levels(&o), ["java.util.HashMap$Node[]"]);
        assert_eq!(Classifier::Package.levels(&o), ["java", "java.util"]);
        assert_eq!(Classifier::Package.levels(&facts("int[]")), ["(default package)"]);
        assert_eq!(Classifier::AllocationSite { depth: 2 }.levels(&o), ["app.Cache.put ← lib.Util.run"]);
        assert_eq!(Classifier::DomainCallSite { prefix: "lib.".into() }.levels(&o), ["lib.Util.run"]);
        assert_eq!(Classifier::Age.levels(&o), ["5–8 GCs"]);
        assert_eq!(Classifier::ObjectKind.levels(&o), ["big array"]);
        assert_eq!(Classifier::RootKind.levels(&o), ["JNI"]);
        assert_eq!(Classifier::Thread.levels(&o), ["main"]);
    }

    #[test]
    fn parses_lists_and_rejects_unknown_names() {
        assert_eq!(
            parse_list("type, allocation-site:3").unwrap(),
            [Classifier::Type, Classifier::AllocationSite { depth: 3 }]
        );
        assert!(parse_list("type,size").unwrap_err().contains("unknown classifier `size`"));
        assert!(parse_list("allocation-site:0").unwrap_err().contains("positive integer"));
        assert!(parse_list("domain-call-site").unwrap_err().contains("needs a package prefix"));
        assert!(parse_list("type:1").unwrap_err().contains("takes no argument"));
    }
}
