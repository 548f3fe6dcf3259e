//! Tensor metadata and the calling convention of infer-meta functions.
//!
//! An infer-meta function (Paddle's `phi::*InferMeta`) computes the metadata of an op's outputs
//! from the metadata of its inputs and the values of its attributes. Here it is a plain Rust
//! function over plain data — [`TensorMeta`], [`AttrValue`] — so it can be written, tested and
//! benchmarked without building IR. Arguments arrive in the order of the op's
//! `infer_meta.param` list, outputs are set in the order of the op's outputs.
//!
//! Builds call every function through one entry point, [`InferMetaFn`], over an
//! [`InferMetaCtx`]. Functions are written with `#[pir_macros::infer_meta]` as plain Rust with
//! typed, named parameters after Paddle's C++ signatures (`&TensorMeta`, `&[i64]`,
//! [`IntArray`], ..., [`Output`]); the macro generates the entry point and an
//! [`InferMetaEntry`] with the function's [`InferMetaSignature`], which an
//! [`InferMetaRegistry`] keeps so that op definitions can be checked against it. The entry point
//! of the example below is written by hand:
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
use std::cell::OnceCell;

use pir_spec::AttrKind;
use smallvec::SmallVec;

use crate::op_support::{attr_value_from_arg, AttrArg};
use crate::phi::{DataLayout, DataType, Place};

pub(crate) mod build;
mod int_array;
mod output;
mod registry;
mod signature;

pub(crate) use build::{BuildArgs, BuildCall, BuildInput, TypedOut, FALSE, TRUE};
pub use int_array::IntArray;
pub use output::{Output, OutputList, OutputSlots};
pub use registry::{InferMetaRegistry, EMPTY_REGISTRY};
pub use signature::{
    fit_message, ArgKind, Fit, FitMessage, FitMismatch, InferMetaEntry, InferMetaFitError,
    InferMetaSignature, OutputKind, OutputSpec, ParamKind, ParamSpec,
};

/// Dimensions of a tensor; `-1` is a dynamic (unknown) extent.
///
/// ```
/// use pir_runtime::meta::{Dims, TensorMeta};
/// use pir_runtime::phi::DataType;
/// let dims: Dims = Dims::from_slice(&[-1, 3, 224, 224]); // inline up to rank 6
/// assert!(!dims.spilled());
/// assert_eq!(TensorMeta::new(DataType::Float32, &dims).rank(), 4);
/// ```
pub type Dims = SmallVec<[i64; 6]>;

/// `dims` as [`Dims`]. Up to rank 6 (inline) by fixed-size copies: `SmallVec::from_slice`
/// calls `memcpy` for a few words (new tensor types are made on the interner's insert path).
#[inline]
pub(crate) fn dims_of(dims: &[i64]) -> Dims {
    let buf = match *dims {
        [] => [0; 6],
        [a] => [a, 0, 0, 0, 0, 0],
        [a, b] => [a, b, 0, 0, 0, 0],
        [a, b, c] => [a, b, c, 0, 0, 0],
        [a, b, c, d] => [a, b, c, d, 0, 0],
        [a, b, c, d, e] => [a, b, c, d, e, 0],
        [a, b, c, d, e, f] => [a, b, c, d, e, f],
        _ => return Dims::from_slice(dims),
    };
    Dims::from_buf_and_len(buf, dims.len())
}

/// Level-of-detail offsets of a legacy LoDTensor (empty for almost every tensor).
///
/// ```
/// use pir_runtime::{meta::{Lod, TensorMeta}, phi::DataType};
/// let lod: Lod = vec![vec![0, 2, 5]];
/// let t = TensorMeta { lod, ..TensorMeta::new(DataType::Int64, &[5, 1]) };
/// assert_eq!(t.lod[0].len(), 3);
/// ```
pub type Lod = Vec<Vec<u64>>;

/// The metadata of a dense tensor: what `DenseTensorType` holds.
///
/// ```
/// use pir_runtime::{meta::TensorMeta, IrContext, phi::{DataLayout, DataType}};
/// let x = TensorMeta::new(DataType::Float32, &[-1, 3]);
/// assert_eq!((x.layout, x.offset, x.rank(), x.numel()), (DataLayout::Nchw, 0, 2, -1));
/// // A dense tensor type stores exactly this metadata:
/// let ctx = IrContext::new();
/// let t = ctx.tensor_type_of(&x);
/// assert_eq!(t.as_dense_tensor(&ctx), Some(&x));
/// ```
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
    ///
    /// ```
    /// use pir_runtime::{meta::TensorMeta, phi::DataType};
    /// let scalar = TensorMeta::new(DataType::Int64, &[]); // 0-D
    /// assert_eq!((scalar.rank(), scalar.numel()), (0, 1));
    /// ```
    pub fn new(dtype: DataType, dims: &[i64]) -> TensorMeta {
        TensorMeta {
            dtype,
            dims: dims_of(dims),
            layout: DataLayout::Nchw,
            lod: Lod::new(),
            offset: 0,
        }
    }

    /// Same metadata with other dims.
    ///
    /// ```
    /// use pir_runtime::{meta::TensorMeta, phi::DataType};
    /// let x = TensorMeta::new(DataType::Float16, &[2, 3]);
    /// let y = x.with_dims(&[6]);
    /// assert_eq!((y.dtype, &y.dims[..]), (DataType::Float16, &[6][..]));
    /// ```
    pub fn with_dims(&self, dims: &[i64]) -> TensorMeta {
        TensorMeta {
            dims: dims_of(dims),
            ..self.clone()
        }
    }

    /// Same metadata with another dtype.
    ///
    /// ```
    /// use pir_runtime::{meta::TensorMeta, phi::DataType};
    /// let x = TensorMeta::new(DataType::Float32, &[2, 3]);
    /// let mask = x.with_dtype(DataType::Bool);
    /// assert_eq!((mask.dtype, mask.dims.clone()), (DataType::Bool, x.dims.clone()));
    /// ```
    pub fn with_dtype(&self, dtype: DataType) -> TensorMeta {
        TensorMeta {
            dtype,
            ..self.clone()
        }
    }

    /// Rank (number of dims).
    ///
    /// ```
    /// use pir_runtime::{meta::TensorMeta, phi::DataType};
    /// assert_eq!(TensorMeta::new(DataType::Float32, &[1, 2, 3]).rank(), 3);
    /// ```
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Number of elements, or -1 when any extent is dynamic.
    ///
    /// ```
    /// use pir_runtime::{meta::TensorMeta, phi::DataType};
    /// assert_eq!(TensorMeta::new(DataType::Float32, &[4, 5]).numel(), 20);
    /// assert_eq!(TensorMeta::new(DataType::Float32, &[-1, 5]).numel(), -1);
    /// ```
    pub fn numel(&self) -> i64 {
        if self.dims.iter().any(|&d| d < 0) {
            -1
        } else {
            self.dims.iter().product()
        }
    }
}

/// A `phi::Scalar` value.
///
/// ```
/// use pir_runtime::{meta::Scalar, phi::DataType};
/// let s: Scalar = 2.5f32.into();
/// assert_eq!(s, Scalar::F32(2.5));
/// assert_eq!((s.dtype(), s.to_f64(), s.to_i64()), (DataType::Float32, 2.5, 2));
/// ```
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
    ///
    /// ```
    /// use pir_runtime::meta::Scalar;
    /// assert_eq!(Scalar::Bool(true).to_f64(), 1.0);
    /// assert_eq!(Scalar::C64(1.5, -1.0).to_f64(), 1.5); // the real part
    /// ```
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
    ///
    /// ```
    /// use pir_runtime::meta::Scalar;
    /// assert_eq!(Scalar::F64(-2.7).to_i64(), -2); // truncates
    /// assert_eq!(Scalar::I32(7).to_i64(), 7);
    /// ```
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => i64::from(b),
            Scalar::I32(v) => i64::from(v),
            Scalar::I64(v) => v,
            other => other.to_f64() as i64,
        }
    }

    /// The data type of the value.
    ///
    /// ```
    /// use pir_runtime::{meta::Scalar, phi::DataType};
    /// assert_eq!(Scalar::from(3i64).dtype(), DataType::Int64);
    /// assert_eq!(Scalar::C128(0.0, 1.0).dtype(), DataType::Complex128);
    /// ```
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
///
/// ```
/// use pir_runtime::meta::IntArrayArg;
/// let shape = IntArrayArg::known(&[2, -1]);
/// assert_eq!((shape.values.as_deref(), shape.len), (Some(&[2, -1][..]), Some(2)));
/// let fed = IntArrayArg::unknown(Some(3)); // computed at run time, 3 values
/// assert_eq!((fed.values, fed.len), (None, Some(3)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct IntArrayArg {
    /// The values, if known.
    pub values: Option<SmallVec<[i64; 6]>>,
    /// The number of values, if known (`values.len()` when values are known).
    pub len: Option<usize>,
}

impl IntArrayArg {
    /// Known values.
    ///
    /// ```
    /// use pir_runtime::meta::IntArrayArg;
    /// assert_eq!(IntArrayArg::known(&[1, 2, 3]).len, Some(3));
    /// ```
    pub fn known(values: &[i64]) -> IntArrayArg {
        IntArrayArg {
            values: Some(SmallVec::from_slice(values)),
            len: Some(values.len()),
        }
    }

    /// Unknown values, possibly of known length.
    ///
    /// ```
    /// use pir_runtime::meta::IntArrayArg;
    /// assert_eq!(IntArrayArg::unknown(None), IntArrayArg { values: None, len: None });
    /// ```
    pub fn unknown(len: Option<usize>) -> IntArrayArg {
        IntArrayArg { values: None, len }
    }
}

/// An attribute value handed to an infer-meta function. Strings are borrowed from the build's
/// arguments or the interned attribute, so handing them over does not allocate.
///
/// ```
/// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg};
/// let axis = AttrValue::I32(-1);
/// let name = AttrValue::Str("x".into());
/// let args = [MetaArg::Attr(&axis), MetaArg::Attr(&name)];
/// let ctx = InferMetaCtx::new(&args, &mut []);
/// assert_eq!(ctx.int(0).unwrap(), -1);
/// assert_eq!(ctx.int(1).unwrap_err().0, "argument 1: expected an integer, found str");
/// ```
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
    /// The same value owning its strings (a cell of [`MetaArg::Arg`] outlives no borrow).
    ///
    /// ```
    /// use pir_runtime::meta::AttrValue;
    /// let s = String::from("NCHW");
    /// let owned: AttrValue<'static> = AttrValue::Str(s.as_str().into()).into_owned();
    /// assert_eq!(owned, AttrValue::Str("NCHW".into()));
    /// ```
    pub fn into_owned(self) -> AttrValue<'static> {
        let own = |s: Cow<'_, str>| Cow::Owned(s.into_owned());
        match self {
            AttrValue::Bool(v) => AttrValue::Bool(v),
            AttrValue::I32(v) => AttrValue::I32(v),
            AttrValue::I64(v) => AttrValue::I64(v),
            AttrValue::F32(v) => AttrValue::F32(v),
            AttrValue::F64(v) => AttrValue::F64(v),
            AttrValue::Str(v) => AttrValue::Str(own(v)),
            AttrValue::Bools(v) => AttrValue::Bools(v),
            AttrValue::Ints(v) => AttrValue::Ints(v),
            AttrValue::Floats(v) => AttrValue::Floats(v),
            AttrValue::Strs(v) => AttrValue::Strs(v.into_iter().map(own).collect()),
            AttrValue::IntArray(v) => AttrValue::IntArray(v),
            AttrValue::Scalar(v) => AttrValue::Scalar(v),
            AttrValue::Scalars(v) => AttrValue::Scalars(v),
            AttrValue::DataType(v) => AttrValue::DataType(v),
            AttrValue::DataLayout(v) => AttrValue::DataLayout(v),
            AttrValue::Place(v) => AttrValue::Place(v),
        }
    }

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
///
/// ```
/// use pir_runtime::meta::{InferMetaCtx, MetaArg, TensorMeta};
/// use pir_runtime::phi::DataType;
/// let xs = [TensorMeta::new(DataType::Float32, &[2]), TensorMeta::new(DataType::Float32, &[3])];
/// let args = [MetaArg::Tensors(Some(&xs)), MetaArg::Tensor(None)];
/// let ctx = InferMetaCtx::new(&args, &mut []);
/// assert_eq!(ctx.tensors(0).unwrap().len(), 2);
/// assert_eq!(ctx.opt_tensor(1).unwrap(), None); // an absent optional input
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum MetaArg<'a> {
    /// A tensor input; `None` when an optional input is absent.
    Tensor(Option<&'a TensorMeta>),
    /// A `Tensor[]` input; `None` when an optional vector is absent.
    Tensors(Option<&'a [TensorMeta]>),
    /// An attribute.
    Attr(&'a AttrValue<'a>),
    /// An attribute as the Rust value a typed build was given, for an attribute of the given
    /// kind. Readers take most values in place; the [`AttrValue`] form is made in the cell
    /// only when a reader asks for it ([`InferMetaCtx::attr`], lists that need widening), so a
    /// build converts no more than the function reads.
    ///
    /// ```
    /// use std::cell::OnceCell;
    /// use pir_runtime::meta::{InferMetaCtx, MetaArg};
    /// use pir_runtime::op_support::AttrArg;
    /// use pir_runtime::pir_spec::AttrKind;
    /// let (strides, groups) = (AttrArg::I32s(&[2, 2]), AttrArg::I32(1));
    /// let cells = [OnceCell::new(), OnceCell::new()];
    /// let args = [
    ///     MetaArg::Arg(&strides, AttrKind::Int32Array, &cells[0]),
    ///     MetaArg::Arg(&groups, AttrKind::Int32, &cells[1]),
    /// ];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.int(1).unwrap(), 1); // read in place
    /// assert!(cells[1].get().is_none());
    /// assert_eq!(ctx.ints(0).unwrap(), [2, 2]); // widened once, into the cell
    /// assert!(cells[0].get().is_some());
    /// ```
    Arg(&'a AttrArg<'a>, AttrKind, &'a OnceCell<AttrValue<'static>>),
}

/// A list argument as a typed infer-meta function receives it (`&[i64]`, `&[f64]`): borrowed
/// from the call, or widened on the stack from the build's `int[]` / `float[]` value.
///
/// ```
/// use std::cell::OnceCell;
/// use pir_runtime::meta::{InferMetaCtx, ListArg, MetaArg};
/// use pir_runtime::op_support::AttrArg;
/// use pir_runtime::pir_spec::AttrKind;
/// let strides = AttrArg::I32s(&[2, 2]);
/// let cell = OnceCell::new();
/// let args = [MetaArg::Arg(&strides, AttrKind::Int32Array, &cell)];
/// let ctx = InferMetaCtx::new(&args, &mut []);
/// let s = ctx.ints_arg(0).unwrap();
/// assert!(matches!(s, ListArg::Widened(_)));
/// assert_eq!(*s, [2, 2]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ListArg<'a, T> {
    /// The call's own list.
    Borrowed(&'a [T]),
    /// A widened copy.
    Widened(SmallVec<[T; 6]>),
}

impl<T> std::ops::Deref for ListArg<'_, T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            ListArg::Borrowed(v) => v,
            ListArg::Widened(v) => v,
        }
    }
}

/// An output computed by an infer-meta function.
///
/// ```
/// use pir_runtime::meta::{InferMetaCtx, MetaArg, MetaOut, TensorMeta};
/// use pir_runtime::phi::DataType;
/// let x = TensorMeta::new(DataType::Int32, &[4]);
/// let args = [MetaArg::Tensor(Some(&x))];
/// let mut outs = [MetaOut::None, MetaOut::None];
/// let mut ctx = InferMetaCtx::new(&args, &mut outs);
/// ctx.share_output(0, 0).unwrap();
/// ctx.set_outputs(1, vec![x.clone(), x.clone()]).unwrap();
/// assert_eq!(outs[0], MetaOut::Shared(0));
/// assert!(matches!(&outs[1], MetaOut::Tensors(v) if v.len() == 2));
/// ```
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
    ///
    /// ```
    /// use pir_runtime::meta::{MetaArg, MetaOut, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// let x = TensorMeta::new(DataType::Int32, &[4]);
    /// let args = [MetaArg::Tensor(Some(&x))];
    /// assert_eq!(MetaOut::Shared(0).resolve(&args), MetaOut::Tensor(x.clone()));
    /// assert_eq!(MetaOut::None.resolve(&args), MetaOut::None);
    /// ```
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
///
/// ```
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError, MetaArg};
/// let args = [MetaArg::Tensor(None)];
/// let err: InferMetaError = InferMetaCtx::new(&args, &mut []).tensor(0).unwrap_err();
/// assert_eq!(err.to_string(), "argument 0: tensor is absent");
/// assert_eq!(InferMetaError::new("x must be 4-D").0, "x must be 4-D");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InferMetaError(pub String);

impl InferMetaError {
    /// An error with a message.
    ///
    /// ```
    /// use pir_runtime::meta::InferMetaError;
    /// let e = InferMetaError::new(format!("axis {} out of range", 5));
    /// assert_eq!(e.to_string(), "axis 5 out of range");
    /// ```
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
///
/// ```
/// use pir_runtime::meta::{AttrValue, InferMetaCtx, InferMetaError, MetaArg, MetaOut, TensorMeta};
/// use pir_runtime::phi::DataType;
/// // CastInferMeta(x, dtype): x's shape, the attribute's element type.
/// fn cast(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
///     let out = ctx.tensor(0)?.with_dtype(ctx.dtype(1)?);
///     ctx.set_output(0, out)
/// }
/// let x = TensorMeta::new(DataType::Float32, &[2, 3]);
/// let to = AttrValue::DataType(DataType::Int64);
/// let mut outs = [MetaOut::None];
/// cast(&mut InferMetaCtx::new(&[MetaArg::Tensor(Some(&x)), MetaArg::Attr(&to)], &mut outs)).unwrap();
/// assert_eq!(outs[0], MetaOut::Tensor(TensorMeta::new(DataType::Int64, &[2, 3])));
/// ```
pub struct InferMetaCtx<'a> {
    /// The arguments of a [`MetaArg`] call (empty for a typed build).
    args: &'a [MetaArg<'a>],
    /// A typed build's arguments, read in place.
    build: Option<&'a BuildCall<'a>>,
    outputs: Outputs<'a>,
}

/// Where a call's outputs go: [`MetaOut`]s, or a typed build's result types.
enum Outputs<'a> {
    Meta(&'a mut [MetaOut]),
    Typed(&'a mut [TypedOut]),
}

impl<'a> InferMetaCtx<'a> {
    /// A call with `args` (in `infer_meta.param` order) filling `outputs`.
    pub fn new(args: &'a [MetaArg<'a>], outputs: &'a mut [MetaOut]) -> InferMetaCtx<'a> {
        InferMetaCtx {
            args,
            build: None,
            outputs: Outputs::Meta(outputs),
        }
    }

    /// A typed build's call: the arguments read from `call`, the outputs interned into `outputs`
    /// (one per schema output) as the function sets them.
    pub(crate) fn for_build(
        call: &'a BuildCall<'a>,
        outputs: &'a mut [TypedOut],
    ) -> InferMetaCtx<'a> {
        InferMetaCtx {
            args: &[],
            build: Some(call),
            outputs: Outputs::Typed(outputs),
        }
    }

    /// Every argument as a [`MetaArg`] (a typed build's made on first need).
    #[inline]
    fn all_args(&self) -> &'a [MetaArg<'a>] {
        match self.build {
            Some(b) => b.meta_args(),
            None => self.args,
        }
    }

    /// Number of arguments.
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg, MetaOut};
    /// let k = AttrValue::Bool(true);
    /// let args = [MetaArg::Attr(&k)];
    /// let mut outs = [MetaOut::None];
    /// let ctx = InferMetaCtx::new(&args, &mut outs);
    /// assert_eq!((ctx.num_args(), ctx.num_outputs()), (1, 1));
    /// ```
    pub fn num_args(&self) -> usize {
        match self.build {
            Some(b) => b.args.params.len(),
            None => self.args.len(),
        }
    }

    /// Number of outputs of the op.
    pub fn num_outputs(&self) -> usize {
        match &self.outputs {
            Outputs::Meta(o) => o.len(),
            Outputs::Typed(o) => o.len(),
        }
    }

    /// The raw argument `i`.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaArg};
    /// let args = [MetaArg::Tensor(None)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.arg(0).unwrap(), &MetaArg::Tensor(None));
    /// assert_eq!(ctx.arg(1).unwrap_err().0, "argument 1 missing: the call has 1 arguments");
    /// ```
    pub fn arg(&self, i: usize) -> Result<&'a MetaArg<'a>, InferMetaError> {
        let args = self.all_args();
        args.get(i).ok_or_else(|| {
            InferMetaError(format!(
                "argument {i} missing: the call has {} arguments",
                args.len()
            ))
        })
    }

    /// Tensor argument `i`, which must be present.
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// let x = TensorMeta::new(DataType::Float32, &[2]);
    /// let a = AttrValue::I32(0);
    /// let args = [MetaArg::Tensor(Some(&x)), MetaArg::Attr(&a)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.tensor(0).unwrap(), &x);
    /// assert_eq!(ctx.tensor(1).unwrap_err().0, "argument 1: expected a tensor, found int");
    /// ```
    #[inline]
    pub fn tensor(&self, i: usize) -> Result<&'a TensorMeta, InferMetaError> {
        if let Some(Some(t)) = self.build.and_then(|b| b.args.tensor(i)) {
            return Ok(t);
        }
        self.tensor_general(i)
    }

    /// [`InferMetaCtx::tensor`] past the typed build's common case.
    fn tensor_general(&self, i: usize) -> Result<&'a TensorMeta, InferMetaError> {
        match self.arg(i)? {
            MetaArg::Tensor(Some(t)) => Ok(t),
            MetaArg::Tensor(None) => Err(InferMetaError(format!("argument {i}: tensor is absent"))),
            other => Err(mismatch(i, "a tensor", other)),
        }
    }

    /// Optional tensor argument `i` (`None` when absent).
    #[inline]
    pub fn opt_tensor(&self, i: usize) -> Result<Option<&'a TensorMeta>, InferMetaError> {
        if let Some(t) = self.build.and_then(|b| b.args.tensor(i)) {
            return Ok(t);
        }
        self.opt_tensor_general(i)
    }

    /// [`InferMetaCtx::opt_tensor`] past the typed build's common case.
    fn opt_tensor_general(&self, i: usize) -> Result<Option<&'a TensorMeta>, InferMetaError> {
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
            MetaArg::Arg(a, kind, cell) => {
                Ok(cell.get_or_init(|| attr_value_from_arg(a, *kind).into_owned()))
            }
            other => Err(mismatch(i, "an attribute", other)),
        }
    }

    /// A typed build's value of attribute argument `i` (what the inline part of the accessors
    /// reads; `None` in a [`MetaArg`] call).
    #[inline]
    fn built(&self, i: usize) -> Option<&'a AttrArg<'a>> {
        match self.build {
            Some(b) => b.args.raw(i),
            None => None,
        }
    }

    /// Argument `i`'s Rust value when it came from a typed build (read in place by the
    /// accessors below before they fall back to [`InferMetaCtx::attr`]).
    #[inline]
    fn raw(&self, i: usize) -> Option<&'a AttrArg<'a>> {
        if let Some(b) = self.build {
            return b.args.raw(i);
        }
        match self.args.get(i) {
            Some(MetaArg::Arg(a, _, _)) => Some(a),
            _ => None,
        }
    }

    /// bool attribute `i`.
    #[inline]
    pub fn bool(&self, i: usize) -> Result<bool, InferMetaError> {
        if let Some(AttrArg::Bool(v)) = self.built(i) {
            return Ok(*v);
        }
        self.bool_general(i)
    }

    /// [`InferMetaCtx::bool`] past the typed build's common case.
    fn bool_general(&self, i: usize) -> Result<bool, InferMetaError> {
        if let Some(AttrArg::Bool(v)) = self.raw(i) {
            return Ok(*v);
        }
        match self.attr(i)? {
            AttrValue::Bool(v) => Ok(*v),
            other => Err(attr_mismatch(i, "bool", other)),
        }
    }

    /// Integer attribute `i` (int, int64_t, or a known integer Scalar), widened to i64.
    #[inline]
    pub fn int(&self, i: usize) -> Result<i64, InferMetaError> {
        match self.built(i) {
            Some(AttrArg::I32(v)) => return Ok(i64::from(*v)),
            Some(AttrArg::I64(v)) => return Ok(*v),
            _ => {}
        }
        self.int_general(i)
    }

    /// [`InferMetaCtx::int`] past the typed build's common case.
    fn int_general(&self, i: usize) -> Result<i64, InferMetaError> {
        match self.raw(i) {
            Some(AttrArg::I32(v)) => return Ok(i64::from(*v)),
            Some(AttrArg::I64(v)) => return Ok(*v),
            _ => {}
        }
        match self.attr(i)? {
            AttrValue::I32(v) => Ok(i64::from(*v)),
            AttrValue::I64(v) => Ok(*v),
            AttrValue::Scalar(Some(s)) => Ok(s.to_i64()),
            other => Err(attr_mismatch(i, "an integer", other)),
        }
    }

    /// Floating attribute `i` (float, double, or a known Scalar), widened to f64.
    #[inline]
    pub fn float(&self, i: usize) -> Result<f64, InferMetaError> {
        match self.built(i) {
            Some(AttrArg::F32(v)) => return Ok(f64::from(*v)),
            Some(AttrArg::F64(v)) => return Ok(*v),
            _ => {}
        }
        self.float_general(i)
    }

    /// [`InferMetaCtx::float`] past the typed build's common case.
    fn float_general(&self, i: usize) -> Result<f64, InferMetaError> {
        match self.raw(i) {
            Some(AttrArg::F32(v)) => return Ok(f64::from(*v)),
            Some(AttrArg::F64(v)) => return Ok(*v),
            _ => {}
        }
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
    #[inline]
    pub fn str(&self, i: usize) -> Result<&'a str, InferMetaError> {
        if let Some(AttrArg::Str(v)) = self.built(i) {
            return Ok(v);
        }
        self.str_general(i)
    }

    /// [`InferMetaCtx::str`] past the typed build's common case.
    fn str_general(&self, i: usize) -> Result<&'a str, InferMetaError> {
        if let Some(AttrArg::Str(v)) = self.raw(i) {
            return Ok(v);
        }
        match self.attr(i)? {
            AttrValue::Str(v) => Ok(v),
            other => Err(attr_mismatch(i, "str", other)),
        }
    }

    /// String attribute `i`; a `DataLayout` attribute gives its name (`"NCHW"`), as the
    /// `data_format` / `data_layout` strings of Paddle's functions accept either.
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg};
    /// use pir_runtime::phi::DataLayout;
    /// let (s, l) = (AttrValue::Str("SAME".into()), AttrValue::DataLayout(DataLayout::Nhwc));
    /// let args = [MetaArg::Attr(&s), MetaArg::Attr(&l)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!((ctx.str_or_layout(0).unwrap(), ctx.str_or_layout(1).unwrap()), ("SAME", "NHWC"));
    /// ```
    #[inline]
    pub fn str_or_layout(&self, i: usize) -> Result<&'a str, InferMetaError> {
        if let Some(AttrArg::Str(v)) = self.built(i) {
            return Ok(v);
        }
        self.str_or_layout_general(i)
    }

    /// [`InferMetaCtx::str_or_layout`] past the typed build's common case.
    fn str_or_layout_general(&self, i: usize) -> Result<&'a str, InferMetaError> {
        match self.raw(i) {
            Some(AttrArg::Str(v)) => return Ok(v),
            Some(AttrArg::DataLayout(l)) => return Ok(l.name()),
            _ => {}
        }
        match self.attr(i)? {
            AttrValue::Str(v) => Ok(v),
            AttrValue::DataLayout(l) => Ok(l.name()),
            other => Err(attr_mismatch(i, "str", other)),
        }
    }

    /// 32-bit integer attribute `i` (as [`InferMetaCtx::int`]); a value out of `i32`'s range is
    /// an error.
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg};
    /// let (a, big) = (AttrValue::I32(-3), AttrValue::I64(1 << 40));
    /// let args = [MetaArg::Attr(&a), MetaArg::Attr(&big)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.int32(0).unwrap(), -3);
    /// assert_eq!(ctx.int32(1).unwrap_err().0, "argument 1: 1099511627776 does not fit in a 32-bit int");
    /// ```
    pub fn int32(&self, i: usize) -> Result<i32, InferMetaError> {
        let v = self.int(i)?;
        i32::try_from(v)
            .map_err(|_| InferMetaError(format!("argument {i}: {v} does not fit in a 32-bit int")))
    }

    /// Bool-list attribute `i`.
    pub fn bools(&self, i: usize) -> Result<&'a [bool], InferMetaError> {
        if let Some(AttrArg::Bools(v)) = self.raw(i) {
            return Ok(v);
        }
        match self.attr(i)? {
            AttrValue::Bools(v) => Ok(v),
            other => Err(attr_mismatch(i, "a bool list", other)),
        }
    }

    /// String-list attribute `i` (`std::vector<std::string>`).
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg};
    /// let l = AttrValue::Strs(vec!["l2_decay".into()]);
    /// let args = [MetaArg::Attr(&l)];
    /// assert_eq!(InferMetaCtx::new(&args, &mut []).strs(0).unwrap()[0], "l2_decay");
    /// ```
    pub fn strs(&self, i: usize) -> Result<&'a [Cow<'a, str>], InferMetaError> {
        match self.attr(i)? {
            AttrValue::Strs(v) => Ok(v),
            other => Err(attr_mismatch(i, "a str list", other)),
        }
    }

    /// Scalar-list attribute `i`.
    pub fn scalars(&self, i: usize) -> Result<&'a [Scalar], InferMetaError> {
        if let Some(AttrArg::Scalars(v)) = self.raw(i) {
            return Ok(v);
        }
        match self.attr(i)? {
            AttrValue::Scalars(v) => Ok(v),
            other => Err(attr_mismatch(i, "a Scalar list", other)),
        }
    }

    /// Integer-list attribute `i` (int[] or int64_t[], or an IntArray of known values).
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, IntArrayArg, MetaArg};
    /// let perm = AttrValue::Ints([1, 0].into_iter().collect());
    /// let shape = AttrValue::IntArray(IntArrayArg::known(&[4, -1]));
    /// let args = [MetaArg::Attr(&perm), MetaArg::Attr(&shape)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.ints(0).unwrap(), [1, 0]);
    /// assert_eq!(ctx.ints(1).unwrap(), [4, -1]); // an IntArray of known values
    /// ```
    pub fn ints(&self, i: usize) -> Result<&'a [i64], InferMetaError> {
        // int64_t[] and IntArray values are read in place, int[] widened once into the cell.
        if let Some(AttrArg::I64s(v)) = self.raw(i) {
            return Ok(v);
        }
        match self.all_args().get(i) {
            Some(MetaArg::Arg(AttrArg::I64s(v), _, _)) => return Ok(v),
            Some(MetaArg::Arg(AttrArg::I32s(v), _, cell)) => {
                if let AttrValue::Ints(w) = cell.get_or_init(|| AttrValue::Ints(widen(v))) {
                    return Ok(w);
                }
            }
            _ => {}
        }
        match self.attr(i)? {
            AttrValue::Ints(v) => Ok(v),
            AttrValue::IntArray(IntArrayArg {
                values: Some(v), ..
            }) => Ok(v),
            other => Err(attr_mismatch(i, "an integer list", other)),
        }
    }

    /// Integer-list attribute `i` as [`InferMetaCtx::ints`] reads it, an `int[]` of a typed
    /// build widened on the stack (what `#[infer_meta]` functions' `&[i64]` parameters get).
    #[inline]
    pub fn ints_arg(&self, i: usize) -> Result<ListArg<'a, i64>, InferMetaError> {
        if let Some(AttrArg::I32s(v)) = self.raw(i) {
            return Ok(ListArg::Widened(widen(v)));
        }
        self.ints(i).map(ListArg::Borrowed)
    }

    /// Float-list attribute `i` as [`InferMetaCtx::floats`] reads it, a `float[]` of a typed
    /// build widened on the stack (what `#[infer_meta]` functions' `&[f64]` parameters get).
    #[inline]
    pub fn floats_arg(&self, i: usize) -> Result<ListArg<'a, f64>, InferMetaError> {
        match self.raw(i) {
            Some(AttrArg::F32s(v)) => {
                return Ok(ListArg::Widened(v.iter().map(|&x| f64::from(x)).collect()))
            }
            Some(AttrArg::F64s(v)) => return Ok(ListArg::Borrowed(v)),
            _ => {}
        }
        self.floats(i).map(ListArg::Borrowed)
    }

    /// IntArray attribute `i`, values possibly unknown (a plain integer list counts as known).
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, IntArrayArg, MetaArg};
    /// let fed = AttrValue::IntArray(IntArrayArg::unknown(Some(2)));
    /// let args = [MetaArg::Attr(&fed)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.int_array(0).unwrap().len, Some(2));
    /// assert!(ctx.ints(0).is_err()); // values unknown
    /// ```
    pub fn int_array(&self, i: usize) -> Result<IntArrayArg, InferMetaError> {
        match self.attr(i)? {
            AttrValue::IntArray(v) => Ok(v.clone()),
            AttrValue::Ints(v) => Ok(IntArrayArg::known(v)),
            other => Err(attr_mismatch(i, "IntArray", other)),
        }
    }

    /// Scalar attribute `i`; `None` when it arrives as a tensor of unknown value.
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg, Scalar};
    /// let (v, fed) = (AttrValue::F32(0.5), AttrValue::Scalar(None));
    /// let args = [MetaArg::Attr(&v), MetaArg::Attr(&fed)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.scalar(0).unwrap(), Some(Scalar::F32(0.5)));
    /// assert_eq!(ctx.scalar(1).unwrap(), None); // arrives as a tensor of unknown value
    /// ```
    pub fn scalar(&self, i: usize) -> Result<Option<Scalar>, InferMetaError> {
        match self.raw(i) {
            Some(AttrArg::Scalar(v)) => return Ok(Some(*v)),
            Some(AttrArg::I32(v)) => return Ok(Some(Scalar::I32(*v))),
            Some(AttrArg::I64(v)) => return Ok(Some(Scalar::I64(*v))),
            Some(AttrArg::F32(v)) => return Ok(Some(Scalar::F32(*v))),
            Some(AttrArg::F64(v)) => return Ok(Some(Scalar::F64(*v))),
            Some(AttrArg::Bool(v)) => return Ok(Some(Scalar::Bool(*v))),
            _ => {}
        }
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
    #[inline]
    pub fn dtype(&self, i: usize) -> Result<DataType, InferMetaError> {
        if let Some(AttrArg::DataType(v)) = self.built(i) {
            return Ok(*v);
        }
        self.dtype_general(i)
    }

    /// [`InferMetaCtx::dtype`] past the typed build's common case.
    fn dtype_general(&self, i: usize) -> Result<DataType, InferMetaError> {
        if let Some(AttrArg::DataType(v)) = self.raw(i) {
            return Ok(*v);
        }
        match self.attr(i)? {
            AttrValue::DataType(v) => Ok(*v),
            other => Err(attr_mismatch(i, "DataType", other)),
        }
    }

    /// DataLayout attribute `i` (a `str` such as `"NCHW"` is accepted too).
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, MetaArg};
    /// use pir_runtime::phi::DataLayout;
    /// let (s, bad) = (AttrValue::Str("NHWC".into()), AttrValue::Str("HWCN?".into()));
    /// let args = [MetaArg::Attr(&s), MetaArg::Attr(&bad)];
    /// let ctx = InferMetaCtx::new(&args, &mut []);
    /// assert_eq!(ctx.layout(0).unwrap(), DataLayout::Nhwc);
    /// assert_eq!(ctx.layout(1).unwrap_err().0, "argument 1: unknown data layout \"HWCN?\"");
    /// ```
    pub fn layout(&self, i: usize) -> Result<DataLayout, InferMetaError> {
        if let Some(AttrArg::DataLayout(v)) = self.raw(i) {
            return Ok(*v);
        }
        match self.attr(i)? {
            AttrValue::DataLayout(v) => Ok(*v),
            AttrValue::Str(s) => DataLayout::from_name(s)
                .ok_or_else(|| InferMetaError(format!("argument {i}: unknown data layout {s:?}"))),
            other => Err(attr_mismatch(i, "DataLayout", other)),
        }
    }

    /// Place attribute `i`.
    pub fn place(&self, i: usize) -> Result<Place, InferMetaError> {
        if let Some(AttrArg::Place(v)) = self.raw(i) {
            return Ok(*v);
        }
        match self.attr(i)? {
            AttrValue::Place(v) => Ok(*v),
            other => Err(attr_mismatch(i, "Place", other)),
        }
    }

    /// Sets output `j` to one tensor.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaOut, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// let mut outs = [MetaOut::None];
    /// let mut ctx = InferMetaCtx::new(&[], &mut outs);
    /// ctx.set_output(0, TensorMeta::new(DataType::Bool, &[1])).unwrap();
    /// let err = ctx.set_output(1, TensorMeta::new(DataType::Bool, &[1])).unwrap_err();
    /// assert_eq!(err.0, "output 1 does not exist: the op has 1 outputs");
    /// ```
    pub fn set_output(&mut self, j: usize, meta: TensorMeta) -> Result<(), InferMetaError> {
        self.set(j, MetaOut::Tensor(meta))
    }

    /// Sets output `j` to share the metadata of tensor argument `i` (Paddle's `share_meta`),
    /// which must be present.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaArg, MetaOut};
    /// let args = [MetaArg::Tensor(None)];
    /// let mut outs = [MetaOut::None];
    /// let mut ctx = InferMetaCtx::new(&args, &mut outs);
    /// // Sharing an absent tensor is an error:
    /// assert_eq!(ctx.share_output(0, 0).unwrap_err().0, "argument 0: tensor is absent");
    /// ```
    pub fn share_output(&mut self, j: usize, i: usize) -> Result<(), InferMetaError> {
        self.tensor(i)?;
        self.set(j, MetaOut::Shared(i))
    }

    /// Sets output `j` to a vector of tensors.
    pub fn set_outputs(&mut self, j: usize, metas: Vec<TensorMeta>) -> Result<(), InferMetaError> {
        self.set(j, MetaOut::Tensors(metas))
    }

    fn set(&mut self, j: usize, out: MetaOut) -> Result<(), InferMetaError> {
        let n = self.num_outputs();
        let missing =
            || InferMetaError(format!("output {j} does not exist: the op has {n} outputs"));
        match &mut self.outputs {
            Outputs::Meta(o) => *o.get_mut(j).ok_or_else(missing)? = out,
            Outputs::Typed(o) => {
                let slot = o.get_mut(j).ok_or_else(missing)?;
                *slot = self.build.map_or(TypedOut::None, |b| b.args.out_of(j, out));
            }
        }
        Ok(())
    }
}

/// `int[]` values widened to `int64_t`, as [`AttrValue::Ints`] holds them.
#[inline]
fn widen(v: &[i32]) -> SmallVec<[i64; 6]> {
    if v.len() <= 6 {
        let mut buf = [0i64; 6];
        for (b, &x) in buf.iter_mut().zip(v) {
            *b = i64::from(x);
        }
        return SmallVec::from_buf_and_len(buf, v.len());
    }
    v.iter().map(|&x| i64::from(x)).collect()
}

#[cold]
fn mismatch(i: usize, expected: &str, found: &MetaArg<'_>) -> InferMetaError {
    let found = match found {
        MetaArg::Tensor(_) => "a tensor",
        MetaArg::Tensors(_) => "a tensor list",
        MetaArg::Attr(a) => a.kind_name(),
        MetaArg::Arg(a, kind, _) => attr_value_from_arg(a, *kind).kind_name(),
    };
    InferMetaError(format!("argument {i}: expected {expected}, found {found}"))
}

#[cold]
fn attr_mismatch(i: usize, expected: &str, found: &AttrValue<'_>) -> InferMetaError {
    InferMetaError(format!(
        "argument {i}: expected {expected}, found {}",
        found.kind_name()
    ))
}

/// An infer-meta function.
///
/// ```
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaFn};
/// fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
/// let f: InferMetaFn = unchanged;
/// # let _ = f;
/// ```
pub type InferMetaFn = fn(&mut InferMetaCtx<'_>) -> Result<(), InferMetaError>;

#[cfg(test)]
mod tests {
    use super::*;

    /// `dims_of` keeps every rank's dims, inline up to 6 and spilled past it, as
    /// `SmallVec::from_slice` does.
    #[test]
    fn dims_of_copies_every_rank() {
        for rank in 0..=9 {
            let dims: Vec<i64> = (0..rank).map(|i| i * 1000 - 1).collect();
            let d = dims_of(&dims);
            assert_eq!(&d[..], &dims[..], "rank {rank}");
            assert_eq!(d.spilled(), rank > 6, "rank {rank}");
            assert_eq!(d, Dims::from_slice(&dims));
        }
    }

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
