//! The trace format: JSON Lines, one event per line (see docs/trace-format.md).

use std::io::{BufRead, Read};

use serde::{Deserialize, Serialize};

mod binary;
mod interned;
pub use binary::{
    MAGIC, events_to_binary, is_binary_trace, read_binary_into, read_binary_trace, write_binary_trace,
};
pub use interned::{Interner, Op, Strings, Trace};

/// One memory event of a running program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "lowercase", deny_unknown_fields)]
pub enum Event {
    /// A new object. `len` is set for arrays; `site` is the call chain, innermost frame first.
    Alloc {
        id: u64,
        #[serde(rename = "type")]
        type_name: String,
        size: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        len: Option<u64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "bounded_site")]
        site: Vec<String>,
        #[serde(default = "main_thread")]
        thread: String,
    },
    /// `from.field = to`; `to = null` clears the field.
    Ptr { from: u64, field: String, to: Option<u64> },
    /// `id` becomes a GC root of `kind`, known as `name`.
    Root { id: u64, kind: RootKind, name: String },
    /// The root `name` no longer holds `id`.
    Unroot { id: u64, name: String },
    /// A garbage collection from `start` to `end` (ms): the heap is marked and swept and a
    /// snapshot is recorded.
    Gc { id: u64, start: u64, end: u64 },
}

fn main_thread() -> String {
    "main".into()
}

/// The most frames one allocation site may have. JVMs record 1024 by default
/// (`MaxJavaStackTraceDepth`), profilers 2048; a longer chain is more likely a broken or hostile
/// trace, whose frames would each cost a string in memory.
pub const MAX_SITE_FRAMES: usize = 4096;
/// The longest line of a JSON Lines trace: an event with a site of [`MAX_SITE_FRAMES`] frames
/// of 1,000 characters each still fits.
pub const MAX_LINE_BYTES: usize = 4 << 20;
/// The most frames all distinct sites of a trace may have together: about 400 MiB of strings at
/// worst (empty frames), where a real trace has well under a million.
pub const MAX_TRACE_FRAMES: usize = 1 << 23;

/// A site's frames, refused beyond [`MAX_SITE_FRAMES`] while they are read (not after a huge
/// list was built).
fn bounded_site<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct Frames;
    impl<'de> serde::de::Visitor<'de> for Frames {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of at most {MAX_SITE_FRAMES} frame names")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut frames = Vec::new();
            while let Some(frame) = seq.next_element::<String>()? {
                if frames.len() == MAX_SITE_FRAMES {
                    return Err(serde::de::Error::custom(format!(
                        "a site has more than {MAX_SITE_FRAMES} frames"
                    )));
                }
                frames.push(frame);
            }
            Ok(frames)
        }
    }
    d.deserialize_seq(Frames)
}

/// Counts the frames of the distinct sites interned so far, refusing a trace beyond
/// [`MAX_TRACE_FRAMES`].
#[derive(Debug, Default)]
pub(crate) struct FrameBudget {
    sites: usize,
    frames: usize,
}

impl FrameBudget {
    /// Call after interning: charges the sites added since the last call.
    pub(crate) fn check(&mut self, strings: &Strings) -> Result<(), String> {
        for site in &strings.sites.values[self.sites..] {
            self.frames += site.len();
        }
        self.sites = strings.sites.values.len();
        if self.frames > MAX_TRACE_FRAMES {
            return Err(format!(
                "the sites of this trace have more than {MAX_TRACE_FRAMES} frames together: refused"
            ));
        }
        Ok(())
    }
}

pub use memcity_heapgraph::RootKind;

/// A bad trace: what is wrong and on which line (1-based; a record number in a binary trace).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: {unit} {line}: {message}")]
pub struct TraceError {
    pub source_name: String,
    /// "line" or "record".
    pub unit: &'static str,
    pub line: usize,
    pub message: String,
}

/// Where a trace reader puts what it reads: the strings it interns and each op with its line.
/// A `Trace` collects them; `replay::Streaming` replays them as they come.
pub trait OpSink {
    fn strings(&mut self) -> &mut Strings;
    fn op(&mut self, line: usize, op: Op) -> Result<(), TraceError>;
}

impl OpSink for Trace {
    fn strings(&mut self) -> &mut Strings {
        &mut self.strings
    }
    fn op(&mut self, line: usize, op: Op) -> Result<(), TraceError> {
        self.ops.push(op);
        self.lines.push(line);
        Ok(())
    }
}

/// Reads a JSON Lines trace; blank lines are skipped. Checks only the syntax and the fields of
/// each event; `replay` checks ids (dangling, duplicate) with the same line numbers.
pub fn read_trace(input: impl BufRead, source_name: &str) -> Result<Trace, TraceError> {
    let mut trace = Trace::default();
    read_trace_into(input, source_name, &mut trace)?;
    Ok(trace)
}

/// [`read_trace`] into any sink.
pub fn read_trace_into(
    mut input: impl BufRead,
    source_name: &str,
    sink: &mut impl OpSink,
) -> Result<(), TraceError> {
    let mut budget = FrameBudget::default();
    let mut line = Vec::new();
    for i in 0.. {
        let error = |message: String| TraceError {
            source_name: source_name.into(),
            unit: "line",
            line: i + 1,
            message,
        };
        line.clear();
        // Bounded: serde buffers a whole event (its tag is inside) before checking its fields.
        let read = (&mut input).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line);
        if read.map_err(|e| error(format!("cannot read: {e}")))? == 0 {
            break;
        }
        if line.len() > MAX_LINE_BYTES {
            return Err(error(format!("the line is longer than {MAX_LINE_BYTES} bytes")));
        }
        let line = std::str::from_utf8(&line).map_err(|e| error(format!("cannot read: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let event = serde_json::from_str(line).map_err(|e| error(format!("bad event: {e}")))?;
        let op = sink.strings().intern(&event);
        budget.check(sink.strings()).map_err(error)?;
        sink.op(i + 1, op)?;
    }
    Ok(())
}

/// Writes events as JSON Lines.
pub fn write_trace(events: &[Event], mut out: impl std::io::Write) -> std::io::Result<()> {
    for e in events {
        serde_json::to_writer(&mut out, e)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Trace, TraceError> {
        read_trace(text.as_bytes(), "t.jsonl")
    }

    #[test]
    fn reads_every_event_kind() {
        let text = r#"{"e":"alloc","id":1,"type":"a.B","size":16,"site":["f","g"]}

{"e":"ptr","from":1,"field":"x","to":null}
{"e":"root","id":1,"kind":"static","name":"A.b"}
{"e":"unroot","id":1,"name":"A.b"}
{"e":"gc","id":1,"start":5,"end":6}"#;
        let trace = read(text).unwrap();
        assert_eq!(trace.ops.len(), 5);
        assert_eq!((trace.lines[1], trace.ops[1]), (3, Op::Ptr { from: 1, to: None, field: 0 }));
        assert_eq!(trace.strings.sites.values, [vec!["f".to_string(), "g".into()]]);
        let events: Vec<Event> = (0..trace.ops.len()).map(|i| trace.event(i)).collect();
        let mut out = Vec::new();
        write_trace(&events, &mut out).unwrap();
        let again = read(std::str::from_utf8(&out).unwrap()).unwrap();
        assert_eq!(again.ops, trace.ops);
        assert_eq!(again.event(0), trace.event(0));
    }

    #[test]
    fn rejects_bad_lines_with_line_numbers() {
        let ok = r#"{"e":"gc","id":1,"start":5,"end":6}"#;
        for (bad, needle) in [
            (r#"{"e":"free","id":1}"#, "unknown variant"),
            (r#"{"e":"alloc","id":1,"size":3}"#, "missing field `type`"),
            (r#"{"e":"root","id":1,"kind":"stack","name":"x"}"#, "unknown variant"),
            (r#"{"e":"alloc","id":-1,"type":"A","size":3}"#, "invalid value"),
            ("not json", "expected"),
            (
                &format!(r#"{{"e":"alloc","id":1,"type":"A","size":3,"site":[{}""]}}"#, "\"\",".repeat(4096)),
                "a site has more than 4096 frames",
            ),
        ] {
            let err = read(&format!("{ok}\n{bad}\n")).unwrap_err();
            assert_eq!(err.line, 2, "{bad}");
            assert!(err.to_string().starts_with("t.jsonl: line 2: bad event: "), "{err}");
            assert!(err.message.contains(needle), "{err}");
        }
    }

    #[test]
    fn lines_are_bounded_and_must_be_utf8() {
        let long = format!(r#"{{"e":"alloc","id":1,"type":"{}","size":3}}"#, "A".repeat(MAX_LINE_BYTES));
        let err = read(&format!("\n{long}\n")).unwrap_err();
        assert_eq!(err.to_string(), "t.jsonl: line 2: the line is longer than 4194304 bytes");
        let err =
            read_trace(&b"{\"e\":\"gc\",\"id\":1,\"start\":5,\"end\":6}\n\xff\n"[..], "t.jsonl").unwrap_err();
        assert!(err.to_string().starts_with("t.jsonl: line 2: cannot read: invalid utf-8"), "{err}");
    }
}
