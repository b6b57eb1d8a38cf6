//! Allocation traces (present when allocation tracking was on: `node --track-heap-objects`, or
//! DevTools' "Allocations on timeline"): `trace_function_infos` name the functions, `trace_tree`
//! is the tree of allocating call chains, and each node's `trace_node_id` points into it.

use std::io::Read;

use rustc_hash::FxHashMap as HashMap;

use crate::error::Fault;
use crate::json::Lexer;
use crate::meta::{FunctionInfoFields, TraceNodeFields};
use crate::strings::Strings;

/// Deeper call chains are refused.
const MAX_TRACE_DEPTH: usize = 100_000;
/// Frames kept per allocation site (the innermost ones).
const MAX_FRAMES: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    pub name: u32,
    pub script: u32,
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceNode {
    pub id: u32,
    pub function: u32,
    /// Index of the caller's trace node, `u32::MAX` at the top.
    pub parent: u32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Traces {
    pub functions: Vec<Function>,
    pub nodes: Vec<TraceNode>,
}

pub fn read_function_infos(
    lx: &mut Lexer<impl Read>,
    fields: Option<FunctionInfoFields>,
) -> Result<Vec<Function>, Fault> {
    let Some(f) = fields else {
        lx.skip(None)?;
        return Ok(Vec::new());
    };
    let mut functions = Vec::new();
    let mut current = Function { name: 0, script: 0, line: 0, column: 0 };
    let mut field = 0;
    let numbers = lx.uints(|v| {
        let v = u32::try_from(v).map_err(|_| format!("trace_function_infos: {v} too large"))?;
        match field {
            _ if field == f.name => current.name = v,
            _ if field == f.script_name => current.script = v,
            _ if field == f.line => current.line = v,
            _ if field == f.column => current.column = v,
            _ => {}
        }
        field += 1;
        if field == f.count {
            field = 0;
            functions.push(current);
        }
        Ok(())
    })?;
    if field != 0 {
        return Err(
            lx.fault(format!("trace_function_infos: {numbers} numbers are not whole entries of {}", f.count))
        );
    }
    Ok(functions)
}

/// One open `children` list while reading the tree.
struct Level {
    parent: u32,
    field: usize,
    first: bool,
    id: u32,
    function: u32,
}

pub fn read_trace_tree(
    lx: &mut Lexer<impl Read>,
    fields: Option<TraceNodeFields>,
) -> Result<Vec<TraceNode>, Fault> {
    let Some(f) = fields else {
        lx.skip(None)?;
        return Ok(Vec::new());
    };
    let mut nodes = Vec::new();
    lx.expect(b'[', "`[` (the trace tree)")?;
    let mut stack = vec![Level { parent: u32::MAX, field: 0, first: true, id: 0, function: 0 }];
    while let Some(level) = stack.last_mut() {
        if !lx.next_element(level.first)? {
            if level.field != 0 {
                return Err(
                    lx.fault(format!("trace_tree: a node has {} of its {} fields", level.field, f.count))
                );
            }
            stack.pop();
            if let Some(up) = stack.last_mut() {
                up.field = 0;
            }
            continue;
        }
        level.first = false;
        if level.field == f.children {
            nodes.push(TraceNode { id: level.id, function: level.function, parent: level.parent });
            if stack.len() >= MAX_TRACE_DEPTH {
                return Err(lx.fault(format!("trace_tree: call chains deeper than {MAX_TRACE_DEPTH}")));
            }
            lx.expect(b'[', "`[` (a trace node's children)")?;
            let parent = (nodes.len() - 1) as u32;
            stack.push(Level { parent, field: 0, first: true, id: 0, function: 0 });
            continue;
        }
        let v = lx.uint()?;
        let v = u32::try_from(v).map_err(|_| lx.fault(format!("trace_tree: {v} too large")))?;
        if level.field == f.id {
            level.id = v;
        } else if level.field == f.function_info {
            level.function = v;
        }
        level.field += 1;
    }
    Ok(nodes)
}

impl Traces {
    /// Every function's names must be strings, and every trace node's function must exist.
    pub fn check(&self, strings: usize) -> Result<(), Fault> {
        if let Some(i) =
            self.functions.iter().position(|f| f.name as usize >= strings || f.script as usize >= strings)
        {
            return Err(Fault::field(format!(
                "trace_function_infos[{i}]: a name is not one of the {strings} strings"
            )));
        }
        if let Some(n) = self.nodes.iter().find(|n| n.function as usize >= self.functions.len()) {
            return Err(Fault::field(format!(
                "trace_tree node {}: function_info_index {} is not one of the {} functions",
                n.id,
                n.function,
                self.functions.len()
            )));
        }
        Ok(())
    }

    /// Trace node ids to their index.
    pub fn index(&self) -> HashMap<u32, u32> {
        self.nodes.iter().enumerate().map(|(i, n)| (n.id, i as u32)).collect()
    }

    /// The call chain of trace node `index`, innermost frame first: `fn file.js:line:column`.
    pub fn frames(&self, index: u32, strings: &Strings) -> Vec<String> {
        let mut frames = Vec::new();
        let mut at = index;
        while let Some(node) = self.nodes.get(at as usize) {
            if frames.len() == MAX_FRAMES {
                break;
            }
            let f = self.functions[node.function as usize];
            let name = strings.get(f.name);
            let name = if name.is_empty() { "(anonymous)".into() } else { name };
            // The synthetic top of the tree is "(root)", not a frame.
            if node.parent != u32::MAX || name != "(root)" {
                frames.push(frame(&name, &strings.get(f.script), f.line, f.column));
            }
            at = node.parent;
        }
        frames
    }
}

/// A frame as allocation sites show it; lines and columns are 1-based, 0 when unknown.
fn frame(name: &str, script: &str, line: u32, column: u32) -> String {
    let file = script.rsplit(['/', '\\']).next().unwrap_or(script);
    match (file.is_empty(), line) {
        (true, _) => name.to_string(),
        (false, 0) => format!("{name} {file}"),
        (false, _) => format!("{name} {file}:{line}:{column}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: TraceNodeFields = TraceNodeFields { count: 5, id: 0, function_info: 1, children: 4 };

    #[test]
    fn the_tree_reads_parents_and_frames_innermost_first() {
        let text = "[1,0,0,0,[2,1,3,96,[3,2,1,32,[]],4,2,0,0,[]]]";
        let nodes = read_trace_tree(&mut Lexer::new(text.as_bytes()), Some(FIELDS)).unwrap();
        let ids: Vec<_> = nodes.iter().map(|n| (n.id, n.parent)).collect();
        assert_eq!(ids, [(1, u32::MAX), (2, 0), (3, 1), (4, 0)]);
        let strings = Strings::of(&["(root)", "main", "/app/leak.js", "track"]);
        let f = |name, line| Function { name, script: 2, line, column: 5 };
        let traces = Traces {
            functions: vec![Function { name: 0, script: 0, line: 0, column: 0 }, f(1, 3), f(3, 9)],
            nodes,
        };
        traces.check(strings.len()).unwrap();
        assert_eq!(traces.index()[&3], 2);
        assert_eq!(traces.frames(2, &strings), ["track leak.js:9:5", "main leak.js:3:5"]);
    }

    #[test]
    fn broken_trees_are_errors() {
        let e = read_trace_tree(&mut Lexer::new(b"[1,0,0,[]]".as_slice()), Some(FIELDS)).unwrap_err();
        assert!(e.message.contains("expected an unsigned integer") || e.message.contains("fields"), "{e:?}");
        let e = read_trace_tree(&mut Lexer::new(b"[1,0,0,0]".as_slice()), Some(FIELDS)).unwrap_err();
        assert!(e.message.contains("1 of its") || e.message.contains("4 of its"), "{e:?}");
        let deep = "[1,0,0,0,".repeat(200_000);
        let e = read_trace_tree(&mut Lexer::new(deep.as_bytes()), Some(FIELDS)).unwrap_err();
        assert!(e.message.contains("deeper"), "{e:?}");
        let traces =
            Traces { functions: vec![], nodes: vec![TraceNode { id: 1, function: 0, parent: u32::MAX }] };
        assert!(traces.check(0).unwrap_err().message.contains("function_info_index 0"));
    }
}
