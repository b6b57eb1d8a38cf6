//! Shallow sizes as the JVM counts them. The dump stores references with its id size (8) but a
//! 64-bit HotSpot heap with compressed oops uses 4-byte references and 12-byte object headers,
//! so sizes are computed from the JVM's layout, not from the dump's record lengths.

use crate::parse::{OBJECT, value_size};

/// The JVM's object layout. The default is 64-bit HotSpot with compressed oops and compressed
/// class pointers (heaps under 32 GB); [`Layout::uncompressed`] is for larger heaps or
/// `-XX:-UseCompressedOops`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Object header of an instance (mark word + class pointer).
    pub header: u64,
    /// Header of an array including its length field.
    pub array_header: u64,
    /// Size of a reference field or array element.
    pub reference: u64,
    /// Object alignment.
    pub align: u64,
    /// Size of a `java.lang.Class` instance before its static fields (the mirror's own fields,
    /// including those the JVM injects and the dump does not show).
    pub class_mirror: u64,
    /// Size of a native pointer the JVM injects into some classes (see [`Layout::hidden_bytes`]).
    pub pointer: u64,
    /// Whether the layout is to be read from each dump ([`crate::detect`]), these sizes being
    /// only the fallback. Layouts the user gives (the layout flags) are used as they are.
    pub detect: bool,
}

impl Default for Layout {
    fn default() -> Layout {
        // class_mirror: JDK 17's java.lang.Class has 14 reference fields and an int; the JVM
        // injects 2 native pointers, 2 ints and 3 references (klass, array_klass, oop_size,
        // static_oop_field_count, protection_domain, signers, source_file):
        // 12 + 17 × 4 + 16 + 12 = 108, aligned 112, which is also what fits
        // `jcmd GC.class_histogram` (docs/hprof.md).
        Layout {
            header: 12,
            array_header: 16,
            reference: 4,
            align: 8,
            class_mirror: 112,
            pointer: 8,
            detect: true,
        }
    }
}

/// JDK classes with `@Contended` fields or `@Contended` themselves: their instances end with
/// padding that a subclass's fields do not reuse.
pub fn is_contended(class_name: &str) -> bool {
    matches!(
        class_name,
        "java.lang.Thread"
            | "java.util.concurrent.atomic.Striped64$Cell"
            | "java.util.concurrent.ConcurrentHashMap$CounterCell"
            | "java.util.concurrent.Exchanger$Node"
            | "java.util.concurrent.ForkJoinPool"
    )
}

impl Layout {
    /// 64-bit HotSpot without compressed oops or class pointers (`-XX:-UseCompressedOops`
    /// before JDK 15, or also `-XX:-UseCompressedClassPointers`).
    pub fn uncompressed() -> Layout {
        // class_mirror: the fields of `default` with 8-byte references and a 16-byte header:
        // 16 + 17 × 8 + 16 + 12 = 180, aligned 184.
        Layout { header: 16, array_header: 24, reference: 8, class_mirror: 184, ..Layout::compressed() }
    }

    /// 64-bit HotSpot without compressed oops but with compressed class pointers: what
    /// `-XX:-UseCompressedOops` gives from JDK 15 on (JDK-8241825): a 12-byte header and
    /// 8-byte references.
    pub fn uncompressed_oops() -> Layout {
        // class_mirror: 12 + 17 × 8 + 16 + 12 = 176 (the histogram says 176).
        Layout { reference: 8, class_mirror: 176, ..Layout::compressed() }
    }

    /// 64-bit HotSpot with compressed oops, as given (not detected).
    pub fn compressed() -> Layout {
        Layout { detect: false, ..Layout::default() }
    }

    /// A 32-bit JVM (dumps with 4-byte ids): 8-byte headers (mark word, class pointer), 4-byte
    /// references and native pointers. Android's ART lays objects out the same way.
    pub fn bits32() -> Layout {
        // class_mirror: JDK 17's fields as in `default`, with 4-byte pointers:
        // 8 + 17 × 4 + 8 + 12 = 96.
        Layout { header: 8, array_header: 12, class_mirror: 96, pointer: 4, ..Layout::compressed() }
    }

    /// This layout as the user gave it: used as it is, never replaced by a detected one.
    pub fn given(self) -> Layout {
        Layout { detect: false, ..self }
    }

    /// Bytes a class adds to its instances that the dump does not show: fields the JVM injects
    /// (a native pointer is 8 bytes) and `@Contended` padding (2 × 128 bytes), for the JDK
    /// classes that have them. Subclasses inherit them along the superclass chain.
    pub fn hidden_bytes(&self, class_name: &str) -> u64 {
        let pointer = self.pointer;
        match class_name {
            "java.lang.ClassLoader" | "java.lang.Module" | "java.lang.invoke.MemberName" => pointer,
            "java.lang.invoke.ResolvedMethodName" => pointer + self.reference,
            "java.lang.invoke.MethodHandleNatives$CallSiteContext" => 2 * pointer,
            "java.lang.StackFrameInfo" => 2,
            _ if is_contended(class_name) => 2 * 128,
            _ => 0,
        }
    }

    pub fn align(&self, size: u64) -> u64 {
        size.div_ceil(self.align.max(1)) * self.align.max(1)
    }

    /// Size in the JVM of a field or array element of basic type `ty`.
    pub fn value(&self, ty: u8) -> u64 {
        if ty == OBJECT { self.reference } else { value_size(ty, 8).unwrap_or(0) as u64 }
    }

    /// An instance whose fields (along the whole superclass chain) have these types, plus
    /// `hidden` bytes (see [`Layout::hidden_bytes`]).
    pub fn instance(&self, field_types: impl Iterator<Item = u8>, hidden: u64) -> u64 {
        self.align(self.header + hidden + field_types.map(|ty| self.value(ty)).sum::<u64>())
    }

    pub fn array(&self, element_type: u8, length: u64) -> u64 {
        self.align(self.array_header + length * self.value(element_type))
    }

    /// A class's mirror (its `java.lang.Class` object), which holds the class's static fields.
    pub fn class_object(&self, static_types: impl Iterator<Item = u8>) -> u64 {
        let statics: u64 = static_types.map(|ty| self.value(ty)).sum();
        self.align(self.class_mirror + self.align(statics))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_oops_sizes() {
        let l = Layout::default();
        // LinkedList$Node: three references -> 12 + 12 = 24.
        assert_eq!(l.instance([OBJECT, OBJECT, OBJECT].into_iter(), 0), 24);
        // Integer: one int -> 16.
        assert_eq!(l.instance([10].into_iter(), 0), 16);
        // String (JDK 17): byte[] value, int hash, byte coder, boolean hashIsZero -> 12+4+4+1+1 = 24.
        assert_eq!(l.instance([OBJECT, 10, 8, 4].into_iter(), 0), 24);
        // Module: two references, a boolean... plus the injected native pointer.
        assert_eq!(l.instance([OBJECT; 4].into_iter(), l.hidden_bytes("java.lang.Module")), 40);
        assert_eq!(l.array(8, 0), 16);
        assert_eq!(l.array(8, 5), 24);
        assert_eq!(l.array(OBJECT, 3), 32);
        assert_eq!(l.array(11, 1), 24);
    }

    #[test]
    fn uncompressed_sizes() {
        let l = Layout::uncompressed();
        assert_eq!(l.instance([OBJECT, OBJECT, OBJECT].into_iter(), 0), 40);
        assert_eq!(l.array(OBJECT, 3), 48);
        let l = Layout::uncompressed_oops();
        assert_eq!(l.instance([OBJECT, OBJECT, OBJECT].into_iter(), 0), 40);
        assert_eq!(l.array(OBJECT, 3), 40);
        assert_eq!(l.array(8, 40), 56);
    }
}
