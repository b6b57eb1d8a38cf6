//! A dump's dominator tree, kept beside its index once an `import` has built it, so that the
//! next opening skips the depth-first search and Lengauer–Tarjan (the most of an analysis'
//! time). The tree depends on the dump alone, never on a grouping: any `--classifiers` reads
//! it. A file of its own (same format and key as the index, another magic), because it is only
//! known once the dump has been analysed, after the index is written.
//!
//! Like the index, it is input: its blocks are bounded by the file, and before it is used the
//! tree is checked to be a tree over the dump's objects — every dominator earlier in the
//! preorder, every subtree a run of the preorder inside its dominator's, the subtree sizes and
//! retained bytes adding up — so a corrupt one is refused in one line, never a panic. A tree
//! this user's memcity wrote carries its seal ([`super::seal`]) in its last block, and is then
//! trusted without that check; every other tree is checked.

use std::path::{Path, PathBuf};

use memcity_heapgraph::{
    DominatorTree, PREORDER_AHEAD, Table, UNPLACED, UNREACHABLE, VIRTUAL_ROOT, prefetch,
};

use super::format::{self, Blocks, TREE, Unusable};
use super::key::Key;
use super::seal::{SEAL, SealKey, Sealing, run_key};

/// A dump's dominator tree, and the objects no root record reaches (the VM holds them itself:
/// the tree has them as roots).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptTree {
    pub held_by_vm: Vec<u32>,
    pub tree: DominatorTree,
}

/// Where a dump's tree is kept, and what it is written with.
#[derive(Debug, Clone)]
pub struct TreePlace {
    pub(crate) path: PathBuf,
    pub(crate) key: Key,
    pub(crate) mode: Option<u32>,
}

/// The tree's file beside the index at `index`.
pub fn path_beside(index: &Path) -> PathBuf {
    index.with_extension("hprof-tree")
}

/// Writes a tree and the objects the VM holds where `place` says, sealed with the run's key
/// where there is one.
pub fn keep_parts(place: &TreePlace, held_by_vm: &[u32], tree: &DominatorTree) -> std::io::Result<()> {
    keep_sealed(place, held_by_vm, tree, run_key())
}

/// [`keep_parts`], sealed with `seal` (none: an empty last block).
pub(crate) fn keep_sealed(
    place: &TreePlace,
    held_by_vm: &[u32],
    tree: &DominatorTree,
    seal: Option<&SealKey>,
) -> std::io::Result<()> {
    super::replace::replace(&place.path, place.mode, |temporary| {
        super::write::write_blocks(temporary, TREE, &place.key, |w| {
            // The dump's key in the header is sealed too: a tree is trusted beside its dump alone.
            w.sealing = seal.map(|seal| Sealing::new(seal, &place.key.bytes()));
            let meta = [tree.idom.len() as u64, held_by_vm.len() as u64, tree.preorder.len() as u64];
            w.values(&meta)?;
            w.values(held_by_vm)?;
            w.values(&tree.idom)?;
            w.values(&tree.retained)?;
            w.values(&tree.preorder)?;
            w.values(&tree.subtree)?;
            w.values(&tree.position)?;
            let sealed = w.sealing.take().map(|sealing| sealing.seal());
            w.block(sealed.as_ref().map_or(&[][..], |s| &s[..]))
        })
    })
}

/// The tree kept at `path` for the dump `key` describes, whose objects have the shallow sizes
/// `shallow`; `Ok(None)` when there is none. Sealed with the run's key, it is trusted.
pub fn load(path: &Path, key: &Key, shallow: &[u64]) -> Result<Option<KeptTree>, Unusable> {
    load_sealed(path, key, shallow, run_key())
}

/// [`load`], trusting the trees `seal` sealed.
pub fn load_sealed(
    path: &Path,
    key: &Key,
    shallow: &[u64],
    seal: Option<&SealKey>,
) -> Result<Option<KeptTree>, Unusable> {
    let Some(checked) = format::Checked::open(path, TREE, key)? else { return Ok(None) };
    let objects = shallow.len();
    if let Some(kept) = checked.read_sealed(seal, key, |blocks| read_blocks(blocks, objects).ok()) {
        return Ok(Some(kept));
    }
    checked
        .read(|blocks| {
            let kept = read_blocks(blocks, objects)?;
            check(&kept.tree, shallow)?;
            Ok(kept)
        })
        .map(Some)
}

/// A tree file's body, checked against the dump's objects (whatever its seal).
pub fn read(body: &[u8], shallow: &[u64]) -> Result<KeptTree, String> {
    let kept = read_blocks(Blocks::new(body), shallow.len())?;
    check(&kept.tree, shallow)?;
    Ok(kept)
}

/// A tree over `objects` objects by its tables' sizes, from blocks that may be read in place
/// from their file, and its seal block (read, not judged); the shape is [`check`]ed apart.
fn read_blocks(mut blocks: Blocks<'_>, objects: usize) -> Result<KeptTree, String> {
    let meta: Vec<u64> = blocks.values("tree meta", Some(3))?;
    if meta[0] != objects as u64 {
        return Err(format!("a tree of {} objects, the dump has {objects}", meta[0]));
    }
    let count = |v: u64, what: &str| {
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= objects)
            .ok_or_else(|| format!("{v} {what}, more than the objects"))
    };
    let (held, reached) = (count(meta[1], "objects held by the VM")?, count(meta[2], "objects in the tree")?);
    let held_by_vm: Vec<u32> = blocks.values("objects held by the VM", Some(held))?;
    let tree = DominatorTree {
        idom: blocks.table("dominators", objects)?,
        idom_above: Default::default(),
        retained: blocks.table("retained sizes", objects)?,
        preorder: blocks.table("preorder", reached)?,
        subtree: blocks.table("subtree sizes", objects)?,
        position: blocks.table("preorder positions", objects)?,
    };
    let seal = blocks.next("seal")?;
    if !seal.is_empty() && seal.len() != SEAL {
        return Err(format!("a seal of {} bytes", seal.len()));
    }
    if !blocks.finished() {
        return Err("bytes after the last block".into());
    }
    if held_by_vm.iter().any(|&o| o as usize >= objects) {
        return Err("an object held by the VM beyond the objects".into());
    }
    Ok(KeptTree { held_by_vm, tree })
}

/// That `tree` is a dominator tree's shape over objects of these shallow sizes: what the
/// analyses that read it rely on (no dominator cycle, subtrees as nested runs of the preorder,
/// retained bytes summing exactly), whether or not it is this dump's true tree.
///
/// One walk down the preorder with a stack of the subtrees open there: each object's
/// dominator must be the innermost of them, and its subtree must end inside its dominator's;
/// a subtree closes where its run ends, with its bytes added up. Each object walked must have
/// its own position (so none is walked twice), and one sweep in object order, beside the walk,
/// finds as many placed objects as walked, all of them reachable, so the dominators are read at
/// random once (by the walk) rather than twice. The memory is the stack (as deep as the tree);
/// the tables are read, never written.
fn check(tree: &DominatorTree, shallow: &[u64]) -> Result<(), String> {
    let (walked, placed) = rayon::join(|| walk(tree, shallow), || placed(tree, shallow.len()));
    if walked? != placed? {
        return Err("a position that the preorder does not list".into());
    }
    Ok(())
}

/// The walk down the preorder ([`check`]); returns how many objects it walked.
fn walk(tree: &DominatorTree, shallow: &[u64]) -> Result<u64, String> {
    let n = shallow.len();
    // The open subtrees, outermost first: [object << 32 | where its run ends, its bytes so far].
    let mut open: Table<[u64; 2]> = Table::default();
    let len = tree.preorder.len() as u64;
    for (p, &o) in tree.preorder.iter().enumerate() {
        // The objects come in preorder, at random in the tables: their reads are started early.
        if let Some(&next) = tree.preorder.get(p + PREORDER_AHEAD) {
            let next = next as usize;
            prefetch(&tree.idom, next);
            prefetch(&tree.subtree, next);
            prefetch(&tree.retained, next);
            prefetch(&tree.position, next);
            prefetch(shallow, next);
        }
        let o = o as usize;
        if o >= n {
            return Err("an object in the preorder beyond the objects".into());
        }
        if tree.position[o] != p as u32 {
            // Each position names one object: an object listed twice has the other's.
            return Err("an object twice in the preorder, or its position elsewhere".into());
        }
        let d = tree.idom[o];
        if d == UNREACHABLE {
            return Err(DISAGREE.into());
        }
        close(&mut open, p as u64, tree)?;
        let end = p as u64 + u64::from(tree.subtree[o]);
        if tree.subtree[o] == 0 || end > len {
            return Err("a subtree beyond the preorder".into());
        }
        let inside = match open.last() {
            None => d == VIRTUAL_ROOT,
            Some(&[top, _]) => u64::from(d) == top >> 32 && end <= top & u64::from(u32::MAX),
        };
        if !inside {
            return Err("an object outside its dominator's subtree".into());
        }
        open.push([(o as u64) << 32 | end, shallow[o]]);
    }
    close(&mut open, len, tree)?;
    Ok(len)
}

/// The sweep in object order ([`check`]): the placed objects must be the reachable ones, and
/// the others have no subtree. Returns how many are placed.
fn placed(tree: &DominatorTree, n: usize) -> Result<u64, String> {
    let mut placed = 0u64;
    for o in 0..n {
        let is_placed = tree.position[o] != UNPLACED;
        placed += u64::from(is_placed);
        if is_placed != (tree.idom[o] != UNREACHABLE) {
            return Err(DISAGREE.into());
        }
        if !is_placed && (tree.subtree[o] != 0 || tree.retained[o] != 0) {
            return Err("an unreachable object with a subtree".into());
        }
    }
    Ok(placed)
}

const DISAGREE: &str = "the preorder and the dominators disagree on what is reachable";

/// Closes the open subtrees whose runs end at `at`: each one's bytes must be its retained
/// bytes, and go to the subtree it is in.
fn close(open: &mut Table<[u64; 2]>, at: u64, tree: &DominatorTree) -> Result<(), String> {
    while let Some(&[top, bytes]) = open.last()
        && top & u64::from(u32::MAX) == at
    {
        if bytes != tree.retained[(top >> 32) as usize] {
            return Err("the subtree sizes or retained sizes do not add up".into());
        }
        open.truncate(open.len() - 1);
        if let Some(above) = open.last_mut() {
            above[1] = above[1].checked_add(bytes).ok_or("retained sizes overflow")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
