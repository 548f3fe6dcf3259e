//! The fast path of [`LegacyProgram::decode`](crate::LegacyProgram::decode): one pass over
//! the protobuf wire data straight into the typed view, with every check of
//! [`LegacyProgram::from_proto`](crate::LegacyProgram::from_proto), and none of the staged
//! decoder's copies (raw bytes per level, prost structs, then clones into the view).
//!
//! It accepts only what the staged decoder accepts, and yields the same program: on anything
//! irregular — malformed wire data, a failed check, a field seen twice that prost would merge,
//! a group — it returns `None`, and `decode` runs the staged decoder, which reports the
//! located error (or, for the few encodings only prost handles, decodes it). Equivalence on
//! valid and corrupted inputs is tested in `tests/decode.rs`.

use rustc_hash::FxHashSet;

use crate::program::{
    AttrValue, LegacyBlock, LegacyOp, LegacyProgram, LegacyVar, OpAttr, OpSlot, ScalarValue,
    TensorDesc, VarAttr, VarAttrValue, VarDetail, VarKind,
};
use crate::proto::{scalar, AttrType};

const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;
const FIXED32: u8 = 5;

/// A cursor over wire data.
#[derive(Clone, Copy)]
struct R<'a> {
    b: &'a [u8],
}

impl<'a> R<'a> {
    fn new(b: &'a [u8]) -> Self {
        R { b }
    }

    fn done(&self) -> bool {
        self.b.is_empty()
    }

    #[inline]
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..10 {
            let (&byte, rest) = self.b.split_first()?;
            self.b = rest;
            // The tenth byte may only contribute the top bit (prost rejects more).
            if i == 9 && byte > 1 {
                return None;
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }

    #[inline]
    fn key(&mut self) -> Option<(u32, u8)> {
        let k = self.varint()?;
        let field = u32::try_from(k >> 3).ok()?;
        if field == 0 {
            return None;
        }
        Some((field, (k & 7) as u8))
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.b.get(..n)?, self.b.get(n..)?);
        self.b = rest;
        Some(head)
    }

    fn len_delimited(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        self.take(n)
    }

    fn fixed32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn fixed64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// Skips an unknown field (as prost does; groups are left to the staged decoder).
    fn skip(&mut self, wire: u8) -> Option<()> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.len_delimited().map(drop),
            FIXED32 => self.take(4).map(drop),
            _ => None,
        }
    }
}

/// A value of wire type `wire` for a scalar field: the varint, or the fixed-width bits.
fn scalar_of(r: &mut R<'_>, wire: u8, expected: u8) -> Option<u64> {
    if wire != expected {
        return None;
    }
    match wire {
        VARINT => r.varint(),
        FIXED32 => r.fixed32().map(u64::from),
        FIXED64 => r.fixed64(),
        _ => None,
    }
}

/// Appends one element (unpacked) or a packed run of a repeated scalar field.
fn repeated<T>(
    r: &mut R<'_>,
    wire: u8,
    elem_wire: u8,
    out: &mut Vec<T>,
    conv: impl Fn(u64) -> T,
) -> Option<()> {
    if wire == LEN {
        let mut p = R::new(r.len_delimited()?);
        while !p.done() {
            out.push(conv(scalar_of(&mut p, elem_wire, elem_wire)?));
        }
        return Some(());
    }
    out.push(conv(scalar_of(r, wire, elem_wire)?));
    Some(())
}

fn string(r: &mut R<'_>, wire: u8) -> Option<String> {
    if wire != LEN {
        return None;
    }
    std::str::from_utf8(r.len_delimited()?)
        .ok()
        .map(str::to_owned)
}

fn message<'a>(r: &mut R<'a>, wire: u8) -> Option<&'a [u8]> {
    if wire != LEN {
        return None;
    }
    r.len_delimited()
}

/// Sets a singular message field, refusing a second occurrence (prost would merge them).
fn once<'a>(slot: &mut Option<&'a [u8]>, value: &'a [u8]) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

fn i32_of(v: u64) -> i32 {
    v as i32
}

fn block_ref(raw: i64, num_blocks: usize) -> Option<usize> {
    usize::try_from(raw).ok().filter(|&i| i < num_blocks)
}

/// Decodes and validates `bytes`; `None` on anything the staged decoder must handle.
pub(crate) fn decode(bytes: &[u8]) -> Option<LegacyProgram> {
    let mut r = R::new(bytes);
    let mut blocks_raw: Vec<&[u8]> = Vec::new();
    let mut version_raw: Option<&[u8]> = None;
    let mut versions_raw: Option<&[u8]> = None;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => blocks_raw.push(message(&mut r, wire)?),
            4 => once(&mut version_raw, message(&mut r, wire)?)?,
            5 => once(&mut versions_raw, message(&mut r, wire)?)?,
            _ => r.skip(wire)?,
        }
    }
    let num_blocks = blocks_raw.len();
    if num_blocks == 0 {
        return None;
    }
    let mut blocks = Vec::with_capacity(num_blocks);
    for (position, raw) in blocks_raw.iter().enumerate() {
        blocks.push(block(raw, position, num_blocks)?);
    }
    // Parent chains must end (the staged decoder's `check_parent_chains`).
    for b in &blocks {
        let mut current = b.parent;
        let mut steps = 0;
        while let Some(p) = current {
            steps += 1;
            if steps > blocks.len() {
                return None;
            }
            current = blocks[p].parent;
        }
    }
    let version = match version_raw {
        None => None,
        Some(raw) => {
            let mut r = R::new(raw);
            let mut v = None;
            while !r.done() {
                let (field, wire) = r.key()?;
                match field {
                    1 => v = Some(scalar_of(&mut r, wire, VARINT)? as i64),
                    _ => r.skip(wire)?,
                }
            }
            v
        }
    };
    let mut op_versions = Vec::new();
    if let Some(raw) = versions_raw {
        let mut r = R::new(raw);
        while !r.done() {
            let (field, wire) = r.key()?;
            match field {
                1 => op_versions.push(version_pair(message(&mut r, wire)?)?),
                _ => r.skip(wire)?,
            }
        }
    }
    Some(LegacyProgram {
        blocks,
        version,
        op_versions,
    })
}

fn version_pair(raw: &[u8]) -> Option<(String, i32)> {
    let mut r = R::new(raw);
    let mut name = None;
    let mut op_version: Option<&[u8]> = None;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => name = Some(string(&mut r, wire)?),
            2 => once(&mut op_version, message(&mut r, wire)?)?,
            _ => r.skip(wire)?,
        }
    }
    let mut r = R::new(op_version?);
    let mut version = None;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => version = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            _ => r.skip(wire)?,
        }
    }
    Some((name?, version?))
}

fn block(raw: &[u8], position: usize, num_blocks: usize) -> Option<LegacyBlock> {
    let mut r = R::new(raw);
    let (mut idx, mut parent_idx, mut forward) = (None, None, None);
    let mut vars_raw: Vec<&[u8]> = Vec::new();
    let mut ops_raw: Vec<&[u8]> = Vec::new();
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => idx = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            2 => parent_idx = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            3 => vars_raw.push(message(&mut r, wire)?),
            4 => ops_raw.push(message(&mut r, wire)?),
            5 => forward = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            _ => r.skip(wire)?,
        }
    }
    if usize::try_from(idx?).ok()? != position {
        return None;
    }
    let parent = match parent_idx? {
        -1 => None,
        p => Some(block_ref(p.into(), num_blocks).filter(|&p| p != position)?),
    };
    let forward_block = match forward.unwrap_or(-1) {
        -1 => None,
        f => Some(block_ref(f.into(), num_blocks)?),
    };
    let mut names: FxHashSet<&[u8]> =
        FxHashSet::with_capacity_and_hasher(vars_raw.len(), Default::default());
    let mut vars = Vec::with_capacity(vars_raw.len());
    for raw in vars_raw {
        let v = var(raw)?;
        vars.push(v);
    }
    for v in &vars {
        if !names.insert(v.name.as_bytes()) {
            return None;
        }
    }
    let mut ops = Vec::with_capacity(ops_raw.len());
    for raw in ops_raw {
        ops.push(op(raw, num_blocks)?);
    }
    Some(LegacyBlock {
        idx: position,
        parent,
        forward_block,
        vars,
        ops,
    })
}

fn tensor_desc(raw: &[u8]) -> Option<TensorDesc> {
    let mut r = R::new(raw);
    let mut data_type = None;
    let mut dims = Vec::new();
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => data_type = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            2 => repeated(&mut r, wire, VARINT, &mut dims, |v| v as i64)?,
            _ => r.skip(wire)?,
        }
    }
    let data_type = VarKind::try_from(data_type?).ok()?;
    if !data_type.is_data_type() || dims.iter().any(|&d| d < -1) {
        return None;
    }
    Some(TensorDesc { data_type, dims })
}

/// `DenseTensorDesc` / `DenseTensorArrayDesc`: a required tensor and a lod level.
fn tensor_with_lod(raw: &[u8]) -> Option<(TensorDesc, i32)> {
    let mut r = R::new(raw);
    let mut tensor: Option<&[u8]> = None;
    let mut lod = None;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => once(&mut tensor, message(&mut r, wire)?)?,
            2 => lod = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            _ => r.skip(wire)?,
        }
    }
    Some((tensor_desc(tensor?)?, lod.unwrap_or(0)))
}

fn var(raw: &[u8]) -> Option<LegacyVar> {
    let mut r = R::new(raw);
    let mut name = None;
    let mut ty: Option<&[u8]> = None;
    let (mut persistable, mut need_check_feed, mut is_parameter, mut stop_gradient) =
        (false, false, false, false);
    let mut attrs_raw: Vec<&[u8]> = Vec::new();
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => name = Some(string(&mut r, wire)?),
            2 => once(&mut ty, message(&mut r, wire)?)?,
            3 => persistable = scalar_of(&mut r, wire, VARINT)? != 0,
            4 => need_check_feed = scalar_of(&mut r, wire, VARINT)? != 0,
            5 => is_parameter = scalar_of(&mut r, wire, VARINT)? != 0,
            6 => stop_gradient = scalar_of(&mut r, wire, VARINT)? != 0,
            7 => attrs_raw.push(message(&mut r, wire)?),
            _ => r.skip(wire)?,
        }
    }
    let name = name?;
    let (kind, detail) = var_type(ty?)?;
    let mut attrs: Vec<VarAttr> = Vec::with_capacity(attrs_raw.len());
    for raw in attrs_raw {
        let a = var_attr(raw)?;
        if attrs.iter().any(|x| x.name == a.name) {
            return None;
        }
        attrs.push(a);
    }
    Some(LegacyVar {
        name,
        kind,
        detail,
        persistable,
        need_check_feed,
        is_parameter,
        stop_gradient,
        attrs,
    })
}

fn var_type(raw: &[u8]) -> Option<(VarKind, VarDetail)> {
    let mut r = R::new(raw);
    let mut kind = None;
    // Descriptions by field number (2..=12).
    let mut desc: [Option<&[u8]>; 13] = [None; 13];
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => kind = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            2..=5 | 7..=12 => once(&mut desc[field as usize], message(&mut r, wire)?)?,
            _ => r.skip(wire)?,
        }
    }
    let kind = VarKind::try_from(kind?).ok()?;
    // Every description present is validated, whether or not it belongs to the kind.
    let plain = |i: usize| desc[i].map(tensor_desc).map_or(Some(None), |d| d.map(Some));
    let selected_rows = plain(2)?;
    let dense = desc[3]
        .map(tensor_with_lod)
        .map_or(Some(None), |d| d.map(Some))?;
    let array = desc[4]
        .map(tensor_with_lod)
        .map_or(Some(None), |d| d.map(Some))?;
    let reader = match desc[5] {
        None => None,
        Some(raw) => {
            let mut r = R::new(raw);
            let mut tensors = Vec::new();
            while !r.done() {
                let (field, wire) = r.key()?;
                match field {
                    1 => tensors.push(tensor_with_lod(message(&mut r, wire)?)?),
                    _ => r.skip(wire)?,
                }
            }
            Some(tensors)
        }
    };
    let tuple = match desc[7] {
        None => None,
        Some(raw) => {
            let mut r = R::new(raw);
            let mut codes: Vec<i32> = Vec::new();
            while !r.done() {
                let (field, wire) = r.key()?;
                match field {
                    1 => repeated(&mut r, wire, VARINT, &mut codes, i32_of)?,
                    _ => r.skip(wire)?,
                }
            }
            Some(
                codes
                    .into_iter()
                    .map(|c| VarKind::try_from(c).ok())
                    .collect::<Option<Vec<_>>>()?,
            )
        }
    };
    let string = plain(8)?;
    let strings = plain(9)?;
    let vocab = plain(10)?;
    let sparse_coo = plain(11)?;
    let sparse_csr = plain(12)?;
    let detail = match kind {
        VarKind::DenseTensor => {
            dense.map(|(tensor, lod_level)| VarDetail::DenseTensor { tensor, lod_level })
        }
        VarKind::DenseTensorArray => {
            array.map(|(tensor, lod_level)| VarDetail::TensorArray { tensor, lod_level })
        }
        VarKind::Reader => reader.map(VarDetail::Reader),
        VarKind::Tuple => tuple.map(VarDetail::Tuple),
        VarKind::SelectedRows => selected_rows.map(VarDetail::Tensor),
        VarKind::String => string.map(VarDetail::Tensor),
        VarKind::Strings => strings.map(VarDetail::Tensor),
        VarKind::Vocab => vocab.map(VarDetail::Tensor),
        VarKind::SparseCoo => sparse_coo.map(VarDetail::Tensor),
        VarKind::SparseCsr => sparse_csr.map(VarDetail::Tensor),
        _ => None,
    }
    .unwrap_or(VarDetail::None);
    Some((kind, detail))
}

fn var_attr(raw: &[u8]) -> Option<VarAttr> {
    let mut r = R::new(raw);
    let (mut name, mut ty, mut i, mut s) = (None, None, None, None);
    let mut ints: Vec<i32> = Vec::new();
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => name = Some(string(&mut r, wire)?),
            2 => ty = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            3 => i = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            4 => s = Some(string(&mut r, wire)?),
            5 => repeated(&mut r, wire, VARINT, &mut ints, i32_of)?,
            _ => r.skip(wire)?,
        }
    }
    let name = name?;
    let declared = AttrType::try_from(ty?).ok()?;
    // Exactly the declared kind's field (a list may be empty).
    let value = match declared {
        AttrType::Int if s.is_none() && ints.is_empty() => VarAttrValue::Int(i?),
        AttrType::String if i.is_none() && ints.is_empty() => VarAttrValue::String(s?),
        AttrType::Ints if i.is_none() && s.is_none() => VarAttrValue::Ints(ints),
        _ => return None,
    };
    Some(VarAttr { name, value })
}

fn slot(raw: &[u8]) -> Option<OpSlot> {
    let mut r = R::new(raw);
    let mut parameter = None;
    let mut arguments = Vec::new();
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => parameter = Some(string(&mut r, wire)?),
            2 => arguments.push(string(&mut r, wire)?),
            _ => r.skip(wire)?,
        }
    }
    Some(OpSlot {
        parameter: parameter?,
        arguments,
    })
}

fn op(raw: &[u8], num_blocks: usize) -> Option<LegacyOp> {
    let mut r = R::new(raw);
    let mut inputs: Vec<OpSlot> = Vec::new();
    let mut outputs: Vec<OpSlot> = Vec::new();
    let mut op_type = None;
    let mut attrs: Vec<OpAttr> = Vec::with_capacity(16);
    let mut is_target = false;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => inputs.push(slot(message(&mut r, wire)?)?),
            2 => outputs.push(slot(message(&mut r, wire)?)?),
            3 => op_type = Some(string(&mut r, wire)?),
            4 => {
                let a = attr(message(&mut r, wire)?, num_blocks)?;
                // A repeated attribute keeps its first position and takes the last value.
                match attrs.iter_mut().find(|x| x.name == a.name) {
                    Some(x) => x.value = a.value,
                    None => attrs.push(a),
                }
            }
            5 => is_target = scalar_of(&mut r, wire, VARINT)? != 0,
            _ => r.skip(wire)?,
        }
    }
    for slots in [&inputs, &outputs] {
        for (i, s) in slots.iter().enumerate() {
            if slots[..i].iter().any(|x| x.parameter == s.parameter) {
                return None;
            }
        }
    }
    Some(LegacyOp {
        op_type: op_type?,
        inputs,
        outputs,
        attrs,
        is_target,
    })
}

fn scalar_msg(raw: &[u8]) -> Option<ScalarValue> {
    let mut r = R::new(raw);
    let (mut ty, mut b, mut i, mut f) = (None, None, None, None);
    let mut c: Option<&[u8]> = None;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => ty = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            2 => b = Some(scalar_of(&mut r, wire, VARINT)? != 0),
            3 => i = Some(scalar_of(&mut r, wire, VARINT)? as i64),
            4 => f = Some(f64::from_bits(scalar_of(&mut r, wire, FIXED64)?)),
            5 => once(&mut c, message(&mut r, wire)?)?,
            _ => r.skip(wire)?,
        }
    }
    Some(match scalar::Type::try_from(ty?).ok()? {
        scalar::Type::Boolean => ScalarValue::Bool(b?),
        scalar::Type::Long => ScalarValue::Int(i?),
        scalar::Type::Float64 => ScalarValue::Float(f?),
        scalar::Type::Complex128 => {
            let mut r = R::new(c?);
            let (mut re, mut im) = (None, None);
            while !r.done() {
                let (field, wire) = r.key()?;
                match field {
                    1 => re = Some(f64::from_bits(scalar_of(&mut r, wire, FIXED64)?)),
                    2 => im = Some(f64::from_bits(scalar_of(&mut r, wire, FIXED64)?)),
                    _ => r.skip(wire)?,
                }
            }
            ScalarValue::Complex { re: re?, im: im? }
        }
    })
}

/// The value fields of an `OpDesc.Attr` as decoded.
#[derive(Default)]
struct AttrFields {
    i: Option<i32>,
    f: Option<f32>,
    s: Option<String>,
    ints: Vec<i32>,
    floats: Vec<f32>,
    strings: Vec<String>,
    b: Option<bool>,
    bools: Vec<bool>,
    block_idx: Option<i32>,
    l: Option<i64>,
    blocks_idx: Vec<i32>,
    longs: Vec<i64>,
    float64s: Vec<f64>,
    var_name: Option<String>,
    vars_name: Vec<String>,
    float64: Option<f64>,
    scalar: Option<ScalarValue>,
    scalars: Vec<ScalarValue>,
}

impl AttrFields {
    /// The attribute types whose value field is set.
    fn set(&self) -> [(AttrType, bool); 18] {
        [
            (AttrType::Int, self.i.is_some()),
            (AttrType::Float, self.f.is_some()),
            (AttrType::String, self.s.is_some()),
            (AttrType::Ints, !self.ints.is_empty()),
            (AttrType::Floats, !self.floats.is_empty()),
            (AttrType::Strings, !self.strings.is_empty()),
            (AttrType::Boolean, self.b.is_some()),
            (AttrType::Booleans, !self.bools.is_empty()),
            (AttrType::Block, self.block_idx.is_some()),
            (AttrType::Long, self.l.is_some()),
            (AttrType::Blocks, !self.blocks_idx.is_empty()),
            (AttrType::Longs, !self.longs.is_empty()),
            (AttrType::Float64s, !self.float64s.is_empty()),
            (AttrType::Var, self.var_name.is_some()),
            (AttrType::Vars, !self.vars_name.is_empty()),
            (AttrType::Float64, self.float64.is_some()),
            (AttrType::Scalar, self.scalar.is_some()),
            (AttrType::Scalars, !self.scalars.is_empty()),
        ]
    }
}

fn attr(raw: &[u8], num_blocks: usize) -> Option<OpAttr> {
    let mut r = R::new(raw);
    let mut name = None;
    let mut ty = None;
    let mut v = AttrFields::default();
    let mut scalar_raw: Option<&[u8]> = None;
    while !r.done() {
        let (field, wire) = r.key()?;
        match field {
            1 => name = Some(string(&mut r, wire)?),
            2 => ty = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            3 => v.i = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            4 => v.f = Some(f32::from_bits(scalar_of(&mut r, wire, FIXED32)? as u32)),
            5 => v.s = Some(string(&mut r, wire)?),
            6 => repeated(&mut r, wire, VARINT, &mut v.ints, i32_of)?,
            7 => repeated(&mut r, wire, FIXED32, &mut v.floats, |x| {
                f32::from_bits(x as u32)
            })?,
            8 => v.strings.push(string(&mut r, wire)?),
            10 => v.b = Some(scalar_of(&mut r, wire, VARINT)? != 0),
            11 => repeated(&mut r, wire, VARINT, &mut v.bools, |x| x != 0)?,
            12 => v.block_idx = Some(i32_of(scalar_of(&mut r, wire, VARINT)?)),
            13 => v.l = Some(scalar_of(&mut r, wire, VARINT)? as i64),
            14 => repeated(&mut r, wire, VARINT, &mut v.blocks_idx, i32_of)?,
            15 => repeated(&mut r, wire, VARINT, &mut v.longs, |x| x as i64)?,
            16 => repeated(&mut r, wire, FIXED64, &mut v.float64s, f64::from_bits)?,
            17 => v.var_name = Some(string(&mut r, wire)?),
            18 => v.vars_name.push(string(&mut r, wire)?),
            19 => v.float64 = Some(f64::from_bits(scalar_of(&mut r, wire, FIXED64)?)),
            20 => once(&mut scalar_raw, message(&mut r, wire)?)?,
            21 => v.scalars.push(scalar_msg(message(&mut r, wire)?)?),
            _ => r.skip(wire)?,
        }
    }
    if let Some(raw) = scalar_raw {
        v.scalar = Some(scalar_msg(raw)?);
    }
    let name = name?;
    let declared = AttrType::try_from(ty?).ok()?;
    // The declared kind's field must be the only one set (and set, for singular kinds).
    for (owner, is_set) in v.set() {
        if owner != declared && is_set {
            return None;
        }
    }
    let value = match declared {
        AttrType::Int => AttrValue::Int(v.i?),
        AttrType::Float => AttrValue::Float(v.f?),
        AttrType::String => AttrValue::String(v.s?),
        AttrType::Ints => AttrValue::Ints(v.ints),
        AttrType::Floats => AttrValue::Floats(v.floats),
        AttrType::Strings => AttrValue::Strings(v.strings),
        AttrType::Boolean => AttrValue::Bool(v.b?),
        AttrType::Booleans => AttrValue::Bools(v.bools),
        AttrType::Block => AttrValue::Block(block_ref(v.block_idx?.into(), num_blocks)?),
        AttrType::Long => AttrValue::Long(v.l?),
        AttrType::Blocks => AttrValue::Blocks(
            v.blocks_idx
                .iter()
                .map(|&b| block_ref(b.into(), num_blocks))
                .collect::<Option<_>>()?,
        ),
        AttrType::Longs => AttrValue::Longs(v.longs),
        AttrType::Float64s => AttrValue::Float64s(v.float64s),
        AttrType::Var => AttrValue::Var(v.var_name?),
        AttrType::Vars => AttrValue::Vars(v.vars_name),
        AttrType::Float64 => AttrValue::Float64(v.float64?),
        AttrType::Scalar => AttrValue::Scalar(v.scalar?),
        AttrType::Scalars => AttrValue::Scalars(v.scalars),
    };
    Some(OpAttr { name, value })
}
