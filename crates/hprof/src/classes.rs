//! The class table of a dump: names from LOAD_CLASS + UTF8 records, and per class the layout of
//! its instances flattened along the superclass chain.

use crate::error::Fault;
use crate::ids::IdMap;
use crate::layout::{Layout, is_contended};
use crate::parse::{OBJECT, RawDump, value_size};

/// The element types of primitive arrays and their class names.
const PRIMITIVE_ARRAYS: [(u8, &str); 8] =
    [(4, "[Z"), (5, "[C"), (6, "[F"), (7, "[D"), (8, "[B"), (9, "[S"), (10, "[I"), (11, "[J")];

/// What pass 2 needs to know about a class's instances.
#[derive(Debug, Clone, Default)]
pub struct InstanceLayout {
    /// Offsets of reference fields inside an INSTANCE_DUMP's field bytes.
    pub references: Vec<u32>,
    /// The name string id of each of those fields.
    pub reference_names: Vec<u64>,
    /// Length of the field bytes in the dump.
    pub dump_bytes: usize,
    /// Shallow size of an instance in the JVM.
    pub size: u64,
}

/// All classes of one dump. Classes with a CLASS_DUMP record come first, in record order, at the
/// index of their record; classes the dump names only implicitly (primitive arrays, and
/// `java.lang.Class` in a dump without it) follow.
#[derive(Debug, Clone, Default)]
pub struct ClassTable {
    /// Binary names with dots, arrays as the JVM writes them (`[Ljava.lang.String;`, `[B`).
    pub names: Vec<String>,
    pub instances: Vec<InstanceLayout>,
    /// Class object id -> class index.
    pub by_id: IdMap<u32>,
    /// Class index of `java.lang.Class`, the type of class objects.
    pub class_class: u32,
    /// Class index of each primitive array type, by element type code (index = code).
    pub primitive_arrays: [u32; 12],
}

impl ClassTable {
    pub fn build(raw: &RawDump<'_>, layout: &Layout) -> Result<ClassTable, Fault> {
        let mut table = ClassTable::default();
        for class in &raw.classes {
            if table.by_id.insert(class.id, table.names.len() as u32).is_some() {
                return Err(Fault::new(
                    class.offset,
                    format!("duplicate class dump for id 0x{:x}", class.id),
                ));
            }
            table.names.push(class_name(raw, class.id));
        }
        let jdk = crate::jdk::Jdk::of(raw);
        for class in &raw.classes {
            table.instances.push(instance_layout(raw, &table, class.id, layout, &jdk)?);
        }
        table.class_class = table.find_or_add("java.lang.Class");
        for (code, name) in PRIMITIVE_ARRAYS {
            table.primitive_arrays[code as usize] = table.find_or_add(name);
        }
        Ok(table)
    }

    fn find_or_add(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                self.names.push(name.to_string());
                self.instances.push(InstanceLayout::default());
                (self.names.len() - 1) as u32
            }
        }
    }
}

/// The class's name from LOAD_CLASS + UTF8 as the JVM's histogram shows it; a class the dump
/// does not name gets its id.
fn class_name(raw: &RawDump<'_>, id: u64) -> String {
    raw.class_names
        .get(&id)
        .and_then(|name_id| raw.strings.get(name_id))
        .map(|bytes| external_name(&String::from_utf8_lossy(bytes)))
        .unwrap_or_else(|| format!("(unnamed class 0x{id:x})"))
}

/// `java/util/HashMap` → `java.util.HashMap`. Hidden classes (lambdas) are written as
/// `Foo$$Lambda$1+0x0000000800c01000`; the JVM shows them as `Foo$$Lambda$1/0x…`.
pub fn external_name(internal: &str) -> String {
    let name = internal.replace('/', ".");
    match name.rfind("+0x") {
        Some(i) if name[i + 3..].chars().all(|c| c.is_ascii_hexdigit()) && name.len() > i + 3 => {
            format!("{}/{}", &name[..i], &name[i + 1..])
        }
        _ => name,
    }
}

/// Flattens instance fields along the superclass chain. HPROF writes a class's own fields first,
/// then its superclass's, and so on.
fn instance_layout(
    raw: &RawDump<'_>,
    table: &ClassTable,
    id: u64,
    layout: &Layout,
    jdk: &crate::jdk::Jdk,
) -> Result<InstanceLayout, Fault> {
    let by_id = &table.by_id;
    // The chain from the class up to java.lang.Object.
    let mut chain = vec![by_id[&id] as usize];
    loop {
        let class = &raw.classes[*chain.last().expect("not empty")];
        if class.super_id == 0 {
            break;
        }
        match by_id.get(&class.super_id) {
            Some(&i) if chain.len() <= raw.classes.len() => chain.push(i as usize),
            Some(_) => {
                return Err(Fault::new(
                    class.offset,
                    format!("the superclass chain of class 0x{id:x} is a cycle"),
                ));
            }
            None => {
                return Err(Fault::new(
                    class.offset,
                    format!(
                        "class 0x{:x} has superclass 0x{:x}, which the dump does not contain",
                        class.id, class.super_id
                    ),
                ));
            }
        }
    }
    let mut result = InstanceLayout::default();
    // HPROF writes a class's own fields first, then its superclass's, and so on.
    for &index in &chain {
        let class = &raw.classes[index];
        for (k, &ty) in class.fields.iter().enumerate() {
            if ty == OBJECT {
                result.references.push(result.dump_bytes as u32);
                result.reference_names.push(class.field_names.get(k).copied().unwrap_or(0));
            }
            result.dump_bytes += value_size(ty, raw.id_size).unwrap_or(0);
        }
    }
    // The JVM lays out superclass fields first.
    let mut size = layout.header;
    for &index in chain.iter().rev() {
        let name = &table.names[index];
        let fields = &raw.classes[index].fields;
        let hidden = jdk.hidden_bytes(layout, name);
        if jdk.packed_fields {
            size += fields.iter().map(|&ty| layout.value(ty)).sum::<u64>() + hidden;
            if is_contended(name) {
                size = layout.align(size);
            }
        } else {
            size = crate::jdk::old_field_block(size, fields, hidden, layout);
        }
    }
    result.size = layout.align(size);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::external_name;

    #[test]
    fn names_as_the_histogram_shows_them() {
        assert_eq!(external_name("java/util/HashMap$Node"), "java.util.HashMap$Node");
        assert_eq!(external_name("[Ljava/lang/String;"), "[Ljava.lang.String;");
        assert_eq!(external_name("Tiny$$Lambda$1+0x00007f4749000a08"), "Tiny$$Lambda$1/0x00007f4749000a08");
        assert_eq!(external_name("a/B+0xZZ"), "a.B+0xZZ");
        assert_eq!(external_name("a/B+0x"), "a.B+0x");
    }
}
