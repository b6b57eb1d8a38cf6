//! Reads a heap file, checking every length, index and checksum; a bad file is one [`Fault`]
//! at the byte offset of the problem. Tables are sized by the bytes that hold them, never by a
//! count alone, so a lying count cannot make the reader allocate more than the file's size.

use memcity_heapgraph::Table;

use crate::error::Fault;
use crate::format::{
    HEADER_LEN, HeapFile, LABEL_INDEX, LABEL_KEY, MAGIC, Meta, NO_NAME, NO_SITE, OBJECT_BYTES,
    OLDEST_VERSION, ROOT_KINDS, SECTION_HEADER_LEN, SECTIONS, SECTIONS_V1, SECTIONS_V2, VERSION,
};

/// Whether `head` (a file's first bytes) starts like a heap file.
pub fn has_magic(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// Parses a whole heap file.
pub(crate) fn parse(bytes: &[u8]) -> Result<HeapFile, Fault> {
    let header = bytes.get(..HEADER_LEN);
    if !bytes.get(..MAGIC.len()).is_some_and(has_magic) && !MAGIC.starts_with(bytes) {
        return Err(Fault::new(0, "not a memcity heap file (no MEMCITYH magic)"));
    }
    let Some(header) = header else {
        return Err(truncated(bytes.len(), "the header", HEADER_LEN, bytes.len()));
    };
    let version = u32_at(header, 8);
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(Fault { version: Some(version), ..Fault::new(8, "") });
    }
    let tags: &[&[u8; 4]] = match version {
        1 => &SECTIONS_V1,
        2 => &SECTIONS_V2,
        _ => &SECTIONS,
    };
    if u32_at(header, 12) != 0 {
        return Err(Fault::new(12, "reserved header flags must be 0"));
    }
    let mut pos = HEADER_LEN;
    let mut payloads = Vec::with_capacity(tags.len());
    for tag in tags {
        let (payload, next) = section(bytes, pos, tag)?;
        payloads.push(Section { bytes: payload, base: pos + SECTION_HEADER_LEN, pos: 0 });
        pos = next;
    }
    if pos != bytes.len() {
        return Err(Fault::new(pos, format!("{} bytes after the END. section", bytes.len() - pos)));
    }
    payloads.pop(); // END., empty
    let meta = payloads.pop().expect("a META section");
    let root = payloads.pop().expect("a ROOT section");
    let vals = if version < 3 { None } else { payloads.pop() };
    let name = if version == 1 { None } else { payloads.pop() };
    let [strs, site, objs, edge] = payloads.try_into().expect("one payload per section");
    let strings = strings(strs)?;
    let sites = sites(site, strings.len())?;
    let mut file = objects(objs, strings.len(), sites.len())?;
    file.sites = sites;
    edges(edge, &mut file)?;
    if let Some(name) = name {
        file.labels = labels(name, file.edges.len(), strings.len())?;
    }
    if let Some(vals) = vals {
        file.values = crate::values::read(vals, file.object_count())?;
    }
    (file.roots, file.root_names) = roots(root, file.object_count(), version > 1, strings.len())?;
    file.strings = strings;
    file.meta = serde_json::from_slice::<Meta>(meta.bytes)
        .map_err(|e| Fault::new(meta.base, format!("META is not a JSON object with a whole time_ms: {e}")))?;
    Ok(file)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn truncated(offset: usize, what: &str, needs: usize, has: usize) -> Fault {
    Fault::new(offset, format!("truncated: {what} needs {needs} bytes, the file has {has} more"))
}

fn show(tag: &[u8]) -> String {
    String::from_utf8_lossy(tag).into_owned()
}

/// The payload of the section at `pos`, which must be `tag`, and where the next one starts.
fn section<'a>(bytes: &'a [u8], pos: usize, tag: &[u8; 4]) -> Result<(&'a [u8], usize), Fault> {
    let rest = &bytes[pos..];
    let what = format!("the {} section header", show(tag));
    let header = rest
        .get(..SECTION_HEADER_LEN)
        .ok_or_else(|| truncated(pos, &what, SECTION_HEADER_LEN, rest.len()))?;
    if &header[..4] != tag {
        return Err(Fault::new(
            pos,
            format!("expected the {} section, found {:?}", show(tag), show(&header[..4])),
        ));
    }
    let crc = u32_at(header, 4);
    let len = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
    let available = rest.len() - SECTION_HEADER_LEN;
    let payload =
        usize::try_from(len).ok().and_then(|len| rest[SECTION_HEADER_LEN..].get(..len)).ok_or_else(|| {
            Fault::new(
                pos + 8,
                format!(
                    "truncated: the {} section announces {len} bytes, the file has {available} more",
                    show(tag)
                ),
            )
        })?;
    if crc32fast::hash(payload) != crc {
        return Err(Fault::new(pos + 4, format!("the {} section is corrupted (CRC-32 mismatch)", show(tag))));
    }
    Ok((payload, pos + SECTION_HEADER_LEN + payload.len()))
}

/// A section's payload being read; offsets in faults are the file's.
#[derive(Debug)]
pub(crate) struct Section<'a> {
    bytes: &'a [u8],
    base: usize,
    pos: usize,
}

impl<'a> Section<'a> {
    pub(crate) fn at(&self) -> usize {
        self.base + self.pos
    }

    pub(crate) fn take(&mut self, n: Option<usize>, what: &str) -> Result<&'a [u8], Fault> {
        let left = self.bytes.len() - self.pos;
        let n = n.filter(|&n| n <= left).ok_or_else(|| {
            Fault::new(self.at(), format!("{what} does not fit in the {left} bytes left in its section"))
        })?;
        let taken = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(taken)
    }

    pub(crate) fn count32(&mut self, what: &str) -> Result<usize, Fault> {
        Ok(u32_at(self.take(Some(4), what)?, 0) as usize)
    }

    /// `n` little-endian `u32`s and where they start; a column as long as the heap is a
    /// [`Table`], in a work file past the memory budget.
    pub(crate) fn u32s(&mut self, n: usize, what: &str) -> Result<(usize, Table<u32>), Fault> {
        let at = self.at();
        let b = self.take(n.checked_mul(4), what)?;
        Ok((at, Table::from_fn(n, |i| u32_at(b, 4 * i))))
    }

    pub(crate) fn u64s(&mut self, n: usize, what: &str) -> Result<Table<u64>, Fault> {
        let b = self.take(n.checked_mul(8), what)?;
        Ok(Table::from_fn(n, |i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))))
    }

    pub(crate) fn finish(self, name: &str) -> Result<(), Fault> {
        match self.bytes.len() - self.pos {
            0 => Ok(()),
            extra => Err(Fault::new(
                self.at(),
                format!("{extra} unexpected bytes at the end of the {name} section"),
            )),
        }
    }
}

/// The first value in `column` (which starts at byte `at`) that `bad` rejects, as a fault.
fn check(
    column: &[u32],
    at: usize,
    bad: impl Fn(u32) -> bool,
    what: impl Fn(u32) -> String,
) -> Result<(), Fault> {
    match column.iter().position(|&v| bad(v)) {
        Some(i) => Err(Fault::new(at + 4 * i, what(column[i]))),
        None => Ok(()),
    }
}

fn total(counts: &[u32], at: usize, what: &str) -> Result<usize, Fault> {
    counts
        .iter()
        .try_fold(0usize, |sum, &c| sum.checked_add(c as usize))
        .ok_or_else(|| Fault::new(at, format!("the {what} add up to more than this machine can address")))
}

fn strings(mut s: Section) -> Result<Vec<String>, Fault> {
    let n = s.count32("the string count")?;
    let (_, lengths) = s.u32s(n, "the string lengths")?;
    let mut strings = Vec::with_capacity(n);
    for &len in lengths.iter() {
        let at = s.at();
        let bytes = s.take(Some(len as usize), "a string")?;
        let text = std::str::from_utf8(bytes).map_err(|e| {
            Fault::new(at + e.valid_up_to(), format!("string {} is not UTF-8", strings.len()))
        })?;
        strings.push(text.to_string());
    }
    s.finish("STRS")?;
    Ok(strings)
}

fn sites(mut s: Section, strings: usize) -> Result<Vec<Vec<u32>>, Fault> {
    let n = s.count32("the site count")?;
    let (at, counts) = s.u32s(n, "the frame counts")?;
    let frames_total = total(&counts, at, "frame counts")?;
    let (at, frames) = s.u32s(frames_total, "the frames")?;
    check(
        &frames,
        at,
        |f| f as usize >= strings,
        |f| format!("frame names string {f}, but there are {strings}"),
    )?;
    s.finish("SITE")?;
    let mut rest: &[u32] = &frames;
    Ok(counts
        .iter()
        .map(|&c| {
            let (site, after) = rest.split_at(c as usize);
            rest = after;
            site.to_vec()
        })
        .collect())
}

fn objects(mut s: Section, strings: usize, sites: usize) -> Result<HeapFile, Fault> {
    let n = s.count32("the object count")?;
    // One check for the whole table before any column is decoded.
    if n.checked_mul(OBJECT_BYTES).is_none_or(|need| need > s.bytes.len() - s.pos) {
        return Err(Fault::new(
            s.base,
            format!(
                "{n} objects need {OBJECT_BYTES} bytes each, the OBJS section has {}",
                s.bytes.len() - s.pos
            ),
        ));
    }
    let (at, types) = s.u32s(n, "the types")?;
    check(
        &types,
        at,
        |t| t as usize >= strings,
        |t| format!("type names string {t}, but there are {strings}"),
    )?;
    let (at, site) = s.u32s(n, "the sites")?;
    check(
        &site,
        at,
        |v| v != NO_SITE && v as usize >= sites,
        |v| format!("site {v} does not exist (there are {sites})"),
    )?;
    let size = s.u64s(n, "the sizes")?;
    let address = s.u64s(n, "the addresses")?;
    let (at, counts) = s.u32s(n, "the edge counts")?;
    let mut edge_start = Table::with_capacity(n + 1);
    edge_start.push(0u32);
    let mut sum = 0usize;
    let most = memcity_heapgraph::most_references(n);
    for (i, &c) in counts.iter().enumerate() {
        sum += c as usize;
        if sum > most {
            let line =
                format!("the edge counts add up to more than {most}: memcity counts edges with 32 bits");
            return Err(Fault::new(at + 4 * i, line));
        }
        edge_start.push(sum as u32);
    }
    s.finish("OBJS")?;
    Ok(HeapFile { types, site, size, address, edge_start, ..HeapFile::default() })
}

fn edges(mut s: Section, file: &mut HeapFile) -> Result<(), Fault> {
    let at = s.at();
    let m = u64::from_le_bytes(s.take(Some(8), "the edge count")?.try_into().expect("8 bytes"));
    let expected = file.edge_start.last().map_or(0, |&e| e as usize);
    if m != expected as u64 {
        return Err(Fault::new(at, format!("{m} edges, but the objects' edge counts add up to {expected}")));
    }
    let n = file.object_count();
    let (at, edges) = s.u32s(expected, "the edges")?;
    check(&edges, at, |t| t as usize >= n, |t| format!("an edge points to object {t}, but there are {n}"))?;
    s.finish("EDGE")?;
    file.edges = edges;
    Ok(())
}

/// NAME: one name per reference, each an element index, or a string (an attribute's name or a
/// dict key) that must exist.
fn labels(mut s: Section, edges: usize, strings: usize) -> Result<Table<u32>, Fault> {
    let at = s.at();
    let m = u64::from_le_bytes(s.take(Some(8), "the name count")?.try_into().expect("8 bytes"));
    if m != edges as u64 {
        return Err(Fault::new(at, format!("{m} reference names, but the file has {edges} references")));
    }
    let (at, labels) = s.u32s(edges, "the reference names")?;
    check(
        &labels,
        at,
        |l| l != NO_NAME && l & LABEL_INDEX == 0 && (l & !LABEL_KEY) as usize >= strings,
        |l| format!("a reference's name is string {}, but there are {strings}", l & !LABEL_KEY),
    )?;
    s.finish("NAME")?;
    Ok(labels)
}

type Roots = (Vec<(u32, memcity_heapgraph::RootKind)>, Vec<u32>);

fn roots(mut s: Section, n: usize, named: bool, strings: usize) -> Result<Roots, Fault> {
    let r = s.count32("the root count")?;
    let (at, objects) = s.u32s(r, "the root objects")?;
    check(&objects, at, |o| o as usize >= n, |o| format!("root object {o} does not exist (there are {n})"))?;
    let at = s.at();
    let kinds = s.take(Some(r), "the root kinds")?;
    if let Some(i) = kinds.iter().position(|&k| k as usize >= ROOT_KINDS.len()) {
        return Err(Fault::new(at + i, format!("unknown root kind {}", kinds[i])));
    }
    let names = if named {
        let (at, names) = s.u32s(r, "the root names")?;
        check(
            &names,
            at,
            |name| name != NO_NAME && name as usize >= strings,
            |name| format!("a root's name is string {name}, but there are {strings}"),
        )?;
        names.to_vec()
    } else {
        Vec::new()
    };
    s.finish("ROOT")?;
    Ok((objects.iter().copied().zip(kinds.iter().map(|&k| ROOT_KINDS[k as usize])).collect(), names))
}
