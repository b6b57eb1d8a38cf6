//! Classifiers: which group (leaf of the grouping tree) each heap object belongs to. A leaf's
//! path is the concatenation of each classifier's levels, in the order the user gave them.

use crate::roots::RootKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classifier {
    /// The class's package, one level per package name prefix (`java` → `java.util`).
    Package,
    /// The class (arrays as the JVM names them, `[Ljava.lang.String;`).
    Type,
    /// Direct GC root kind of the object, or "Not a root".
    RootKind,
}

impl Classifier {
    /// Parses a comma-separated list such as `package,type`.
    pub fn parse_list(text: &str) -> Result<Vec<Classifier>, String> {
        let list: Vec<Classifier> = text
            .split(',')
            .map(|word| match word.trim() {
                "package" => Ok(Classifier::Package),
                "type" => Ok(Classifier::Type),
                "root-kind" => Ok(Classifier::RootKind),
                other => Err(format!("unknown classifier {other:?} (known: package, type, root-kind)")),
            })
            .collect::<Result<_, _>>()?;
        if list.is_empty() {
            return Err("no classifiers given".into());
        }
        Ok(list)
    }

    pub fn role(self) -> &'static str {
        match self {
            Classifier::Package => "Package",
            Classifier::Type => "Type",
            Classifier::RootKind => "Root Kind",
        }
    }
}

/// One level of a leaf's path: the role of the classifier and the group's value there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level {
    pub role: &'static str,
    pub value: String,
}

/// The path of the leaf for an object of class `class_name` with the given direct root kinds
/// (sorted, deduplicated).
pub fn leaf_path(classifiers: &[Classifier], class_name: &str, roots: &[RootKind]) -> Vec<Level> {
    let mut path = Vec::new();
    for &classifier in classifiers {
        let role = classifier.role();
        match classifier {
            Classifier::Type => path.push(Level { role, value: class_name.to_string() }),
            Classifier::Package => {
                let package = package_of(class_name);
                let mut end = 0;
                while end < package.len() {
                    end = package[end..].find('.').map_or(package.len(), |i| end + i);
                    path.push(Level { role, value: package[..end].to_string() });
                    end += 1;
                }
            }
            Classifier::RootKind => {
                let value = if roots.is_empty() {
                    "Not a root".to_string()
                } else {
                    roots.iter().map(|r| r.name()).collect::<Vec<_>>().join(" + ")
                };
                path.push(Level { role, value });
            }
        }
    }
    path
}

/// The package of a class, of an array's element class; primitive arrays and classes in the
/// unnamed package get a name in parentheses.
pub fn package_of(class_name: &str) -> &str {
    let element = class_name.trim_start_matches('[');
    let element = if element.len() < class_name.len() {
        match element.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
            Some(e) => e,
            None => return "(primitive arrays)",
        }
    } else {
        element
    };
    match element.rfind('.') {
        Some(i) => &element[..i],
        None => "(default package)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_of_classes_and_arrays() {
        assert_eq!(package_of("java.util.HashMap$Node"), "java.util");
        assert_eq!(package_of("[Ljava.lang.String;"), "java.lang");
        assert_eq!(package_of("[[I"), "(primitive arrays)");
        assert_eq!(package_of("LeakApp$Person"), "(default package)");
    }

    #[test]
    fn paths_follow_classifier_order() {
        let list = Classifier::parse_list("package,type").unwrap();
        let path = leaf_path(&list, "java.util.HashMap", &[]);
        let values: Vec<&str> = path.iter().map(|l| l.value.as_str()).collect();
        assert_eq!(values, ["java", "java.util", "java.util.HashMap"]);
        let list = Classifier::parse_list("type,root-kind").unwrap();
        let path = leaf_path(&list, "A", &[RootKind::JniGlobal, RootKind::StickyClass]);
        assert_eq!(path[1].value, "JNI Global + Sticky Class");
        assert_eq!(leaf_path(&list, "A", &[])[1].value, "Not a root");
    }

    #[test]
    fn rejects_unknown_classifiers() {
        assert!(Classifier::parse_list("type,site").unwrap_err().contains("\"site\""));
    }
}
