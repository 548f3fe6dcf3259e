//! IR types: interned, compared by handle.
//!
//! Builtin element types (`f32`, `i64`, `b`, ...) are [`TypeData::Scalar`] of a phi
//! [`DataType`]; `vec[...]` is [`TypeData::Vector`]; the pd types are dense tensors, selected
//! rows and dense tensor arrays. Downstream dialects can intern their own parametric types as
//! [`TypeData::Custom`].
//!
//! ```
//! use pir_runtime::{IrContext, phi::DataType};
//! let ctx = IrContext::new();
//! let a = ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 224]);
//! let b = ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 224]);
//! assert_eq!(a, b); // interned: equality is a handle comparison
//! assert_eq!(a.display(&ctx).to_string(), "tensor<-1x3x224x224xf32>");
//! ```

use std::fmt;
use std::hash::{Hash, Hasher};
use std::num::NonZeroU32;

use crate::attributes::Attribute;
use crate::context::IrContext;
use crate::intern::{Internable, Seeds, ShortKey};
use crate::meta::TensorMeta;
use crate::phi::{DataLayout, DataType};

/// A handle to an interned type: 8 bytes, `Copy`, equality is identity.
///
/// The handle holds the type's index, its [`TypeKind`] in the index word's top three bits (so
/// kind checks, the bulk of verification, do not touch the type's data), and the identity of
/// its [`IrContext`]: a type of another context is told apart, never read as whatever this
/// context holds at the same index (programs store the index word alone).
///
/// ```
/// use pir_runtime::{IrContext, Type, TypeKind, phi::DataType};
/// let ctx = IrContext::new();
/// let t: Type = ctx.dense_tensor_type(DataType::Float32, &[2, 2]);
/// assert_eq!(std::mem::size_of::<Option<Type>>(), 8);
/// assert_eq!(t.kind(), TypeKind::DenseTensor); // from the handle's bits
/// assert_eq!(t.as_dense_tensor(&ctx).unwrap().dims[..], [2, 2]);
/// assert_eq!(t.display(&ctx).to_string(), "tensor<2x2xf32>");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type {
    bits: NonZeroU32,
    ctx: u32,
}

static_assertions::assert_eq_size!(Type, u64);
static_assertions::assert_eq_size!(Option<Type>, u64);

/// The kind of a type, readable from its handle alone.
///
/// ```
/// use pir_runtime::{IrContext, TypeKind, phi::DataType};
/// let ctx = IrContext::new();
/// assert_eq!(ctx.scalar_type(DataType::Int64).kind(), TypeKind::Scalar);
/// assert_eq!(ctx.vector_type(&[]).kind(), TypeKind::Vector);
/// assert_eq!(ctx.selected_rows_type(DataType::Float32, &[1]).kind(), TypeKind::SelectedRows);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TypeKind {
    /// [`TypeData::Custom`].
    Custom = 0,
    /// [`TypeData::Scalar`].
    Scalar = 1,
    /// [`TypeData::Vector`].
    Vector = 2,
    /// [`TypeData::DenseTensor`].
    DenseTensor = 3,
    /// [`TypeData::SelectedRows`].
    SelectedRows = 4,
    /// [`TypeData::DenseTensorArray`].
    DenseTensorArray = 5,
    /// [`TypeData::SparseCoo`].
    SparseCoo = 6,
    /// [`TypeData::SparseCsr`].
    SparseCsr = 7,
}

const KIND_SHIFT: u32 = 29;
const INDEX_MASK: u32 = (1 << KIND_SHIFT) - 1;

impl Type {
    #[inline]
    pub(crate) fn from_index(idx: u32, kind: TypeKind, ctx: u32) -> Type {
        assert!(idx < INDEX_MASK, "more than 2^29 interned types");
        let bits = (idx + 1) | (kind as u32) << KIND_SHIFT;
        Type {
            bits: NonZeroU32::new(bits).expect("index + 1 is never zero"),
            ctx,
        }
    }

    pub(crate) fn index(self) -> u32 {
        (self.bits.get() & INDEX_MASK) - 1
    }

    /// The raw index word (never 0): kind and index, as programs store it.
    #[inline(always)]
    pub(crate) fn raw(self) -> u32 {
        self.bits.get()
    }

    /// The index word, as programs store it.
    #[inline(always)]
    pub(crate) fn bits(self) -> NonZeroU32 {
        self.bits
    }

    /// The type of context `ctx` whose index word is `bits`.
    #[inline(always)]
    pub(crate) fn from_bits(bits: NonZeroU32, ctx: u32) -> Type {
        Type { bits, ctx }
    }

    /// The identity of the context that interned it.
    #[inline(always)]
    pub(crate) fn ctx_id(self) -> u32 {
        self.ctx
    }

    /// An upper bound of `index() + 1` over handles whose raw bits were OR-ed into `bits`.
    pub(crate) fn index_bound(bits: u32) -> u32 {
        bits & INDEX_MASK
    }

    /// The kind of the type, without looking at its data.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKind, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::Bool, &[1]);
    /// assert_eq!(t.kind(), TypeKind::DenseTensor);
    /// ```
    #[inline]
    pub fn kind(self) -> TypeKind {
        match self.bits.get() >> KIND_SHIFT {
            1 => TypeKind::Scalar,
            2 => TypeKind::Vector,
            3 => TypeKind::DenseTensor,
            4 => TypeKind::SelectedRows,
            5 => TypeKind::DenseTensorArray,
            6 => TypeKind::SparseCoo,
            7 => TypeKind::SparseCsr,
            _ => TypeKind::Custom,
        }
    }

    /// Whether this is a dense tensor type.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// assert!(ctx.dense_tensor_type(DataType::Float32, &[1]).is_dense_tensor());
    /// assert!(!ctx.selected_rows_type(DataType::Float32, &[1]).is_dense_tensor());
    /// ```
    #[inline]
    pub fn is_dense_tensor(self) -> bool {
        self.kind() == TypeKind::DenseTensor
    }

    /// The type's data.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeData, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.scalar_type(DataType::Float64);
    /// assert_eq!(t.data(&ctx), &TypeData::Scalar(DataType::Float64));
    /// ```
    pub fn data(self, ctx: &IrContext) -> &TypeData {
        ctx.type_data(self)
    }

    /// A value that prints the type as Paddle does.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::BFloat16, &[-1, 128]);
    /// assert_eq!(format!("{}", t.display(&ctx)), "tensor<-1x128xbf16>");
    /// ```
    pub fn display(self, ctx: &IrContext) -> TypeDisplay<'_> {
        TypeDisplay {
            ctx,
            ty: Some(self),
        }
    }

    /// The dense tensor data, if this is a dense tensor type.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::Int32, &[3, 4]);
    /// let meta = t.as_dense_tensor(&ctx).unwrap();
    /// assert_eq!((meta.dtype, meta.numel()), (DataType::Int32, 12));
    /// assert!(ctx.scalar_type(DataType::Int32).as_dense_tensor(&ctx).is_none());
    /// ```
    pub fn as_dense_tensor(self, ctx: &IrContext) -> Option<&TensorType> {
        match ctx.type_data(self) {
            TypeData::DenseTensor(t) => Some(t),
            _ => None,
        }
    }

    /// The element types, if this is a vector type.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let i = ctx.scalar_type(DataType::Int32);
    /// let v = ctx.vector_type(&[i, i]);
    /// assert_eq!(v.as_vector(&ctx), Some(&[i, i][..]));
    /// assert_eq!(i.as_vector(&ctx), None);
    /// ```
    pub fn as_vector(self, ctx: &IrContext) -> Option<&[Type]> {
        match ctx.type_data(self) {
            TypeData::Vector(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Type#{}", self.index())
    }
}

/// The data of a dense tensor or selected-rows type: its [`TensorMeta`], stored as is so that
/// infer-meta functions read the metadata of an interned type without copying it.
///
/// ```
/// use pir_runtime::{IrContext, TensorType, phi::{DataLayout, DataType}};
/// let ctx = IrContext::new();
/// let t = ctx.dense_tensor_type(DataType::Float32, &[1, 3]);
/// let tt: &TensorType = t.as_dense_tensor(&ctx).unwrap();
/// assert_eq!((tt.layout, tt.offset, tt.lod.len()), (DataLayout::Nchw, 0, 0));
/// ```
pub type TensorType = TensorMeta;

fn tensor_key(t: &TensorType) -> TensorKey<'_> {
    TensorKey {
        dtype: t.dtype,
        dims: &t.dims,
        layout: t.layout,
        lod: &t.lod,
        offset: t.offset,
    }
}

/// The data behind a [`Type`].
///
/// ```
/// use pir_runtime::{IrContext, TypeData, phi::DataType};
/// let ctx = IrContext::new();
/// let p = ctx.i32_attr(4);
/// let t = ctx.intern_type(pir_runtime::TypeKey::Custom("toy", "vec", &[p]));
/// match t.data(&ctx) {
///     TypeData::Custom { dialect, name, params } => {
///         assert_eq!((&**dialect, &**name, &params[..]), ("toy", "vec", &[p][..]));
///     }
///     other => panic!("unexpected {other:?}"),
/// }
/// assert_eq!(t.display(&ctx).to_string(), "toy.vec<4>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeData {
    /// A builtin element type: `f32`, `i64`, `b`, ...
    Scalar(DataType),
    /// `vec[t0,t1,...]`.
    Vector(Box<[Type]>),
    /// `paddle::dialect::DenseTensorType`.
    DenseTensor(TensorType),
    /// `paddle::dialect::SelectedRowsType`.
    SelectedRows(TensorType),
    /// `paddle::dialect::DenseTensorArrayType`.
    DenseTensorArray {
        /// Element type.
        dtype: DataType,
        /// Extents of each element.
        dims: Box<[i64]>,
        /// Layout.
        layout: DataLayout,
    },
    /// `paddle::dialect::SparseCooTensorType`.
    SparseCoo(SparseCooType),
    /// `paddle::dialect::SparseCsrTensorType`.
    SparseCsr(SparseCsrType),
    /// A downstream dialect's type `dialect.name<params>`.
    Custom {
        /// Dialect name.
        dialect: Box<str>,
        /// Type name.
        name: Box<str>,
        /// Parameters.
        params: Box<[Attribute]>,
    },
}

/// `paddle::dialect::SparseCooTensorType`: a sparse tensor in coordinate form, with the dense
/// tensor types of its index and value tensors (Paddle's `non_zero_indices` and
/// `non_zero_elements`).
///
/// ```
/// use pir_runtime::{IrContext, TypeData, TypeKey, TypeKind, phi::{DataLayout, DataType}};
/// use pir_runtime::types::SparseCooType;
/// let ctx = IrContext::new();
/// let coo = SparseCooType {
///     dtype: DataType::Float32,
///     dims: vec![4, 5].into(),
///     non_zero_dims: vec![3].into(),
///     layout: DataLayout::Nchw,
///     indices: ctx.dense_tensor_type(DataType::Int64, &[2, 3]),
///     elements: ctx.dense_tensor_type(DataType::Float32, &[3]),
///     coalesced: false,
/// };
/// let t = ctx.intern_type(TypeKey::SparseCoo(&coo));
/// assert_eq!(t.kind(), TypeKind::SparseCoo);
/// assert_eq!(t.data(&ctx), &TypeData::SparseCoo(coo));
/// assert_eq!(t.display(&ctx).to_string(), "pd_op.sparsecootensor<4x5xf32>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SparseCooType {
    /// Element type.
    pub dtype: DataType,
    /// Extents of the dense tensor it stands for.
    pub dims: Box<[i64]>,
    /// Extents of the non-zero part.
    pub non_zero_dims: Box<[i64]>,
    /// Layout.
    pub layout: DataLayout,
    /// The dense tensor type of the indices.
    pub indices: Type,
    /// The dense tensor type of the values.
    pub elements: Type,
    /// Whether the indices are sorted and unique.
    pub coalesced: bool,
}

/// `paddle::dialect::SparseCsrTensorType`: a sparse matrix (or batch of matrices) in
/// compressed-row form, with the dense tensor types of its row offsets, column indices and
/// values (`non_zero_crows`, `non_zero_cols`, `non_zero_elements`).
///
/// ```
/// use pir_runtime::{IrContext, TypeKey, TypeKind, phi::{DataLayout, DataType}};
/// use pir_runtime::types::SparseCsrType;
/// let ctx = IrContext::new();
/// let csr = SparseCsrType {
///     dtype: DataType::Float64,
///     dims: vec![3, 3].into(),
///     layout: DataLayout::Nchw,
///     crows: Some(ctx.dense_tensor_type(DataType::Int64, &[4])),
///     cols: Some(ctx.dense_tensor_type(DataType::Int64, &[2])),
///     elements: Some(ctx.dense_tensor_type(DataType::Float64, &[2])),
/// };
/// let t = ctx.intern_type(TypeKey::SparseCsr(&csr));
/// assert_eq!(t.kind(), TypeKind::SparseCsr);
/// assert_eq!(t.display(&ctx).to_string(), "pd_op.sparsecsrtensor<3x3xf64>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SparseCsrType {
    /// Element type.
    pub dtype: DataType,
    /// Extents of the dense tensor it stands for.
    pub dims: Box<[i64]>,
    /// Layout.
    pub layout: DataLayout,
    /// The dense tensor type of the row offsets (`None` when built by infer-meta: Paddle
    /// leaves the three parts null there).
    pub crows: Option<Type>,
    /// The dense tensor type of the column indices.
    pub cols: Option<Type>,
    /// The dense tensor type of the values.
    pub elements: Option<Type>,
}

/// Borrowed tensor-type parameters, for lookups that do not allocate.
///
/// ```
/// use pir_runtime::{IrContext, TypeKey, types::TensorKey, phi::{DataLayout, DataType}};
/// let ctx = IrContext::new();
/// let key = TensorKey { layout: DataLayout::Nhwc, ..TensorKey::new(DataType::Float32, &[1, 8, 8, 3]) };
/// let t = ctx.intern_type(TypeKey::DenseTensor(key));
/// assert_eq!(t.as_dense_tensor(&ctx).unwrap().layout, DataLayout::Nhwc);
/// assert_ne!(t, ctx.dense_tensor_type(DataType::Float32, &[1, 8, 8, 3]));
/// ```
#[derive(Clone, Copy, Debug, Eq)]
pub struct TensorKey<'a> {
    /// Element type.
    pub dtype: DataType,
    /// Extents.
    pub dims: &'a [i64],
    /// Layout.
    pub layout: DataLayout,
    /// LoD.
    pub lod: &'a [Vec<u64>],
    /// Offset.
    pub offset: u64,
}

impl<'a> TensorKey<'a> {
    /// A tensor of `dtype` and `dims`, NCHW, no LoD, offset 0 (Paddle's defaults).
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKey, types::TensorKey, phi::DataType};
    /// let ctx = IrContext::new();
    /// let key = TypeKey::DenseTensor(TensorKey::new(DataType::Int64, &[5]));
    /// assert_eq!(ctx.intern_type(key), ctx.dense_tensor_type(DataType::Int64, &[5]));
    /// ```
    pub fn new(dtype: DataType, dims: &'a [i64]) -> TensorKey<'a> {
        TensorKey {
            dtype,
            dims,
            layout: DataLayout::Nchw,
            lod: &[],
            offset: 0,
        }
    }

    /// The key of a tensor's metadata.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKey, meta::TensorMeta, types::TensorKey, phi::DataType};
    /// let ctx = IrContext::new();
    /// let meta = TensorMeta::new(DataType::Float32, &[2, 3]);
    /// let key = TypeKey::SelectedRows(TensorKey::of_meta(&meta));
    /// assert_eq!(ctx.intern_type(key), ctx.selected_rows_type(DataType::Float32, &[2, 3]));
    /// ```
    pub fn of_meta(meta: &'a TensorMeta) -> TensorKey<'a> {
        TensorKey {
            dtype: meta.dtype,
            dims: &meta.dims,
            layout: meta.layout,
            lod: &meta.lod,
            offset: meta.offset,
        }
    }

    fn to_owned_type(self) -> TensorType {
        TensorMeta {
            dtype: self.dtype,
            dims: crate::meta::Dims::from_slice(self.dims),
            layout: self.layout,
            lod: self.lod.to_vec(),
            offset: self.offset,
        }
    }
}

/// A borrowed description of a type, to intern it or look it up.
///
/// ```
/// use pir_runtime::{IrContext, TypeKey, phi::{DataLayout, DataType}};
/// let ctx = IrContext::new();
/// let key = TypeKey::DenseTensorArray(DataType::Float32, &[-1, 4], DataLayout::Nchw);
/// let t = ctx.intern_type(key);
/// assert_eq!(ctx.lookup_type(key), Some(t));
/// assert_eq!(t, ctx.dense_tensor_array_type(DataType::Float32, &[-1, 4], DataLayout::Nchw));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKey<'a> {
    /// See [`TypeData::Scalar`].
    Scalar(DataType),
    /// See [`TypeData::Vector`].
    Vector(&'a [Type]),
    /// See [`TypeData::DenseTensor`].
    DenseTensor(TensorKey<'a>),
    /// See [`TypeData::SelectedRows`].
    SelectedRows(TensorKey<'a>),
    /// See [`TypeData::DenseTensorArray`].
    DenseTensorArray(DataType, &'a [i64], DataLayout),
    /// See [`TypeData::SparseCoo`].
    SparseCoo(&'a SparseCooType),
    /// See [`TypeData::SparseCsr`].
    SparseCsr(&'a SparseCsrType),
    /// See [`TypeData::Custom`].
    Custom(&'a str, &'a str, &'a [Attribute]),
}

/// Short slices compare faster element by element than through `memcmp`.
#[inline]
fn same_dims(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl PartialEq for TensorKey<'_> {
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        self.dtype == o.dtype
            && self.layout == o.layout
            && self.offset == o.offset
            && same_dims(self.dims, o.dims)
            && self.lod == o.lod
    }
}

impl Hash for TensorKey<'_> {
    #[inline]
    fn hash<H: Hasher>(&self, h: &mut H) {
        // One word for the small fields, then the dims; LoD and offset only when present.
        h.write_u64(
            self.dtype as u64
                | (self.layout as u64) << 8
                | (self.dims.len() as u64) << 16
                | (self.lod.len() as u64) << 32,
        );
        for &d in self.dims {
            h.write_i64(d);
        }
        if !self.lod.is_empty() {
            self.lod.hash(h);
        }
        if self.offset != 0 {
            h.write_u64(self.offset);
        }
    }
}

impl Hash for TypeKey<'_> {
    #[inline]
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self {
            TypeKey::Scalar(d) => h.write_u64(0x100 | *d as u64),
            TypeKey::Vector(v) => {
                h.write_u64(0x200 | (v.len() as u64) << 16);
                for t in *v {
                    h.write_u32(t.bits.get());
                }
            }
            TypeKey::DenseTensor(t) => {
                h.write_u8(3);
                t.hash(h);
            }
            TypeKey::SelectedRows(t) => {
                h.write_u8(4);
                t.hash(h);
            }
            TypeKey::DenseTensorArray(d, dims, l) => {
                h.write_u64(0x500 | (*d as u64) << 16 | (*l as u64) << 24);
                dims.hash(h);
            }
            TypeKey::Custom(d, n, p) => {
                h.write_u8(6);
                d.hash(h);
                n.hash(h);
                p.hash(h);
            }
            TypeKey::SparseCoo(t) => {
                h.write_u8(7);
                t.hash(h);
            }
            TypeKey::SparseCsr(t) => {
                h.write_u8(8);
                t.hash(h);
            }
        }
    }
}

/// The interner's hash of a tensor key of kind `kind` without a short form: one word for the
/// small fields, then the dims two at a time; LoD and offset only when present.
#[inline]
fn tensor_hash(kind: u64, t: &TensorKey<'_>, s: &Seeds) -> u64 {
    let head = kind | (t.dtype as u64) << 8 | (t.layout as u64) << 16 | (t.lod.len() as u64) << 24;
    let h = s.words(head, t.dims.len(), t.dims.iter().map(|&d| d as u64));
    if t.offset != 0 || !t.lod.is_empty() {
        h ^ s.any(kind, &(t.offset, t.lod))
    } else {
        h
    }
}

/// Short-key kinds of tensor types.
const SHORT_DENSE: u8 = 1;
const SHORT_SELECTED_ROWS: u8 = 2;

/// The short key of a tensor with no LoD and offset 0 whose dims fit, in one of two exact
/// encodings (the short-key kind tells which; a key always gets the first that fits):
///
/// - dtype (5 bits), layout (4), rank (3), then each of at most 4 dims + 1 (`-1`, dynamic, is 0)
///   in 13 bits: `[-1, 3, 224, 224]`, `[64, 3, 7, 7]`, dims up to 8190;
/// - the same header, then each of at most 7 dims + 1 as a 2-bit width class and a number of 4,
///   12, 20 or 32 bits, the narrowest that holds it, in the 52 bits left: `[-1, 128, 768]`,
///   `[30522, 768]`, `[-1, 3, 224, 100000]`. The narrowest class makes the encoding of equal keys
///   equal; the rank and the classes make it decodable, so unequal keys differ.
#[inline(always)]
pub(crate) fn tensor_short(
    kind: u8,
    dtype: DataType,
    layout: DataLayout,
    dims: &[i64],
) -> Option<ShortKey> {
    if let Some(k) = tensor_short_first(kind, dtype, layout, dims) {
        return Some(k);
    }
    let head = (dtype as u64) | (layout as u64) << 5 | (dims.len() as u64) << 9;
    tensor_short_second(kind + 8, head, dims)
}

/// The first encoding of [`tensor_short`] alone (`None` when the key has the second or none).
#[inline(always)]
fn tensor_short_first(
    kind: u8,
    dtype: DataType,
    layout: DataLayout,
    dims: &[i64],
) -> Option<ShortKey> {
    if dims.len() > 4 {
        return None;
    }
    let mut value = (dtype as u64) | (layout as u64) << 5 | (dims.len() as u64) << 9;
    let mut all = 0;
    for (i, &d) in dims.iter().enumerate() {
        let x = d.wrapping_add(1) as u64;
        all |= x;
        value |= x << (12 + 13 * i);
    }
    (all < 1 << 13).then_some(ShortKey { kind, value })
}

/// A number's field in the second encoding of [`tensor_short`], by the number's top bit `b`
/// (0 to 63: `b + 1` significant bits): its width class (0 up to 4 bits, 1 up to 12, 2 up to
/// 20, 3 up to 32), and the field's length: the class's 2 bits and the number's 4, 12, 20 or
/// 32. A number of more than 32 bits does not fit: its length, 65, overflows any key.
const FIELD_OF_TOP_BIT: [(u8, u8); 64] = {
    let mut t = [(3, 65); 64];
    let mut b = 0;
    while b < 32 {
        let (class, width) = match b + 1 {
            0..=4 => (0, 4),
            5..=12 => (1, 12),
            13..=20 => (2, 20),
            _ => (3, 32),
        };
        t[b] = (class, 2 + width);
        b += 1;
    }
    t
};

/// [`tensor_short_classes`] out of line (the first encoding is the common one).
#[inline(never)]
fn tensor_short_second(kind: u8, head: u64, dims: &[i64]) -> Option<ShortKey> {
    tensor_short_classes(kind, head, dims)
}

/// The second encoding of [`tensor_short`].
///
/// One pass without branches per dim: a dim's field is looked up by its top bit, and whether
/// every dim fits (each below 2^32, 64 bits in all) is checked once at the end, on the fields'
/// total length. A key that does not fit may have shifted bits out on the way: its value is
/// dropped.
#[inline(always)]
fn tensor_short_classes(kind: u8, head: u64, dims: &[i64]) -> Option<ShortKey> {
    if dims.len() > 7 {
        return None;
    }
    let mut value = head;
    let mut at = 12u32;
    for &d in dims {
        let x = d.wrapping_add(1) as u64;
        let (class, len) = FIELD_OF_TOP_BIT[(x | 1).ilog2() as usize & 63];
        value |= (u64::from(class) | x << 2) << (at & 63);
        at += u32::from(len);
    }
    (at <= 64).then_some(ShortKey { kind, value })
}

/// The second encoding of [`dense_short`] alone (for keys without the first), inline.
#[inline(always)]
pub(crate) fn dense_short_second(dtype: DataType, dims: &[i64]) -> Option<ShortKey> {
    let head = (dtype as u64) | (DataLayout::Nchw as u64) << 5 | (dims.len() as u64) << 9;
    tensor_short_classes(SHORT_DENSE + 8, head, dims)
}

#[inline(always)]
fn tensor_key_short(kind: u8, t: &TensorKey<'_>) -> Option<ShortKey> {
    if t.offset != 0 || !t.lod.is_empty() {
        return None;
    }
    tensor_short(kind, t.dtype, t.layout, t.dims)
}

/// [`tensor_short`] of a dense tensor with Paddle's defaults ([`dense_short_first`], else
/// [`dense_short_second`]: `IrContext::dense_tensor_type` tries them in turn).
#[cfg(test)]
pub(crate) fn dense_short(dtype: DataType, dims: &[i64]) -> Option<ShortKey> {
    tensor_short(SHORT_DENSE, dtype, DataLayout::Nchw, dims)
}

/// The first encoding of [`dense_short`] alone (dims up to 8,190, rank up to 4): `None` when
/// the key has the second encoding or none.
#[inline(always)]
pub(crate) fn dense_short_first(dtype: DataType, dims: &[i64]) -> Option<ShortKey> {
    tensor_short_first(SHORT_DENSE, dtype, DataLayout::Nchw, dims)
}

/// The interner's hash of a dense tensor key without a short form.
#[inline]
pub(crate) fn dense_long_hash(t: &TensorKey<'_>, s: &Seeds) -> u64 {
    tensor_hash(3, t, s)
}

/// Whether `d` is the dense tensor of `dtype` and `dims` with Paddle's defaults (NCHW, no LoD,
/// offset 0): [`TypeData::matches`] of `TensorKey::new(dtype, dims)`.
#[inline]
pub(crate) fn is_plain_dense(d: &TypeData, dtype: DataType, dims: &[i64]) -> bool {
    match d {
        TypeData::DenseTensor(t) => {
            t.dtype == dtype
                && t.layout == DataLayout::Nchw
                && t.offset == 0
                && t.lod.is_empty()
                && same_dims(&t.dims, dims)
        }
        _ => false,
    }
}

impl Internable for TypeData {
    type Key<'a> = TypeKey<'a>;

    #[inline(always)]
    fn short_key(key: &TypeKey<'_>) -> Option<ShortKey> {
        match key {
            TypeKey::DenseTensor(t) => tensor_key_short(SHORT_DENSE, t),
            TypeKey::SelectedRows(t) => tensor_key_short(SHORT_SELECTED_ROWS, t),
            _ => None,
        }
    }

    #[inline]
    fn long_hash(key: &TypeKey<'_>, s: &Seeds) -> u64 {
        match key {
            TypeKey::DenseTensor(t) => tensor_hash(3, t, s),
            TypeKey::SelectedRows(t) => tensor_hash(4, t, s),
            TypeKey::Scalar(d) => s.word(1, *d as u64),
            TypeKey::Vector(v) => s.words(2, v.len(), v.iter().map(|t| u64::from(t.bits.get()))),
            TypeKey::DenseTensorArray(d, dims, l) => s.words(
                5 | (*d as u64) << 8 | (*l as u64) << 16,
                dims.len(),
                dims.iter().map(|&x| x as u64),
            ),
            TypeKey::Custom(..) => s.any(6, key),
            TypeKey::SparseCoo(t) => s.any(7, t),
            TypeKey::SparseCsr(t) => s.any(8, t),
        }
    }

    fn key(&self) -> TypeKey<'_> {
        match self {
            TypeData::Scalar(d) => TypeKey::Scalar(*d),
            TypeData::Vector(v) => TypeKey::Vector(v),
            TypeData::DenseTensor(t) => TypeKey::DenseTensor(tensor_key(t)),
            TypeData::SelectedRows(t) => TypeKey::SelectedRows(tensor_key(t)),
            TypeData::DenseTensorArray {
                dtype,
                dims,
                layout,
            } => TypeKey::DenseTensorArray(*dtype, dims, *layout),
            TypeData::Custom {
                dialect,
                name,
                params,
            } => TypeKey::Custom(dialect, name, params),
            TypeData::SparseCoo(t) => TypeKey::SparseCoo(t),
            TypeData::SparseCsr(t) => TypeKey::SparseCsr(t),
        }
    }

    #[inline]
    fn matches(&self, key: &TypeKey<'_>) -> bool {
        match (self, key) {
            (TypeData::DenseTensor(t), TypeKey::DenseTensor(k))
            | (TypeData::SelectedRows(t), TypeKey::SelectedRows(k)) => {
                t.dtype == k.dtype
                    && t.layout == k.layout
                    && t.offset == k.offset
                    && same_dims(&t.dims, k.dims)
                    && (t.lod.is_empty() && k.lod.is_empty() || t.lod == k.lod)
            }
            (TypeData::Scalar(d), TypeKey::Scalar(k)) => d == k,
            (TypeData::Vector(v), TypeKey::Vector(k)) => **v == **k,
            _ => self.key() == *key,
        }
    }
}

impl TypeKey<'_> {
    /// The kind of type this key describes.
    ///
    /// ```
    /// use pir_runtime::{TypeKey, TypeKind, phi::DataType};
    /// assert_eq!(TypeKey::Scalar(DataType::Int8).kind(), TypeKind::Scalar);
    /// assert_eq!(TypeKey::Vector(&[]).kind(), TypeKind::Vector);
    /// assert_eq!(TypeKey::Custom("toy", "t", &[]).kind(), TypeKind::Custom);
    /// ```
    pub fn kind(&self) -> TypeKind {
        match self {
            TypeKey::Scalar(_) => TypeKind::Scalar,
            TypeKey::Vector(_) => TypeKind::Vector,
            TypeKey::DenseTensor(_) => TypeKind::DenseTensor,
            TypeKey::SelectedRows(_) => TypeKind::SelectedRows,
            TypeKey::DenseTensorArray(..) => TypeKind::DenseTensorArray,
            TypeKey::SparseCoo(_) => TypeKind::SparseCoo,
            TypeKey::SparseCsr(_) => TypeKind::SparseCsr,
            TypeKey::Custom(..) => TypeKind::Custom,
        }
    }

    pub(crate) fn to_data(self) -> TypeData {
        match self {
            TypeKey::Scalar(d) => TypeData::Scalar(d),
            TypeKey::Vector(v) => TypeData::Vector(v.into()),
            TypeKey::DenseTensor(t) => TypeData::DenseTensor(t.to_owned_type()),
            TypeKey::SelectedRows(t) => TypeData::SelectedRows(t.to_owned_type()),
            TypeKey::DenseTensorArray(dtype, dims, layout) => TypeData::DenseTensorArray {
                dtype,
                dims: dims.into(),
                layout,
            },
            TypeKey::Custom(d, n, p) => TypeData::Custom {
                dialect: d.into(),
                name: n.into(),
                params: p.into(),
            },
            TypeKey::SparseCoo(t) => TypeData::SparseCoo(t.clone()),
            TypeKey::SparseCsr(t) => TypeData::SparseCsr(t.clone()),
        }
    }
}

// Keep `Hash` of `TypeData` consistent with its key, should anyone hash the data directly.
impl Hash for TypeData {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

/// Prints an optional type as Paddle does (`<<NULL TYPE>>` for none).
///
/// ```
/// use pir_runtime::{IrContext, phi::DataType};
/// let ctx = IrContext::new();
/// let t = ctx.vector_type(&[ctx.dense_tensor_type(DataType::Float32, &[2]), ctx.scalar_type(DataType::Int64)]);
/// assert_eq!(t.display(&ctx).to_string(), "vec[tensor<2xf32>,i64]");
/// ```
pub struct TypeDisplay<'a> {
    pub(crate) ctx: &'a IrContext,
    pub(crate) ty: Option<Type>,
}

impl fmt::Display for TypeDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            None => f.write_str("<<NULL TYPE>>"),
            Some(t) => write_type(f, self.ctx, t),
        }
    }
}

pub(crate) fn write_dims(out: &mut (impl fmt::Write + ?Sized), dims: &[i64]) -> fmt::Result {
    for d in dims {
        write!(out, "{d}x")?;
    }
    Ok(())
}

fn write_sparse(
    out: &mut (impl fmt::Write + ?Sized),
    name: &str,
    dims: &[i64],
    dtype: DataType,
) -> fmt::Result {
    write!(out, "pd_op.{name}<")?;
    write_dims(out, dims)?;
    out.write_str(dtype.type_suffix())?;
    out.write_char('>')
}

pub(crate) fn write_type(
    out: &mut (impl fmt::Write + ?Sized),
    ctx: &IrContext,
    t: Type,
) -> fmt::Result {
    match ctx.type_data(t) {
        TypeData::Scalar(d) => out.write_str(d.type_suffix()),
        TypeData::Vector(v) => {
            out.write_str("vec[")?;
            for (i, e) in v.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_type(out, ctx, *e)?;
            }
            out.write_char(']')
        }
        TypeData::DenseTensor(tt) => {
            out.write_str("tensor<")?;
            write_dims(out, &tt.dims)?;
            out.write_str(tt.dtype.type_suffix())?;
            out.write_char('>')
        }
        // Paddle prints pd_op-dialect types with the dialect prefix (`PrintTypeImpl`).
        TypeData::SelectedRows(tt) => {
            out.write_str("pd_op.selectedrows<")?;
            write_dims(out, &tt.dims)?;
            out.write_str(tt.dtype.type_suffix())?;
            out.write_char('>')
        }
        TypeData::DenseTensorArray { dtype, .. } => {
            out.write_str("pd_op.tensor_array<")?;
            out.write_str(dtype.type_suffix())?;
            out.write_char('>')
        }
        // As Paddle's `PrintTypeImpl` prints a SparseCooTensorType. It prints nothing after
        // `pd_op.` for a SparseCsrTensorType; pir-rs names it the same way as COO instead.
        TypeData::SparseCoo(t) => write_sparse(out, "sparsecootensor", &t.dims, t.dtype),
        TypeData::SparseCsr(t) => write_sparse(out, "sparsecsrtensor", &t.dims, t.dtype),
        TypeData::Custom {
            dialect,
            name,
            params,
        } => {
            if let Some(f) = ctx.type_printer(dialect, name) {
                let mut s = String::new();
                f(&mut s, ctx, params)?;
                return out.write_str(&s);
            }
            write!(out, "{dialect}.{name}")?;
            if !params.is_empty() {
                out.write_char('<')?;
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        out.write_char(',')?;
                    }
                    crate::attributes::write_attr(out, ctx, *p)?;
                }
                out.write_char('>')?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shapes around every boundary of both short encodings.
    fn shapes() -> Vec<Vec<i64>> {
        let edges = [
            -2,
            -1,
            0,
            1,
            14,
            15,
            16,
            4094,
            4095,
            4096,
            8189,
            8190,
            8191,
            0xf_fffe,
            0xf_ffff,
            0x10_0000,
            0xffff_fffe,
            0xffff_ffff,
            i64::MAX,
            i64::MIN,
        ];
        let mut out = vec![vec![]];
        for &a in &edges {
            out.push(vec![a]);
            for &b in &edges[..12] {
                out.push(vec![a, b]);
                out.push(vec![-1, 3, b, a]);
                out.push(vec![b, a, 7]);
            }
        }
        for rank in 5..=9 {
            out.push(vec![1; rank]);
            out.push(vec![0x1000; rank]);
        }
        out
    }

    /// Dims around every class boundary of the second encoding (a dim `d` is stored as
    /// `d + 1`: 0xF/0x10, 0xFFF/0x1000, 0xF_FFFF/0x10_0000, 2^32 - 1/2^32), the first's
    /// (8,190/8,191), and negative and extreme dims.
    const EDGES: [i64; 18] = [
        -1,
        0,
        14,
        15,
        4094,
        4095,
        8190,
        8191,
        0xf_fffe,
        0xf_ffff,
        0xffff_fffe,
        0xffff_ffff,
        -2,
        -3,
        i64::MIN,
        i64::MAX,
        1 << 40,
        7,
    ];

    /// Shapes of every rank from 0 to 8 made of [`EDGES`].
    fn edge_shapes() -> Vec<Vec<i64>> {
        let mut out = vec![vec![]];
        for &a in &EDGES {
            out.push(vec![a]);
            for &b in &EDGES {
                out.push(vec![a, b]);
                out.push(vec![-1, b, 224, a]);
                out.push(vec![a, 3, b]);
                out.push(vec![b, 1, 1, 1, a]);
                out.push(vec![1, b, 1, 1, 1, a]);
                out.push(vec![a, 1, 1, 1, 1, 1, b]);
                out.push(vec![a, 1, 1, 1, 1, 1, 1, b]);
            }
            for rank in 3..=8 {
                out.push(vec![a; rank]);
            }
        }
        out
    }

    /// A short key read back: dtype, layout and dims, from either encoding (the kind says
    /// which), checking that the unused bits are 0 and each number's class is the narrowest.
    fn decode(k: ShortKey) -> (u64, u64, Vec<i64>) {
        let v = k.value;
        let (dtype, layout, rank) = (v & 0x1f, v >> 5 & 0xf, (v >> 9 & 7) as usize);
        let mut dims = Vec::new();
        let end = if k.kind < 8 {
            for i in 0..rank {
                dims.push((v >> (12 + 13 * i) & 0x1fff) as i64 - 1);
            }
            12 + 13 * rank
        } else {
            let mut at = 12;
            for _ in 0..rank {
                let class = (v >> at & 3) as usize;
                let width = [4, 12, 20, 32][class];
                let x = v >> (at + 2) & ((1u64 << width) - 1);
                assert!(
                    class == 0 || x >> [0, 4, 12, 20][class] != 0,
                    "{k:?}: not narrowest"
                );
                dims.push(x as i64 - 1);
                at += 2 + width;
            }
            at
        };
        assert!(
            end <= 64 && (end == 64 || v >> end == 0),
            "{k:?}: stray bits"
        );
        (dtype, layout, dims)
    }

    /// Whether `dims` should have a short key, computed apart from the encoders: the first
    /// encoding (rank up to 4, every dim -1 to 8,190), or the second (rank up to 7, every
    /// dim -1 to 2^32 - 2, the fields' lengths within 52 bits).
    fn fits(dims: &[i64]) -> (bool, bool) {
        let first = dims.len() <= 4 && dims.iter().all(|&d| (-1..=8190).contains(&d));
        let fields: Option<u32> = dims
            .iter()
            .map(|&d| {
                let x = d.checked_add(1).filter(|x| (0..1 << 32).contains(x))?;
                [4, 12, 20, 32]
                    .into_iter()
                    .find(|w| x < 1 << w)
                    .map(|w| 2 + w)
            })
            .sum();
        let second = dims.len() <= 7 && fields.is_some_and(|n| n <= 52);
        (first, second)
    }

    #[test]
    fn short_keys_read_back_as_their_keys() {
        let mut seen = std::collections::HashMap::new();
        let (mut firsts, mut seconds) = (0, 0);
        for dims in edge_shapes().iter().chain(&shapes()) {
            for (dtype, layout) in [
                (DataType::Float32, DataLayout::Nchw),
                (DataType::Int8, DataLayout::Nhwc),
            ] {
                let k = tensor_short(SHORT_DENSE, dtype, layout, dims);
                let (first, second) = fits(dims);
                assert_eq!(k.is_some(), first || second, "{dims:?}");
                let Some(k) = k else { continue };
                // The first encoding whenever it fits: one encoding per key.
                assert_eq!(k.kind == SHORT_DENSE, first, "{dims:?}");
                if first {
                    firsts += 1;
                } else {
                    seconds += 1;
                }
                assert_eq!(decode(k), (dtype as u64, layout as u64, dims.clone()));
                // Equal keys, equal encodings; unequal keys (the map's), unequal ones.
                let key = (dtype, layout, dims.clone());
                assert_eq!(
                    *seen.entry((k.kind, k.value)).or_insert_with(|| key.clone()),
                    key
                );
                if layout == DataLayout::Nchw {
                    let parts = (
                        dense_short_first(dtype, dims),
                        dense_short_second(dtype, dims),
                    );
                    assert_eq!(parts.0.or(parts.1), Some(k), "{dims:?}");
                }
            }
        }
        assert!(firsts > 100 && seconds > 500, "{firsts} {seconds}");
    }

    #[test]
    fn edge_shapes_intern_to_their_own_types() {
        let ctx = IrContext::new();
        let all = edge_shapes();
        let types: Vec<Type> = all
            .iter()
            .map(|d| ctx.dense_tensor_type(DataType::Float16, d))
            .collect();
        let mut by_type = std::collections::HashMap::new();
        for (d, t) in all.iter().zip(&types) {
            assert_eq!(&t.as_dense_tensor(&ctx).unwrap().dims[..], &d[..]);
            assert_eq!(ctx.dense_tensor_type(DataType::Float16, d), *t);
            assert_eq!(by_type.entry(*t).or_insert(d), &d, "two shapes, one type");
        }
    }

    #[test]
    fn short_tensor_keys_are_equal_exactly_when_the_keys_are() {
        let all = shapes();
        let keyed: Vec<(&Vec<i64>, Option<ShortKey>)> = all
            .iter()
            .map(|d| (d, dense_short(DataType::Float32, d)))
            .collect();
        assert!(keyed.iter().filter(|(_, k)| k.is_some()).count() > all.len() / 2);
        for (a, ka) in &keyed {
            for (b, kb) in &keyed {
                if let (Some(x), Some(y)) = (ka, kb) {
                    assert_eq!(x == y, a == b, "{a:?} {b:?}");
                }
            }
        }
        // Other fields are part of the key.
        let d = [-1, 3, 224, 224];
        assert_ne!(
            dense_short(DataType::Float32, &d),
            dense_short(DataType::Float16, &d)
        );
        assert_ne!(
            tensor_short(SHORT_DENSE, DataType::Float32, DataLayout::Nhwc, &d),
            dense_short(DataType::Float32, &d)
        );
    }

    #[test]
    fn interning_agrees_with_the_short_keys() {
        let ctx = IrContext::new();
        let all = shapes();
        let types: Vec<Type> = all
            .iter()
            .map(|d| ctx.dense_tensor_type(DataType::Int8, d))
            .collect();
        for (i, a) in all.iter().enumerate() {
            for (j, b) in all.iter().enumerate() {
                assert_eq!(types[i] == types[j], a == b, "{a:?} {b:?}");
            }
            let key = TypeKey::DenseTensor(TensorKey::new(DataType::Int8, a));
            assert_eq!(ctx.lookup_type(key), Some(types[i]));
            assert_eq!(&types[i].as_dense_tensor(&ctx).unwrap().dims[..], &a[..]);
        }
    }
}
