//! One HEAP DUMP (SEGMENT) record's sub-records, read on their own: a dump's bodies are read
//! in parallel and what each holds is added to the dump in file order ([`super::scan`]).

use std::ops::Range;

use memcity_heapgraph::RootKind;

use super::{
    CLASS_DUMP, INSTANCE_DUMP, OBJ_ARRAY_DUMP, OBJECT, PRIM_ARRAY_DUMP, PRIM_ARRAY_NODATA, RawClass,
    value_size,
};
use crate::cursor::Cursor;
use crate::error::Fault;

/// Android: the heap (app, image, zygote) the following objects are in: a heap id and its name.
const HEAP_DUMP_INFO: u8 = 0xFE;

/// What one body holds, in file order.
#[derive(Default)]
pub struct Body {
    /// Offsets of its object sub-records (at their tag), and their object ids. Plain vectors:
    /// a batch of bodies is small.
    pub objects: Vec<usize>,
    pub ids: Vec<u64>,
    pub roots: Vec<(u64, RootKind)>,
    pub classes: Vec<RawClass>,
    /// Where the body is malformed, if it is; everything above comes before that offset.
    pub fault: Option<Fault>,
}

/// Reads the body at `range` of `data`, with ids of `ids` bytes.
pub fn read(data: &[u8], range: Range<usize>, ids: usize) -> Body {
    let mut body = Body::default();
    let mut c = Cursor::new(&data[..range.end], range.start);
    if let Err(fault) = read_sub_records(&mut c, ids, &mut body) {
        body.fault = Some(fault);
    }
    body
}

fn read_sub_records(c: &mut Cursor<'_>, ids: usize, body: &mut Body) -> Result<(), Fault> {
    while !c.at_end() {
        let start = c.pos;
        let tag = c.u1("heap dump sub-record tag")?;
        if let Some(kind) = crate::roots::from_tag(tag) {
            let id = c.id(ids, "GC root object id")?;
            // Extra fields after the object id, per root kind.
            let extra = match tag {
                0x01 => ids,                    // JNI global: global ref id
                0x02 | 0x03 | 0x08 | 0x8E => 8, // JNI local, Java frame, thread object, JNI monitor: two u4
                0x04 | 0x06 => 4,               // native stack, thread block: thread serial
                _ => 0,
            };
            c.bytes(extra, "GC root record")?;
            body.roots.push((id, kind));
            continue;
        }
        let id = match tag {
            CLASS_DUMP => {
                body.classes.push(read_class_dump(c, ids, start)?);
                continue;
            }
            HEAP_DUMP_INFO => {
                c.bytes(4 + ids, "heap dump info")?;
                continue;
            }
            INSTANCE_DUMP => {
                let id = c.id(ids, "object id")?;
                c.bytes(4 + ids, "instance dump header")?;
                let length = c.u4("instance field bytes length")? as usize;
                c.bytes(length, "instance field values")?;
                id
            }
            OBJ_ARRAY_DUMP => {
                let id = c.id(ids, "object id")?;
                c.bytes(4, "object array header")?;
                let count = c.u4("object array length")? as usize;
                c.bytes(ids, "object array class id")?;
                c.bytes(count.saturating_mul(ids), "object array elements")?;
                id
            }
            PRIM_ARRAY_DUMP | PRIM_ARRAY_NODATA => {
                let id = c.id(ids, "object id")?;
                c.bytes(4, "primitive array header")?;
                let count = c.u4("primitive array length")? as usize;
                let ty_pos = c.pos;
                let ty = c.u1("primitive array element type")?;
                let size = value_size(ty, ids).filter(|_| ty != OBJECT).ok_or_else(|| {
                    Fault::new(ty_pos, format!("invalid primitive array element type {ty}"))
                })?;
                if tag == PRIM_ARRAY_DUMP {
                    c.bytes(count.saturating_mul(size), "primitive array elements")?;
                }
                id
            }
            t => return Err(Fault::new(start, format!("unknown heap dump sub-record tag 0x{t:02X}"))),
        };
        body.ids.push(id);
        body.objects.push(start);
    }
    Ok(())
}

fn read_class_dump(c: &mut Cursor<'_>, ids: usize, start: usize) -> Result<RawClass, Fault> {
    let id = c.id(ids, "class object id")?;
    c.u4("stack trace serial number")?;
    let super_id = c.id(ids, "superclass id")?;
    let loader_id = c.id(ids, "class loader id")?;
    // Signers, protection domain, two reserved ids, instance size.
    c.bytes(4 * ids + 4, "class dump header")?;
    let constants = c.u2("constant pool size")?;
    for _ in 0..constants {
        c.u2("constant pool index")?;
        read_value(c, ids)?;
    }
    let static_count = c.u2("static field count")?;
    let mut statics = Vec::with_capacity(static_count.into());
    for _ in 0..static_count {
        let name = c.id(ids, "static field name id")?;
        let (ty, bits) = read_value(c, ids)?;
        statics.push((name, ty, bits));
    }
    let field_count = c.u2("instance field count")?;
    let mut fields = Vec::with_capacity(field_count.into());
    let mut field_names = Vec::with_capacity(field_count.into());
    for _ in 0..field_count {
        field_names.push(c.id(ids, "instance field name id")?);
        let ty_pos = c.pos;
        let ty = c.u1("instance field type")?;
        value_size(ty, ids).ok_or_else(|| Fault::new(ty_pos, format!("invalid field type {ty}")))?;
        fields.push(ty);
    }
    Ok(RawClass { id, super_id, loader_id, statics, fields, field_names, offset: start })
}

/// A typed value (constant pool entry or static field): its type and its bits.
fn read_value(c: &mut Cursor<'_>, ids: usize) -> Result<(u8, u64), Fault> {
    let ty_pos = c.pos;
    let ty = c.u1("value type")?;
    let size = value_size(ty, ids).ok_or_else(|| Fault::new(ty_pos, format!("invalid value type {ty}")))?;
    let bits = crate::cursor::read_id(c.bytes(size, "value")?);
    Ok((ty, bits))
}
