//! The ops of the `toy` dialect, declared with `#[pir_op]`.
//!
//! Each struct becomes a typed op handle with `build`, accessors, `schema()` and
//! `get_op_info()`; the doc comments below become the ops' documentation.

use pir_macros::pir_op;
use pir_runtime::interfaces::InferShapeOp;
use pir_runtime::meta::{InferMetaCtx, InferMetaError, TensorMeta};
use pir_runtime::phi::DataType;
use pir_runtime::{ensure_meta, AttrData, OpRef, VerifyErrorKind};

use crate::interfaces::{result_elements, CountFlops};

/// A constant tensor of `f64` values, in row-major order.
///
/// ```
/// use pir_runtime::{Builder, IrContext, Program, phi::DataType};
/// use toy_dialect::{ConstantOp, ConstantOpAttrs, ToyDialect};
///
/// let ctx = IrContext::new();
/// ctx.register_dialect::<ToyDialect>().unwrap();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let c = ConstantOp::build(&mut b, ConstantOpAttrs::new(&[1.0, 2.0], &[2])).unwrap();
/// let ty = b.program().value_type(c.out(b.program()));
/// assert_eq!(ty, Some(ctx.dense_tensor_type(DataType::Float64, &[2])));
/// ```
#[pir_op(name = "toy.constant", interfaces(InferShape), verify = check_constant)]
pub struct ConstantOp {
    /// The values.
    #[attr]
    value: Vec<f64>,
    /// The shape; its element count is the number of values.
    #[attr]
    shape: Vec<i64>,
    /// The tensor.
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for ConstantOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let n = ctx.floats(0)?.len();
        let dims = ctx.ints(1)?.to_vec();
        let count: i64 = dims.iter().product();
        ensure_meta!(
            usize::try_from(count) == Ok(n),
            "shape {dims:?} holds {count} values, {n} given"
        );
        ctx.set_output(0, TensorMeta::new(DataType::Float64, &dims))
    }
}

/// The verifier of `toy.constant`: the shape's element count is the number of values.
fn check_constant(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    let ctx = op.ctx();
    let (Some(AttrData::Array(values)), Some(AttrData::Array(shape))) =
        (op.attr_data("value"), op.attr_data("shape"))
    else {
        return Ok(()); // The signature check reports missing attributes.
    };
    let count: i64 = shape
        .iter()
        .map(|&d| match ctx.attr_data(d) {
            AttrData::Int64(d) => *d,
            _ => 1,
        })
        .product();
    if usize::try_from(count) == Ok(values.len()) {
        Ok(())
    } else {
        Err(format!(
            "the shape holds {count} values but `value` has {}",
            values.len()
        )
        .into())
    }
}

/// Element-wise `lhs + rhs` of two tensors of one shape.
#[pir_op(
    name = "toy.add",
    traits(crate::traits::Commutative, ReadOnly),
    interfaces(InferShape, crate::interfaces::FlopCount)
)]
pub struct AddOp {
    /// Left operand.
    #[input]
    lhs: DenseTensor,
    /// Right operand.
    #[input]
    rhs: DenseTensor,
    /// The sum.
    #[output]
    out: DenseTensor,
}

/// Element-wise `lhs * rhs` of two tensors of one shape.
#[pir_op(
    name = "toy.mul",
    traits(crate::traits::Commutative, SameOperandsAndResultType),
    interfaces(InferShape, crate::interfaces::FlopCount)
)]
pub struct MulOp {
    /// Left operand.
    #[input]
    lhs: DenseTensor,
    /// Right operand.
    #[input]
    rhs: DenseTensor,
    /// The product.
    #[output]
    out: DenseTensor,
}

fn same_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    let (l, r) = (ctx.tensor(0)?, ctx.tensor(1)?);
    ensure_meta!(
        l.dims == r.dims && l.dtype == r.dtype,
        "operands differ: {:?} {:?} and {:?} {:?}",
        l.dtype,
        l.dims,
        r.dtype,
        r.dims
    );
    let out = l.clone();
    ctx.set_output(0, out)
}

impl InferShapeOp for AddOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        same_shape(ctx)
    }
}

impl InferShapeOp for MulOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        same_shape(ctx)
    }
}

impl CountFlops for AddOp {
    fn flops(op: OpRef<'_>) -> Option<u64> {
        result_elements(op, 0)
    }
}

impl CountFlops for MulOp {
    fn flops(op: OpRef<'_>) -> Option<u64> {
        result_elements(op, 0)
    }
}

/// The transpose of a tensor (its dimensions reversed).
#[pir_op(
    name = "toy.transpose",
    traits(ReadOnly),
    interfaces(InferShape, crate::interfaces::FlopCount)
)]
pub struct TransposeOp {
    /// The tensor to transpose.
    #[input]
    input: DenseTensor,
    /// The transposed tensor.
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for TransposeOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?;
        let dims: Vec<i64> = x.dims.iter().rev().copied().collect();
        let out = x.with_dims(&dims);
        ctx.set_output(0, out)
    }
}

impl CountFlops for TransposeOp {
    fn flops(_: OpRef<'_>) -> Option<u64> {
        Some(0)
    }
}

/// Prints a tensor: a side effect, no results.
#[pir_op(name = "toy.print", traits(SideEffect), interfaces(InferShape))]
pub struct PrintOp {
    /// The tensor to print.
    #[input]
    input: DenseTensor,
}

impl InferShapeOp for PrintOp {
    fn infer_shape(_: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        Ok(())
    }
}
