//! GC root kinds, one vocabulary for every heap source: the JVM's (HPROF root records and
//! traces), and the engines' roots of JavaScript and Python heaps.

use serde::{Deserialize, Serialize};

/// Why a runtime keeps an object alive directly. The first four are the trace format's
/// (their serialized names and binary codes are part of that format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RootKind {
    /// A static field (JVM), as traces name it.
    Static,
    /// A local variable of a running method.
    Local,
    /// A JNI global reference.
    Jni,
    Other,
    JniLocal,
    JavaFrame,
    NativeStack,
    StickyClass,
    ThreadBlock,
    MonitorUsed,
    ThreadObject,
    /// A module or global object's variable (JavaScript, Python).
    Global,
    /// A frame of a running function (JavaScript, Python).
    StackFrame,
    /// The engine's own roots (V8's strong roots, builtins; the interpreter state).
    Internal,
    /// Handles the embedder holds into the engine (V8's global, eternal and traced handles).
    Handle,
    /// The embedder's own object graph (Node's environment, Blink's DOM roots).
    Embedder,
}

impl RootKind {
    /// Every kind, in the order of their codes (the binary trace format uses the first four).
    pub const ALL: [RootKind; 16] = [
        RootKind::Static,
        RootKind::Local,
        RootKind::Jni,
        RootKind::Other,
        RootKind::JniLocal,
        RootKind::JavaFrame,
        RootKind::NativeStack,
        RootKind::StickyClass,
        RootKind::ThreadBlock,
        RootKind::MonitorUsed,
        RootKind::ThreadObject,
        RootKind::Global,
        RootKind::StackFrame,
        RootKind::Internal,
        RootKind::Handle,
        RootKind::Embedder,
    ];

    /// The name shown in the city and in retainer paths.
    pub fn label(self) -> &'static str {
        match self {
            RootKind::Static => "Static Field",
            RootKind::Local => "Local Variable",
            RootKind::Jni => "JNI Global",
            RootKind::Other => "Other",
            RootKind::JniLocal => "JNI Local",
            RootKind::JavaFrame => "Java Frame",
            RootKind::NativeStack => "Native Stack",
            RootKind::StickyClass => "Sticky Class",
            RootKind::ThreadBlock => "Thread Block",
            RootKind::MonitorUsed => "Monitor Used",
            RootKind::ThreadObject => "Thread Object",
            RootKind::Global => "Global",
            RootKind::StackFrame => "Stack Frame",
            RootKind::Internal => "VM Internal",
            RootKind::Handle => "Handle",
            RootKind::Embedder => "Embedder",
        }
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// The set of root kinds that hold one object directly (an object can be rooted several times).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)] // so that a table of them can start as zeroed memory ([`root_sets`])
pub struct RootSet(u16);

impl RootSet {
    pub const NONE: RootSet = RootSet(0);

    pub fn with(self, kind: RootKind) -> RootSet {
        RootSet(self.0 | kind.bit())
    }

    pub fn union(self, other: RootSet) -> RootSet {
        RootSet(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds in code order.
    pub fn kinds(self) -> impl Iterator<Item = RootKind> {
        RootKind::ALL.into_iter().filter(move |k| self.0 & k.bit() != 0)
    }

    /// "Static Field + JNI Global", or "not a root".
    pub fn label(self) -> String {
        if self.is_empty() {
            return "not a root".into();
        }
        self.kinds().map(RootKind::label).collect::<Vec<_>>().join(" + ")
    }
}

impl FromIterator<RootKind> for RootSet {
    fn from_iter<I: IntoIterator<Item = RootKind>>(kinds: I) -> RootSet {
        kinds.into_iter().fold(RootSet::NONE, RootSet::with)
    }
}

/// The root kinds of every object: `roots` pairs an object with one kind that holds it.
pub fn root_sets(object_count: usize, roots: impl IntoIterator<Item = (u32, RootKind)>) -> Vec<RootSet> {
    let mut sets = no_roots(object_count);
    for (o, kind) in roots {
        sets[o as usize] = sets[o as usize].with(kind);
    }
    sets
}

/// `n` empty sets in memory the allocator zeroes: a fresh region's pages that no root lands on
/// are never written, so they cost no page (a dump's roots are thousands among millions of
/// objects; writing `RootSet::NONE` into each was a fifth of a second per 100 M objects).
fn no_roots(n: usize) -> Vec<RootSet> {
    let mut zeros = std::mem::ManuallyDrop::new(vec![0u16; n]);
    // SAFETY: `RootSet` is a transparent `u16` (same size, alignment and a valid value for
    // every bit pattern), so the buffer with its length and capacity is a `Vec<RootSet>`'s,
    // freed with the same layout; the `Vec<u16>` is not dropped.
    unsafe { Vec::from_raw_parts(zeros.as_mut_ptr().cast::<RootSet>(), zeros.len(), zeros.capacity()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_all_and_sets_label_in_code_order() {
        for (code, kind) in RootKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, code);
        }
        let set: RootSet = [RootKind::StickyClass, RootKind::Jni, RootKind::Jni].into_iter().collect();
        assert_eq!(set.label(), "JNI Global + Sticky Class");
        assert_eq!(RootSet::NONE.label(), "not a root");
        assert_eq!(root_sets(3, [(2, RootKind::Local), (2, RootKind::Global)])[2].kinds().count(), 2);
    }

    #[test]
    fn trace_names_are_kebab_case() {
        assert_eq!(serde_json::to_string(&RootKind::StickyClass).unwrap(), "\"sticky-class\"");
        assert_eq!(serde_json::from_str::<RootKind>("\"static\"").unwrap(), RootKind::Static);
    }
}
