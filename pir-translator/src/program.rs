//! Typed, validated views of a legacy program: [`LegacyProgram`], [`LegacyBlock`],
//! [`LegacyVar`], [`LegacyOp`] and their attributes.
//!
//! Building a view ([`LegacyProgram::from_proto`]) is also the validation of a decoded
//! [`proto::ProgramDesc`]: everything the schema requires but prost cannot check is checked
//! here (required fields, enum values, attribute type tags against the value fields actually set,
//! block indices, data types, dims, duplicate names).

use std::collections::{HashMap, HashSet};

use pir_runtime::phi::DataType;

use crate::error::{DecodeError, Location};
use crate::proto::{self, op_desc, var_type, AttrType};

/// The kind of a variable, or the element type of a tensor: `framework.proto`'s `VarType.Type`.
pub use crate::proto::var_type::Type as VarKind;

/// Maps a legacy element data-type code to `phi::DataType`, as Paddle's `TransToPhiDataType`
/// does. Returns `None` for codes with no phi counterpart (`SIZE_T`) and for variable kinds
/// (`DENSE_TENSOR`, ...).
///
/// ```
/// use pir_runtime::phi::DataType;
/// use pir_translator::{data_type_to_phi, VarKind};
/// assert_eq!(data_type_to_phi(VarKind::Fp32), Some(DataType::Float32));
/// assert_eq!(data_type_to_phi(VarKind::Bf16), Some(DataType::BFloat16));
/// assert_eq!(data_type_to_phi(VarKind::DenseTensor), None);
/// ```
pub const fn data_type_to_phi(code: VarKind) -> Option<DataType> {
    Some(match code {
        VarKind::Bool => DataType::Bool,
        VarKind::Int16 => DataType::Int16,
        VarKind::Int32 => DataType::Int32,
        VarKind::Int64 => DataType::Int64,
        VarKind::Fp16 => DataType::Float16,
        VarKind::Fp32 => DataType::Float32,
        VarKind::Fp64 => DataType::Float64,
        VarKind::Uint8 => DataType::UInt8,
        VarKind::Int8 => DataType::Int8,
        VarKind::Bf16 => DataType::BFloat16,
        VarKind::Complex64 => DataType::Complex64,
        VarKind::Complex128 => DataType::Complex128,
        VarKind::Pstring => DataType::PString,
        VarKind::Fp8E4m3fn => DataType::Float8E4M3FN,
        VarKind::Fp8E5m2 => DataType::Float8E5M2,
        VarKind::Uint32 => DataType::UInt32,
        VarKind::Uint64 => DataType::UInt64,
        _ => return None,
    })
}

/// The inverse of [`data_type_to_phi`]: the legacy code Paddle writes for a phi data type
/// (`None` for `Undefined` and `UInt16`, which have no legacy code).
///
/// ```
/// use pir_runtime::phi::DataType;
/// use pir_translator::{phi_to_data_type, VarKind};
/// assert_eq!(phi_to_data_type(DataType::Int64), Some(VarKind::Int64));
/// assert_eq!(phi_to_data_type(DataType::Undefined), None);
/// ```
pub const fn phi_to_data_type(dtype: DataType) -> Option<VarKind> {
    Some(match dtype {
        DataType::Bool => VarKind::Bool,
        DataType::Int16 => VarKind::Int16,
        DataType::Int32 => VarKind::Int32,
        DataType::Int64 => VarKind::Int64,
        DataType::Float16 => VarKind::Fp16,
        DataType::Float32 => VarKind::Fp32,
        DataType::Float64 => VarKind::Fp64,
        DataType::UInt8 => VarKind::Uint8,
        DataType::Int8 => VarKind::Int8,
        DataType::BFloat16 => VarKind::Bf16,
        DataType::Complex64 => VarKind::Complex64,
        DataType::Complex128 => VarKind::Complex128,
        DataType::PString => VarKind::Pstring,
        DataType::Float8E4M3FN => VarKind::Fp8E4m3fn,
        DataType::Float8E5M2 => VarKind::Fp8E5m2,
        DataType::UInt32 => VarKind::Uint32,
        DataType::UInt64 => VarKind::Uint64,
        DataType::Undefined | DataType::UInt16 => return None,
    })
}

/// A decoded and validated legacy program.
///
/// ```no_run
/// let bytes = std::fs::read("model.pdmodel").unwrap();
/// let program = pir_translator::LegacyProgram::decode(&bytes).unwrap();
/// for op in &program.global_block().ops {
///     println!("{} {:?}", op.op_type, op.input("X"));
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyProgram {
    /// The blocks; `blocks[0]` is the global block and `blocks[i].idx == i`.
    pub blocks: Vec<LegacyBlock>,
    /// `ProgramDesc.version.version` when present (`3003001` for Paddle 3.3.1).
    pub version: Option<i64>,
    /// `ProgramDesc.op_version_map`: `(op name, version)` pairs in file order.
    pub op_versions: Vec<(String, i32)>,
}

/// One block of a [`LegacyProgram`].
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyBlock {
    /// The block's index (equal to its position in [`LegacyProgram::blocks`]).
    pub idx: usize,
    /// The parent block (`None` for a root such as the global block, `parent_idx == -1`).
    pub parent: Option<usize>,
    /// `forward_block_idx` when set to a block (`None` for the default `-1`).
    pub forward_block: Option<usize>,
    /// Declared variables, in file order (Paddle writes them sorted by name).
    pub vars: Vec<LegacyVar>,
    /// Operators, in program order.
    pub ops: Vec<LegacyOp>,
}

/// One declared variable.
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyVar {
    /// The variable name.
    pub name: String,
    /// The variable kind (`DENSE_TENSOR`, `FEED_MINIBATCH`, ...).
    pub kind: VarKind,
    /// The description belonging to `kind` (element type, dims, lod level, ...).
    pub detail: VarDetail,
    /// `persistable` (parameters, optimizer state, feed/fetch holders).
    pub persistable: bool,
    /// `need_check_feed` (set on `paddle.static.data` inputs).
    pub need_check_feed: bool,
    /// `is_parameter`.
    pub is_parameter: bool,
    /// `stop_gradient`.
    pub stop_gradient: bool,
    /// Variable attributes, in file order.
    pub attrs: Vec<VarAttr>,
}

/// The part of `VarType` that belongs to a variable's kind.
#[derive(Clone, Debug, PartialEq)]
pub enum VarDetail {
    /// The kind has no description (`FEED_MINIBATCH`, `FETCH_LIST`, `STEP_SCOPES`, ...), or the
    /// description for the kind is absent (Paddle writes a bare `DENSE_TENSOR` for variables
    /// whose shape and dtype were never set).
    None,
    /// `DENSE_TENSOR`: `dense_tensor`.
    DenseTensor {
        /// Element type and dims.
        tensor: TensorDesc,
        /// `legacy_lod_level`.
        lod_level: i32,
    },
    /// `DENSE_TENSOR_ARRAY`: `tensor_array`.
    TensorArray {
        /// Element type and dims of the elements.
        tensor: TensorDesc,
        /// `legacy_lod_level`.
        lod_level: i32,
    },
    /// `SELECTED_ROWS`, `STRING`, `STRINGS`, `VOCAB`, `SPARSE_COO`, `SPARSE_CSR`: the
    /// `TensorDesc` field of the same name.
    Tensor(TensorDesc),
    /// `READER`: the dense tensors it yields, with their lod levels.
    Reader(Vec<(TensorDesc, i32)>),
    /// `TUPLE`: element kinds.
    Tuple(Vec<VarKind>),
}

/// Element type and dims of a tensor (`VarType.TensorDesc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorDesc {
    /// The legacy element type code (always a data type, see [`VarKind::is_data_type`]).
    pub data_type: VarKind,
    /// Dims; `-1` is an unknown extent. Empty for a 0-d tensor.
    pub dims: Vec<i64>,
}

impl TensorDesc {
    /// The element type as `phi::DataType`, where it maps (see [`data_type_to_phi`]).
    pub fn dtype(&self) -> Option<DataType> {
        data_type_to_phi(self.data_type)
    }
}

/// A variable attribute (`VarDesc.Attr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarAttr {
    /// The attribute name.
    pub name: String,
    /// The value.
    pub value: VarAttrValue,
}

/// The value of a [`VarAttr`]; `VarDesc.Attr` can only hold these three kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarAttrValue {
    /// `INT`.
    Int(i32),
    /// `STRING`.
    String(String),
    /// `INTS`.
    Ints(Vec<i32>),
}

/// One operator.
#[derive(Clone, Debug, PartialEq)]
pub struct LegacyOp {
    /// The legacy op type (`conv2d`, `elementwise_add`, `feed`, ...).
    pub op_type: String,
    /// Input parameters and their argument variables, in file order (Paddle writes them sorted
    /// by parameter name). A parameter may have no arguments (`MomentumTensor=[]`).
    pub inputs: Vec<OpSlot>,
    /// Output parameters and their argument variables, in file order.
    pub outputs: Vec<OpSlot>,
    /// Attributes, in file order. Paddle writes some attributes twice (from its attribute map
    /// and from its runtime-attribute map); such an attribute appears once, at its first
    /// position, with the value of its last copy, which is how Paddle reads it back.
    pub attrs: Vec<OpAttr>,
    /// `is_target`.
    pub is_target: bool,
}

/// An input or output parameter of an op and the variables bound to it (`OpDesc.Var`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSlot {
    /// The parameter name (`X`, `Out@GRAD`, ...).
    pub parameter: String,
    /// The variable names, in order.
    pub arguments: Vec<String>,
}

/// A named op attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct OpAttr {
    /// The attribute name.
    pub name: String,
    /// The typed value.
    pub value: AttrValue,
}

/// The value of an op attribute, one variant per `AttrType`.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// `INT`.
    Int(i32),
    /// `FLOAT` (stored as an IEEE single in the file).
    Float(f32),
    /// `STRING`.
    String(String),
    /// `INTS`.
    Ints(Vec<i32>),
    /// `FLOATS`.
    Floats(Vec<f32>),
    /// `STRINGS`.
    Strings(Vec<String>),
    /// `BOOLEAN`.
    Bool(bool),
    /// `BOOLEANS`.
    Bools(Vec<bool>),
    /// `BLOCK`: a block index (validated to be in range).
    Block(usize),
    /// `LONG`.
    Long(i64),
    /// `BLOCKS`: block indices (validated).
    Blocks(Vec<usize>),
    /// `LONGS`.
    Longs(Vec<i64>),
    /// `FLOAT64S`.
    Float64s(Vec<f64>),
    /// `VAR`: a variable name.
    Var(String),
    /// `VARS`: variable names.
    Vars(Vec<String>),
    /// `FLOAT64`.
    Float64(f64),
    /// `SCALAR`.
    Scalar(ScalarValue),
    /// `SCALARS`.
    Scalars(Vec<ScalarValue>),
}

impl AttrValue {
    /// The `AttrType` this value was declared with.
    ///
    /// ```
    /// use pir_translator::{AttrValue, proto::AttrType};
    /// assert_eq!(AttrValue::Longs(vec![]).attr_type(), AttrType::Longs);
    /// ```
    pub fn attr_type(&self) -> AttrType {
        match self {
            AttrValue::Int(_) => AttrType::Int,
            AttrValue::Float(_) => AttrType::Float,
            AttrValue::String(_) => AttrType::String,
            AttrValue::Ints(_) => AttrType::Ints,
            AttrValue::Floats(_) => AttrType::Floats,
            AttrValue::Strings(_) => AttrType::Strings,
            AttrValue::Bool(_) => AttrType::Boolean,
            AttrValue::Bools(_) => AttrType::Booleans,
            AttrValue::Block(_) => AttrType::Block,
            AttrValue::Long(_) => AttrType::Long,
            AttrValue::Blocks(_) => AttrType::Blocks,
            AttrValue::Longs(_) => AttrType::Longs,
            AttrValue::Float64s(_) => AttrType::Float64s,
            AttrValue::Var(_) => AttrType::Var,
            AttrValue::Vars(_) => AttrType::Vars,
            AttrValue::Float64(_) => AttrType::Float64,
            AttrValue::Scalar(_) => AttrType::Scalar,
            AttrValue::Scalars(_) => AttrType::Scalars,
        }
    }
}

/// A typed scalar (`Scalar` message) as used by `SCALAR`/`SCALARS` attributes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    /// `BOOLEAN`.
    Bool(bool),
    /// `LONG`.
    Int(i64),
    /// `FLOAT64`.
    Float(f64),
    /// `COMPLEX128`.
    Complex {
        /// Real part.
        re: f64,
        /// Imaginary part.
        im: f64,
    },
}

impl LegacyProgram {
    /// Decodes and validates `.pdmodel` bytes.
    ///
    /// ```
    /// use pir_translator::{LegacyProgram, proto};
    /// use prost::Message;
    /// let bytes = proto::ProgramDesc {
    ///     blocks: vec![proto::BlockDesc { idx: Some(0), parent_idx: Some(-1), ..Default::default() }],
    ///     ..Default::default()
    /// }
    /// .encode_to_vec();
    /// let program = LegacyProgram::decode(&bytes).unwrap();
    /// assert_eq!(program.blocks.len(), 1);
    /// assert_eq!(program.global_block().parent, None);
    /// ```
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        // One pass straight into the view; anything irregular goes through the staged decoder,
        // which locates the problem.
        if let Some(program) = crate::fast_decode::decode(bytes) {
            return Ok(program);
        }
        Self::from_proto(&crate::decode::decode_unvalidated(bytes)?)
    }

    /// Validates a decoded `ProgramDesc` and builds the typed view of it.
    pub fn from_proto(desc: &proto::ProgramDesc) -> Result<Self, DecodeError> {
        let num_blocks = desc.blocks.len();
        if num_blocks == 0 {
            return Err(DecodeError::NoBlocks);
        }
        let mut blocks = Vec::with_capacity(num_blocks);
        for (b, block) in desc.blocks.iter().enumerate() {
            blocks.push(convert_block(b, block, num_blocks)?);
        }
        check_parent_chains(&blocks)?;

        let version = desc.version.as_ref().and_then(|v| v.version);
        let mut op_versions = Vec::new();
        if let Some(map) = &desc.op_version_map {
            for (p, pair) in map.pair.iter().enumerate() {
                let at = Location::program().detail(format!("op_version_map pair {p}"));
                let name = required(pair.op_name.as_ref(), &at, "OpVersionPair", "op_name")?;
                let op_version =
                    required(pair.op_version.as_ref(), &at, "OpVersionPair", "op_version")?;
                let v = *required(op_version.version.as_ref(), &at, "OpVersion", "version")?;
                op_versions.push((name.clone(), v));
            }
        }
        Ok(LegacyProgram {
            blocks,
            version,
            op_versions,
        })
    }

    /// The global block (block 0).
    ///
    /// A program built by [`LegacyProgram::decode`] or [`LegacyProgram::from_proto`] always has
    /// one; indexing panics only for a hand-built value with no blocks.
    pub fn global_block(&self) -> &LegacyBlock {
        &self.blocks[0]
    }

    /// Block `idx`, if it exists.
    pub fn block(&self, idx: usize) -> Option<&LegacyBlock> {
        self.blocks.get(idx)
    }

    /// Looks `name` up in block `block` and then its ancestors, like Paddle's
    /// `BlockDesc::FindVarRecursive`.
    pub fn find_var_recursive(&self, block: usize, name: &str) -> Option<&LegacyVar> {
        let mut current = Some(block);
        // Parent chains are validated acyclic; the bound is a second guard.
        for _ in 0..=self.blocks.len() {
            let b = self.blocks.get(current?)?;
            if let Some(var) = b.var(name) {
                return Some(var);
            }
            current = b.parent;
        }
        None
    }
}

impl LegacyBlock {
    /// The variable declared in this block under `name`.
    pub fn var(&self, name: &str) -> Option<&LegacyVar> {
        self.vars.iter().find(|v| v.name == name)
    }
}

impl LegacyVar {
    /// The tensor description of the variable's kind, if any (`dense_tensor.tensor` for a
    /// `DENSE_TENSOR`, `tensor_array.tensor` for an array, the `TensorDesc` itself for
    /// `SELECTED_ROWS` and the string/sparse kinds).
    pub fn tensor(&self) -> Option<&TensorDesc> {
        match &self.detail {
            VarDetail::DenseTensor { tensor, .. }
            | VarDetail::TensorArray { tensor, .. }
            | VarDetail::Tensor(tensor) => Some(tensor),
            VarDetail::None | VarDetail::Reader(_) | VarDetail::Tuple(_) => None,
        }
    }

    /// The element type as `phi::DataType`, where the variable has one and it maps.
    pub fn dtype(&self) -> Option<DataType> {
        self.tensor().and_then(TensorDesc::dtype)
    }

    /// The dims, where the variable has a tensor description.
    pub fn shape(&self) -> Option<&[i64]> {
        self.tensor().map(|t| t.dims.as_slice())
    }

    /// The lod level of a dense tensor or tensor array (0 when unset).
    pub fn lod_level(&self) -> Option<i32> {
        match &self.detail {
            VarDetail::DenseTensor { lod_level, .. } | VarDetail::TensorArray { lod_level, .. } => {
                Some(*lod_level)
            }
            _ => None,
        }
    }
}

impl LegacyOp {
    /// The arguments of input parameter `parameter`, if the op has that parameter.
    pub fn input(&self, parameter: &str) -> Option<&[String]> {
        slot(&self.inputs, parameter)
    }

    /// The arguments of output parameter `parameter`, if the op has that parameter.
    pub fn output(&self, parameter: &str) -> Option<&[String]> {
        slot(&self.outputs, parameter)
    }

    /// The attribute named `name`.
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.iter().find(|a| a.name == name).map(|a| &a.value)
    }

    /// Every input argument, in parameter order then argument order.
    pub fn input_arguments(&self) -> impl Iterator<Item = &str> {
        self.inputs
            .iter()
            .flat_map(|s| s.arguments.iter().map(String::as_str))
    }

    /// Every output argument, in parameter order then argument order.
    pub fn output_arguments(&self) -> impl Iterator<Item = &str> {
        self.outputs
            .iter()
            .flat_map(|s| s.arguments.iter().map(String::as_str))
    }
}

fn slot<'a>(slots: &'a [OpSlot], parameter: &str) -> Option<&'a [String]> {
    slots
        .iter()
        .find(|s| s.parameter == parameter)
        .map(|s| s.arguments.as_slice())
}

fn required<'a, T>(
    value: Option<&'a T>,
    at: &Location,
    message: &'static str,
    field: &'static str,
) -> Result<&'a T, DecodeError> {
    value.ok_or_else(|| DecodeError::MissingField {
        at: Box::new(at.clone()),
        message,
        field,
    })
}

fn enum_value<E: TryFrom<i32>>(
    raw: i32,
    at: &Location,
    field: &'static str,
) -> Result<E, DecodeError> {
    E::try_from(raw).map_err(|_| DecodeError::UnknownEnumValue {
        at: Box::new(at.clone()),
        field,
        value: raw,
    })
}

fn block_ref(
    raw: i64,
    at: &Location,
    field: &'static str,
    num_blocks: usize,
) -> Result<usize, DecodeError> {
    usize::try_from(raw)
        .ok()
        .filter(|&i| i < num_blocks)
        .ok_or_else(|| DecodeError::BlockRefOutOfRange {
            at: Box::new(at.clone()),
            field,
            index: raw,
            num_blocks,
        })
}

fn convert_block(
    position: usize,
    block: &proto::BlockDesc,
    num_blocks: usize,
) -> Result<LegacyBlock, DecodeError> {
    let at = Location::program().block(position);
    let idx = *required(block.idx.as_ref(), &at, "BlockDesc", "idx")?;
    if usize::try_from(idx).ok() != Some(position) {
        return Err(DecodeError::BlockIndexMismatch {
            at: Box::new(at),
            position,
            idx,
        });
    }
    let parent_idx = *required(block.parent_idx.as_ref(), &at, "BlockDesc", "parent_idx")?;
    let parent = match parent_idx {
        -1 => None,
        p => {
            let p = block_ref(p.into(), &at, "parent_idx", num_blocks)?;
            if p == position {
                return Err(DecodeError::CyclicParents { at: Box::new(at) });
            }
            Some(p)
        }
    };
    let forward_block = match block.forward_block_idx.unwrap_or(-1) {
        -1 => None,
        f => Some(block_ref(f.into(), &at, "forward_block_idx", num_blocks)?),
    };

    let mut names = HashSet::new();
    let mut vars = Vec::with_capacity(block.vars.len());
    for (v, var) in block.vars.iter().enumerate() {
        let var = convert_var(at.clone().var(v, var.name.as_deref()), var)?;
        if !names.insert(var.name.clone()) {
            return Err(DecodeError::Duplicate {
                at: Box::new(at.clone().var(v, Some(&var.name))),
                what: "variable",
                name: var.name,
            });
        }
        vars.push(var);
    }

    let mut ops = Vec::with_capacity(block.ops.len());
    for (o, op) in block.ops.iter().enumerate() {
        ops.push(convert_op(
            at.clone().op(o, op.r#type.as_deref()),
            op,
            num_blocks,
        )?);
    }

    Ok(LegacyBlock {
        idx: position,
        parent,
        forward_block,
        vars,
        ops,
    })
}

fn check_parent_chains(blocks: &[LegacyBlock]) -> Result<(), DecodeError> {
    for block in blocks {
        let mut current = block.parent;
        let mut steps = 0usize;
        while let Some(p) = current {
            steps += 1;
            if steps > blocks.len() {
                return Err(DecodeError::CyclicParents {
                    at: Box::new(Location::program().block(block.idx)),
                });
            }
            current = blocks[p].parent;
        }
    }
    Ok(())
}

fn convert_tensor_desc(
    at: &Location,
    desc: &var_type::TensorDesc,
) -> Result<TensorDesc, DecodeError> {
    let raw = *required(desc.data_type.as_ref(), at, "TensorDesc", "data_type")?;
    let data_type: VarKind = enum_value(raw, at, "TensorDesc.data_type")?;
    if !data_type.is_data_type() {
        return Err(DecodeError::NotADataType {
            at: Box::new(at.clone()),
            found: data_type.proto_name(),
        });
    }
    if let Some((index, &dim)) = desc.dims.iter().enumerate().find(|(_, &d)| d < -1) {
        return Err(DecodeError::InvalidDim {
            at: Box::new(at.clone()),
            index,
            dim,
        });
    }
    Ok(TensorDesc {
        data_type,
        dims: desc.dims.clone(),
    })
}

fn convert_tensor_with_lod(
    at: &Location,
    message: &'static str,
    tensor: Option<&var_type::TensorDesc>,
    lod_level: Option<i32>,
) -> Result<(TensorDesc, i32), DecodeError> {
    let tensor = required(tensor, at, message, "tensor")?;
    Ok((convert_tensor_desc(at, tensor)?, lod_level.unwrap_or(0)))
}

fn convert_var(at: Location, var: &proto::VarDesc) -> Result<LegacyVar, DecodeError> {
    let name = required(var.name.as_ref(), &at, "VarDesc", "name")?.clone();
    let ty = required(var.r#type.as_ref(), &at, "VarDesc", "type")?;
    let raw_kind = *required(ty.r#type.as_ref(), &at, "VarType", "type")?;
    let kind: VarKind = enum_value(raw_kind, &at, "VarType.type")?;

    // Validate every description present, whether or not it belongs to `kind`.
    let dense = ty
        .dense_tensor
        .as_ref()
        .map(|d| {
            convert_tensor_with_lod(
                &at,
                "DenseTensorDesc",
                d.tensor.as_ref(),
                d.legacy_lod_level,
            )
        })
        .transpose()?;
    let array = ty
        .tensor_array
        .as_ref()
        .map(|d| {
            convert_tensor_with_lod(
                &at,
                "DenseTensorArrayDesc",
                d.tensor.as_ref(),
                d.legacy_lod_level,
            )
        })
        .transpose()?;
    let reader = ty
        .reader
        .as_ref()
        .map(|r| {
            r.dense_tensor
                .iter()
                .map(|d| {
                    convert_tensor_with_lod(
                        &at,
                        "DenseTensorDesc",
                        d.tensor.as_ref(),
                        d.legacy_lod_level,
                    )
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let tuple = ty
        .tuple
        .as_ref()
        .map(|t| {
            t.element_type
                .iter()
                .map(|&e| enum_value::<VarKind>(e, &at, "Tuple.element_type"))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let plain = |desc: &Option<var_type::TensorDesc>| {
        desc.as_ref()
            .map(|d| convert_tensor_desc(&at, d))
            .transpose()
    };
    let selected_rows = plain(&ty.selected_rows)?;
    let string = plain(&ty.string)?;
    let strings = plain(&ty.strings)?;
    let vocab = plain(&ty.vocab)?;
    let sparse_coo = plain(&ty.sparse_coo)?;
    let sparse_csr = plain(&ty.sparse_csr)?;

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

    let mut attr_names = HashSet::new();
    let mut attrs = Vec::with_capacity(var.attrs.len());
    for (a, attr) in var.attrs.iter().enumerate() {
        let at_attr = at.clone().attr(a, attr.name.as_deref());
        let attr_name = required(attr.name.as_ref(), &at_attr, "VarDesc.Attr", "name")?.clone();
        let raw_type = *required(attr.r#type.as_ref(), &at_attr, "VarDesc.Attr", "type")?;
        let declared: AttrType = enum_value(raw_type, &at_attr, "VarDesc.Attr.type")?;
        let set = [
            ("i", AttrType::Int, attr.i.is_some()),
            ("s", AttrType::String, attr.s.is_some()),
            ("ints", AttrType::Ints, !attr.ints.is_empty()),
        ];
        check_value_fields(&at_attr, declared, &set)?;
        let value = match declared {
            AttrType::Int => VarAttrValue::Int(attr.i.unwrap_or_default()),
            AttrType::String => VarAttrValue::String(attr.s.clone().unwrap_or_default()),
            AttrType::Ints => VarAttrValue::Ints(attr.ints.clone()),
            other => {
                return Err(DecodeError::UnsupportedVarAttrType {
                    at: Box::new(at_attr),
                    declared: other.proto_name(),
                })
            }
        };
        if !attr_names.insert(attr_name.clone()) {
            return Err(DecodeError::Duplicate {
                at: Box::new(at_attr),
                what: "variable attribute",
                name: attr_name,
            });
        }
        attrs.push(VarAttr {
            name: attr_name,
            value,
        });
    }

    Ok(LegacyVar {
        name,
        kind,
        detail,
        persistable: var.persistable.unwrap_or(false),
        need_check_feed: var.need_check_feed.unwrap_or(false),
        is_parameter: var.is_parameter.unwrap_or(false),
        stop_gradient: var.stop_gradient.unwrap_or(false),
        attrs,
    })
}

/// Checks that the value field of `declared` is set when it must be (singular kinds) and that
/// no value field of another kind is set. `set` lists `(field, owning type, is set)`.
fn check_value_fields(
    at: &Location,
    declared: AttrType,
    set: &[(&'static str, AttrType, bool)],
) -> Result<(), DecodeError> {
    for &(field, owner, is_set) in set {
        if owner == declared {
            let singular = !matches!(
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
            if singular && !is_set {
                return Err(DecodeError::AttrTypeMismatch {
                    at: Box::new(at.clone()),
                    declared: declared.proto_name(),
                    problem: format!("has no `{field}` value"),
                });
            }
        } else if is_set {
            return Err(DecodeError::AttrTypeMismatch {
                at: Box::new(at.clone()),
                declared: declared.proto_name(),
                problem: format!("also sets `{field}` (a {} field)", owner.proto_name()),
            });
        }
    }
    Ok(())
}

fn convert_slots(
    at: &Location,
    slots: &[op_desc::Var],
    what: &'static str,
) -> Result<Vec<OpSlot>, DecodeError> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(slots.len());
    for slot in slots {
        let parameter = required(slot.parameter.as_ref(), at, "OpDesc.Var", "parameter")?.clone();
        if !seen.insert(parameter.clone()) {
            return Err(DecodeError::Duplicate {
                at: Box::new(at.clone()),
                what,
                name: parameter,
            });
        }
        out.push(OpSlot {
            parameter,
            arguments: slot.arguments.clone(),
        });
    }
    Ok(out)
}

fn convert_scalar(at: &Location, scalar: &proto::Scalar) -> Result<ScalarValue, DecodeError> {
    use proto::scalar::Type;
    let raw = *required(scalar.r#type.as_ref(), at, "Scalar", "type")?;
    let ty: Type = enum_value(raw, at, "Scalar.type")?;
    Ok(match ty {
        Type::Boolean => ScalarValue::Bool(*required(scalar.b.as_ref(), at, "Scalar", "b")?),
        Type::Long => ScalarValue::Int(*required(scalar.i.as_ref(), at, "Scalar", "i")?),
        Type::Float64 => ScalarValue::Float(*required(scalar.r.as_ref(), at, "Scalar", "r")?),
        Type::Complex128 => {
            let c = required(scalar.c.as_ref(), at, "Scalar", "c")?;
            ScalarValue::Complex {
                re: *required(c.r.as_ref(), at, "Complex", "r")?,
                im: *required(c.i.as_ref(), at, "Complex", "i")?,
            }
        }
    })
}

fn convert_attr(
    at: &Location,
    attr: &op_desc::Attr,
    num_blocks: usize,
) -> Result<OpAttr, DecodeError> {
    let name = required(attr.name.as_ref(), at, "OpDesc.Attr", "name")?.clone();
    let raw_type = *required(attr.r#type.as_ref(), at, "OpDesc.Attr", "type")?;
    let declared: AttrType = enum_value(raw_type, at, "OpDesc.Attr.type")?;
    let set = [
        ("i", AttrType::Int, attr.i.is_some()),
        ("f", AttrType::Float, attr.f.is_some()),
        ("s", AttrType::String, attr.s.is_some()),
        ("ints", AttrType::Ints, !attr.ints.is_empty()),
        ("floats", AttrType::Floats, !attr.floats.is_empty()),
        ("strings", AttrType::Strings, !attr.strings.is_empty()),
        ("b", AttrType::Boolean, attr.b.is_some()),
        ("bools", AttrType::Booleans, !attr.bools.is_empty()),
        ("block_idx", AttrType::Block, attr.block_idx.is_some()),
        ("l", AttrType::Long, attr.l.is_some()),
        ("blocks_idx", AttrType::Blocks, !attr.blocks_idx.is_empty()),
        ("longs", AttrType::Longs, !attr.longs.is_empty()),
        ("float64s", AttrType::Float64s, !attr.float64s.is_empty()),
        ("var_name", AttrType::Var, attr.var_name.is_some()),
        ("vars_name", AttrType::Vars, !attr.vars_name.is_empty()),
        ("float64", AttrType::Float64, attr.float64.is_some()),
        ("scalar", AttrType::Scalar, attr.scalar.is_some()),
        ("scalars", AttrType::Scalars, !attr.scalars.is_empty()),
    ];
    check_value_fields(at, declared, &set)?;
    // `check_value_fields` guarantees the singular field read below is present.
    let value = match declared {
        AttrType::Int => AttrValue::Int(attr.i.unwrap_or_default()),
        AttrType::Float => AttrValue::Float(attr.f.unwrap_or_default()),
        AttrType::String => AttrValue::String(attr.s.clone().unwrap_or_default()),
        AttrType::Ints => AttrValue::Ints(attr.ints.clone()),
        AttrType::Floats => AttrValue::Floats(attr.floats.clone()),
        AttrType::Strings => AttrValue::Strings(attr.strings.clone()),
        AttrType::Boolean => AttrValue::Bool(attr.b.unwrap_or_default()),
        AttrType::Booleans => AttrValue::Bools(attr.bools.clone()),
        AttrType::Block => AttrValue::Block(block_ref(
            attr.block_idx.unwrap_or_default().into(),
            at,
            "block_idx",
            num_blocks,
        )?),
        AttrType::Long => AttrValue::Long(attr.l.unwrap_or_default()),
        AttrType::Blocks => AttrValue::Blocks(
            attr.blocks_idx
                .iter()
                .map(|&b| block_ref(b.into(), at, "blocks_idx", num_blocks))
                .collect::<Result<_, _>>()?,
        ),
        AttrType::Longs => AttrValue::Longs(attr.longs.clone()),
        AttrType::Float64s => AttrValue::Float64s(attr.float64s.clone()),
        AttrType::Var => AttrValue::Var(attr.var_name.clone().unwrap_or_default()),
        AttrType::Vars => AttrValue::Vars(attr.vars_name.clone()),
        AttrType::Float64 => AttrValue::Float64(attr.float64.unwrap_or_default()),
        AttrType::Scalar => match &attr.scalar {
            Some(s) => AttrValue::Scalar(convert_scalar(at, s)?),
            None => unreachable_missing(at, declared, "scalar")?,
        },
        AttrType::Scalars => AttrValue::Scalars(
            attr.scalars
                .iter()
                .map(|s| convert_scalar(at, s))
                .collect::<Result<_, _>>()?,
        ),
    };
    Ok(OpAttr { name, value })
}

/// The error for a singular value field found missing after all (kept as an error rather than
/// a panic so that no input can abort decoding).
fn unreachable_missing(
    at: &Location,
    declared: AttrType,
    field: &str,
) -> Result<AttrValue, DecodeError> {
    Err(DecodeError::AttrTypeMismatch {
        at: Box::new(at.clone()),
        declared: declared.proto_name(),
        problem: format!("has no `{field}` value"),
    })
}

fn convert_op(
    at: Location,
    op: &proto::OpDesc,
    num_blocks: usize,
) -> Result<LegacyOp, DecodeError> {
    let op_type = required(op.r#type.as_ref(), &at, "OpDesc", "type")?.clone();
    let inputs = convert_slots(&at, &op.inputs, "input parameter")?;
    let outputs = convert_slots(&at, &op.outputs, "output parameter")?;
    // Paddle writes some attributes twice (once from its attribute map, once from its
    // runtime-attribute map) and, reading a program, lets the last copy win. So does this.
    let mut positions: HashMap<String, usize> = HashMap::new();
    let mut attrs: Vec<OpAttr> = Vec::with_capacity(op.attrs.len());
    for (a, attr) in op.attrs.iter().enumerate() {
        let at_attr = at.clone().attr(a, attr.name.as_deref());
        let attr = convert_attr(&at_attr, attr, num_blocks)?;
        match positions.get(&attr.name) {
            Some(&first) => attrs[first].value = attr.value,
            None => {
                positions.insert(attr.name.clone(), attrs.len());
                attrs.push(attr);
            }
        }
    }
    Ok(LegacyOp {
        op_type,
        inputs,
        outputs,
        attrs,
        is_target: op.is_target.unwrap_or(false),
    })
}
