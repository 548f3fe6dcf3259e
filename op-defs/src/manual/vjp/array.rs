//! The Vjps of the tensor-array ops (`ArrayReadOp::Vjp`, `ArrayWrite_Op::Vjp`,
//! `ArrayToTensorOp::Vjp` of Paddle's `manual_op_vjp.cc`).
//!
//! An array's gradient is itself an array that the backward updates in place: the backward
//! walk (`ir_backward.py`) hands `array_write_` the gradient of the array it wrote into (not
//! of its result) and hands `array_read` the gradient of the array it read as a second
//! output gradient, making it with `create_array_like(array, 0)` when there is none yet.

use pir_runtime::interfaces::{VjpArgs, VjpOp, VjpResult};
use pir_runtime::op_support::{build_with_values, AttrArg};
use pir_runtime::{AttrData, BuildError, Builder, OpId, Value};
use smallvec::smallvec;

use super::{first, op_def, vjp_error, wanted, zeros_like};
use crate::manual::{ArrayReadOp, ArrayToTensorOp, ArrayWrite_Op};

/// Paddle's `PADDLE_ENFORCE_EQ(list.size(), n)` on a Vjp's arguments.
fn expect_len<T>(op: &'static str, what: &str, list: &[T], n: usize) -> Result<(), BuildError> {
    if list.len() == n {
        return Ok(());
    }
    Err(vjp_error(
        op,
        format!(
            "its Vjp takes {n} {what}, got {} (the backward must pass them as Paddle's \
             ir_backward does)",
            list.len()
        ),
    ))
}

/// Builds `name(operands)` and returns its first result.
fn build_value(
    b: &mut Builder<'_>,
    op: &'static str,
    name: &str,
    operands: &[Value],
    attrs: &[AttrArg<'_>],
) -> Result<Value, BuildError> {
    let def = op_def(b, op, name)?;
    let operands: smallvec::SmallVec<[Option<Value>; 3]> =
        operands.iter().copied().map(Some).collect();
    let built = build_with_values(b, def, &operands, attrs)?;
    Ok(b.program().op(built).result(0))
}

/// `ArrayWrite_Op::Vjp`: `x`'s gradient is the entry `i` of the array's gradient
/// (`array_read(array_grad, i)`), and that entry is then zeroed (`array_write_(array_grad,
/// zeros_like(x), i)`) since the write overwrote whatever the array held there.
impl VjpOp for ArrayWrite_Op {
    fn vjp(b: &mut Builder<'_>, _op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.array_write_";
        expect_len(OP, "inputs", args.inputs, 3)?;
        expect_len(OP, "outputs", args.outputs, 1)?;
        expect_len(OP, "output gradients", args.out_grads, 1)?;
        let array_grad = first(args.out_grads, 0, OP, "output grad")?;
        let x = first(args.inputs, 1, OP, "input")?;
        let i = first(args.inputs, 2, OP, "input")?;
        let x_grad = build_value(b, OP, "pd_op.array_read", &[array_grad, i], &[])?;
        let zero = zeros_like(b, OP, x)?;
        build_value(b, OP, "pd_op.array_write_", &[array_grad, zero, i], &[])?;
        Ok(vec![smallvec![Some(x_grad).filter(|_| wanted(args, 0))]])
    }
}

/// `ArrayReadOp::Vjp`: adds the output gradient into entry `i` of the array's gradient
/// (`array_write_(array_grad, add(array_read(array_grad, i), out_grad), i)`); no operand has
/// grad semantics, so it returns no gradient.
impl VjpOp for ArrayReadOp {
    fn vjp(b: &mut Builder<'_>, _op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.array_read";
        expect_len(OP, "inputs", args.inputs, 2)?;
        expect_len(OP, "outputs", args.outputs, 1)?;
        // out_grads[0]: the result's gradient; out_grads[1]: the array's.
        expect_len(OP, "output gradients", args.out_grads, 2)?;
        let out_grad = first(args.out_grads, 0, OP, "output grad")?;
        let array_grad = first(args.out_grads, 1, OP, "output grad")?;
        let i = first(args.inputs, 1, OP, "input")?;
        let old = build_value(b, OP, "pd_op.array_read", &[array_grad, i], &[])?;
        let sum = build_value(b, OP, "pd_op.add", &[old, out_grad], &[])?;
        build_value(b, OP, "pd_op.array_write_", &[array_grad, sum, i], &[])?;
        Ok(Vec::new())
    }
}

/// `ArrayToTensorOp::Vjp`: `tensor_to_array(x, out_grad, axis, use_stack)` with the forward
/// op's `axis` and `use_stack`.
impl VjpOp for ArrayToTensorOp {
    fn vjp(b: &mut Builder<'_>, op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.array_to_tensor";
        expect_len(OP, "inputs", args.inputs, 1)?;
        expect_len(OP, "outputs", args.outputs, 2)?;
        expect_len(OP, "output gradients", args.out_grads, 2)?;
        let (axis, use_stack) = {
            let fwd = b.program().op(op);
            match (fwd.attr_data("axis"), fwd.attr_data("use_stack")) {
                (Some(AttrData::Int32(a)), Some(AttrData::Bool(s))) => (*a, *s),
                _ => {
                    return Err(vjp_error(
                        OP,
                        "its Vjp needs an int32 `axis` and a bool `use_stack` attribute".into(),
                    ))
                }
            }
        };
        let x = first(args.inputs, 0, OP, "input")?;
        let out_grad = first(args.out_grads, 0, OP, "output grad")?;
        let attrs = [AttrArg::I32(axis), AttrArg::Bool(use_stack)];
        let x_grad = build_value(b, OP, "pd_op.tensor_to_array", &[x, out_grad], &attrs)?;
        Ok(vec![smallvec![Some(x_grad).filter(|_| wanted(args, 0))]])
    }
}
