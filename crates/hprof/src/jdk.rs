//! What the dump's JDK lays out differently, read from the classes it has. HotSpot's field
//! layout changed in JDK 15 (JDK-8237767), `ClassLoader` gained an injected native pointer and
//! `@Contended` padding came with JDK 8: each applies only to the JDKs that have it.

use crate::layout::{Layout, is_contended};
use crate::parse::{OBJECT, RawDump};

/// The JDK-dependent parts of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jdk {
    /// JDK 15's field layout: fields packed along the whole superclass chain. Before, each
    /// class's fields start where its superclass's end, rounded up to a reference, longs first.
    pub packed_fields: bool,
    /// JDK 8 or later: `ClassLoader`'s injected pointer, `@Contended` padding.
    pub jdk8: bool,
    /// The HPROF agent leaves out `Throwable.backtrace` (JVMTI hides it), a reference every
    /// throwable has.
    pub hidden_backtrace: bool,
}

impl Jdk {
    /// Read from the dump: Android's format version, `String.hashIsZero` (JDK 13 on) for the packed layout,
    /// `Thread.threadLocalRandomSeed` or a `java.lang.Module` class (JDK 8, 9 on) for JDK 8.
    /// A dump without `String` or `Thread` (hand-made ones) is taken as a recent JDK.
    pub fn of(raw: &RawDump<'_>) -> Jdk {
        // Android (`JAVA PROFILE 1.0.3`): ART packs each class's fields after its superclass's
        // (references first, gaps filled), closer to the packed rule; none of HotSpot's
        // injected fields or padding.
        if raw.version == b'3' {
            return Jdk { packed_fields: true, jdk8: false, hidden_backtrace: false };
        }
        let mut jdk = Jdk { packed_fields: true, jdk8: true, hidden_backtrace: false };
        let mut module = false;
        let mut thread_seed = None;
        for class in &raw.classes {
            let Some(name) = raw.class_names.get(&class.id).and_then(|n| raw.strings.get(n)) else {
                continue;
            };
            let has_field = |wanted: &[u8]| {
                class.field_names.iter().any(|id| raw.strings.get(id).is_some_and(|n| *n == wanted))
            };
            // HotSpot writes `java/lang/String`, the HPROF agent `java.lang.String`.
            match String::from_utf8_lossy(name).replace('/', ".").as_str() {
                "java.lang.String" => jdk.packed_fields = has_field(b"hashIsZero"),
                "java.lang.Thread" => thread_seed = Some(has_field(b"threadLocalRandomSeed")),
                "java.lang.Module" => module = true,
                "java.lang.Throwable" => jdk.hidden_backtrace = raw.agent && !has_field(b"backtrace"),
                _ => {}
            }
        }
        if let Some(seed) = thread_seed {
            jdk.jdk8 = seed || module;
        }
        jdk
    }

    /// Bytes a class adds to its instances that the dump does not show, on this JDK.
    pub fn hidden_bytes(&self, layout: &Layout, class_name: &str) -> u64 {
        let since_jdk8 = class_name == "java.lang.ClassLoader" || is_contended(class_name);
        if self.hidden_backtrace && class_name == "java.lang.Throwable" {
            return layout.reference;
        }
        if since_jdk8 && !self.jdk8 { 0 } else { layout.hidden_bytes(class_name) }
    }
}

/// Where a class's fields end in the layout before JDK 15, its superclass's ending at `start`:
/// the block starts at a reference boundary; longs and doubles come first (at 8 bytes), with a
/// smaller field filling the gap before them (CompactFields; a compressed reference too), then
/// ints, shorts, bytes, and the references last. `hidden` bytes (injected pointers, padding) are laid out as longs.
pub fn old_field_block(start: u64, types: &[u8], hidden: u64, layout: &Layout) -> u64 {
    let oop = layout.reference.max(1);
    let mut offset = start.div_ceil(oop) * oop;
    let (mut n8, mut n4, mut n2, mut n1, mut refs) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for &ty in types {
        match ty {
            OBJECT => refs += 1,
            7 | 11 => n8 += 1,
            6 | 10 => n4 += 1,
            5 | 9 => n2 += 1,
            _ => n1 += 1,
        }
    }
    let mut extra = hidden % 8;
    n8 += hidden / 8;
    if extra >= 4 {
        n4 += 1;
        extra -= 4;
    }
    n2 += extra / 2;
    n1 += extra % 2;
    if n8 > 0 && !offset.is_multiple_of(8) {
        let gap_end = offset.div_ceil(8) * 8;
        if n4 > 0 && offset + 4 <= gap_end {
            n4 -= 1;
            offset += 4;
        }
        while n2 > 0 && offset + 2 <= gap_end {
            n2 -= 1;
            offset += 2;
        }
        while n1 > 0 && offset < gap_end {
            n1 -= 1;
            offset += 1;
        }
        // With compressed oops a reference fills it too.
        if refs > 0 && oop == 4 && offset.is_multiple_of(4) && offset + 4 <= gap_end {
            refs -= 1;
        }
        offset = gap_end;
    }
    offset += 8 * n8 + 4 * n4 + 2 * n2 + n1;
    if refs > 0 {
        offset = offset.div_ceil(oop) * oop + oop * refs;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_layouts_start_each_class_at_a_reference_boundary() {
        // JDK 6, 32-bit: A { byte }, B extends A { byte }, C extends B { byte } are 16, 16, 24.
        let l = Layout::bits32();
        let a = old_field_block(l.header, &[8], 0, &l);
        let b = old_field_block(a, &[8], 0, &l);
        let c = old_field_block(b, &[8], 0, &l);
        assert_eq!([l.align(a), l.align(b), l.align(c)], [16, 16, 24]);
        // 64-bit without compressed oops: 24, 32, 40.
        let l = Layout::uncompressed();
        let a = old_field_block(l.header, &[8], 0, &l);
        let b = old_field_block(a, &[8], 0, &l);
        let c = old_field_block(b, &[8], 0, &l);
        assert_eq!([l.align(a), l.align(b), l.align(c)], [24, 32, 40]);
        // An int fills the gap before a long: 12 + 4 + 8 = 24 with compressed oops.
        let l = Layout::compressed();
        assert_eq!(old_field_block(12, &[11, 10], 0, &l), 24);
        // References last, at their boundary: 16 + 1 → 24 + 8.
        assert_eq!(old_field_block(16, &[OBJECT, 4], 0, &Layout::uncompressed()), 32);
        // A compressed reference fills it when there is no int: 12 + 4 + 8 = 24.
        assert_eq!(old_field_block(12, &[11, OBJECT], 0, &l), 24);
    }
}
