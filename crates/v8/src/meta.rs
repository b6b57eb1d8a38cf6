//! `snapshot.meta`: which fields a node and an edge have, in which order, and the names of the
//! node and edge types. Everything else of the snapshot is read by these positions.

use serde::Deserialize;

use crate::error::Fault;

/// At most this many fields per node or edge (V8 writes 5 to 7 and 3).
const MAX_FIELDS: usize = 64;

/// The `snapshot` object as V8 writes it (unknown members are ignored).
#[derive(Debug, Deserialize)]
struct RawSnapshot {
    meta: RawMeta,
    node_count: Option<u64>,
    edge_count: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct RawMeta {
    node_fields: Vec<String>,
    node_types: Vec<serde_json::Value>,
    edge_fields: Vec<String>,
    edge_types: Vec<serde_json::Value>,
    #[serde(default)]
    trace_function_info_fields: Vec<String>,
    #[serde(default)]
    trace_node_fields: Vec<String>,
}

/// Field positions and type names, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    pub node_fields: usize,
    pub node_type: usize,
    pub node_name: usize,
    pub node_id: usize,
    pub self_size: usize,
    pub edge_count: usize,
    pub trace_node_id: Option<usize>,
    pub detachedness: Option<usize>,
    pub node_types: Vec<String>,
    pub edge_fields: usize,
    pub edge_type: usize,
    pub edge_name: usize,
    pub to_node: usize,
    pub edge_types: Vec<String>,
    /// Positions of `name`, `script_name`, `line`, `column` in a trace function info.
    pub function_info: Option<FunctionInfoFields>,
    /// Positions of `id`, `function_info_index` and `children` in a trace tree node.
    pub trace_node: Option<TraceNodeFields>,
    /// What the snapshot says it holds (checked against what it does hold).
    pub node_count: Option<u64>,
    pub edge_count_total: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionInfoFields {
    pub count: usize,
    pub name: usize,
    pub script_name: usize,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceNodeFields {
    pub count: usize,
    pub id: usize,
    pub function_info: usize,
    pub children: usize,
}

impl Meta {
    /// Parses the `snapshot` object's text; `offset` is where it starts in the file.
    pub fn parse(text: &[u8], offset: u64) -> Result<Meta, Fault> {
        let raw: RawSnapshot = serde_json::from_slice(text)
            .map_err(|e| Fault::at(offset, format!("snapshot: {}", serde_message(&e))))?;
        let m = raw.meta;
        let bad = |m: String| Fault::at(offset, format!("snapshot.meta: {m}"));
        let position = |fields: &[String], list: &str, name: &str| {
            fields
                .iter()
                .position(|f| f == name)
                .ok_or_else(|| bad(format!("{list} has no \"{name}\" field")))
        };
        for (list, fields) in [("node_fields", &m.node_fields), ("edge_fields", &m.edge_fields)] {
            if fields.is_empty() || fields.len() > MAX_FIELDS {
                return Err(bad(format!("{list} has {} fields (1 to {MAX_FIELDS} expected)", fields.len())));
            }
        }
        let node_type = position(&m.node_fields, "node_fields", "type")?;
        let edge_type = position(&m.edge_fields, "edge_fields", "type")?;
        let names = |types: &[serde_json::Value], list: &str, at: usize| -> Result<Vec<String>, Fault> {
            let names = types.get(at).and_then(|t| t.as_array()).ok_or_else(|| {
                bad(format!("{list}[{at}] (the type field's values) is not a list of names"))
            })?;
            if names.len() > 255 {
                return Err(bad(format!("{list}[{at}] has {} names (at most 255)", names.len())));
            }
            names
                .iter()
                .map(|n| {
                    n.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("{list}[{at}] holds a non-string")))
                })
                .collect()
        };
        let function_info = (!m.trace_function_info_fields.is_empty())
            .then(|| -> Result<_, Fault> {
                let f = &m.trace_function_info_fields;
                let list = "trace_function_info_fields";
                Ok(FunctionInfoFields {
                    count: f.len().min(MAX_FIELDS + 1),
                    name: position(f, list, "name")?,
                    script_name: position(f, list, "script_name")?,
                    line: position(f, list, "line")?,
                    column: position(f, list, "column")?,
                })
            })
            .transpose()?;
        let trace_node = (!m.trace_node_fields.is_empty())
            .then(|| -> Result<_, Fault> {
                let f = &m.trace_node_fields;
                let list = "trace_node_fields";
                Ok(TraceNodeFields {
                    count: f.len(),
                    id: position(f, list, "id")?,
                    function_info: position(f, list, "function_info_index")?,
                    children: position(f, list, "children")?,
                })
            })
            .transpose()?;
        // A trace node is recorded when its children start, so they must come last.
        if trace_node.is_some_and(|f| f.children + 1 != f.count) {
            return Err(bad("trace_node_fields must end with \"children\"".into()));
        }
        if function_info.is_some_and(|f| f.count > MAX_FIELDS)
            || trace_node.is_some_and(|f| f.count > MAX_FIELDS)
        {
            return Err(bad(format!("trace field lists have more than {MAX_FIELDS} fields")));
        }
        Ok(Meta {
            node_fields: m.node_fields.len(),
            node_type,
            node_name: position(&m.node_fields, "node_fields", "name")?,
            node_id: position(&m.node_fields, "node_fields", "id")?,
            self_size: position(&m.node_fields, "node_fields", "self_size")?,
            edge_count: position(&m.node_fields, "node_fields", "edge_count")?,
            trace_node_id: m.node_fields.iter().position(|f| f == "trace_node_id"),
            detachedness: m.node_fields.iter().position(|f| f == "detachedness"),
            node_types: names(&m.node_types, "node_types", node_type)?,
            edge_fields: m.edge_fields.len(),
            edge_type,
            edge_name: position(&m.edge_fields, "edge_fields", "name_or_index")?,
            to_node: position(&m.edge_fields, "edge_fields", "to_node")?,
            edge_types: names(&m.edge_types, "edge_types", edge_type)?,
            function_info,
            trace_node,
            node_count: raw.node_count,
            edge_count_total: raw.edge_count,
        })
    }

    /// The index of a node type by name (V8's list is stable, but read it from the file).
    pub fn node_type_named(&self, name: &str) -> Option<u8> {
        self.node_types.iter().position(|t| t == name).map(|i| i as u8)
    }

    pub fn edge_type_named(&self, name: &str) -> Option<u8> {
        self.edge_types.iter().position(|t| t == name).map(|i| i as u8)
    }
}

/// serde_json's message without its line/column suffix (the offset says where).
fn serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const NODE_META: &str = r#"{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"]},"node_count":3,"edge_count":2,"trace_function_count":0}"#;

    #[test]
    fn node_meta_reads_positions_and_names() {
        let m = Meta::parse(NODE_META.as_bytes(), 13).unwrap();
        assert_eq!((m.node_fields, m.self_size, m.edge_count, m.detachedness), (7, 3, 4, Some(6)));
        assert_eq!((m.edge_fields, m.to_node), (3, 2));
        assert_eq!(m.node_type_named("synthetic"), Some(9));
        assert_eq!(m.edge_type_named("weak"), Some(6));
        assert_eq!(m.trace_node.unwrap().children, 4);
        assert_eq!((m.node_count, m.edge_count_total), (Some(3), Some(2)));
    }

    #[test]
    fn bad_meta_names_the_field() {
        let e = Meta::parse(NODE_META.replace("\"self_size\",", "").as_bytes(), 13).unwrap_err();
        assert_eq!(e.offset, Some(13));
        assert!(e.message.contains("node_fields has no \"self_size\" field"), "{e:?}");
        let e = Meta::parse(br#"{"meta":{}}"#, 0).unwrap_err();
        assert!(e.message.contains("missing field `node_fields`"), "{e:?}");
        let e = Meta::parse(NODE_META.replace(r#"[["context""#, r#"["x",["context""#).as_bytes(), 0);
        assert!(e.unwrap_err().message.contains("edge_types[0]"));
    }
}
