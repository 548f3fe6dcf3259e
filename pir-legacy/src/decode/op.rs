//! Operators: `OpDesc`, its input/output slots (`OpDesc.Var`) and attributes (`OpDesc.Attr`,
//! `Scalar`, `Complex`).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::error::{DecodeError, Location, WireError};
use crate::program::{AttrValue, LegacyOp, OpAttr, OpSlot, ScalarValue};
use crate::proto::{scalar, AttrType};
use crate::wire::{self, Msg, FIXED32, FIXED64, VARINT};

use super::{block_ref, enum_value, first_duplicate, malformed, required};

static OP_DESC: Msg = Msg {
    name: "OpDesc",
    fields: &[
        (1, "inputs"),
        (2, "outputs"),
        (3, "type"),
        (4, "attrs"),
        (5, "is_target"),
    ],
};
static OP_VAR: Msg = Msg {
    name: "OpDesc.Var",
    fields: &[(1, "parameter"), (2, "arguments")],
};
static OP_ATTR: Msg = Msg {
    name: "OpDesc.Attr",
    fields: &[
        (1, "name"),
        (2, "type"),
        (3, "i"),
        (4, "f"),
        (5, "s"),
        (6, "ints"),
        (7, "floats"),
        (8, "strings"),
        (10, "b"),
        (11, "bools"),
        (12, "block_idx"),
        (13, "l"),
        (14, "blocks_idx"),
        (15, "longs"),
        (16, "float64s"),
        (17, "var_name"),
        (18, "vars_name"),
        (19, "float64"),
        (20, "scalar"),
        (21, "scalars"),
    ],
};
static SCALAR: Msg = Msg {
    name: "Scalar",
    fields: &[(1, "type"), (2, "b"), (3, "i"), (4, "r"), (5, "c")],
};
static COMPLEX: Msg = Msg {
    name: "Complex",
    fields: &[(1, "r"), (2, "i")],
};

/// An input or output slot as read: the parameter (required) and its arguments.
type SlotFields<'a> = (Option<&'a str>, Vec<String>);

/// Op `index` of block `block` in a program with `num_blocks` blocks.
pub(super) fn op(
    bytes: &[u8],
    block: usize,
    index: usize,
    num_blocks: usize,
) -> Result<LegacyOp, DecodeError> {
    let at = |op_type: Option<&str>| Location::program().block(block).op(index, op_type);
    let mut inputs: SmallVec<[SlotFields<'_>; 8]> = SmallVec::new();
    let mut outputs: SmallVec<[SlotFields<'_>; 4]> = SmallVec::new();
    let mut op_type = None;
    let mut attrs_raw: SmallVec<[&[u8]; 24]> = SmallVec::new();
    let mut is_target = false;
    wire::fields(bytes, &OP_DESC, 2, |field, w, r| {
        match field {
            1 => inputs.push(slot(wire::message(r, w)?)?),
            2 => outputs.push(slot(wire::message(r, w)?)?),
            3 => op_type = Some(wire::string(r, w)?),
            4 => attrs_raw.push(wire::message(r, w)?),
            5 => is_target = wire::boolean(r, w)?,
            _ => return Ok(false),
        }
        Ok(true)
    })
    .map_err(|e| malformed(at(wire::first_string(bytes, 3)), "OpDesc", e))?;

    let op_type = required(op_type, "OpDesc", "type").map_err(|e| e.located(at(None)))?;
    let at = || at(Some(op_type));
    let inputs = slots(inputs.drain(..), "input parameter").map_err(|e| e.located(at()))?;
    let outputs = slots(outputs.drain(..), "output parameter").map_err(|e| e.located(at()))?;

    // Paddle writes some attributes twice (from its attribute map and from its runtime
    // attribute map) and, reading a program, lets the last copy win: a repeated attribute
    // keeps its first position and takes the last value.
    let mut attrs: Vec<OpAttr> = Vec::with_capacity(attrs_raw.len());
    let mut positions = Positions::default();
    let mut fields = AttrFields::default();
    for (a, raw) in attrs_raw.iter().enumerate() {
        let at_attr = |name: Option<&str>| at().attr(a, name);
        fields
            .read(raw)
            .map_err(|e| malformed(at_attr(wire::first_string(raw, 1)), "OpDesc.Attr", e))?;
        let (name, value) = fields
            .take_value(num_blocks)
            .map_err(|e| e.located(at_attr(fields.name)))?;
        match positions.find_or_insert(name) {
            Some(first) => attrs[first].value = value,
            None => attrs.push(OpAttr {
                name: name.to_owned(),
                value,
            }),
        }
    }
    Ok(LegacyOp {
        op_type: op_type.to_owned(),
        inputs,
        outputs,
        attrs,
        is_target,
    })
}

/// The positions of the names of a list being built: searched linearly while the list is
/// short (ops have a few dozen attributes), through a hash map once it grows (so a huge op
/// stays linear).
#[derive(Default)]
struct Positions<'a> {
    names: SmallVec<[&'a str; 24]>,
    map: Option<FxHashMap<&'a str, usize>>,
}

impl<'a> Positions<'a> {
    /// The position of `name`; `None` after recording it at the next position.
    fn find_or_insert(&mut self, name: &'a str) -> Option<usize> {
        let found = match &self.map {
            Some(map) => map.get(name).copied(),
            None => self.names.iter().position(|&n| n == name),
        };
        if found.is_none() {
            let position = self.names.len();
            self.names.push(name);
            match &mut self.map {
                Some(map) => {
                    map.insert(name, position);
                }
                None if self.names.len() > 64 => {
                    self.map = Some(
                        self.names
                            .iter()
                            .enumerate()
                            .map(|(i, &n)| (n, i))
                            .collect(),
                    );
                }
                None => {}
            }
        }
        found
    }
}

/// `OpDesc.Var`.
fn slot(bytes: &[u8]) -> Result<SlotFields<'_>, WireError> {
    let (mut parameter, mut arguments) = (None, Vec::new());
    wire::fields(bytes, &OP_VAR, 3, |field, w, r| {
        match field {
            1 => parameter = Some(wire::string(r, w)?),
            2 => arguments.push(wire::string(r, w)?.to_owned()),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok((parameter, arguments))
}

/// The slots of an op: each has a parameter, and no parameter occurs twice (Paddle keeps them
/// in a map).
fn slots<'a>(
    read: impl IntoIterator<Item = SlotFields<'a>>,
    what: &'static str,
) -> Result<Vec<OpSlot>, DecodeError> {
    let read = read.into_iter();
    let mut out = Vec::with_capacity(read.size_hint().0);
    let mut names: SmallVec<[&str; 8]> = SmallVec::new();
    for (parameter, arguments) in read {
        let parameter = required(parameter, "OpDesc.Var", "parameter")?;
        names.push(parameter);
        out.push(OpSlot {
            parameter: parameter.to_owned(),
            arguments,
        });
    }
    if let Some((_, name)) = first_duplicate(&names) {
        return Err(DecodeError::Duplicate {
            at: Box::default(),
            what,
            name: name.to_owned(),
        });
    }
    Ok(out)
}

/// Checks that the value field of `declared` is set when it must be (singular kinds) and that
/// no value field of another kind is set. `set` lists `(field, owning type, is set)`.
pub(super) fn check_value_fields(
    declared: AttrType,
    set: &[(&'static str, AttrType, bool)],
) -> Result<(), DecodeError> {
    let mismatch = |problem: String| DecodeError::AttrTypeMismatch {
        at: Box::default(),
        declared: declared.proto_name(),
        problem,
    };
    for &(field, owner, is_set) in set {
        if owner == declared {
            let list = matches!(
                owner,
                AttrType::Ints
                    | AttrType::Floats
                    | AttrType::Strings
                    | AttrType::Booleans
                    | AttrType::Blocks
                    | AttrType::Longs
                    | AttrType::Float64s
                    | AttrType::Vars
                    | AttrType::Scalars
            );
            if !list && !is_set {
                return Err(mismatch(format!("has no `{field}` value")));
            }
        } else if is_set {
            return Err(mismatch(format!(
                "also sets `{field}` (a {} field)",
                owner.proto_name()
            )));
        }
    }
    Ok(())
}

/// `Scalar` as read.
#[derive(Default)]
struct ScalarFields {
    ty: Option<i32>,
    b: Option<bool>,
    i: Option<i64>,
    r: Option<f64>,
    /// `Some` when the `c` message is present: its `r` and `i`.
    c: Option<(Option<f64>, Option<f64>)>,
}

impl ScalarFields {
    fn merge(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        wire::fields(bytes, &SCALAR, 4, |field, w, r| {
            match field {
                1 => self.ty = Some(wire::int32(r, w)?),
                2 => self.b = Some(wire::boolean(r, w)?),
                3 => self.i = Some(wire::int64(r, w)?),
                4 => self.r = Some(wire::double(r, w)?),
                5 => {
                    let (re, im) = self.c.get_or_insert((None, None));
                    wire::fields(wire::message(r, w)?, &COMPLEX, 5, |field, w, r| {
                        match field {
                            1 => *re = Some(wire::double(r, w)?),
                            2 => *im = Some(wire::double(r, w)?),
                            _ => return Ok(false),
                        }
                        Ok(true)
                    })?;
                }
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    fn validate(&self) -> Result<ScalarValue, DecodeError> {
        let ty: scalar::Type = enum_value(required(self.ty, "Scalar", "type")?, "Scalar.type")?;
        Ok(match ty {
            scalar::Type::Boolean => ScalarValue::Bool(required(self.b, "Scalar", "b")?),
            scalar::Type::Long => ScalarValue::Int(required(self.i, "Scalar", "i")?),
            scalar::Type::Float64 => ScalarValue::Float(required(self.r, "Scalar", "r")?),
            scalar::Type::Complex128 => {
                let (re, im) = required(self.c, "Scalar", "c")?;
                ScalarValue::Complex {
                    re: required(re, "Complex", "r")?,
                    im: required(im, "Complex", "i")?,
                }
            }
        })
    }
}

/// `OpDesc.Attr` as read.
#[derive(Default)]
struct AttrFields<'a> {
    name: Option<&'a str>,
    ty: Option<i32>,
    i: Option<i32>,
    f: Option<f32>,
    s: Option<&'a str>,
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
    var_name: Option<&'a str>,
    vars_name: Vec<String>,
    float64: Option<f64>,
    scalar: Option<ScalarFields>,
    scalars: Vec<ScalarFields>,
}

impl<'a> AttrFields<'a> {
    /// Reads one attribute into fields that are unset (new, or emptied by
    /// [`AttrFields::take_value`]).
    fn read(&mut self, bytes: &'a [u8]) -> Result<(), WireError> {
        let v = self;
        wire::fields(bytes, &OP_ATTR, 3, |field, w, r| {
            match field {
                1 => v.name = Some(wire::string(r, w)?),
                2 => v.ty = Some(wire::int32(r, w)?),
                3 => v.i = Some(wire::int32(r, w)?),
                4 => v.f = Some(wire::float(r, w)?),
                5 => v.s = Some(wire::string(r, w)?),
                6 => wire::repeated(r, w, VARINT, &mut v.ints, |x| x as i32)?,
                7 => wire::repeated(r, w, FIXED32, &mut v.floats, |x| f32::from_bits(x as u32))?,
                8 => v.strings.push(wire::string(r, w)?.to_owned()),
                10 => v.b = Some(wire::boolean(r, w)?),
                11 => wire::repeated(r, w, VARINT, &mut v.bools, |x| x != 0)?,
                12 => v.block_idx = Some(wire::int32(r, w)?),
                13 => v.l = Some(wire::int64(r, w)?),
                14 => wire::repeated(r, w, VARINT, &mut v.blocks_idx, |x| x as i32)?,
                15 => wire::repeated(r, w, VARINT, &mut v.longs, |x| x as i64)?,
                16 => wire::repeated(r, w, FIXED64, &mut v.float64s, f64::from_bits)?,
                17 => v.var_name = Some(wire::string(r, w)?),
                18 => v.vars_name.push(wire::string(r, w)?.to_owned()),
                19 => v.float64 = Some(wire::double(r, w)?),
                20 => v
                    .scalar
                    .get_or_insert_default()
                    .merge(wire::message(r, w)?)?,
                21 => {
                    let mut s = ScalarFields::default();
                    s.merge(wire::message(r, w)?)?;
                    v.scalars.push(s);
                }
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    /// The name and the value of the declared type. Takes the fields: they are unset after a
    /// success, ready for the next [`AttrFields::read`].
    fn take_value(&mut self, num_blocks: usize) -> Result<(&'a str, AttrValue), DecodeError> {
        use std::mem::take;
        let name = required(self.name, "OpDesc.Attr", "name")?;
        let raw_type = required(self.ty, "OpDesc.Attr", "type")?;
        let declared: AttrType = enum_value(raw_type, "OpDesc.Attr.type")?;
        if !self.only_declared_set(declared) {
            check_value_fields(declared, &self.set())?;
        }
        // `check_value_fields` guarantees the singular field read below is present.
        let value = match declared {
            AttrType::Int => AttrValue::Int(self.i.take().unwrap_or_default()),
            AttrType::Float => AttrValue::Float(self.f.take().unwrap_or_default()),
            AttrType::String => AttrValue::String(self.s.take().unwrap_or_default().to_owned()),
            AttrType::Ints => AttrValue::Ints(take(&mut self.ints)),
            AttrType::Floats => AttrValue::Floats(take(&mut self.floats)),
            AttrType::Strings => AttrValue::Strings(take(&mut self.strings)),
            AttrType::Boolean => AttrValue::Bool(self.b.take().unwrap_or_default()),
            AttrType::Booleans => AttrValue::Bools(take(&mut self.bools)),
            AttrType::Block => AttrValue::Block(block_ref(
                self.block_idx.take().unwrap_or_default().into(),
                "block_idx",
                num_blocks,
            )?),
            AttrType::Long => AttrValue::Long(self.l.take().unwrap_or_default()),
            AttrType::Blocks => AttrValue::Blocks(
                take(&mut self.blocks_idx)
                    .iter()
                    .map(|&b| block_ref(b.into(), "blocks_idx", num_blocks))
                    .collect::<Result<_, _>>()?,
            ),
            AttrType::Longs => AttrValue::Longs(take(&mut self.longs)),
            AttrType::Float64s => AttrValue::Float64s(take(&mut self.float64s)),
            AttrType::Var => AttrValue::Var(self.var_name.take().unwrap_or_default().to_owned()),
            AttrType::Vars => AttrValue::Vars(take(&mut self.vars_name)),
            AttrType::Float64 => AttrValue::Float64(self.float64.take().unwrap_or_default()),
            AttrType::Scalar => AttrValue::Scalar(
                required(self.scalar.take(), "OpDesc.Attr", "scalar")?.validate()?,
            ),
            AttrType::Scalars => AttrValue::Scalars(
                take(&mut self.scalars)
                    .iter()
                    .map(ScalarFields::validate)
                    .collect::<Result<_, _>>()?,
            ),
        };
        // The value field set was taken; the others are empty.
        self.name = None;
        self.ty = None;
        Ok((name, value))
    }

    /// Whether the declared type's value field is the only one set, and set for a singular
    /// type: the common case, checked without [`check_value_fields`]' table.
    fn only_declared_set(&self, declared: AttrType) -> bool {
        let mut set = 0u32;
        for (_, owner, is_set) in self.set() {
            set |= u32::from(is_set) << owner as u32;
        }
        set == 1 << declared as u32
            || (set == 0
                && !matches!(
                    declared,
                    AttrType::Int
                        | AttrType::Float
                        | AttrType::String
                        | AttrType::Boolean
                        | AttrType::Block
                        | AttrType::Long
                        | AttrType::Var
                        | AttrType::Float64
                        | AttrType::Scalar
                ))
    }

    /// `(field, owning type, is set)` of every value field, in `framework.proto` order.
    fn set(&self) -> [(&'static str, AttrType, bool); 18] {
        [
            ("i", AttrType::Int, self.i.is_some()),
            ("f", AttrType::Float, self.f.is_some()),
            ("s", AttrType::String, self.s.is_some()),
            ("ints", AttrType::Ints, !self.ints.is_empty()),
            ("floats", AttrType::Floats, !self.floats.is_empty()),
            ("strings", AttrType::Strings, !self.strings.is_empty()),
            ("b", AttrType::Boolean, self.b.is_some()),
            ("bools", AttrType::Booleans, !self.bools.is_empty()),
            ("block_idx", AttrType::Block, self.block_idx.is_some()),
            ("l", AttrType::Long, self.l.is_some()),
            ("blocks_idx", AttrType::Blocks, !self.blocks_idx.is_empty()),
            ("longs", AttrType::Longs, !self.longs.is_empty()),
            ("float64s", AttrType::Float64s, !self.float64s.is_empty()),
            ("var_name", AttrType::Var, self.var_name.is_some()),
            ("vars_name", AttrType::Vars, !self.vars_name.is_empty()),
            ("float64", AttrType::Float64, self.float64.is_some()),
            ("scalar", AttrType::Scalar, self.scalar.is_some()),
            ("scalars", AttrType::Scalars, !self.scalars.is_empty()),
        ]
    }
}
