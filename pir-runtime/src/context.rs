//! `IrContext`: interned types and attributes, and the registry of dialects and ops.
//!
//! The context is `Send + Sync` and shared as an `Arc`. Interning from any number of threads
//! gives identical handles; looking up an interned value takes a read lock and never
//! allocates. Builtin element types are pre-interned, so `scalar_type` is an array index.
//!
//! ```
//! use pir_runtime::IrContext;
//! let ctx = IrContext::new();
//! assert!(ctx.op_def("builtin.combine").is_some());
//! assert!(ctx.op_def("pd_op.conv2d").is_none()); // pd_op is registered by op-defs
//! ```

use std::sync::Arc;

use parking_lot::RwLock;
use rustc_hash::FxHashMap;

use crate::attributes::{AttrData, AttrKey, Attribute, DictEntries};
use crate::error::IrError;
pub use crate::intern::ProbeStats;
use crate::intern::{Interner, Miss, ShortKey};
use crate::meta::TensorMeta;
use crate::op_def::OpDef;
use crate::phi::{DataLayout, DataType, Place};
use crate::types::{SparseCooType, SparseCsrType, TensorKey, Type, TypeData, TypeKey};

/// A dialect: a named set of ops registered together.
///
/// ```
/// use pir_runtime::{Dialect, IrContext, op_def::OpDef};
/// static NOP: OpDef = OpDef::new("toy.nop", "toy");
/// static TOY_OPS: [&OpDef; 1] = [&NOP];
/// struct Toy;
/// impl Dialect for Toy {
///     const NAME: &'static str = "toy";
///     fn op_defs() -> &'static [&'static OpDef] { &TOY_OPS }
/// }
/// let ctx = IrContext::new();
/// ctx.register_dialect::<Toy>().unwrap();
/// assert!(ctx.op_def("toy.nop").is_some());
/// ```
pub trait Dialect: 'static {
    /// Dialect name, the prefix of its op names.
    const NAME: &'static str;
    /// The dialect's ops.
    fn op_defs() -> &'static [&'static OpDef];
}

#[derive(Default)]
struct Registry {
    ops: FxHashMap<&'static str, &'static OpDef>,
    dialects: Vec<&'static str>,
    type_printers: FxHashMap<(&'static str, &'static str), TypePrintFn>,
}

/// Prints a dialect's custom type (`TypeData::Custom`) from its parameters, for types whose
/// text is not `dialect.name<params>` (the kernel dialect's `cpu_tensor<2x3xf32>`).
pub type TypePrintFn = fn(&mut dyn std::fmt::Write, &IrContext, &[Attribute]) -> std::fmt::Result;

/// The interning context and op registry.
///
/// ```
/// use pir_runtime::{IrContext, phi::DataType};
/// let ctx = IrContext::new(); // an Arc<IrContext>, shareable across threads
/// let t = ctx.dense_tensor_type(DataType::Int64, &[8]);
/// let ctx2 = ctx.clone();
/// let same = std::thread::spawn(move || ctx2.dense_tensor_type(DataType::Int64, &[8]))
///     .join()
///     .unwrap();
/// assert_eq!(t, same); // one interner, identical handles
/// assert!(ctx.has_dialect("builtin"));
/// ```
pub struct IrContext {
    /// This context's identity, in every type and attribute handle it gives out.
    id: u32,
    types: Interner<TypeData>,
    attrs: Interner<AttrData>,
    registry: RwLock<Registry>,
    empty_dict: Attribute,
    bools: [Attribute; 2],
    /// Pre-interned Int32 / Int64 attributes of `SMALL_INT_MIN..=SMALL_INT_MAX`: shapes, axes,
    /// strides and flags are mostly small, and these need no hashing.
    small_i32: Box<[Attribute]>,
    small_i64: Box<[Attribute]>,
    /// How many types `verify` has looked at for dims Paddle never writes, and whether one
    /// had some (then `verify` checks each value's type).
    dims_scan: parking_lot::Mutex<(usize, bool)>,
}

/// The identities given to contexts (see [`IrContext::id`]).
static NEXT_CONTEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// A fresh context identity; never 0 and never reused.
fn next_context_id() -> u32 {
    let id = NEXT_CONTEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Reuse after a wrap would let types of two contexts alias: refuse instead.
    assert!(
        id != 0,
        "more than 2^32 - 1 contexts created in this process"
    );
    id
}

const SMALL_INT_MIN: i64 = -64;
const SMALL_INT_MAX: i64 = 1024;

static_assertions::assert_impl_all!(IrContext: Send, Sync);

/// The dense tensor of `dtype` and `dims` with Paddle's defaults (NCHW, no LoD, offset 0), as
/// `IrContext::dense_tensor_type` stores it.
#[inline(always)]
fn plain_dense(dtype: DataType, dims: &[i64]) -> TypeData {
    TypeData::DenseTensor(TensorMeta::new(dtype, dims))
}

impl IrContext {
    /// A new context with the builtin dialect registered.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.dialects(), ["builtin"]);
    /// assert!(ctx.op_def("builtin.parameter").is_some());
    /// ```
    pub fn new() -> Arc<IrContext> {
        let types = Interner::new();
        // Pre-intern every builtin element type at index = DataType discriminant.
        for d in DataType::ALL {
            let idx = types.intern(TypeKey::Scalar(d), TypeKey::to_data);
            debug_assert_eq!(idx, d as u32);
        }
        let id = next_context_id();
        let attrs = Interner::new();
        let empty_dict = Attribute::from_index(
            attrs.intern(AttrKey::Dict(DictEntries::Borrowed(&[])), AttrKey::to_data),
            id,
        );
        let f = Attribute::from_index(attrs.intern(AttrKey::Bool(false), AttrKey::to_data), id);
        let t = Attribute::from_index(attrs.intern(AttrKey::Bool(true), AttrKey::to_data), id);
        let small = |f: fn(i64) -> AttrKey<'static>| -> Box<[Attribute]> {
            (SMALL_INT_MIN..=SMALL_INT_MAX)
                .map(|v| Attribute::from_index(attrs.intern(f(v), AttrKey::to_data), id))
                .collect()
        };
        let small_i32 = small(|v| AttrKey::Int32(v as i32));
        let small_i64 = small(AttrKey::Int64);
        let ctx = IrContext {
            id,
            types,
            attrs,
            registry: RwLock::new(Registry::default()),
            empty_dict,
            bools: [f, t],
            small_i32,
            small_i64,
            dims_scan: parking_lot::Mutex::new((0, false)),
        };
        ctx.register_dialect::<crate::builtin::BuiltinDialect>()
            .expect("the builtin dialect registers into an empty context");
        Arc::new(ctx)
    }

    // ----- types --------------------------------------------------------------------------

    /// Whether some type of the context has a dim below -1 or a size past an int64 (the
    /// verifier's dim checks then look at every value). Looks only at the types interned since
    /// the last call.
    pub(crate) fn has_unusual_dims(&self, unusual: impl Fn(&TypeData) -> bool) -> bool {
        let mut scan = self.dims_scan.lock();
        let n = self.num_types();
        if !scan.1 {
            scan.1 = (scan.0..n).any(|i| unusual(self.types.get(i as u32)));
        }
        scan.0 = n;
        scan.1
    }

    /// Interns a type.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKey, phi::DataType};
    /// let ctx = IrContext::new();
    /// let f32_ = ctx.scalar_type(DataType::Float32);
    /// let a = ctx.intern_type(TypeKey::Custom("toy", "box", &[]));
    /// assert_eq!(a, ctx.intern_type(TypeKey::Custom("toy", "box", &[])));
    /// assert_eq!(ctx.intern_type(TypeKey::Scalar(DataType::Float32)), f32_);
    /// assert_eq!(a.display(&ctx).to_string(), "toy.box");
    /// ```
    pub fn intern_type(&self, key: TypeKey<'_>) -> Type {
        if let TypeKey::Scalar(d) = key {
            return self.scalar_type(d);
        }
        let kind = key.kind();
        Type::from_index(self.types.intern(key, TypeKey::to_data), kind, self.id)
    }

    /// The type equal to `key`, if interned (never allocates).
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKey, types::TensorKey, phi::DataType};
    /// let ctx = IrContext::new();
    /// let key = TypeKey::DenseTensor(TensorKey::new(DataType::Float16, &[7, 7]));
    /// assert_eq!(ctx.lookup_type(key), None); // not interned yet
    /// let t = ctx.dense_tensor_type(DataType::Float16, &[7, 7]);
    /// assert_eq!(ctx.lookup_type(key), Some(t));
    /// ```
    pub fn lookup_type(&self, key: TypeKey<'_>) -> Option<Type> {
        let kind = key.kind();
        self.types
            .lookup(&key)
            .map(|i| Type::from_index(i, kind, self.id))
    }

    /// The data behind `t`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeData, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::Int32, &[2, -1]);
    /// let TypeData::DenseTensor(meta) = ctx.type_data(t) else { panic!() };
    /// assert_eq!((meta.dtype, &meta.dims[..]), (DataType::Int32, &[2, -1][..]));
    /// ```
    ///
    /// # Panics
    ///
    /// If `t` is a type of another context (see [`IrContext::owns_type`]).
    #[inline]
    pub fn type_data(&self, t: Type) -> &TypeData {
        if t.ctx_id() != self.id {
            foreign_panic("type", t);
        }
        self.types.get(t.index())
    }

    /// A builtin element type (`f32`, `i64`, `b`, ...): an array index, no hashing.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKind, phi::DataType};
    /// let ctx = IrContext::new();
    /// let b = ctx.scalar_type(DataType::Bool);
    /// assert_eq!(b.kind(), TypeKind::Scalar);
    /// assert_eq!(b.display(&ctx).to_string(), "b");
    /// ```
    #[inline]
    pub fn scalar_type(&self, d: DataType) -> Type {
        Type::from_index(d as u32, crate::types::TypeKind::Scalar, self.id)
    }

    /// `vec[elements...]`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let v = ctx.vector_type(&[t, ctx.scalar_type(DataType::Int64)]);
    /// assert_eq!(v.display(&ctx).to_string(), "vec[tensor<2xf32>,i64]");
    /// assert_eq!(v.as_vector(&ctx).unwrap().len(), 2);
    /// ```
    pub fn vector_type(&self, elements: &[Type]) -> Type {
        self.intern_type(TypeKey::Vector(elements))
    }

    /// A dense tensor type with Paddle's defaults: NCHW, no LoD, offset 0.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 3]);
    /// assert!(t.is_dense_tensor());
    /// assert_eq!(t.display(&ctx).to_string(), "tensor<-1x3xf32>");
    /// assert_eq!(ctx.dense_tensor_type(DataType::Float32, &[]).display(&ctx).to_string(), "tensor<f32>");
    /// ```
    #[inline]
    pub fn dense_tensor_type(&self, dtype: DataType, dims: &[i64]) -> Type {
        // The commonest interning of all (a type per op result): a short key when the dims
        // fit (no hashing of the dims, no reading of the stored type), else by the general key
        // without going through `TypeKey`. The hit path of the common short key inlines to a
        // few loads; the other encodings and making a type are out of line.
        let idx = match crate::types::dense_short_first(dtype, dims) {
            Some(short) => match self.types.find_short(short) {
                Ok(idx) => idx,
                Err(miss) => self.new_dense_short(short, miss, dtype, dims),
            },
            None => self.dense_other(dtype, dims),
        };
        Type::from_index(idx, crate::types::TypeKind::DenseTensor, self.id)
    }

    /// [`IrContext::dense_tensor_type`] of a short key its lookup missed.
    #[inline(never)]
    fn new_dense_short(
        &self,
        short: ShortKey,
        miss: Miss<'_>,
        dtype: DataType,
        dims: &[i64],
    ) -> u32 {
        // The insert inline: one call from `dense_tensor_type`'s miss to the stored type.
        self.types
            .insert_short_inline(short, miss, || plain_dense(dtype, dims))
    }

    /// [`IrContext::dense_tensor_type`] of dims without the first short encoding: the second
    /// (bigger dims, rank up to 7), or none.
    #[inline(never)]
    fn dense_other(&self, dtype: DataType, dims: &[i64]) -> u32 {
        match crate::types::dense_short_second(dtype, dims) {
            // One function from here to the stored type: the encoding, the lookup and the
            // insert inline (a new type's path, through out-of-line calls, paid a prologue and
            // the arguments' spills at each).
            Some(short) => match self.types.find_short(short) {
                Ok(idx) => idx,
                Err(miss) => self
                    .types
                    .insert_short_inline(short, miss, || plain_dense(dtype, dims)),
            },
            None => self.dense_long(dtype, dims),
        }
    }

    /// [`IrContext::dense_tensor_type`] of dims without a short key.
    #[inline(never)]
    fn dense_long(&self, dtype: DataType, dims: &[i64]) -> u32 {
        self.types.intern_long(
            |s| crate::types::dense_long_hash(&TensorKey::new(dtype, dims), s),
            |d| crate::types::is_plain_dense(d, dtype, dims),
            || plain_dense(dtype, dims),
        )
    }

    /// A dense tensor type from full metadata.
    ///
    /// ```
    /// use pir_runtime::{IrContext, meta::TensorMeta, phi::{DataLayout, DataType}};
    /// let ctx = IrContext::new();
    /// let meta = TensorMeta::new(DataType::Int8, &[4]);
    /// assert_eq!(ctx.tensor_type_of(&meta), ctx.dense_tensor_type(DataType::Int8, &[4]));
    /// let nhwc = TensorMeta { layout: DataLayout::Nhwc, ..meta };
    /// // Another layout is another type, though it prints the same.
    /// assert_ne!(ctx.tensor_type_of(&nhwc), ctx.dense_tensor_type(DataType::Int8, &[4]));
    /// ```
    pub fn tensor_type_of(&self, meta: &TensorMeta) -> Type {
        // What infer-meta functions produce for almost every output: the short-key path.
        if meta.layout == DataLayout::Nchw && meta.lod.is_empty() && meta.offset == 0 {
            return self.dense_tensor_type(meta.dtype, &meta.dims);
        }
        self.intern_type(TypeKey::DenseTensor(TensorKey::of_meta(meta)))
    }

    /// A selected-rows type.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKind, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.selected_rows_type(DataType::Float32, &[10, 4]);
    /// assert_eq!(t.kind(), TypeKind::SelectedRows);
    /// assert_eq!(t.display(&ctx).to_string(), "pd_op.selectedrows<10x4xf32>");
    /// ```
    pub fn selected_rows_type(&self, dtype: DataType, dims: &[i64]) -> Type {
        self.intern_type(TypeKey::SelectedRows(TensorKey::new(dtype, dims)))
    }

    /// A dense tensor array type.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKind, phi::{DataLayout, DataType}};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_array_type(DataType::Int64, &[-1], DataLayout::Nchw);
    /// assert_eq!(t.kind(), TypeKind::DenseTensorArray);
    /// assert_eq!(t.display(&ctx).to_string(), "pd_op.tensor_array<i64>");
    /// ```
    pub fn dense_tensor_array_type(
        &self,
        dtype: DataType,
        dims: &[i64],
        layout: DataLayout,
    ) -> Type {
        self.intern_type(TypeKey::DenseTensorArray(dtype, dims, layout))
    }

    /// The sparse COO type Paddle's generated builds give an infer-meta result (`meta`'s
    /// dtype, dims and layout; `CvtToSparseCooTensorType`): no non-zero dims, index and value
    /// parts `tensor<f32>` of undefined layout, not coalesced.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeData, meta::TensorMeta, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.sparse_coo_type_of(&TensorMeta::new(DataType::Float32, &[4, 5]));
    /// assert_eq!(t.display(&ctx).to_string(), "pd_op.sparsecootensor<4x5xf32>");
    /// let TypeData::SparseCoo(coo) = t.data(&ctx) else { panic!() };
    /// assert_eq!(coo.indices.display(&ctx).to_string(), "tensor<f32>");
    /// ```
    pub fn sparse_coo_type_of(&self, meta: &TensorMeta) -> Type {
        let part = self.intern_type(TypeKey::DenseTensor(TensorKey {
            layout: DataLayout::Undefined,
            ..TensorKey::new(DataType::Float32, &[])
        }));
        let coo = SparseCooType {
            dtype: meta.dtype,
            dims: meta.dims.iter().copied().collect(),
            non_zero_dims: Box::default(),
            layout: meta.layout,
            indices: part,
            elements: part,
            coalesced: false,
        };
        self.intern_type(TypeKey::SparseCoo(&coo))
    }

    /// The sparse CSR type Paddle's generated builds give an infer-meta result (`meta`'s
    /// dtype, dims and layout; `CvtToSparseCsrTensorType`): its three parts are null.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKind, meta::TensorMeta, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.sparse_csr_type_of(&TensorMeta::new(DataType::Float32, &[3, 3]));
    /// assert_eq!(t.kind(), TypeKind::SparseCsr);
    /// ```
    pub fn sparse_csr_type_of(&self, meta: &TensorMeta) -> Type {
        let csr = SparseCsrType {
            dtype: meta.dtype,
            dims: meta.dims.iter().copied().collect(),
            layout: meta.layout,
            crows: None,
            cols: None,
            elements: None,
        };
        self.intern_type(TypeKey::SparseCsr(&csr))
    }

    /// Number of interned types.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let n = ctx.num_types();
    /// ctx.dense_tensor_type(DataType::Float32, &[3]);
    /// ctx.dense_tensor_type(DataType::Float32, &[3]); // already interned
    /// assert_eq!(ctx.num_types(), n + 1);
    /// ```
    pub fn num_types(&self) -> usize {
        self.types.len()
    }

    // ----- attributes -----------------------------------------------------------------------

    /// Interns an attribute.
    ///
    /// ```
    /// use pir_runtime::{AttrKey, IrContext};
    /// let ctx = IrContext::new();
    /// let a = ctx.intern_attr(AttrKey::Complex64(1.0, -2.0));
    /// assert_eq!(a, ctx.intern_attr(AttrKey::Complex64(1.0, -2.0)));
    /// assert_eq!(a.display(&ctx).to_string(), "real:1 imag:-2");
    /// ```
    pub fn intern_attr(&self, key: AttrKey<'_>) -> Attribute {
        if let AttrKey::Bool(b) = key {
            return self.bools[usize::from(b)];
        }
        Attribute::from_index(self.attrs.intern(key, AttrKey::to_data), self.id)
    }

    /// The attribute equal to `key`, if interned (never allocates).
    ///
    /// ```
    /// use pir_runtime::{AttrKey, IrContext};
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.lookup_attr(AttrKey::Str("never interned")), None);
    /// let s = ctx.str_attr("relu");
    /// assert_eq!(ctx.lookup_attr(AttrKey::Str("relu")), Some(s));
    /// ```
    pub fn lookup_attr(&self, key: AttrKey<'_>) -> Option<Attribute> {
        self.attrs
            .lookup(&key)
            .map(|i| Attribute::from_index(i, self.id))
    }

    /// The data behind `a`.
    ///
    /// ```
    /// use pir_runtime::{AttrData, IrContext};
    /// let ctx = IrContext::new();
    /// let a = ctx.int_array_attr(&[1, -1]);
    /// assert!(matches!(ctx.attr_data(a), AttrData::IntArray(v) if **v == [1, -1]));
    /// ```
    ///
    /// # Panics
    ///
    /// If `a` is an attribute of another context (see [`IrContext::try_attr_data`]).
    #[inline]
    pub fn attr_data(&self, a: Attribute) -> &AttrData {
        if a.ctx_id() != self.id {
            foreign_panic("attribute", a);
        }
        self.attrs.get(a.index())
    }

    /// The data behind `a` if `a` is an attribute of this context (`None` for one of another
    /// context, whatever its index).
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let big = IrContext::new();
    /// let handle = (0..5000).map(|i| big.i64_attr(i * 1000)).last().unwrap();
    /// let fresh = IrContext::new();
    /// assert!(big.try_attr_data(handle).is_some());
    /// assert!(fresh.try_attr_data(handle).is_none()); // of another context
    /// assert!(fresh.try_attr_data(big.i64_attr(1)).is_none()); // even where in range
    /// ```
    #[inline]
    pub fn try_attr_data(&self, a: Attribute) -> Option<&AttrData> {
        if a.ctx_id() != self.id {
            return None;
        }
        self.attrs.try_get(a.index())
    }

    /// Whether `t` is a type of this context. Types of another context are refused by the
    /// program API and panic in [`IrContext::type_data`]; they are never read as this
    /// context's type at the same index.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let (a, b) = (IrContext::new(), IrContext::new());
    /// let t = a.dense_tensor_type(DataType::Float32, &[2]);
    /// assert!(a.owns_type(t));
    /// assert!(!b.owns_type(t)); // even if `b` interns the same type at the same index:
    /// assert_ne!(b.dense_tensor_type(DataType::Float32, &[2]), t);
    /// ```
    #[inline]
    pub fn owns_type(&self, t: Type) -> bool {
        t.ctx_id() == self.id
    }

    /// Whether `a` is an attribute of this context (see [`IrContext::owns_type`]).
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let (a, b) = (IrContext::new(), IrContext::new());
    /// assert!(a.owns_attr(a.str_attr("x")));
    /// assert!(!b.owns_attr(a.str_attr("x")));
    /// ```
    #[inline]
    pub fn owns_attr(&self, a: Attribute) -> bool {
        a.ctx_id() == self.id
    }

    /// This context's identity: every type and attribute handle carries it.
    #[inline(always)]
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// Number of interned attributes.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let n = ctx.num_attrs();
    /// ctx.str_attr("a new string");
    /// ctx.i32_attr(3); // small integers are pre-interned
    /// assert_eq!(ctx.num_attrs(), n + 1);
    /// ```
    pub fn num_attrs(&self) -> usize {
        self.attrs.len()
    }

    /// `pir::BoolAttribute`.
    ///
    /// ```
    /// use pir_runtime::{AttrData, IrContext};
    /// let ctx = IrContext::new();
    /// let t = ctx.bool_attr(true);
    /// assert!(matches!(t.data(&ctx), AttrData::Bool(true)));
    /// assert_eq!(t.display(&ctx).to_string(), "true");
    /// ```
    #[inline]
    pub fn bool_attr(&self, v: bool) -> Attribute {
        self.bools[usize::from(v)]
    }

    /// `pir::Int32Attribute`.
    ///
    /// ```
    /// use pir_runtime::{AttrData, AttrKey, IrContext};
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.i32_attr(7), ctx.intern_attr(AttrKey::Int32(7)));
    /// assert_ne!(ctx.i32_attr(7), ctx.i64_attr(7)); // different kinds
    /// assert!(matches!(ctx.i32_attr(-100_000).data(&ctx), AttrData::Int32(-100_000)));
    /// ```
    #[inline]
    pub fn i32_attr(&self, v: i32) -> Attribute {
        match usize::try_from(i64::from(v) - SMALL_INT_MIN) {
            Ok(i) if i < self.small_i32.len() => self.small_i32[i],
            _ => self.intern_attr(AttrKey::Int32(v)),
        }
    }

    /// `pir::Int64Attribute`.
    ///
    /// ```
    /// use pir_runtime::{AttrData, IrContext};
    /// let ctx = IrContext::new();
    /// let a = ctx.i64_attr(1 << 40);
    /// assert!(matches!(a.data(&ctx), AttrData::Int64(v) if *v == 1 << 40));
    /// assert_eq!(a.display(&ctx).to_string(), "1099511627776");
    /// ```
    #[inline]
    pub fn i64_attr(&self, v: i64) -> Attribute {
        match v
            .checked_sub(SMALL_INT_MIN)
            .and_then(|i| usize::try_from(i).ok())
        {
            Some(i) if i < self.small_i64.len() => self.small_i64[i],
            _ => self.intern_attr(AttrKey::Int64(v)),
        }
    }

    /// `pir::IndexAttribute`.
    ///
    /// ```
    /// use pir_runtime::{AttrData, IrContext};
    /// let ctx = IrContext::new();
    /// let a = ctx.index_attr(3);
    /// assert!(matches!(a.data(&ctx), AttrData::Index(3)));
    /// assert_ne!(a, ctx.i64_attr(3));
    /// ```
    pub fn index_attr(&self, v: i64) -> Attribute {
        self.intern_attr(AttrKey::Index(v))
    }

    /// `pir::FloatAttribute`.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.f32_attr(0.5).display(&ctx).to_string(), "0.5");
    /// assert_eq!(ctx.f32_attr(0.0), ctx.f32_attr(0.0));
    /// assert_ne!(ctx.f32_attr(0.0), ctx.f32_attr(-0.0)); // compared by bits
    /// ```
    pub fn f32_attr(&self, v: f32) -> Attribute {
        self.intern_attr(AttrKey::Float(v))
    }

    /// `pir::DoubleAttribute`.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.f64_attr(1e10).display(&ctx).to_string(), "1e+10");
    /// assert_ne!(ctx.f64_attr(2.0), ctx.f32_attr(2.0));
    /// ```
    pub fn f64_attr(&self, v: f64) -> Attribute {
        self.intern_attr(AttrKey::Double(v))
    }

    /// `pir::StrAttribute`.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let s = ctx.str_attr("say \"hi\"");
    /// assert_eq!(s.display(&ctx).to_string(), r#""say \"hi\"""#); // only quotes are escaped
    /// ```
    pub fn str_attr(&self, v: &str) -> Attribute {
        self.intern_attr(AttrKey::Str(v))
    }

    /// `pir::ArrayAttribute`.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let a = ctx.array_attr(&[ctx.str_attr("x"), ctx.bool_attr(false)]);
    /// assert_eq!(a.display(&ctx).to_string(), "[\"x\",false]");
    /// assert_eq!(ctx.array_attr(&[]).display(&ctx).to_string(), "[]");
    /// ```
    pub fn array_attr(&self, items: &[Attribute]) -> Attribute {
        self.intern_attr(AttrKey::Array(items))
    }

    /// `pir::TypeAttribute`.
    ///
    /// ```
    /// use pir_runtime::{AttrData, IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let a = ctx.type_attr(t);
    /// assert!(matches!(a.data(&ctx), AttrData::Type(x) if *x == t));
    /// assert_eq!(a.display(&ctx).to_string(), "tensor<2xf32>");
    /// ```
    pub fn type_attr(&self, t: Type) -> Attribute {
        self.intern_attr(AttrKey::Type(t))
    }

    /// `paddle::dialect::IntArrayAttribute`.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let a = ctx.int_array_attr(&[0, 2, 1]);
    /// assert_eq!(a.display(&ctx).to_string(), "[0,2,1]");
    /// // Not the same attribute as an array of Int64 attributes:
    /// assert_ne!(a, ctx.array_attr(&[ctx.i64_attr(0), ctx.i64_attr(2), ctx.i64_attr(1)]));
    /// ```
    pub fn int_array_attr(&self, v: &[i64]) -> Attribute {
        self.intern_attr(AttrKey::IntArray(v))
    }

    /// `paddle::dialect::DataTypeAttribute`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataType};
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.dtype_attr(DataType::Float16).display(&ctx).to_string(), "float16");
    /// ```
    pub fn dtype_attr(&self, v: DataType) -> Attribute {
        self.intern_attr(AttrKey::DataType(v))
    }

    /// `paddle::dialect::DataLayoutAttribute`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::DataLayout};
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.layout_attr(DataLayout::Nhwc).display(&ctx).to_string(), "NHWC");
    /// ```
    pub fn layout_attr(&self, v: DataLayout) -> Attribute {
        self.intern_attr(AttrKey::DataLayout(v))
    }

    /// `paddle::dialect::PlaceAttribute`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, phi::Place};
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.place_attr(Place::gpu(0)).display(&ctx).to_string(), "Place(gpu:0)");
    /// assert_eq!(ctx.place_attr(Place::cpu()).display(&ctx).to_string(), "Place(cpu)");
    /// ```
    pub fn place_attr(&self, v: Place) -> Attribute {
        self.intern_attr(AttrKey::Place(v))
    }

    /// An array of bools, as the `stop_gradient` / `persistable` attributes are stored.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let a = ctx.bool_array_attr(&[true, false]);
    /// assert_eq!(a, ctx.array_attr(&[ctx.bool_attr(true), ctx.bool_attr(false)]));
    /// assert_eq!(a.display(&ctx).to_string(), "[true,false]");
    /// ```
    pub fn bool_array_attr(&self, v: &[bool]) -> Attribute {
        let items: smallvec::SmallVec<[Attribute; 8]> =
            v.iter().map(|&b| self.bool_attr(b)).collect();
        self.array_attr(&items)
    }

    /// The empty attribute dictionary.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.dict_attr(&[]), ctx.empty_dict());
    /// assert_eq!(ctx.empty_dict().display(&ctx).to_string(), "{}");
    /// ```
    #[inline]
    pub fn empty_dict(&self) -> Attribute {
        self.empty_dict
    }

    /// An attribute dictionary from pairs already sorted by name with unique names (checked in
    /// debug builds); generated builds know their attribute order and skip the sort.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let (a, b) = (ctx.i32_attr(1), ctx.i32_attr(2));
    /// let d = ctx.dict_attr_sorted(&[("axis", a), ("keepdim", b)]);
    /// assert_eq!(d, ctx.dict_attr(&[("keepdim", b), ("axis", a)]));
    /// ```
    pub fn dict_attr_sorted(&self, entries: &[(&str, Attribute)]) -> Attribute {
        debug_assert!(
            entries.windows(2).all(|w| w[0].0 < w[1].0),
            "entries must be sorted and unique"
        );
        if entries.is_empty() {
            return self.empty_dict;
        }
        self.intern_attr(AttrKey::Dict(DictEntries::Borrowed(entries)))
    }

    /// An attribute dictionary from `(name, value)` pairs in any order; a repeated name keeps its
    /// last value.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let d = ctx.dict_attr(&[("b", ctx.i32_attr(1)), ("a", ctx.str_attr("x")), ("b", ctx.i32_attr(2))]);
    /// assert_eq!(d.display(&ctx).to_string(), "{a:\"x\",b:2}"); // sorted; the last `b` wins
    /// ```
    pub fn dict_attr(&self, entries: &[(&str, Attribute)]) -> Attribute {
        if entries.is_empty() {
            return self.empty_dict;
        }
        if entries.windows(2).all(|w| w[0].0 < w[1].0) {
            return self.intern_attr(AttrKey::Dict(DictEntries::Borrowed(entries)));
        }
        let mut sorted: smallvec::SmallVec<[(&str, Attribute); 16]> =
            entries.iter().copied().collect();
        // Stable sort keeps later duplicates after earlier ones; keep the last of each name.
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let mut dedup: smallvec::SmallVec<[(&str, Attribute); 16]> = smallvec::SmallVec::new();
        for e in sorted {
            match dedup.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => dedup.push(e),
            }
        }
        self.intern_attr(AttrKey::Dict(DictEntries::Borrowed(&dedup)))
    }

    /// `dict` with `name` set to `value` (or removed when `value` is `None`).
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let d = ctx.dict_attr(&[("a", ctx.i32_attr(1))]);
    /// let d2 = ctx.dict_with(d, "b", Some(ctx.i32_attr(2)));
    /// assert_eq!(d2.display(&ctx).to_string(), "{a:1,b:2}");
    /// assert_eq!(ctx.dict_with(d2, "b", None), d);
    /// ```
    pub fn dict_with(&self, dict: Attribute, name: &str, value: Option<Attribute>) -> Attribute {
        let entries: &[(Box<str>, Attribute)] = match self.attr_data(dict) {
            AttrData::Dict(e) => e,
            _ => &[],
        };
        let mut out: smallvec::SmallVec<[(&str, Attribute); 16]> = smallvec::SmallVec::new();
        let mut placed = false;
        for (n, a) in entries {
            let n: &str = n;
            if !placed && n >= name {
                if let Some(v) = value {
                    out.push((name, v));
                }
                placed = true;
                if n == name {
                    continue;
                }
            }
            out.push((n, *a));
        }
        if !placed {
            if let Some(v) = value {
                out.push((name, v));
            }
        }
        self.intern_attr(AttrKey::Dict(DictEntries::Borrowed(&out)))
    }

    /// Entry `name` of an attribute dictionary.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let d = ctx.dict_attr(&[("axis", ctx.i32_attr(-1))]);
    /// assert_eq!(ctx.dict_get(d, "axis"), Some(ctx.i32_attr(-1)));
    /// assert_eq!(ctx.dict_get(d, "keepdim"), None);
    /// ```
    pub fn dict_get(&self, dict: Attribute, name: &str) -> Option<Attribute> {
        match self.attr_data(dict) {
            AttrData::Dict(e) => e
                .binary_search_by(|(n, _)| (**n).cmp(name))
                .ok()
                .map(|i| e[i].1),
            _ => None,
        }
    }

    /// Probe statistics of the type and attribute interners' hash tables (walks every slot;
    /// for diagnostics and tests). Each table is seeded at random and rebuilt with a fresh
    /// seed should a probe grow long, so crafted keys cannot flood it.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// for v in 0..10_000i64 {
    ///     ctx.i64_attr(v << 40);
    /// }
    /// let (_, attrs) = ctx.interner_stats();
    /// assert!(attrs.values >= 10_000);
    /// assert!(attrs.slots >= 2 * attrs.values); // at most half full
    /// assert!(attrs.longest_probe < 40);
    /// ```
    pub fn interner_stats(&self) -> (ProbeStats, ProbeStats) {
        (self.types.probe_stats(), self.attrs.probe_stats())
    }

    // ----- registry -------------------------------------------------------------------------

    /// Registers dialect `D` and its ops. Registering a dialect twice is a no-op.
    ///
    /// ```
    /// use pir_runtime::{dialect, IrContext, Op, OpDef, OpId};
    /// static NOP: OpDef = OpDef::new("toy.nop", "toy");
    /// #[derive(Clone, Copy)]
    /// struct Nop(OpId);
    /// impl Op for Nop {
    ///     const DEF: &'static OpDef = &NOP;
    ///     fn from_id_unchecked(id: OpId) -> Self { Nop(id) }
    ///     fn id(self) -> OpId { self.0 }
    /// }
    /// dialect!(Toy = "toy" [Nop]);
    /// let ctx = IrContext::new();
    /// ctx.register_dialect::<Toy>().unwrap();
    /// ctx.register_dialect::<Toy>().unwrap(); // again: a no-op
    /// assert_eq!(ctx.dialects(), ["builtin", "toy"]);
    /// ```
    pub fn register_dialect<D: Dialect>(&self) -> Result<(), IrError> {
        self.register_ops(D::NAME, D::op_defs())
    }

    /// Registers how custom types `dialect.name` print (see [`TypePrintFn`]); without one
    /// they print as `dialect.name<params>`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, TypeKey};
    /// let ctx = IrContext::new();
    /// let t = ctx.intern_type(TypeKey::Custom("toy", "unit", &[]));
    /// assert_eq!(t.display(&ctx).to_string(), "toy.unit");
    /// ctx.register_type_printer("toy", "unit", |out, _, _| out.write_str("()"));
    /// assert_eq!(t.display(&ctx).to_string(), "()");
    /// ```
    pub fn register_type_printer(&self, dialect: &'static str, name: &'static str, f: TypePrintFn) {
        self.registry
            .write()
            .type_printers
            .insert((dialect, name), f);
    }

    /// The printer registered for custom types `dialect.name`.
    pub fn type_printer(&self, dialect: &str, name: &str) -> Option<TypePrintFn> {
        let r = self.registry.read();
        r.type_printers
            .iter()
            .find(|((d, n), _)| *d == dialect && *n == name)
            .map(|(_, f)| *f)
    }

    /// Registers `ops` under dialect `dialect` (which need not have a Rust type: the CLI
    /// registers ops read from yaml at run time).
    ///
    /// ```
    /// use pir_runtime::{IrContext, OpDef};
    /// static ADD: OpDef = OpDef::new("yaml_ops.add", "yaml_ops");
    /// let ctx = IrContext::new();
    /// ctx.register_ops("yaml_ops", &[&ADD]).unwrap();
    /// assert!(std::ptr::eq(ctx.op_def("yaml_ops.add").unwrap(), &ADD));
    /// // An op whose name does not start with the dialect is refused.
    /// assert!(ctx.register_ops("other", &[&ADD]).is_err());
    /// ```
    pub fn register_ops(
        &self,
        dialect: &'static str,
        ops: &[&'static OpDef],
    ) -> Result<(), IrError> {
        let mut reg = self.registry.write();
        for op in ops {
            let ok_prefix = op
                .name
                .strip_prefix(dialect)
                .is_some_and(|r| r.starts_with('.'));
            if !ok_prefix || op.dialect != dialect {
                return Err(IrError::WrongDialect {
                    op: op.name.into(),
                    dialect: dialect.into(),
                });
            }
            if let Some(existing) = reg.ops.get(op.name) {
                if !std::ptr::eq(*existing, *op) {
                    return Err(IrError::DuplicateOp(op.name.into()));
                }
            }
        }
        for op in ops {
            reg.ops.insert(op.name, op);
        }
        if !reg.dialects.contains(&dialect) {
            reg.dialects.push(dialect);
        }
        Ok(())
    }

    /// The definition of the op named `name` (`pd_op.conv2d`): one hash lookup.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let def = ctx.op_def("builtin.combine").unwrap();
    /// assert_eq!((def.name, def.dialect), ("builtin.combine", "builtin"));
    /// assert!(ctx.op_def("builtin.nope").is_none());
    /// ```
    pub fn op_def(&self, name: &str) -> Option<&'static OpDef> {
        self.registry.read().ops.get(name).copied()
    }

    /// Whether dialect `name` is registered.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// assert!(ctx.has_dialect("builtin"));
    /// assert!(!ctx.has_dialect("pd_op"));
    /// ```
    pub fn has_dialect(&self, name: &str) -> bool {
        self.registry.read().dialects.contains(&name)
    }

    /// Names of the registered dialects, in registration order.
    ///
    /// ```
    /// use pir_runtime::{IrContext, OpDef};
    /// static OP: OpDef = OpDef::new("cf.yield", "cf");
    /// let ctx = IrContext::new();
    /// ctx.register_ops("cf", &[&OP]).unwrap();
    /// assert_eq!(ctx.dialects(), ["builtin", "cf"]);
    /// ```
    pub fn dialects(&self) -> Vec<&'static str> {
        self.registry.read().dialects.clone()
    }

    /// Every registered op, sorted by name.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let names: Vec<_> = ctx.registered_ops().iter().map(|d| d.name).collect();
    /// assert_eq!(names.len(), 8);
    /// assert_eq!(names[..2], ["builtin.combine", "builtin.constant"]);
    /// ```
    pub fn registered_ops(&self) -> Vec<&'static OpDef> {
        let mut v: Vec<_> = self.registry.read().ops.values().copied().collect();
        v.sort_by_key(|d| d.name);
        v
    }
}

impl std::fmt::Debug for IrContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IrContext")
            .field("types", &self.types.len())
            .field("attributes", &self.attrs.len())
            .field("dialects", &self.dialects())
            .finish_non_exhaustive()
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn foreign_panic(what: &str, h: impl std::fmt::Debug) -> ! {
    panic!("{h:?} is a {what} of another context")
}
