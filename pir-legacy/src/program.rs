//! The legacy program model: [`LegacyProgram`], [`LegacyBlock`], [`LegacyVar`], [`LegacyOp`]
//! and their typed attributes, as the decoder builds and validates them.

use pir_spec::phi::DataType;
use prost::Message;

use crate::error::DecodeError;
use crate::proto::{self, AttrType};

/// The kind of a variable, or the element type of a tensor: `framework.proto`'s `VarType.Type`.
pub use crate::proto::var_type::Type as VarKind;

/// Maps a legacy element data-type code to `phi::DataType`, as Paddle's `TransToPhiDataType`
/// does. Returns `None` for codes with no phi counterpart (`SIZE_T`) and for variable kinds
/// (`DENSE_TENSOR`, ...).
///
/// ```
/// use pir_spec::phi::DataType;
/// use pir_legacy::{data_type_to_phi, VarKind};
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
/// use pir_spec::phi::DataType;
/// use pir_legacy::{phi_to_data_type, VarKind};
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
/// let program = pir_legacy::LegacyProgram::decode(&bytes).unwrap();
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
    /// use pir_legacy::{AttrValue, proto::AttrType};
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
    /// use pir_legacy::{LegacyProgram, proto};
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
        crate::decode::program(bytes)
    }

    /// Validates a program built as [`proto`] messages and builds the typed view of it: the
    /// messages are encoded and decoded, so the checks, and the locations errors name, are
    /// [`LegacyProgram::decode`]'s.
    ///
    /// ```
    /// use pir_legacy::{proto, LegacyProgram};
    /// let mut desc = proto::ProgramDesc {
    ///     blocks: vec![proto::BlockDesc { idx: Some(0), parent_idx: Some(-1), ..Default::default() }],
    ///     ..Default::default()
    /// };
    /// assert_eq!(LegacyProgram::from_proto(&desc).unwrap().blocks.len(), 1);
    /// desc.blocks[0].parent_idx = None;
    /// assert_eq!(
    ///     LegacyProgram::from_proto(&desc).unwrap_err().to_string(),
    ///     "block 0: required field `BlockDesc.parent_idx` is missing"
    /// );
    /// ```
    pub fn from_proto(desc: &proto::ProgramDesc) -> Result<Self, DecodeError> {
        Self::decode(&desc.encode_to_vec())
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
