//! Writing an index: the resolved dump's tables in large blocks, to a temporary name in the
//! index folder that is renamed into place once complete, so a reader never sees half an
//! index and two runs writing one dump's index at once leave one whole index.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use memcity_heapgraph::{EdgeLabels, KeyTotal, count_keys};

use super::direct::{self, Direct};

use super::format::{Checksum, HEADER, INDEX, Kind, Writer, header};
use super::key::Key;
use super::seal::{SealKey, Sealing, run_key};
use crate::resolve::Dump;

/// Writes the index of `dump` to `path` with the permissions `mode` (the dump's), sealed with
/// the run's key where there is one.
pub fn write(
    path: &Path,
    key: &Key,
    dump: &Dump,
    labels: &EdgeLabels,
    mode: Option<u32>,
) -> std::io::Result<()> {
    write_sealed(path, key, dump, labels, mode, run_key())
}

/// [`write`], sealed with `seal` (none: an empty last block).
pub fn write_sealed(
    path: &Path,
    key: &Key,
    dump: &Dump,
    labels: &EdgeLabels,
    mode: Option<u32>,
    seal: Option<&SealKey>,
) -> std::io::Result<()> {
    super::replace::replace(path, mode, |temporary| {
        write_blocks(temporary, INDEX, key, |w| {
            // The dump's key in the header is sealed too: an index is trusted beside its dump alone.
            w.sealing = seal.map(|seal| Sealing::new(seal, &key.bytes()));
            body(w, dump, labels)?;
            let sealed = w.sealing.take().map(|sealing| sealing.seal());
            w.block(sealed.as_ref().map_or(&[][..], |s| &s[..]))
        })
    })
}

/// A file of `kind` for the dump `key` describes: the header, then the blocks `blocks` writes,
/// past the page cache ([`Direct`]).
pub fn write_blocks(
    path: &Path,
    kind: Kind,
    key: &Key,
    blocks: impl FnOnce(&mut Writer<Direct>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut file = direct::create(path)?;
    let mut w = Writer { out: Direct::new(&file), written: 0, sum: Checksum::default(), sealing: None };
    w.out.write_all(&[0u8; HEADER])?;
    blocks(&mut w)?;
    let (body, sum) = (w.written, w.sum.value());
    w.out.finish()?;
    file.seek(SeekFrom::Start(0))?;
    // Not synced: an index is a cache, and one the disk lost part of fails its checksum.
    file.write_all(&header(kind, key, body, sum))
}

/// The blocks before the seal, in the order [`super::read`] reads them.
fn body<W: Write>(w: &mut Writer<W>, dump: &Dump, labels: &EdgeLabels) -> std::io::Result<()> {
    let (graph, classes, layout) = (&dump.graph, &dump.classes, &dump.layout);
    let mut meta = vec![
        dump.timestamp_ms,
        graph.group.len() as u64,
        graph.edges.len() as u64,
        u64::from(dump.first_class_node),
        classes.names.len() as u64,
        u64::from(classes.class_class),
        graph.roots.len() as u64,
        dump.root_kinds.len() as u64,
        labels.names.len() as u64,
    ];
    meta.extend(super::key::layout_fields(layout));
    meta.extend(classes.primitive_arrays.iter().map(|&c| u64::from(c)));
    w.values(&meta)?;
    w.values(graph.group.keys())?;
    w.values(&graph.shallow)?;
    w.values(&graph.edge_start)?;
    w.values(&graph.edges)?;
    w.values(&labels.of_edge)?;
    w.strings(labels.names.iter().map(String::as_str))?;
    w.values(&graph.roots)?;
    let kinds: Vec<[u32; 2]> = dump.root_kinds.iter().map(|&(node, kind)| [node, kind as u32]).collect();
    w.values(&kinds)?;
    w.values(&dump.class_of_class_node)?;
    w.strings(classes.names.iter().map(String::as_str))?;
    let shapes: Vec<u64> = classes
        .instances
        .iter()
        .flat_map(|i| {
            [i.dump_bytes as u64, i.size, i.references.len() as u64, i.reference_names.len() as u64]
        })
        .collect();
    w.values(&shapes)?;
    w.values(&classes.instances.iter().flat_map(|i| i.references.iter().copied()).collect::<Vec<u32>>())?;
    w.values(
        &classes.instances.iter().flat_map(|i| i.reference_names.iter().copied()).collect::<Vec<u64>>(),
    )?;
    let mut by_id: Vec<[u64; 2]> = classes.by_id.iter().map(|(&id, &class)| [id, u64::from(class)]).collect();
    by_id.sort_unstable();
    w.values(&by_id)?;
    w.values(&class_totals(dump).iter().flat_map(|t| [t.objects, t.bytes, t.first]).collect::<Vec<u64>>())
}

/// Each class's objects, bytes and first object, as the reader counted them (else a sweep):
/// a reopening's counts then need no sweep of the classes and sizes.
fn class_totals(dump: &Dump) -> Vec<KeyTotal> {
    if let Some(totals) = dump.graph.group.totals() {
        return totals.to_vec();
    }
    let mut totals = vec![KeyTotal::default(); dump.classes.names.len()];
    count_keys(&mut totals, 0, dump.graph.group.keys(), &dump.graph.shallow);
    totals
}
