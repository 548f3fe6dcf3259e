//! The op interfaces the macros implement: [`OpYamlInfo`] (the GetOpInfo tuple),
//! [`InferMeta`] / [`InferShape`] (result types for builds), [`Vjp`] (the backward op), and the
//! declaration-only interfaces Paddle attaches to its generated ops.
//!
//! An interface is a struct of data and function pointers; an op's implementation is a
//! `static` of it, found through [`OpDef::interface`](crate::op_def::OpDef::interface).
//!
//! ```
//! use pir_runtime::interfaces::{InferShape, InferShapeOp};
//! use pir_runtime::meta::{InferMetaCtx, InferMetaError};
//! struct Abs;
//! impl InferShapeOp for Abs {
//!     fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
//!         let x = ctx.tensor(0)?.clone();
//!         ctx.set_output(0, x)
//!     }
//! }
//! static ABS_INFER: InferShape = InferShape::of::<Abs>();
//! ```

use std::sync::OnceLock;

use pir_spec::{OpInfoTuple, OpSchema};

use crate::declare_interface;
use crate::meta::{InferMetaFn, InferMetaRegistry};
use crate::op_def::OpInterfaceImpl;

/// An interface of pir-runtime: its Paddle name is read from the one vocabulary table,
/// `pir_spec::known::INTERFACES` (a type the table lacks does not compile).
macro_rules! known_interface {
    ($name:ident) => {
        declare_interface!(
            $name,
            ::pir_spec::known::runtime_interface_name(stringify!($name))
        );
        // Evaluated now, so a type without a row is an error even if nothing reads its NAME.
        const _: &str = <$name as $crate::op_def::Interface>::NAME;
    };
}

/// `OpYamlInfoInterface`: the op's GetOpInfo tuple, derived from its schema.
#[derive(Debug)]
pub struct OpYamlInfo {
    /// The op's schema.
    pub schema: &'static OpSchema,
}
known_interface!(OpYamlInfo);

impl OpYamlInfo {
    /// The interface of an op with `schema`.
    pub const fn new(schema: &'static OpSchema) -> OpYamlInfo {
        OpYamlInfo { schema }
    }

    /// Paddle's GetOpInfo tuple.
    pub fn get_op_info(&self) -> OpInfoTuple {
        self.schema.op_info_tuple()
    }
}

enum InferSource {
    Direct(InferMetaFn),
    Registry(&'static InferMetaRegistry),
}

/// `InferMetaInterface`: the named infer-meta function that computes result types.
///
/// Generated ops name a function (`UnchangedInferMeta`) and a registry of implementations; the
/// function is looked up once and cached. A function missing from the registry (not
/// implemented yet) makes typed builds fail with a clear error.
///
/// ```
/// use pir_runtime::interfaces::InferMeta;
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry};
/// fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
/// static REGISTRY: InferMetaRegistry = InferMetaRegistry::new(&[("UnchangedInferMeta", unchanged)]);
/// static RELU: InferMeta = InferMeta::from_registry("UnchangedInferMeta", &REGISTRY);
/// static CONV: InferMeta = InferMeta::from_registry("ConvInferMeta", &REGISTRY);
/// assert!(RELU.func().is_some());
/// assert!(CONV.func().is_none()); // not implemented: typed builds report it
/// ```
pub struct InferMeta {
    /// Paddle's function name.
    pub func_name: &'static str,
    source: InferSource,
    cache: OnceLock<Option<InferMetaFn>>,
}
known_interface!(InferMeta);

impl InferMeta {
    /// A function given directly.
    ///
    /// ```
    /// use pir_runtime::{interfaces::InferMeta, meta::{InferMetaCtx, InferMetaError}};
    /// fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
    /// static IM: InferMeta = InferMeta::direct("UnchangedInferMeta", unchanged);
    /// assert_eq!(IM.func_name, "UnchangedInferMeta");
    /// assert!(IM.func().is_some());
    /// ```
    pub const fn direct(func_name: &'static str, f: InferMetaFn) -> InferMeta {
        InferMeta {
            func_name,
            source: InferSource::Direct(f),
            cache: OnceLock::new(),
        }
    }

    /// A function found by name in `registry`.
    ///
    /// ```
    /// use pir_runtime::{interfaces::InferMeta, meta::EMPTY_REGISTRY};
    /// static IM: InferMeta = InferMeta::from_registry("SoftmaxInferMeta", &EMPTY_REGISTRY);
    /// assert!(IM.func().is_none());
    /// ```
    pub const fn from_registry(
        func_name: &'static str,
        registry: &'static InferMetaRegistry,
    ) -> InferMeta {
        InferMeta {
            func_name,
            source: InferSource::Registry(registry),
            cache: OnceLock::new(),
        }
    }

    /// The function, or `None` when not implemented.
    ///
    /// ```
    /// use pir_runtime::interfaces::InferMeta;
    /// use pir_runtime::meta::{InferMetaCtx, InferMetaError, MetaArg, MetaOut, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
    /// static IM: InferMeta = InferMeta::direct("UnchangedInferMeta", unchanged);
    /// let x = TensorMeta::new(DataType::Float32, &[3]);
    /// let mut outs = [MetaOut::None];
    /// (IM.func().unwrap())(&mut InferMetaCtx::new(&[MetaArg::Tensor(Some(&x))], &mut outs)).unwrap();
    /// assert_eq!(outs[0], MetaOut::Shared(0));
    /// ```
    #[inline]
    pub fn func(&self) -> Option<InferMetaFn> {
        match self.source {
            InferSource::Direct(f) => Some(f),
            InferSource::Registry(r) => *self.cache.get_or_init(|| r.get(self.func_name)),
        }
    }
}

impl std::fmt::Debug for InferMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InferMeta")
            .field("func_name", &self.func_name)
            .finish_non_exhaustive()
    }
}

/// What an op writes to implement [`InferShape`].
///
/// ```
/// use pir_runtime::interfaces::{InferShape, InferShapeOp};
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError, MetaArg, MetaOut, TensorMeta};
/// use pir_runtime::{ensure_meta, phi::DataType};
/// struct Transpose2d;
/// impl InferShapeOp for Transpose2d {
///     fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
///         let x = ctx.tensor(0)?;
///         ensure_meta!(x.rank() == 2, "x must be 2-D, got rank {}", x.rank());
///         ctx.set_output(0, x.with_dims(&[x.dims[1], x.dims[0]]))
///     }
/// }
/// let x = TensorMeta::new(DataType::Float32, &[2, 5]);
/// let mut outs = [MetaOut::None];
/// (InferShape::of::<Transpose2d>().infer)(&mut InferMetaCtx::new(&[MetaArg::Tensor(Some(&x))], &mut outs)).unwrap();
/// assert_eq!(outs[0], MetaOut::Tensor(x.with_dims(&[5, 2])));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the interface `InferShape` but does not implement it",
    label = "`InferShape` needs `impl InferShapeOp for {Self}`",
    note = "write `impl pir_runtime::interfaces::InferShapeOp for {Self} {{ fn infer_shape(ctx: &mut pir_runtime::meta::InferMetaCtx<'_>) -> Result<(), pir_runtime::meta::InferMetaError> {{ ... }} }}`"
)]
pub trait InferShapeOp {
    /// Computes the results' metadata. Arguments: the op's inputs in order, then its
    /// attributes in order (mutable attributes with the inputs); outputs in order.
    fn infer_shape(
        ctx: &mut crate::meta::InferMetaCtx<'_>,
    ) -> Result<(), crate::meta::InferMetaError>;
}

/// `InferShapeInterface`: a hand-written shape function of a `#[pir_op]` op.
///
/// ```
/// use pir_runtime::interfaces::{InferShape, InferShapeOp};
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError};
/// use pir_runtime::op_def::{sort_interfaces, InterfaceEntry, OpDef};
/// struct Id;
/// impl InferShapeOp for Id {
///     fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
/// }
/// static ID_SHAPE: InferShape = InferShape::of::<Id>();
/// static I: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&ID_SHAPE)]);
/// static ID_DEF: OpDef = OpDef { interfaces: &I, ..OpDef::new("toy.id", "toy") };
/// assert!(ID_DEF.has_interface::<InferShape>());
/// ```
#[derive(Debug)]
pub struct InferShape {
    /// The function.
    pub infer: InferMetaFn,
}
known_interface!(InferShape);

impl InferShape {
    /// The implementation for op type `T`.
    ///
    /// ```
    /// use pir_runtime::interfaces::{InferShape, InferShapeOp};
    /// use pir_runtime::meta::{InferMetaCtx, InferMetaError};
    /// struct Id;
    /// impl InferShapeOp for Id {
    ///     fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
    /// }
    /// static SHAPE: InferShape = InferShape::of::<Id>();
    /// # let _ = &SHAPE;
    /// ```
    pub const fn of<T: InferShapeOp>() -> InferShape {
        InferShape {
            infer: T::infer_shape,
        }
    }
}

/// An op declaring `interfaces(InferShape)` gets its [`InferShapeOp`] function; an op that
/// declares the interface without implementing [`InferShapeOp`] fails to compile with a message
/// saying what to write.
impl<T: InferShapeOp> OpInterfaceImpl<T> for InferShape {
    const IMPL: InferShape = InferShape::of::<T>();
}

/// `VjpInterface`: declares the op's backward op.
///
/// ```
/// use pir_runtime::{interfaces::Vjp, op_def::{sort_interfaces, InterfaceEntry}, OpDef};
/// static VJP: Vjp = Vjp { backward_op: "toy.tanh_grad" };
/// static I: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&VJP)]);
/// static TANH: OpDef = OpDef { interfaces: &I, ..OpDef::new("toy.tanh", "toy") };
/// assert_eq!(TANH.interface::<Vjp>().map(|v| v.backward_op), Some("toy.tanh_grad"));
/// ```
#[derive(Debug)]
pub struct Vjp {
    /// The backward op's full name (`pd_op.conv2d_grad`).
    pub backward_op: &'static str,
}
known_interface!(Vjp);

macro_rules! declaration_only {
    ($($(#[$m:meta])* $name:ident;)*) => {$(
        $(#[$m])*
        ///
        /// Declared so tools and queries see what Paddle attaches; it carries no functions here.
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        known_interface!($name);
        impl<T> OpInterfaceImpl<T> for $name {
            const IMPL: $name = $name;
        }
    )*};
}

declaration_only! {
    /// `GetKernelTypeForVarInterface`.
    GetKernelTypeForVar;
    /// `InferSymbolicShapeInterface`.
    InferSymbolicShape;
    /// `CacheGradOpSymbolicShapeInterface`.
    CacheGradOpSymbolicShape;
    /// `LayoutTransformationInterface`.
    LayoutTransformation;
    /// `DecompInterface`.
    Decomp;
    /// `DecompVjpInterface`.
    DecompVjp;
    /// `ParseKernelKeyInterface`.
    ParseKernelKey;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_def::Interface;

    #[test]
    fn every_interface_of_the_vocabulary_table_has_its_type_here() {
        // Each NAME is read from the table by the type's name; this checks that no row names a
        // type pir-runtime lacks.
        let here = [
            OpYamlInfo::NAME,
            InferMeta::NAME,
            Vjp::NAME,
            InferShape::NAME,
            GetKernelTypeForVar::NAME,
            InferSymbolicShape::NAME,
            CacheGradOpSymbolicShape::NAME,
            LayoutTransformation::NAME,
            Decomp::NAME,
            DecompVjp::NAME,
            ParseKernelKey::NAME,
        ];
        let table: Vec<&str> = pir_spec::known::INTERFACES.iter().map(|i| i.name).collect();
        assert_eq!(here.as_slice(), table.as_slice());
        assert_eq!(Vjp::NAME, "VjpInterface");
    }
}
