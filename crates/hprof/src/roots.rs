//! GC root kinds as the HPROF root sub-records name them, in the one root-kind vocabulary.

use memcity_heapgraph::RootKind;

/// The root kind of a heap dump sub-record tag, if it is a root record.
pub fn from_tag(tag: u8) -> Option<RootKind> {
    Some(match tag {
        0xFF => RootKind::Other,
        0x01 => RootKind::Jni,
        0x02 => RootKind::JniLocal,
        0x03 => RootKind::JavaFrame,
        0x04 => RootKind::NativeStack,
        0x05 => RootKind::StickyClass,
        0x06 => RootKind::ThreadBlock,
        0x07 => RootKind::MonitorUsed,
        0x08 => RootKind::ThreadObject,
        // Android's (ART) extra kinds, as LeakCanary's shark reads them: interned strings,
        // objects awaiting finalization or reference cleanup, the VM's own: held by the runtime.
        0x89 | 0x8A | 0x8C | 0x8D => RootKind::Internal,
        // Held by the debugger; unreachable (ART marks objects it keeps for the dump only).
        0x8B | 0x90 => RootKind::Other,
        // A JNI monitor: an object whose lock native code holds.
        0x8E => RootKind::MonitorUsed,
        _ => return None,
    })
}
