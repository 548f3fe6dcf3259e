//! Hand-written shape ops (`manual_op.h`): `expand` and `split_grad`.
//!
//! ```
//! use op_defs::pd_op::{self, ExpandOp};
//! use pir_runtime::{builtin, phi::DataType, Builder, IrContext, Program};
//!
//! let ctx = IrContext::new();
//! pd_op::register(&ctx).unwrap();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float64, &[-1, 1])).unwrap();
//! let e = ExpandOp::build(&mut b, x, &[4, -1, 3]).unwrap();
//! let t = b.program().value_type(e.out(b.program())).unwrap();
//! assert_eq!(t.display(&ctx).to_string(), "tensor<4x-1x3xf64>");
//! ```

use pir_macros::pir_op;
use pir_runtime::meta::{AttrValue, InferMetaCtx, InferMetaError, IntArray, IntArrayArg};

/// The most extents a shape fed by a computed tensor may stand for.
const MAX_FED_EXTENTS: usize = 4096;

/// `expand(x, shape)`: `x` broadcast to `shape` (`-1` keeps `x`'s aligned extent).
#[pir_op(
    name = "pd_op.expand",
    interfaces(Vjp),
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta(with = expand_build, func = "ExpandInferMeta"),
    kernel(func = "expand", data_type(x))
)]
pub struct ExpandOp {
    /// The tensor.
    #[input(grad)]
    x: DenseTensor,
    /// The target shape.
    #[attr(mutable)]
    shape: IntArray,
    /// The broadcast tensor.
    #[output]
    out: DenseTensor,
}

/// `ExpandOp::InferMeta`: a shape from `full_int_array` is used as is; one fed by any other
/// tensor stands for `-2`s ("from a tensor": unknown extents, not "keep x's"), one per value of
/// a 1-D tensor or element of a vector (one when the count is unknown), then
/// `ExpandInferMeta`.
fn expand_build(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    let x = ctx.tensor(0)?;
    let shape: Vec<i64> = match ctx.attr(1)? {
        AttrValue::IntArray(IntArrayArg {
            values: Some(v), ..
        }) => v.to_vec(),
        AttrValue::Ints(v) => v.to_vec(),
        AttrValue::IntArray(IntArrayArg { values: None, len }) => {
            let n = len.unwrap_or(1);
            if n > MAX_FED_EXTENTS {
                return Err(InferMetaError::new(format!(
                    "`shape` comes from a tensor of {n} values, more than any shape can hold"
                )));
            }
            vec![-2; n]
        }
        other => {
            return Err(InferMetaError::new(format!(
                "argument 1 (`shape`): expected an IntArray, found {other:?}"
            )))
        }
    };
    crate::infer_meta::unary::expand_infer_meta(x, IntArray::known(&shape), ctx.outputs().output())
}

/// `split_grad(out_grad, axis)`: the gradients of `split`'s pieces concatenated along `axis`
/// (Paddle runs `concat`'s infer-meta and kernel).
#[pir_op(
    name = "pd_op.split_grad",
    infer_meta(func = "ConcatInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "concat", data_type(out_grad))
)]
pub struct SplitGradOp {
    /// The pieces' gradients.
    #[input(grad)]
    out_grad: Vec<DenseTensor>,
    /// The split axis (a `float32` `full` when built from a number, as Paddle builds it).
    #[attr(mutable, data_type = "float", default = -1)]
    axis: Scalar,
    /// The gradient of `split`'s input.
    #[output]
    x_grad: DenseTensor,
}
