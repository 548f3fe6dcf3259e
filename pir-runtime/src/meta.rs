//! Tensor metadata and the calling convention of infer-meta functions.
//!
//! An infer-meta function (Paddle's `phi::*InferMeta`) computes the metadata of an op's outputs
//! from the metadata of its inputs and the values of its attributes. Here it is a plain Rust
//! function over plain data — [`TensorMeta`], [`AttrValue`] — so it can be written, tested and
//! benchmarked without building IR. Arguments arrive in the order of the op's
//! `infer_meta.param` list, outputs are set in the order of the op's outputs.
//!
//! ```
//! use pir_runtime::meta::{InferMetaCtx, InferMetaError, MetaArg, MetaOut, TensorMeta};
//! use pir_runtime::phi::DataType;
//!
//! // UnchangedInferMeta: out has x's metadata.
//! fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
//!     let x = ctx.tensor(0)?.clone();
//!     ctx.set_output(0, x)
//! }
//!
//! let x = TensorMeta::new(DataType::Float32, &[-1, 3]);
//! let args = [MetaArg::Tensor(Some(&x))];
//! let mut outs = [MetaOut::None];
//! unchanged(&mut InferMetaCtx::new(&args, &mut outs)).unwrap();
//! assert_eq!(outs[0], MetaOut::Tensor(x));
//! ```

use std::borrow::Cow;
use std::fmt;

use smallvec::SmallVec;

use crate::phi::{DataLayout, DataType, Place};

/// Dimensions of a tensor; `-1` is a dynamic (unknown) extent.
pub type Dims = SmallVec<[i64; 6]>;

/// Level-of-detail offsets of a legacy LoDTensor (empty for almost every tensor).
pub type Lod = Vec<Vec<u64>>;

/// The metadata of a dense tensor: what `DenseTensorType` holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMeta {
    /// Element type.
    pub dtype: DataType,
    /// Extents, `-1` for dynamic; empty for a 0-D tensor.
    pub dims: Dims,
    /// Layout (Paddle's default is NCHW).
    pub layout: DataLayout,
    /// LoD offsets.
    pub lod: Lod,
    /// Offset in the allocation.
    pub offset: u64,
}

impl TensorMeta {
    /// A tensor of `dtype` and `dims` with the default layout (NCHW), no LoD, offset 0.
    pub fn new(dtype: DataType, dims: &[i64]) -> TensorMeta {
        TensorMeta {
            dtype,
            dims: Dims::from_slice(dims),
            layout: DataLayout::Nchw,
            lod: Lod::new(),
            offset: 0,
        }
    }

    /// Same metadata with other dims.
    pub fn with_dims(&self, dims: &[i64]) -> TensorMeta {
        TensorMeta {
            dims: Dims::from_slice(dims),
            ..self.clone()
        }
    }

    /// Same metadata with another dtype.
    pub fn with_dtype(&self, dtype: DataType) -> TensorMeta {
        TensorMeta {
            dtype,
            ..self.clone()
        }
    }

    /// Rank (number of dims).
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Number of elements, or -1 when any extent is dynamic.
    pub fn numel(&self) -> i64 {
        if self.dims.iter().any(|&d| d < 0) {
            -1
        } else {
            self.dims.iter().product()
        }
    }
}

/// A `phi::Scalar` value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// bool.
    Bool(bool),
    /// int32.
    I32(i32),
    /// int64.
    I64(i64),
    /// float32.
    F32(f32),
    /// float64.
    F64(f64),
    /// complex64 (re, im).
    C64(f32, f32),
    /// complex128 (re, im).
    C128(f64, f64),
}

impl Scalar {
    /// The value as f64 (real part of complex values).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::I32(v) => f64::from(v),
            Scalar::I64(v) => v as f64,
            Scalar::F32(v) => f64::from(v),
            Scalar::F64(v) => v,
            Scalar::C64(r, _) => f64::from(r),
            Scalar::C128(r, _) => r,
        }
    }

    /// The value as i64 (truncating floats).
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => i64::from(b),
            Scalar::I32(v) => i64::from(v),
            Scalar::I64(v) => v,
            other => other.to_f64() as i64,
        }
    }

    /// The data type of the value.
    pub fn dtype(self) -> DataType {
        match self {
            Scalar::Bool(_) => DataType::Bool,
            Scalar::I32(_) => DataType::Int32,
            Scalar::I64(_) => DataType::Int64,
            Scalar::F32(_) => DataType::Float32,
            Scalar::F64(_) => DataType::Float64,
            Scalar::C64(..) => DataType::Complex64,
            Scalar::C128(..) => DataType::Complex128,
        }
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                Scalar::$v(v)
            }
        }
    )*};
}
scalar_from!(bool => Bool, i32 => I32, i64 => I64, f32 => F32, f64 => F64);

/// An `IntArray` argument. When it arrives as a tensor whose values are not known at build time
/// (a mutable attribute fed by a computed value), `values` is `None` and `len` may still be known
/// from the tensor's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct IntArrayArg {
    /// The values, if known.
    pub values: Option<SmallVec<[i64; 6]>>,
    /// The number of values, if known (`values.len()` when values are known).
    pub len: Option<usize>,
}

impl IntArrayArg {
    /// Known values.
    pub fn known(values: &[i64]) -> IntArrayArg {
        IntArrayArg {
            values: Some(SmallVec::from_slice(values)),
            len: Some(values.len()),
        }
    }

    /// Unknown values, possibly of known length.
    pub fn unknown(len: Option<usize>) -> IntArrayArg {
        IntArrayArg { values: None, len }
    }
}

/// An attribute value handed to an infer-meta function. Strings are borrowed from the build's
/// arguments or the interned attribute, so handing them over does not allocate.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue<'a> {
    /// bool.
    Bool(bool),
    /// int / int32_t.
    I32(i32),
    /// int64_t / long / size_t.
    I64(i64),
    /// float.
    F32(f32),
    /// double.
    F64(f64),
    /// str.
    Str(Cow<'a, str>),
    /// bool[].
    Bools(Vec<bool>),
    /// int[] / int64_t[] (widened to i64).
    Ints(SmallVec<[i64; 6]>),
    /// float[] / double[] (widened to f64).
    Floats(Vec<f64>),
    /// str[].
    Strs(Vec<Cow<'a, str>>),
    /// IntArray, possibly of unknown values.
    IntArray(IntArrayArg),
    /// Scalar; `None` when it arrives as a tensor of unknown value.
    Scalar(Option<Scalar>),
    /// Scalar[].
    Scalars(Vec<Scalar>),
    /// DataType.
    DataType(DataType),
    /// DataLayout.
    DataLayout(DataLayout),
    /// Place.
    Place(Place),
}

impl AttrValue<'_> {
    fn kind_name(&self) -> &'static str {
        match self {
            AttrValue::Bool(_) => "bool",
            AttrValue::I32(_) => "int",
            AttrValue::I64(_) => "int64_t",
            AttrValue::F32(_) => "float",
            AttrValue::F64(_) => "double",
            AttrValue::Str(_) => "str",
            AttrValue::Bools(_) => "bool[]",
            AttrValue::Ints(_) => "int[]",
            AttrValue::Floats(_) => "float[]",
            AttrValue::Strs(_) => "str[]",
            AttrValue::IntArray(_) => "IntArray",
            AttrValue::Scalar(_) => "Scalar",
            AttrValue::Scalars(_) => "Scalar[]",
            AttrValue::DataType(_) => "DataType",
            AttrValue::DataLayout(_) => "DataLayout",
            AttrValue::Place(_) => "Place",
        }
    }
}

/// One argument of an infer-meta call, in `infer_meta.param` order.
#[derive(Clone, Debug, PartialEq)]
pub enum MetaArg<'a> {
    /// A tensor input; `None` when an optional input is absent.
    Tensor(Option<&'a TensorMeta>),
    /// A `Tensor[]` input; `None` when an optional vector is absent.
    Tensors(Option<&'a [TensorMeta]>),
    /// An attribute.
    Attr(&'a AttrValue<'a>),
}

/// An output computed by an infer-meta function.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum MetaOut {
    /// Not set (an optional or intermediate output the function left alone).
    #[default]
    None,
    /// One tensor.
    Tensor(TensorMeta),
    /// A vector of tensors.
    Tensors(Vec<TensorMeta>),
    /// The metadata of tensor argument `i`, shared (Paddle's `out->share_meta(x)`): the output's
    /// type is the argument's type, so builds need not copy or re-intern it.
    Shared(usize),
}

impl MetaOut {
    /// This output with a [`MetaOut::Shared`] reference replaced by a copy of the argument's
    /// metadata (for code that inspects outputs rather than building types).
    pub fn resolve(self, args: &[MetaArg<'_>]) -> MetaOut {
        match self {
            MetaOut::Shared(i) => match args.get(i) {
                Some(MetaArg::Tensor(Some(t))) => MetaOut::Tensor((*t).clone()),
                _ => MetaOut::None,
            },
            other => other,
        }
    }
}

/// Why an infer-meta function rejected its arguments. The caller adds the op and the function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InferMetaError(pub String);

impl InferMetaError {
    /// An error with a message.
    pub fn new(msg: impl Into<String>) -> InferMetaError {
        InferMetaError(msg.into())
    }
}

/// Returns `Err(InferMetaError)` with a formatted message unless `cond` holds.
///
/// ```
/// use pir_runtime::{ensure_meta, meta::InferMetaError};
/// fn check(rank: usize) -> Result<(), InferMetaError> {
///     ensure_meta!(rank == 4, "input must be 4-D, got rank {rank}");
///     Ok(())
/// }
/// assert_eq!(check(3).unwrap_err().0, "input must be 4-D, got rank 3");
/// ```
#[macro_export]
macro_rules! ensure_meta {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err($crate::meta::InferMetaError(format!($($fmt)+)));
        }
    };
}

/// The arguments and outputs of one infer-meta call.
pub struct InferMetaCtx<'a> {
    args: &'a [MetaArg<'a>],
    outputs: &'a mut [MetaOut],
}

impl<'a> InferMetaCtx<'a> {
    /// A call with `args` (in `infer_meta.param` order) filling `outputs`.
    pub fn new(args: &'a [MetaArg<'a>], outputs: &'a mut [MetaOut]) -> InferMetaCtx<'a> {
        InferMetaCtx { args, outputs }
    }

    /// Number of arguments.
    pub fn num_args(&self) -> usize {
        self.args.len()
    }

    /// Number of outputs of the op.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// The raw argument `i`.
    pub fn arg(&self, i: usize) -> Result<&'a MetaArg<'a>, InferMetaError> {
        self.args.get(i).ok_or_else(|| {
            InferMetaError(format!(
                "argument {i} missing: the call has {} arguments",
                self.args.len()
            ))
        })
    }

    /// Tensor argument `i`, which must be present.
    pub fn tensor(&self, i: usize) -> Result<&'a TensorMeta, InferMetaError> {
        match self.arg(i)? {
            MetaArg::Tensor(Some(t)) => Ok(t),
            MetaArg::Tensor(None) => Err(InferMetaError(format!("argument {i}: tensor is absent"))),
            other => Err(mismatch(i, "a tensor", other)),
        }
    }

    /// Optional tensor argument `i` (`None` when absent).
    pub fn opt_tensor(&self, i: usize) -> Result<Option<&'a TensorMeta>, InferMetaError> {
        match self.arg(i)? {
            MetaArg::Tensor(t) => Ok(*t),
            other => Err(mismatch(i, "a tensor", other)),
        }
    }

    /// `Tensor[]` argument `i`, which must be present.
    pub fn tensors(&self, i: usize) -> Result<&'a [TensorMeta], InferMetaError> {
        match self.arg(i)? {
            MetaArg::Tensors(Some(t)) => Ok(t),
            MetaArg::Tensors(None) => Err(InferMetaError(format!(
                "argument {i}: tensor list is absent"
            ))),
            other => Err(mismatch(i, "a tensor list", other)),
        }
    }

    /// Optional `Tensor[]` argument `i`.
    pub fn opt_tensors(&self, i: usize) -> Result<Option<&'a [TensorMeta]>, InferMetaError> {
        match self.arg(i)? {
            MetaArg::Tensors(t) => Ok(*t),
            other => Err(mismatch(i, "a tensor list", other)),
        }
    }

    /// Attribute argument `i`.
    pub fn attr(&self, i: usize) -> Result<&'a AttrValue<'a>, InferMetaError> {
        match self.arg(i)? {
            MetaArg::Attr(a) => Ok(a),
            other => Err(mismatch(i, "an attribute", other)),
        }
    }

    /// bool attribute `i`.
    pub fn bool(&self, i: usize) -> Result<bool, InferMetaError> {
        match self.attr(i)? {
            AttrValue::Bool(v) => Ok(*v),
            other => Err(attr_mismatch(i, "bool", other)),
        }
    }

    /// Integer attribute `i` (int, int64_t, or a known integer Scalar), widened to i64.
    pub fn int(&self, i: usize) -> Result<i64, InferMetaError> {
        match self.attr(i)? {
            AttrValue::I32(v) => Ok(i64::from(*v)),
            AttrValue::I64(v) => Ok(*v),
            AttrValue::Scalar(Some(s)) => Ok(s.to_i64()),
            other => Err(attr_mismatch(i, "an integer", other)),
        }
    }

    /// Floating attribute `i` (float, double, or a known Scalar), widened to f64.
    pub fn float(&self, i: usize) -> Result<f64, InferMetaError> {
        match self.attr(i)? {
            AttrValue::F32(v) => Ok(f64::from(*v)),
            AttrValue::F64(v) => Ok(*v),
            AttrValue::I32(v) => Ok(f64::from(*v)),
            AttrValue::I64(v) => Ok(*v as f64),
            AttrValue::Scalar(Some(s)) => Ok(s.to_f64()),
            other => Err(attr_mismatch(i, "a number", other)),
        }
    }

    /// String attribute `i`.
    pub fn str(&self, i: usize) -> Result<&'a str, InferMetaError> {
        match self.attr(i)? {
            AttrValue::Str(v) => Ok(v),
            other => Err(attr_mismatch(i, "str", other)),
        }
    }

    /// Integer-list attribute `i` (int[] or int64_t[], or an IntArray of known values).
    pub fn ints(&self, i: usize) -> Result<&'a [i64], InferMetaError> {
        match self.attr(i)? {
            AttrValue::Ints(v) => Ok(v),
            AttrValue::IntArray(IntArrayArg {
                values: Some(v), ..
            }) => Ok(v),
            other => Err(attr_mismatch(i, "an integer list", other)),
        }
    }

    /// IntArray attribute `i`, values possibly unknown (a plain integer list counts as known).
    pub fn int_array(&self, i: usize) -> Result<IntArrayArg, InferMetaError> {
        match self.attr(i)? {
            AttrValue::IntArray(v) => Ok(v.clone()),
            AttrValue::Ints(v) => Ok(IntArrayArg::known(v)),
            other => Err(attr_mismatch(i, "IntArray", other)),
        }
    }

    /// Scalar attribute `i`; `None` when it arrives as a tensor of unknown value.
    pub fn scalar(&self, i: usize) -> Result<Option<Scalar>, InferMetaError> {
        match self.attr(i)? {
            AttrValue::Scalar(v) => Ok(*v),
            AttrValue::I32(v) => Ok(Some(Scalar::I32(*v))),
            AttrValue::I64(v) => Ok(Some(Scalar::I64(*v))),
            AttrValue::F32(v) => Ok(Some(Scalar::F32(*v))),
            AttrValue::F64(v) => Ok(Some(Scalar::F64(*v))),
            AttrValue::Bool(v) => Ok(Some(Scalar::Bool(*v))),
            other => Err(attr_mismatch(i, "Scalar", other)),
        }
    }

    /// Float-list attribute `i`.
    pub fn floats(&self, i: usize) -> Result<&'a [f64], InferMetaError> {
        match self.attr(i)? {
            AttrValue::Floats(v) => Ok(v),
            other => Err(attr_mismatch(i, "a float list", other)),
        }
    }

    /// DataType attribute `i`.
    pub fn dtype(&self, i: usize) -> Result<DataType, InferMetaError> {
        match self.attr(i)? {
            AttrValue::DataType(v) => Ok(*v),
            other => Err(attr_mismatch(i, "DataType", other)),
        }
    }

    /// DataLayout attribute `i` (a `str` such as `"NCHW"` is accepted too).
    pub fn layout(&self, i: usize) -> Result<DataLayout, InferMetaError> {
        match self.attr(i)? {
            AttrValue::DataLayout(v) => Ok(*v),
            AttrValue::Str(s) => DataLayout::from_name(s)
                .ok_or_else(|| InferMetaError(format!("argument {i}: unknown data layout {s:?}"))),
            other => Err(attr_mismatch(i, "DataLayout", other)),
        }
    }

    /// Place attribute `i`.
    pub fn place(&self, i: usize) -> Result<Place, InferMetaError> {
        match self.attr(i)? {
            AttrValue::Place(v) => Ok(*v),
            other => Err(attr_mismatch(i, "Place", other)),
        }
    }

    /// Sets output `j` to one tensor.
    pub fn set_output(&mut self, j: usize, meta: TensorMeta) -> Result<(), InferMetaError> {
        self.set(j, MetaOut::Tensor(meta))
    }

    /// Sets output `j` to share the metadata of tensor argument `i` (Paddle's `share_meta`),
    /// which must be present.
    pub fn share_output(&mut self, j: usize, i: usize) -> Result<(), InferMetaError> {
        self.tensor(i)?;
        self.set(j, MetaOut::Shared(i))
    }

    /// Sets output `j` to a vector of tensors.
    pub fn set_outputs(&mut self, j: usize, metas: Vec<TensorMeta>) -> Result<(), InferMetaError> {
        self.set(j, MetaOut::Tensors(metas))
    }

    fn set(&mut self, j: usize, out: MetaOut) -> Result<(), InferMetaError> {
        let n = self.outputs.len();
        let slot = self.outputs.get_mut(j).ok_or_else(|| {
            InferMetaError(format!("output {j} does not exist: the op has {n} outputs"))
        })?;
        *slot = out;
        Ok(())
    }
}

fn mismatch(i: usize, expected: &str, found: &MetaArg<'_>) -> InferMetaError {
    let found = match found {
        MetaArg::Tensor(_) => "a tensor",
        MetaArg::Tensors(_) => "a tensor list",
        MetaArg::Attr(a) => a.kind_name(),
    };
    InferMetaError(format!("argument {i}: expected {expected}, found {found}"))
}

fn attr_mismatch(i: usize, expected: &str, found: &AttrValue<'_>) -> InferMetaError {
    InferMetaError(format!(
        "argument {i}: expected {expected}, found {}",
        found.kind_name()
    ))
}

/// An infer-meta function.
pub type InferMetaFn = fn(&mut InferMetaCtx<'_>) -> Result<(), InferMetaError>;

/// A table of infer-meta functions by Paddle's name (`"UnchangedInferMeta"`), sorted by name so
/// lookup is a binary search. A dialect crate defines one as a `static` and names it to the
/// yaml macro.
#[derive(Clone, Copy)]
pub struct InferMetaRegistry {
    entries: &'static [(&'static str, InferMetaFn)],
}

impl InferMetaRegistry {
    /// A registry over `entries`, which must be sorted by name with no duplicates; this is
    /// checked by [`InferMetaRegistry::check_sorted`] (call it from a test).
    pub const fn new(entries: &'static [(&'static str, InferMetaFn)]) -> InferMetaRegistry {
        InferMetaRegistry { entries }
    }

    /// The function named `name`.
    pub fn get(&self, name: &str) -> Option<InferMetaFn> {
        self.entries
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .map(|i| self.entries[i].1)
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries.iter().map(|(n, _)| *n)
    }

    /// Number of functions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Err with the first out-of-order or duplicate name.
    pub fn check_sorted(&self) -> Result<(), String> {
        for w in self.entries.windows(2) {
            if w[0].0 >= w[1].0 {
                return Err(format!("{:?} must sort before {:?}", w[0].0, w[1].0));
            }
        }
        Ok(())
    }
}

/// A registry with no functions: ops generated without one report every infer-meta function as
/// not implemented.
pub static EMPTY_REGISTRY: InferMetaRegistry = InferMetaRegistry::new(&[]);

impl fmt::Debug for InferMetaRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add_dims(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?;
        let k = ctx.int(1)?;
        ensure_meta!(k >= 0, "k must be non-negative, got {k}");
        let dims: Vec<i64> = x
            .dims
            .iter()
            .map(|d| if *d < 0 { -1 } else { d + k })
            .collect();
        let out = x.with_dims(&dims);
        ctx.set_output(0, out)
    }

    #[test]
    fn accessors_and_errors() {
        let x = TensorMeta::new(DataType::Float32, &[2, -1]);
        let k = AttrValue::I32(3);
        let args = [MetaArg::Tensor(Some(&x)), MetaArg::Attr(&k)];
        let mut outs = [MetaOut::None];
        add_dims(&mut InferMetaCtx::new(&args, &mut outs)).unwrap();
        assert_eq!(
            outs[0],
            MetaOut::Tensor(TensorMeta::new(DataType::Float32, &[5, -1]))
        );

        let neg = AttrValue::I64(-1);
        let args = [MetaArg::Tensor(Some(&x)), MetaArg::Attr(&neg)];
        let e = add_dims(&mut InferMetaCtx::new(&args, &mut outs)).unwrap_err();
        assert_eq!(e.0, "k must be non-negative, got -1");

        let s = AttrValue::Str("a".into());
        let args = [MetaArg::Tensor(Some(&x)), MetaArg::Attr(&s)];
        let e = add_dims(&mut InferMetaCtx::new(&args, &mut outs)).unwrap_err();
        assert_eq!(e.0, "argument 1: expected an integer, found str");

        let args = [MetaArg::Tensor(None)];
        let e = add_dims(&mut InferMetaCtx::new(&args, &mut outs)).unwrap_err();
        assert_eq!(e.0, "argument 0: tensor is absent");

        let mut none: [MetaOut; 0] = [];
        let args = [MetaArg::Tensor(Some(&x)), MetaArg::Attr(&k)];
        let e = add_dims(&mut InferMetaCtx::new(&args, &mut none)).unwrap_err();
        assert_eq!(e.0, "output 0 does not exist: the op has 0 outputs");
    }

    #[test]
    fn registry_lookup() {
        static R: InferMetaRegistry = InferMetaRegistry::new(&[("A", add_dims), ("B", add_dims)]);
        R.check_sorted().unwrap();
        assert!(R.get("B").is_some());
        assert!(R.get("C").is_none());
        static BAD: InferMetaRegistry = InferMetaRegistry::new(&[("B", add_dims), ("A", add_dims)]);
        assert!(BAD.check_sorted().is_err());
    }

    #[test]
    fn numel_is_dynamic_when_any_dim_is() {
        assert_eq!(TensorMeta::new(DataType::Int64, &[2, 3]).numel(), 6);
        assert_eq!(TensorMeta::new(DataType::Int64, &[2, -1]).numel(), -1);
        assert_eq!(TensorMeta::new(DataType::Int64, &[]).numel(), 1);
    }
}
