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

use pir_spec::vjp::VjpRule;
use pir_spec::{OpInfoTuple, OpSchema};
use smallvec::SmallVec;

use crate::builder::Builder;
use crate::error::BuildError;
use crate::program::{OpId, Value};

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

/// `VjpInterface`: how the op's gradient is built.
///
/// Generated ops carry the backward op's name and, when the code generator could derive it, the
/// Vjp table ([`VjpRule`]: which forward values, output grads and attributes feed the backward
/// op); `pir-autodiff` interprets the table, or derives it at run time from the two schemas. A
/// `#[pir_op]` op may write its Vjp by hand ([`VjpOp`], `interfaces(Vjp)` without `backward`).
///
/// ```
/// use pir_runtime::{interfaces::Vjp, op_def::{sort_interfaces, InterfaceEntry}, OpDef};
/// static VJP: Vjp = Vjp::new("toy.tanh_grad");
/// static I: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&VJP)]);
/// static TANH: OpDef = OpDef { interfaces: &I, ..OpDef::new("toy.tanh", "toy") };
/// assert_eq!(TANH.interface::<Vjp>().map(|v| v.backward_op), Some("toy.tanh_grad"));
/// ```
#[derive(Debug)]
pub struct Vjp {
    /// The backward op's full name (`pd_op.conv2d_grad`); empty for a hand-written Vjp.
    pub backward_op: &'static str,
    /// The generated Vjp table, if the code generator derived one.
    pub rule: Option<&'static VjpRule>,
    /// A hand-written Vjp.
    pub custom: Option<VjpFn>,
}
known_interface!(Vjp);

impl Vjp {
    /// The Vjp of an op whose backward op is `backward_op` (the table is derived at run time).
    ///
    /// ```
    /// static VJP: pir_runtime::interfaces::Vjp = pir_runtime::interfaces::Vjp::new("pd_op.relu_grad");
    /// assert!(VJP.rule.is_none() && VJP.custom.is_none());
    /// ```
    pub const fn new(backward_op: &'static str) -> Vjp {
        Vjp {
            backward_op,
            rule: None,
            custom: None,
        }
    }

    /// The Vjp of a generated op: its backward op and the table derived from the two schemas.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use pir_runtime::interfaces::Vjp;
    /// use pir_runtime::pir_spec::vjp::{VjpOperand, VjpRule, VjpValue};
    /// static RULE: VjpRule = VjpRule {
    ///     op: Cow::Borrowed("relu_grad"),
    ///     operands: Cow::Borrowed(&[VjpOperand::Value(VjpValue::Output(0)), VjpOperand::Value(VjpValue::OutputGrad(0))]),
    ///     attributes: Cow::Borrowed(&[]),
    ///     outputs: Cow::Borrowed(&[Some(0)]),
    /// };
    /// static VJP: Vjp = Vjp::with_rule("pd_op.relu_grad", &RULE);
    /// assert_eq!(VJP.rule.unwrap().op, "relu_grad");
    /// ```
    pub const fn with_rule(backward_op: &'static str, rule: &'static VjpRule) -> Vjp {
        Vjp {
            backward_op,
            rule: Some(rule),
            custom: None,
        }
    }

    /// A hand-written Vjp.
    ///
    /// ```
    /// use pir_runtime::interfaces::{Vjp, VjpArgs, VjpResult};
    /// use pir_runtime::{BuildError, Builder, OpId};
    /// fn no_grad(_: &mut Builder<'_>, _: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
    ///     Ok(args.stop_gradients.iter().map(|s| s.iter().map(|_| None).collect()).collect())
    /// }
    /// static VJP: Vjp = Vjp::custom(no_grad);
    /// assert!(VJP.custom.is_some());
    /// ```
    pub const fn custom(f: VjpFn) -> Vjp {
        Vjp {
            backward_op: "",
            rule: None,
            custom: Some(f),
        }
    }
}

/// The arguments of a Vjp, as Paddle's `call_vjp` passes them: per forward operand its
/// value(s) (a combined vector operand lists the combined values), per forward result its
/// value(s) (a vector result taken apart by `builtin.split` lists the parts) and gradient(s),
/// and per operand with grad semantics whether each gradient is unwanted (`true`: stop).
#[derive(Debug, Clone, Copy)]
pub struct VjpArgs<'a> {
    /// Per forward operand, its value(s).
    pub inputs: &'a [SmallVec<[Option<Value>; 1]>],
    /// Per forward result, its value(s).
    pub outputs: &'a [SmallVec<[Option<Value>; 1]>],
    /// Per forward result, the gradient value(s).
    pub out_grads: &'a [SmallVec<[Option<Value>; 1]>],
    /// Per operand with grad semantics, per value: the gradient is not wanted.
    pub stop_gradients: &'a [SmallVec<[bool; 1]>],
}

/// What a Vjp returns: per operand with grad semantics, per value, its gradient (`None`: none,
/// or not wanted).
pub type VjpResult = Vec<SmallVec<[Option<Value>; 1]>>;

/// A hand-written Vjp: builds the backward of op `OpId` at the builder's insertion point.
pub type VjpFn = fn(&mut Builder<'_>, OpId, &VjpArgs<'_>) -> Result<VjpResult, BuildError>;

/// What a `#[pir_op]` op writes to implement [`Vjp`] by hand (`interfaces(Vjp)` without
/// `backward = "..."`).
///
/// ```
/// use pir_runtime::interfaces::{Vjp, VjpArgs, VjpOp, VjpResult};
/// use pir_runtime::{BuildError, Builder, OpId, OpInterfaceImpl};
/// struct Identity;
/// impl VjpOp for Identity {
///     // d(identity) = the output grad itself.
///     fn vjp(_: &mut Builder<'_>, _: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
///         Ok(vec![args.out_grads[0].clone()])
///     }
/// }
/// static VJP: Vjp = <Vjp as OpInterfaceImpl<Identity>>::IMPL;
/// assert!(VJP.custom.is_some());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the interface `Vjp` without a backward op but does not implement it",
    label = "`Vjp` needs `backward = \"..._grad\"` or `impl VjpOp for {Self}`",
    note = "write `impl pir_runtime::interfaces::VjpOp for {Self} {{ fn vjp(b: &mut pir_runtime::Builder<'_>, op: pir_runtime::OpId, args: &pir_runtime::interfaces::VjpArgs<'_>) -> Result<pir_runtime::interfaces::VjpResult, pir_runtime::BuildError> {{ ... }} }}`"
)]
pub trait VjpOp {
    /// Builds the backward of `op` with `b` and returns the gradients of its operands.
    fn vjp(b: &mut Builder<'_>, op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError>;
}

/// An op declaring `interfaces(Vjp)` without a backward op gets its [`VjpOp`] function.
impl<T: VjpOp> OpInterfaceImpl<T> for Vjp {
    const IMPL: Vjp = Vjp::custom(T::vjp);
}

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
