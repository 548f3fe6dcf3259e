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
use crate::intern::Interner;
use crate::meta::TensorMeta;
use crate::op_def::OpDef;
use crate::phi::{DataLayout, DataType, Place};
use crate::types::{TensorKey, Type, TypeData, TypeKey};

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
}

/// The interning context and op registry.
pub struct IrContext {
    types: Interner<TypeData>,
    attrs: Interner<AttrData>,
    registry: RwLock<Registry>,
    empty_dict: Attribute,
    bools: [Attribute; 2],
    /// Pre-interned Int32 / Int64 attributes of `SMALL_INT_MIN..=SMALL_INT_MAX`: shapes, axes,
    /// strides and flags are mostly small, and these need no hashing.
    small_i32: Box<[Attribute]>,
    small_i64: Box<[Attribute]>,
}

const SMALL_INT_MIN: i64 = -64;
const SMALL_INT_MAX: i64 = 1024;

static_assertions::assert_impl_all!(IrContext: Send, Sync);

impl IrContext {
    /// A new context with the builtin dialect registered.
    pub fn new() -> Arc<IrContext> {
        let types = Interner::new();
        // Pre-intern every builtin element type at index = DataType discriminant.
        for d in DataType::ALL {
            let idx = types.intern(TypeKey::Scalar(d), TypeKey::to_data);
            debug_assert_eq!(idx, d as u32);
        }
        let attrs = Interner::new();
        let empty_dict = Attribute::from_index(
            attrs.intern(AttrKey::Dict(DictEntries::Borrowed(&[])), AttrKey::to_data),
        );
        let f = Attribute::from_index(attrs.intern(AttrKey::Bool(false), AttrKey::to_data));
        let t = Attribute::from_index(attrs.intern(AttrKey::Bool(true), AttrKey::to_data));
        let small = |f: fn(i64) -> AttrKey<'static>| -> Box<[Attribute]> {
            (SMALL_INT_MIN..=SMALL_INT_MAX)
                .map(|v| Attribute::from_index(attrs.intern(f(v), AttrKey::to_data)))
                .collect()
        };
        let small_i32 = small(|v| AttrKey::Int32(v as i32));
        let small_i64 = small(AttrKey::Int64);
        let ctx = IrContext {
            types,
            attrs,
            registry: RwLock::new(Registry::default()),
            empty_dict,
            bools: [f, t],
            small_i32,
            small_i64,
        };
        ctx.register_dialect::<crate::builtin::BuiltinDialect>()
            .expect("the builtin dialect registers into an empty context");
        Arc::new(ctx)
    }

    // ----- types --------------------------------------------------------------------------

    /// Interns a type.
    pub fn intern_type(&self, key: TypeKey<'_>) -> Type {
        if let TypeKey::Scalar(d) = key {
            return self.scalar_type(d);
        }
        let kind = key.kind();
        Type::from_index(self.types.intern(key, TypeKey::to_data), kind)
    }

    /// The type equal to `key`, if interned (never allocates).
    pub fn lookup_type(&self, key: TypeKey<'_>) -> Option<Type> {
        let kind = key.kind();
        self.types.lookup(&key).map(|i| Type::from_index(i, kind))
    }

    /// The data behind `t`.
    #[inline]
    pub fn type_data(&self, t: Type) -> &TypeData {
        self.types.get(t.index())
    }

    /// A builtin element type (`f32`, `i64`, `b`, ...): an array index, no hashing.
    #[inline]
    pub fn scalar_type(&self, d: DataType) -> Type {
        Type::from_index(d as u32, crate::types::TypeKind::Scalar)
    }

    /// `vec[elements...]`.
    pub fn vector_type(&self, elements: &[Type]) -> Type {
        self.intern_type(TypeKey::Vector(elements))
    }

    /// A dense tensor type with Paddle's defaults: NCHW, no LoD, offset 0.
    pub fn dense_tensor_type(&self, dtype: DataType, dims: &[i64]) -> Type {
        self.intern_type(TypeKey::DenseTensor(TensorKey::new(dtype, dims)))
    }

    /// A dense tensor type from full metadata.
    pub fn tensor_type_of(&self, meta: &TensorMeta) -> Type {
        self.intern_type(TypeKey::DenseTensor(TensorKey::of_meta(meta)))
    }

    /// A selected-rows type.
    pub fn selected_rows_type(&self, dtype: DataType, dims: &[i64]) -> Type {
        self.intern_type(TypeKey::SelectedRows(TensorKey::new(dtype, dims)))
    }

    /// A dense tensor array type.
    pub fn dense_tensor_array_type(
        &self,
        dtype: DataType,
        dims: &[i64],
        layout: DataLayout,
    ) -> Type {
        self.intern_type(TypeKey::DenseTensorArray(dtype, dims, layout))
    }

    /// Number of interned types.
    pub fn num_types(&self) -> usize {
        self.types.len()
    }

    // ----- attributes -----------------------------------------------------------------------

    /// Interns an attribute.
    pub fn intern_attr(&self, key: AttrKey<'_>) -> Attribute {
        if let AttrKey::Bool(b) = key {
            return self.bools[usize::from(b)];
        }
        Attribute::from_index(self.attrs.intern(key, AttrKey::to_data))
    }

    /// The attribute equal to `key`, if interned (never allocates).
    pub fn lookup_attr(&self, key: AttrKey<'_>) -> Option<Attribute> {
        self.attrs.lookup(&key).map(Attribute::from_index)
    }

    /// The data behind `a`.
    #[inline]
    pub fn attr_data(&self, a: Attribute) -> &AttrData {
        self.attrs.get(a.index())
    }

    /// The data behind `a` if `a` is a handle of this context (handles from another context
    /// may be out of range).
    #[inline]
    pub fn try_attr_data(&self, a: Attribute) -> Option<&AttrData> {
        self.attrs.try_get(a.index())
    }

    /// Number of interned attributes.
    pub fn num_attrs(&self) -> usize {
        self.attrs.len()
    }

    /// `pir::BoolAttribute`.
    #[inline]
    pub fn bool_attr(&self, v: bool) -> Attribute {
        self.bools[usize::from(v)]
    }

    /// `pir::Int32Attribute`.
    #[inline]
    pub fn i32_attr(&self, v: i32) -> Attribute {
        match usize::try_from(i64::from(v) - SMALL_INT_MIN) {
            Ok(i) if i < self.small_i32.len() => self.small_i32[i],
            _ => self.intern_attr(AttrKey::Int32(v)),
        }
    }

    /// `pir::Int64Attribute`.
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
    pub fn index_attr(&self, v: i64) -> Attribute {
        self.intern_attr(AttrKey::Index(v))
    }

    /// `pir::FloatAttribute`.
    pub fn f32_attr(&self, v: f32) -> Attribute {
        self.intern_attr(AttrKey::Float(v))
    }

    /// `pir::DoubleAttribute`.
    pub fn f64_attr(&self, v: f64) -> Attribute {
        self.intern_attr(AttrKey::Double(v))
    }

    /// `pir::StrAttribute`.
    pub fn str_attr(&self, v: &str) -> Attribute {
        self.intern_attr(AttrKey::Str(v))
    }

    /// `pir::ArrayAttribute`.
    pub fn array_attr(&self, items: &[Attribute]) -> Attribute {
        self.intern_attr(AttrKey::Array(items))
    }

    /// `pir::TypeAttribute`.
    pub fn type_attr(&self, t: Type) -> Attribute {
        self.intern_attr(AttrKey::Type(t))
    }

    /// `paddle::dialect::IntArrayAttribute`.
    pub fn int_array_attr(&self, v: &[i64]) -> Attribute {
        self.intern_attr(AttrKey::IntArray(v))
    }

    /// `paddle::dialect::DataTypeAttribute`.
    pub fn dtype_attr(&self, v: DataType) -> Attribute {
        self.intern_attr(AttrKey::DataType(v))
    }

    /// `paddle::dialect::DataLayoutAttribute`.
    pub fn layout_attr(&self, v: DataLayout) -> Attribute {
        self.intern_attr(AttrKey::DataLayout(v))
    }

    /// `paddle::dialect::PlaceAttribute`.
    pub fn place_attr(&self, v: Place) -> Attribute {
        self.intern_attr(AttrKey::Place(v))
    }

    /// An array of bools, as the `stop_gradient` / `persistable` attributes are stored.
    pub fn bool_array_attr(&self, v: &[bool]) -> Attribute {
        let items: smallvec::SmallVec<[Attribute; 8]> =
            v.iter().map(|&b| self.bool_attr(b)).collect();
        self.array_attr(&items)
    }

    /// The empty attribute dictionary.
    #[inline]
    pub fn empty_dict(&self) -> Attribute {
        self.empty_dict
    }

    /// An attribute dictionary from pairs already sorted by name with unique names (checked in
    /// debug builds); generated builds know their attribute order and skip the sort.
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
    pub fn dict_get(&self, dict: Attribute, name: &str) -> Option<Attribute> {
        match self.attr_data(dict) {
            AttrData::Dict(e) => e
                .binary_search_by(|(n, _)| (**n).cmp(name))
                .ok()
                .map(|i| e[i].1),
            _ => None,
        }
    }

    // ----- registry -------------------------------------------------------------------------

    /// Registers dialect `D` and its ops. Registering a dialect twice is a no-op.
    pub fn register_dialect<D: Dialect>(&self) -> Result<(), IrError> {
        self.register_ops(D::NAME, D::op_defs())
    }

    /// Registers `ops` under dialect `dialect` (which need not have a Rust type: the CLI
    /// registers ops read from yaml at run time).
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
    pub fn op_def(&self, name: &str) -> Option<&'static OpDef> {
        self.registry.read().ops.get(name).copied()
    }

    /// Whether dialect `name` is registered.
    pub fn has_dialect(&self, name: &str) -> bool {
        self.registry.read().dialects.contains(&name)
    }

    /// Names of the registered dialects, in registration order.
    pub fn dialects(&self) -> Vec<&'static str> {
        self.registry.read().dialects.clone()
    }

    /// Every registered op, sorted by name.
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
