//! Hand-written arithmetic ops (`manual_op.h`): the in-place `add_n_`, `increment(_)`,
//! `assign_out_` and `shape_broadcast`.
//!
//! ```
//! use op_defs::pd_op::{self, IncrementOp, IncrementOpAttrs, ShapeBroadcastOp};
//! use pir_runtime::{builtin, phi::DataType, Builder, IrContext, Program};
//!
//! let ctx = IrContext::new();
//! pd_op::register(&ctx).unwrap();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let i = builtin::parameter(&mut b, "i", ctx.dense_tensor_type(DataType::Int64, &[1])).unwrap();
//! let next = IncrementOp::build(&mut b, i, IncrementOpAttrs::default()).unwrap();
//! assert_eq!(b.program().value_type(next.out(b.program())), b.program().value_type(i));
//! let s2 = builtin::parameter(&mut b, "s2", ctx.dense_tensor_type(DataType::Int64, &[2])).unwrap();
//! let s3 = builtin::parameter(&mut b, "s3", ctx.dense_tensor_type(DataType::Int64, &[3])).unwrap();
//! let sb = ShapeBroadcastOp::build(&mut b, s2, s3).unwrap();
//! let t = b.program().value_type(sb.out(b.program())).unwrap();
//! assert_eq!(t.display(&ctx).to_string(), "tensor<3xi64>");
//! ```

use pir_macros::pir_op;
use pir_runtime::meta::{InferMetaCtx, InferMetaError};

/// `add_n_(inputs)`: the sum of `inputs` (Paddle's hand-written in-place class, whose GetOpInfo
/// lists no in-place pair).
#[allow(non_camel_case_types)] // Paddle's class name.
#[pir_op(
    name = "pd_op.add_n_",
    infer_meta(func = "AddNInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "add_n")
)]
pub struct AddN_Op {
    /// The tensors.
    #[input(grad)]
    inputs: Vec<DenseTensor>,
    /// Their sum.
    #[output]
    out: DenseTensor,
}

/// `increment(x, value)`: `x + value` for a one-element tensor.
#[pir_op(
    name = "pd_op.increment",
    interfaces(Vjp),
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta(func = "IncrementInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "increment")
)]
pub struct IncrementOp {
    /// The counter.
    #[input(grad)]
    x: DenseTensor,
    /// The step.
    #[attr(default = 1.0)]
    value: f32,
    /// The incremented counter.
    #[output]
    out: DenseTensor,
}

/// `increment_(x, value)`: `increment` in place of `x`.
#[allow(non_camel_case_types)] // Paddle's class name.
#[pir_op(
    name = "pd_op.increment_",
    interfaces(Vjp),
    infer_meta(func = "IncrementInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "increment")
)]
pub struct Increment_Op {
    /// The counter, updated in place.
    #[input]
    x: DenseTensor,
    /// The step.
    #[attr(default = 1.0)]
    value: f32,
    /// The incremented counter.
    #[output(inplace = x)]
    out: DenseTensor,
}

/// `assign_out_(x, output)`: copies `x` into `output` (in place), as loops write their carried
/// values back.
#[allow(non_camel_case_types)] // Paddle's class name.
#[pir_op(
    name = "pd_op.assign_out_",
    interfaces(Vjp),
    infer_meta(
        func = "UnchangedInferMeta",
        param(x),
        registry = crate::infer_meta::REGISTRY
    ),
    kernel(func = "assign", param(x))
)]
pub struct AssignOut_Op {
    /// The value copied.
    #[input(grad)]
    x: DenseTensor,
    /// The destination.
    #[input(grad)]
    output: DenseTensor,
    /// The destination after the copy.
    #[output(inplace = output)]
    out: DenseTensor,
}

/// `shape_broadcast(x, y)`: the broadcast of two shapes given as 1-D tensors. GetOpInfo names
/// `ElementwiseInferMeta`; Paddle's build runs `ShapeBroadcastInferMeta`, and so does this one.
#[pir_op(
    name = "pd_op.shape_broadcast",
    infer_meta(with = shape_broadcast_build, func = "ElementwiseInferMeta"),
    kernel(func = "shape_broadcast")
)]
pub struct ShapeBroadcastOp {
    /// One shape.
    #[input(grad)]
    x: DenseTensor,
    /// The other shape.
    #[input(grad)]
    y: DenseTensor,
    /// The broadcast shape.
    #[output]
    out: DenseTensor,
}

/// `ShapeBroadcastOp::InferMeta`: `ShapeBroadcastInferMeta`.
fn shape_broadcast_build(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    (crate::infer_meta::manual::__SHAPE_BROADCAST_INFER_META.func)(ctx)
}
