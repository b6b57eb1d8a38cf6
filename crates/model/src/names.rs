//! Names as people read them. A JVM dump names array classes by their descriptors (`[B`,
//! `[Ljava.lang.Object;`); everything shown — labels, panes, CLI text, SVG and HTML — uses the
//! Java source form instead (`byte[]`, `java.lang.Object[]`). Group keys keep the descriptor,
//! so keys given on the command line, baselines and saved histories keep matching.

/// A class name as Java source writes it: `[Ljava.lang.Object;` → `java.lang.Object[]`,
/// `[[I` → `int[][]`; other names stay.
pub fn source_name(name: &str) -> String {
    let dims = name.bytes().take_while(|&b| b == b'[').count();
    if dims == 0 {
        return name.to_string();
    }
    let element = &name[dims..];
    let base = match element {
        "Z" => "boolean",
        "B" => "byte",
        "C" => "char",
        "S" => "short",
        "I" => "int",
        "J" => "long",
        "F" => "float",
        "D" => "double",
        _ => match element.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
            Some(class) if !class.is_empty() => class,
            _ => return name.to_string(),
        },
    };
    format!("{base}{}", "[]".repeat(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_classes_take_their_source_names() {
        assert_eq!(source_name("[Ljava.lang.Object;"), "java.lang.Object[]");
        assert_eq!(source_name("[Ljava.util.HashMap$Node;"), "java.util.HashMap$Node[]");
        assert_eq!(source_name("[[I"), "int[][]");
        assert_eq!(source_name("[B"), "byte[]");
        assert_eq!(source_name("[D"), "double[]");
        assert_eq!(source_name("java.util.HashMap"), "java.util.HashMap");
        assert_eq!(source_name("[Q"), "[Q", "an unknown element type stays as written");
        assert_eq!(source_name("[L;"), "[L;", "no class name");
        assert_eq!(source_name("(array)"), "(array)", "other languages' names stay");
    }
}
