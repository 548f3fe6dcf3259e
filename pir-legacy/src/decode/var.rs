//! Variables: `VarDesc`, its `VarType` (kind and descriptions) and `VarDesc.Attr`.

use smallvec::SmallVec;

use crate::error::{DecodeError, Location, WireError};
use crate::program::{LegacyVar, TensorDesc, VarAttr, VarAttrValue, VarDetail, VarKind};
use crate::proto::AttrType;
use crate::wire::{self, Msg, VARINT};

use super::{enum_value, first_duplicate, malformed, required};

static VAR_DESC: Msg = Msg {
    name: "VarDesc",
    fields: &[
        (1, "name"),
        (2, "type"),
        (3, "persistable"),
        (4, "need_check_feed"),
        (5, "is_parameter"),
        (6, "stop_gradient"),
        (7, "attrs"),
    ],
};
static VAR_TYPE: Msg = Msg {
    name: "VarType",
    fields: &[
        (1, "type"),
        (2, "selected_rows"),
        (3, "dense_tensor"),
        (4, "tensor_array"),
        (5, "reader"),
        (7, "tuple"),
        (8, "string"),
        (9, "strings"),
        (10, "vocab"),
        (11, "sparse_coo"),
        (12, "sparse_csr"),
    ],
};
static TENSOR_DESC: Msg = Msg {
    name: "TensorDesc",
    fields: &[(1, "data_type"), (2, "dims")],
};
static DENSE_TENSOR_DESC: Msg = Msg {
    name: "DenseTensorDesc",
    fields: &[(1, "tensor"), (2, "legacy_lod_level")],
};
static DENSE_TENSOR_ARRAY_DESC: Msg = Msg {
    name: "DenseTensorArrayDesc",
    fields: &[(1, "tensor"), (2, "legacy_lod_level")],
};
static READER_DESC: Msg = Msg {
    name: "ReaderDesc",
    fields: &[(1, "dense_tensor")],
};
static TUPLE: Msg = Msg {
    name: "Tuple",
    fields: &[(1, "element_type")],
};
static VAR_ATTR: Msg = Msg {
    name: "VarDesc.Attr",
    fields: &[(1, "name"), (2, "type"), (3, "i"), (4, "s"), (5, "ints")],
};

/// Variable `index` of block `block`, and its name.
pub(super) fn var(
    bytes: &[u8],
    block: usize,
    index: usize,
) -> Result<(&str, LegacyVar), DecodeError> {
    let at = |name: Option<&str>| Location::program().block(block).var(index, name);
    let mut fields = VarFields::default();
    fields
        .read(bytes)
        .map_err(|e| malformed(at(wire::first_string(bytes, 1)), "VarDesc", e))?;
    fields.validate(&at)
}

/// `VarDesc` as read.
#[derive(Default)]
struct VarFields<'a> {
    name: Option<&'a str>,
    ty: Option<VarTypeFields>,
    persistable: bool,
    need_check_feed: bool,
    is_parameter: bool,
    stop_gradient: bool,
    attrs: Vec<VarAttrFields<'a>>,
}

impl<'a> VarFields<'a> {
    fn read(&mut self, bytes: &'a [u8]) -> Result<(), WireError> {
        let v = self;
        wire::fields(bytes, &VAR_DESC, 2, |field, w, r| {
            match field {
                1 => v.name = Some(wire::string(r, w)?),
                2 => v.ty.get_or_insert_default().merge(wire::message(r, w)?)?,
                3 => v.persistable = wire::boolean(r, w)?,
                4 => v.need_check_feed = wire::boolean(r, w)?,
                5 => v.is_parameter = wire::boolean(r, w)?,
                6 => v.stop_gradient = wire::boolean(r, w)?,
                7 => v.attrs.push(VarAttrFields::read(wire::message(r, w)?)?),
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    fn validate(
        &mut self,
        at: &dyn Fn(Option<&str>) -> Location,
    ) -> Result<(&'a str, LegacyVar), DecodeError> {
        let name = required(self.name, "VarDesc", "name").map_err(|e| e.located(at(None)))?;
        let (kind, detail) = match &mut self.ty {
            Some(ty) => ty.validate(),
            None => Err(super::missing("VarDesc", "type")),
        }
        .map_err(|e| e.located(at(Some(name))))?;
        let mut attrs = Vec::with_capacity(self.attrs.len());
        let mut names: SmallVec<[&str; 4]> = SmallVec::new();
        for (a, attr) in std::mem::take(&mut self.attrs).into_iter().enumerate() {
            let attr_name = attr.name;
            attrs.push(
                attr.validate()
                    .map_err(|e| e.located(at(Some(name)).attr(a, attr_name)))?,
            );
            names.push(attr_name.unwrap_or_default());
        }
        if let Some((a, dup)) = first_duplicate(&names) {
            return Err(DecodeError::Duplicate {
                at: Box::new(at(Some(name)).attr(a, Some(dup))),
                what: "variable attribute",
                name: dup.to_owned(),
            });
        }
        Ok((
            name,
            LegacyVar {
                name: name.to_owned(),
                kind,
                detail,
                persistable: self.persistable,
                need_check_feed: self.need_check_feed,
                is_parameter: self.is_parameter,
                stop_gradient: self.stop_gradient,
                attrs,
            },
        ))
    }
}

/// `VarType` as read (every occurrence merged).
#[derive(Default)]
struct VarTypeFields {
    kind: Option<i32>,
    /// `TensorDesc` descriptions by field number (`selected_rows`, `string`, `strings`,
    /// `vocab`, `sparse_coo`, `sparse_csr`), in first-occurrence order.
    tensors: SmallVec<[(u32, TensorFields); 1]>,
    /// `dense_tensor` (field 3) and `tensor_array` (field 4).
    lod_tensors: SmallVec<[(u32, LodTensorFields); 1]>,
    reader: Option<Vec<LodTensorFields>>,
    tuple: Option<Vec<i32>>,
}

/// The entry of field `field` in `list`, added (empty) at its first occurrence.
fn entry<T: Default>(list: &mut SmallVec<[(u32, T); 1]>, field: u32) -> &mut T {
    let i = match list.iter().position(|(f, _)| *f == field) {
        Some(i) => i,
        None => {
            list.push((field, T::default()));
            list.len() - 1
        }
    };
    &mut list[i].1
}

impl VarTypeFields {
    fn merge(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        wire::fields(bytes, &VAR_TYPE, 3, |field, w, r| {
            match field {
                1 => self.kind = Some(wire::int32(r, w)?),
                2 | 8..=12 => entry(&mut self.tensors, field).merge(wire::message(r, w)?, 4)?,
                3 | 4 => {
                    let msg = if field == 3 {
                        &DENSE_TENSOR_DESC
                    } else {
                        &DENSE_TENSOR_ARRAY_DESC
                    };
                    entry(&mut self.lod_tensors, field).merge(wire::message(r, w)?, msg, 4)?;
                }
                5 => {
                    let reader = self.reader.get_or_insert_default();
                    wire::fields(wire::message(r, w)?, &READER_DESC, 4, |field, w, r| {
                        match field {
                            1 => {
                                let mut t = LodTensorFields::default();
                                t.merge(wire::message(r, w)?, &DENSE_TENSOR_DESC, 5)?;
                                reader.push(t);
                            }
                            _ => return Ok(false),
                        }
                        Ok(true)
                    })?;
                }
                7 => {
                    let tuple = self.tuple.get_or_insert_default();
                    wire::fields(wire::message(r, w)?, &TUPLE, 4, |field, w, r| {
                        match field {
                            1 => wire::repeated(r, w, VARINT, tuple, |v| v as i32)?,
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

    /// The kind and its description. Every description present is validated, whether or not
    /// it belongs to the kind.
    fn validate(&mut self) -> Result<(VarKind, VarDetail), DecodeError> {
        let kind: VarKind = enum_value(required(self.kind, "VarType", "type")?, "VarType.type")?;
        // The field holding the description of `kind`.
        let field = match kind {
            VarKind::SelectedRows => 2,
            VarKind::DenseTensor => 3,
            VarKind::DenseTensorArray => 4,
            VarKind::String => 8,
            VarKind::Strings => 9,
            VarKind::Vocab => 10,
            VarKind::SparseCoo => 11,
            VarKind::SparseCsr => 12,
            _ => 0,
        };
        let mut detail = VarDetail::None;
        for (f, t) in self.lod_tensors.drain(..) {
            let message = if f == 3 {
                "DenseTensorDesc"
            } else {
                "DenseTensorArrayDesc"
            };
            let (tensor, lod_level) = t.validate(message)?;
            if f == field {
                detail = if f == 3 {
                    VarDetail::DenseTensor { tensor, lod_level }
                } else {
                    VarDetail::TensorArray { tensor, lod_level }
                };
            }
        }
        for (f, t) in self.tensors.drain(..) {
            let tensor = t.validate()?;
            if f == field {
                detail = VarDetail::Tensor(tensor);
            }
        }
        if let Some(reader) = self.reader.take() {
            let tensors = reader
                .into_iter()
                .map(|t| t.validate("DenseTensorDesc"))
                .collect::<Result<_, _>>()?;
            if kind == VarKind::Reader {
                detail = VarDetail::Reader(tensors);
            }
        }
        if let Some(tuple) = self.tuple.take() {
            let kinds = tuple
                .into_iter()
                .map(|e| enum_value(e, "Tuple.element_type"))
                .collect::<Result<_, _>>()?;
            if kind == VarKind::Tuple {
                detail = VarDetail::Tuple(kinds);
            }
        }
        Ok((kind, detail))
    }
}

/// `VarType.TensorDesc` as read.
#[derive(Default)]
struct TensorFields {
    data_type: Option<i32>,
    dims: Vec<i64>,
}

impl TensorFields {
    fn merge(&mut self, bytes: &[u8], depth: u32) -> Result<(), WireError> {
        wire::fields(bytes, &TENSOR_DESC, depth, |field, w, r| {
            match field {
                1 => self.data_type = Some(wire::int32(r, w)?),
                2 => wire::repeated(r, w, VARINT, &mut self.dims, |v| v as i64)?,
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    fn validate(self) -> Result<TensorDesc, DecodeError> {
        let raw = required(self.data_type, "TensorDesc", "data_type")?;
        let data_type: VarKind = enum_value(raw, "TensorDesc.data_type")?;
        if !data_type.is_data_type() {
            return Err(DecodeError::NotADataType {
                at: Box::default(),
                found: data_type.proto_name(),
            });
        }
        // Dims are kept as written: Paddle's VarDesc takes any int64 (its infer-meta writes
        // values such as -8 into legacy descs, e.g. instance_norm's saved statistics).
        Ok(TensorDesc {
            data_type,
            dims: self.dims,
        })
    }
}

/// `DenseTensorDesc` / `DenseTensorArrayDesc` as read: a required tensor and a lod level.
#[derive(Default)]
struct LodTensorFields {
    tensor: Option<TensorFields>,
    lod_level: Option<i32>,
}

impl LodTensorFields {
    fn merge(&mut self, bytes: &[u8], msg: &'static Msg, depth: u32) -> Result<(), WireError> {
        wire::fields(bytes, msg, depth, |field, w, r| {
            match field {
                1 => self
                    .tensor
                    .get_or_insert_default()
                    .merge(wire::message(r, w)?, depth + 1)?,
                2 => self.lod_level = Some(wire::int32(r, w)?),
                _ => return Ok(false),
            }
            Ok(true)
        })
    }

    fn validate(self, message: &'static str) -> Result<(TensorDesc, i32), DecodeError> {
        let tensor = required(self.tensor, message, "tensor")?.validate()?;
        Ok((tensor, self.lod_level.unwrap_or(0)))
    }
}

/// `VarDesc.Attr` as read.
struct VarAttrFields<'a> {
    name: Option<&'a str>,
    ty: Option<i32>,
    i: Option<i32>,
    s: Option<&'a str>,
    ints: Vec<i32>,
}

impl<'a> VarAttrFields<'a> {
    fn read(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut a = VarAttrFields {
            name: None,
            ty: None,
            i: None,
            s: None,
            ints: Vec::new(),
        };
        wire::fields(bytes, &VAR_ATTR, 3, |field, w, r| {
            match field {
                1 => a.name = Some(wire::string(r, w)?),
                2 => a.ty = Some(wire::int32(r, w)?),
                3 => a.i = Some(wire::int32(r, w)?),
                4 => a.s = Some(wire::string(r, w)?),
                5 => wire::repeated(r, w, VARINT, &mut a.ints, |v| v as i32)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(a)
    }

    fn validate(self) -> Result<VarAttr, DecodeError> {
        let name = required(self.name, "VarDesc.Attr", "name")?;
        let raw_type = required(self.ty, "VarDesc.Attr", "type")?;
        let declared: AttrType = enum_value(raw_type, "VarDesc.Attr.type")?;
        let set = [
            ("i", AttrType::Int, self.i.is_some()),
            ("s", AttrType::String, self.s.is_some()),
            ("ints", AttrType::Ints, !self.ints.is_empty()),
        ];
        super::op::check_value_fields(declared, &set)?;
        let value = match declared {
            AttrType::Int => VarAttrValue::Int(self.i.unwrap_or_default()),
            AttrType::String => VarAttrValue::String(self.s.unwrap_or_default().to_owned()),
            AttrType::Ints => VarAttrValue::Ints(self.ints),
            other => {
                return Err(DecodeError::UnsupportedVarAttrType {
                    at: Box::default(),
                    declared: other.proto_name(),
                })
            }
        };
        Ok(VarAttr {
            name: name.to_owned(),
            value,
        })
    }
}
