//! The messages a client sends and the replies it gets (docs/websocket.md). Every message is a
//! JSON object with a `"type"`; every reply is `{"ok":true,...}` or `{"ok":false,"error":...}`.

use std::sync::Arc;

use memcity_model::error::{from_slice_deep, parse_json};
use memcity_model::validate::validate_file_history;
use memcity_model::{FORMAT, History, LoadError, MetricNames, PointerMap, Snapshot};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

/// What errors name as the place a problem is in.
pub const SOURCE: &str = "message";

/// The message types, in the order the docs list them.
pub const TYPES: [&str; 6] = ["history", "snapshot", "pointers", "clear", "save", "get"];

/// A parsed, well-formed message. Messages that change the history are [`Change`]s.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Change(Change),
    /// Write the current history to `path` (or the server's save path).
    Save {
        path: Option<String>,
    },
    /// Reply with the current history.
    Get,
}

/// A change to the live history; applied all-or-nothing by [`crate::LiveHistory`].
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Replace the history (already checked as a whole, like a loaded file).
    History(History),
    /// Append one snapshot (checked against the history when applied).
    Snapshot(Box<Snapshot>),
    /// Merge pointer maps into one snapshot.
    Pointers(Pointers),
    /// Forget the history.
    Clear,
}

/// Pointer maps for the snapshot at `at`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pointers {
    pub at: SnapshotRef,
    pub points_to: PointerMap,
    pub pointed_from: PointerMap,
}

/// Which snapshot a `pointers` message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotRef {
    Index(usize),
    /// The first snapshot taken at this time.
    TimeMs(u64),
}

/// Only the `type` field; everything else is skipped unparsed.
#[derive(Deserialize)]
struct Kind {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
// `type` is read as a String, not skipped as IgnoredAny: serde_ignored would report it unknown.
struct HistoryMessage {
    #[serde(rename = "type")]
    _kind: String,
    format: Option<String>,
    #[serde(default)]
    metric_names: MetricNames,
    snapshots: Vec<Snapshot>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotMessage {
    #[serde(rename = "type")]
    _kind: String,
    snapshot: Box<Snapshot>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointersMessage {
    #[serde(rename = "type")]
    _kind: String,
    snapshot: Option<usize>,
    time_ms: Option<u64>,
    points_to: Option<PointerMap>,
    pointed_from: Option<PointerMap>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaveMessage {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    path: Option<String>,
}

/// Messages with no body but their type.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bare {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
}

/// Parses one message. Errors name the JSON path (and line/column for syntax errors); a
/// `history` message is checked like a loaded file, other checks need the live history.
pub fn parse_message(bytes: &[u8]) -> Result<Message, LoadError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') && from_slice_deep::<IgnoredAny>(bytes).is_ok() {
        return Err(LoadError::new(SOURCE, "not a JSON object: a message is {\"type\": ..., ...}"));
    }
    let Kind { kind } = parse_json(bytes, SOURCE)?;
    let message = match kind.as_str() {
        "history" => Message::Change(Change::History(parse_history(bytes)?)),
        "snapshot" => {
            let SnapshotMessage { snapshot, .. } = parse_strict(bytes)?;
            Message::Change(Change::Snapshot(snapshot))
        }
        "pointers" => Message::Change(Change::Pointers(parse_pointers(bytes)?)),
        "clear" => {
            let Bare { .. } = parse_json(bytes, SOURCE)?;
            Message::Change(Change::Clear)
        }
        "save" => {
            let SaveMessage { path, .. } = parse_json(bytes, SOURCE)?;
            Message::Save { path }
        }
        "get" => {
            let Bare { .. } = parse_json(bytes, SOURCE)?;
            Message::Get
        }
        other => {
            return Err(LoadError::new(
                SOURCE,
                format!("unknown message type \"{other}\" (expected one of {})", TYPES.join(", ")),
            )
            .at("type"));
        }
    };
    Ok(message)
}

/// The known message type a message names, if it names one (for replies to bad messages).
pub fn type_of(bytes: &[u8]) -> Option<&'static str> {
    let Kind { kind } = from_slice_deep(bytes).ok()?;
    TYPES.into_iter().find(|t| *t == kind)
}

/// Parses a message whose body holds model types (snapshots, nodes, heap metrics). Files may
/// carry fields memcity does not know, but in a message an unknown field is an error (usually
/// a typo), wherever it is.
fn parse_strict<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, LoadError> {
    let mut unknown = None;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let parsed = serde_ignored::deserialize(serde_stacker::Deserializer::new(&mut de), |path| {
        unknown.get_or_insert_with(|| path.to_string());
    })
    .and_then(|value| de.end().map(|()| value));
    match (parsed, unknown) {
        (Ok(_), Some(path)) => {
            let (at, field) = path.rsplit_once('.').unwrap_or(("", &path));
            Err(LoadError::new(SOURCE, format!("unknown field `{field}`")).at(json_path(at)))
        }
        (Ok(value), None) => Ok(value),
        // The precise error, with its JSON path.
        (Err(_), _) => parse_json(bytes, SOURCE),
    }
}

/// serde_ignored's `a.b.0.c` as a JSON path `a.b[0].c`.
fn json_path(dotted: &str) -> String {
    let mut out = String::new();
    // `?` marks the inside of an Option.
    for part in dotted.split('.').filter(|p| !p.is_empty() && *p != "?") {
        if part.parse::<usize>().is_ok() {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// The same checks as loading a `memcity/1` file.
fn parse_history(bytes: &[u8]) -> Result<History, LoadError> {
    let message: HistoryMessage = parse_strict(bytes)?;
    if let Some(format) = &message.format
        && format != FORMAT
    {
        return Err(LoadError::new(
            SOURCE,
            format!("unknown format version \"{format}\" (this memcity reads \"{FORMAT}\")"),
        )
        .at("format"));
    }
    let history =
        History { format: FORMAT.into(), metric_names: message.metric_names, snapshots: message.snapshots };
    validate_file_history(&history, SOURCE)?;
    Ok(history)
}

fn parse_pointers(bytes: &[u8]) -> Result<Pointers, LoadError> {
    let message: PointersMessage = parse_strict(bytes)?;
    let at = match (message.snapshot, message.time_ms) {
        (Some(index), None) => SnapshotRef::Index(index),
        (None, Some(time)) => SnapshotRef::TimeMs(time),
        (Some(_), Some(_)) => {
            return Err(LoadError::new(
                SOURCE,
                "give either \"snapshot\" (an index) or \"time_ms\", not both",
            )
            .at("time_ms"));
        }
        (None, None) => {
            return Err(LoadError::new(
                SOURCE,
                "missing \"snapshot\" (an index) or \"time_ms\": which snapshot are the maps for?",
            ));
        }
    };
    if message.points_to.is_none() && message.pointed_from.is_none() {
        return Err(LoadError::new(SOURCE, "no pointer maps: give \"points_to\", \"pointed_from\" or both"));
    }
    Ok(Pointers {
        at,
        points_to: message.points_to.unwrap_or_default(),
        pointed_from: message.pointed_from.unwrap_or_default(),
    })
}

/// The answer to one message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    pub ok: bool,
    /// The message type answered, where it is known.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// The history's version after the message (it counts changes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// How many snapshots the history has after the message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<usize>,
    /// The index of the snapshot a `snapshot` or `pointers` message went to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Where a `save` wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The history, for `get`.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "serialize_history")]
    pub history: Option<Arc<History>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn serialize_history<S: serde::Serializer>(h: &Option<Arc<History>>, s: S) -> Result<S::Ok, S::Error> {
    h.as_deref().serialize(s)
}

impl Reply {
    pub fn ok(kind: &'static str) -> Reply {
        Reply {
            ok: true,
            kind: Some(kind),
            version: None,
            snapshots: None,
            index: None,
            path: None,
            history: None,
            error: None,
        }
    }

    pub fn error(kind: Option<&'static str>, error: impl ToString) -> Reply {
        Reply { ok: false, kind, error: Some(error.to_string()), ..Reply::ok("") }
    }

    /// The reply as a JSON text frame.
    pub fn to_text(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string(self).expect("a reply serializes")
    }
}

/// The type name of a message, for replies.
pub fn kind_of(message: &Message) -> &'static str {
    match message {
        Message::Change(Change::History(_)) => "history",
        Message::Change(Change::Snapshot(_)) => "snapshot",
        Message::Change(Change::Pointers(_)) => "pointers",
        Message::Change(Change::Clear) => "clear",
        Message::Save { .. } => "save",
        Message::Get => "get",
    }
}

/// Builds the text of a `history` message.
pub fn history_message(history: &History) -> String {
    tagged("history", history)
}

/// Builds the text of a `snapshot` message.
pub fn snapshot_message(snapshot: &Snapshot) -> String {
    #[derive(Serialize)]
    struct Body<'a> {
        snapshot: &'a Snapshot,
    }
    tagged("snapshot", &Body { snapshot })
}

/// `{"type": kind, ...fields of body}` without building a JSON tree of the body.
fn tagged(kind: &str, body: &impl Serialize) -> String {
    let body = serde_json::to_string(body).expect("a history serializes");
    // `body` is an object: splice the tag in after its opening brace.
    let rest = &body[1..];
    let comma = if rest == "}" { "" } else { "," };
    format!("{{\"type\":\"{kind}\"{comma}{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use memcity_model::Node;

    fn error(text: &str) -> String {
        parse_message(text.as_bytes()).unwrap_err().to_string()
    }

    fn expect(text: &str, needle: &str) {
        let error = error(text);
        assert!(error.contains(needle), "{text}: got {error:?}, wanted {needle:?}");
    }

    fn snapshot(time_ms: u64) -> Snapshot {
        let mut tree = Node::leaf("Heap", "Heap", "Root", 3, 30);
        tree.children.push(Node::leaf("Heap#A", "A", "Type", 3, 30));
        Snapshot::new(time_ms, tree)
    }

    #[test]
    fn built_messages_parse_back() {
        let history = History {
            format: FORMAT.into(),
            metric_names: MetricNames::default(),
            snapshots: vec![snapshot(1), snapshot(2)],
        };
        let parsed = parse_message(history_message(&history).as_bytes()).unwrap();
        assert_eq!(parsed, Message::Change(Change::History(history)));
        let parsed = parse_message(snapshot_message(&snapshot(5)).as_bytes()).unwrap();
        assert_eq!(parsed, Message::Change(Change::Snapshot(Box::new(snapshot(5)))));
    }

    #[test]
    fn bare_messages_parse() {
        assert_eq!(parse_message(br#"{"type":"clear"}"#).unwrap(), Message::Change(Change::Clear));
        assert_eq!(parse_message(br#"{"type":"get"}"#).unwrap(), Message::Get);
        assert_eq!(parse_message(br#"{"type":"save"}"#).unwrap(), Message::Save { path: None });
        assert_eq!(
            parse_message(br#"{"type":"save","path":"a.json"}"#).unwrap(),
            Message::Save { path: Some("a.json".into()) }
        );
    }

    #[test]
    fn pointers_name_their_snapshot_once() {
        let m = parse_message(br#"{"type":"pointers","time_ms":7,"points_to":{"a":{"b":1}}}"#).unwrap();
        let Message::Change(Change::Pointers(p)) = m else { panic!("not pointers: {m:?}") };
        assert_eq!(p.at, SnapshotRef::TimeMs(7));
        assert_eq!(p.points_to["a"]["b"], 1);
        assert!(error(r#"{"type":"pointers","snapshot":1,"time_ms":7,"points_to":{}}"#).contains("not both"));
        assert!(error(r#"{"type":"pointers","points_to":{}}"#).contains("which snapshot"));
        assert!(error(r#"{"type":"pointers","snapshot":0}"#).contains("no pointer maps"));
    }

    #[test]
    fn malformed_messages_say_what_and_where() {
        expect("not json", "message: malformed JSON: expected ident at line 1 column 2");
        expect(r#"{"type":"clear""#, "malformed JSON");
        expect("[1,2]", "not a JSON object");
        expect("", "malformed JSON: EOF while parsing");
        expect(r#"{"snapshot":{}}"#, "missing field `type`");
        expect(r#"{"type":3}"#, "at type: invalid value");
        assert_eq!(
            error(r#"{"type":"explode"}"#),
            "message: at type: unknown message type \"explode\" (expected one of history, snapshot, \
             pointers, clear, save, get)"
        );
        expect(r#"{"type":"clear","extra":1}"#, "unknown field `extra`");
        let e = error(
            r#"{"type":"snapshot","snapshot":{"time_ms":1,"tree":{"key":"H","name":"H","objects":-1,"bytes":0}}}"#,
        );
        assert!(e.contains("at snapshot.tree.objects: invalid value"), "{e}");
        let e = error(r#"{"type":"history","format":"memcity/9","snapshots":[]}"#);
        assert!(e.contains("at format: unknown format version"), "{e}");
        let e = error(r#"{"type":"history","snapshots":[]}"#);
        assert!(e.contains("empty history"), "{e}");
        let e = error(
            r#"{"type":"history","snapshots":[{"time_ms":1,"tree":{"key":"H","name":"H","objects":1,"bytes":1,
               "children":[{"key":"H","name":"H","objects":1,"bytes":1}]}}]}"#,
        );
        assert!(e.contains("snapshots[0].tree.children[0].key: duplicate key"), "{e}");
    }

    #[test]
    fn unknown_fields_anywhere_in_a_message_are_errors() {
        let tree = |extra: &str| {
            format!(
                r#"{{"key":"H","name":"H","objects":1,"bytes":8,"children":[{{"key":"H#A","name":"A","objects":1,"bytes":8{extra}}}]}}"#
            )
        };
        let snapshot = |extra: &str, node: &str| format!(r#"{{"time_ms":1,"tree":{}{extra}}}"#, tree(node));
        let e = error(&format!(r#"{{"type":"snapshot","snapshot":{}}}"#, snapshot(r#","colour":1"#, "")));
        assert_eq!(e, "message: at snapshot: unknown field `colour`");
        let e = error(&format!(r#"{{"type":"snapshot","snapshot":{}}}"#, snapshot("", r#","byte":1"#)));
        assert_eq!(e, "message: at snapshot.tree.children[0]: unknown field `byte`");
        let e = error(&format!(
            r#"{{"type":"history","snapshots":[{}]}}"#,
            snapshot(r#","heap":{"used_after":5}"#, "")
        ));
        assert_eq!(e, "message: at snapshots[0].heap: unknown field `used_after`");
        let e =
            error(r#"{"type":"history","metric_names":{"objects":"o","bytes":"b","x":1},"snapshots":[]}"#);
        assert_eq!(e, "message: at metric_names: unknown field `x`");
        // Without them the same messages are fine.
        assert!(
            parse_message(format!(r#"{{"type":"snapshot","snapshot":{}}}"#, snapshot("", "")).as_bytes())
                .is_ok()
        );
    }

    #[test]
    fn bad_messages_still_tell_their_type() {
        assert_eq!(type_of(br#"{"snapshot": {"time_ms": -1}, "type": "snapshot"}"#), Some("snapshot"));
        assert_eq!(type_of(br#"{"type": "nope"}"#), None);
        assert_eq!(type_of(b"{"), None);
    }

    #[test]
    fn replies_serialize_compactly() {
        let mut reply = Reply::ok("snapshot");
        reply.version = Some(3);
        reply.index = Some(2);
        assert_eq!(reply.to_text(), r#"{"ok":true,"type":"snapshot","version":3,"index":2}"#);
        assert_eq!(Reply::error(None, "bad").to_text(), r#"{"ok":false,"error":"bad"}"#);
    }
}
