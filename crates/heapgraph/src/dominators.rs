//! TEMPORARY (lead's scaffold, replaced by the dom12 branch): Cooper–Harvey–Kennedy iterative dominators.

use crate::HeapGraph;

pub const VIRTUAL_ROOT: u32 = u32::MAX - 1;
pub const UNREACHABLE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct DominatorTree {
    pub idom: Vec<u32>,
    pub retained: Vec<u64>,
    pub preorder: Vec<u32>,
}

pub fn dominators(g: &HeapGraph) -> DominatorTree {
    let n = g.object_count();
    let v = n; // virtual root
    // Reverse post-order from the virtual root, iteratively.
    let mut order = vec![u32::MAX; n + 1];
    let mut rpo: Vec<u32> = Vec::new();
    let mut visited = vec![false; n + 1];
    let succ = |x: usize| -> &[u32] { if x == v { &g.roots } else { g.referents(x as u32) } };
    let mut stack: Vec<(usize, usize)> = vec![(v, 0)];
    visited[v] = true;
    while let Some(&mut (x, ref mut i)) = stack.last_mut() {
        let s = succ(x);
        if *i < s.len() {
            let t = s[*i] as usize;
            *i += 1;
            if !visited[t] {
                visited[t] = true;
                stack.push((t, 0));
            }
        } else {
            rpo.push(x as u32);
            stack.pop();
        }
    }
    rpo.reverse();
    for (i, &x) in rpo.iter().enumerate() {
        order[x as usize] = i as u32;
    }
    // Predecessors.
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for &x in &rpo {
        for &t in succ(x as usize) {
            preds[t as usize].push(x);
        }
    }
    let mut idom = vec![u32::MAX; n + 1];
    idom[v] = v as u32;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = u32::MAX;
            for &p in &preds[b as usize] {
                if idom[p as usize] == u32::MAX {
                    continue;
                }
                new = if new == u32::MAX {
                    p
                } else {
                    let (mut a, mut c) = (p, new);
                    while a != c {
                        while order[a as usize] > order[c as usize] {
                            a = idom[a as usize];
                        }
                        while order[c as usize] > order[a as usize] {
                            c = idom[c as usize];
                        }
                    }
                    a
                };
            }
            if idom[b as usize] != new {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    let mut out = vec![UNREACHABLE; n];
    for &x in rpo.iter().skip(1) {
        let d = idom[x as usize];
        out[x as usize] = if d as usize == v { VIRTUAL_ROOT } else { d };
    }
    let preorder: Vec<u32> = rpo.iter().skip(1).copied().collect();
    let mut retained = vec![0u64; n];
    for &x in &preorder {
        retained[x as usize] = g.shallow[x as usize];
    }
    for &x in preorder.iter().rev() {
        let d = out[x as usize];
        if d != VIRTUAL_ROOT {
            retained[d as usize] += retained[x as usize];
        }
    }
    DominatorTree { idom: out, retained, preorder }
}
