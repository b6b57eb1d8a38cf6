//! GC root kinds, as the HPROF root sub-records name them.

/// Why the JVM keeps an object alive directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RootKind {
    Unknown,
    JniGlobal,
    JniLocal,
    JavaFrame,
    NativeStack,
    StickyClass,
    ThreadBlock,
    MonitorUsed,
    ThreadObject,
}

impl RootKind {
    /// The root kind of a heap dump sub-record tag, if it is a root record.
    pub fn from_tag(tag: u8) -> Option<RootKind> {
        Some(match tag {
            0xFF => RootKind::Unknown,
            0x01 => RootKind::JniGlobal,
            0x02 => RootKind::JniLocal,
            0x03 => RootKind::JavaFrame,
            0x04 => RootKind::NativeStack,
            0x05 => RootKind::StickyClass,
            0x06 => RootKind::ThreadBlock,
            0x07 => RootKind::MonitorUsed,
            0x08 => RootKind::ThreadObject,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            RootKind::Unknown => "Unknown",
            RootKind::JniGlobal => "JNI Global",
            RootKind::JniLocal => "JNI Local",
            RootKind::JavaFrame => "Java Frame",
            RootKind::NativeStack => "Native Stack",
            RootKind::StickyClass => "Sticky Class",
            RootKind::ThreadBlock => "Thread Block",
            RootKind::MonitorUsed => "Monitor Used",
            RootKind::ThreadObject => "Thread Object",
        }
    }
}
