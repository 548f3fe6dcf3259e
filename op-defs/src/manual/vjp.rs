//! The hand-written Vjps of hand-written ops (Paddle's `manual_op_vjp.cc`): `expand`,
//! `fused_gemm_epilogue`, `assign_out_`, `increment`, `increment_` and the tensor-array ops
//! (`array_read`, `array_write_`, `array_to_tensor`, in `vjp/array.rs`). Each builds what Paddle's function builds, and
//! like Paddle's `ConstructVjpResultByStopGradients` returns no gradient for an operand whose
//! gradient is not wanted (the grad op is still built).

use pir_runtime::interfaces::{VjpArgs, VjpOp, VjpResult};
use pir_runtime::op_support::{build_typed, build_with_attributes, build_with_values, AttrArg};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{BuildError, BuildErrorKind, Builder, OpDef, OpId, Value};
use smallvec::smallvec;

use super::{AssignOut_Op, ExpandOp, FusedGemmEpilogueOp, IncrementOp, Increment_Op};

mod array;

/// A located error of the Vjp of `op`.
fn vjp_error(op: &'static str, message: String) -> BuildError {
    BuildError::Invalid {
        op,
        kind: BuildErrorKind::Custom(message),
    }
}

/// The registered op `name`, which the Vjp of `op` builds.
fn op_def(b: &Builder<'_>, op: &'static str, name: &str) -> Result<&'static OpDef, BuildError> {
    b.ctx().op_def(name).ok_or_else(|| {
        vjp_error(
            op,
            format!("its Vjp builds `{name}`, which is not registered"),
        )
    })
}

/// `slots[i][0]`, which a Vjp needs.
fn first(
    slots: &[smallvec::SmallVec<[Option<Value>; 1]>],
    i: usize,
    op: &'static str,
    what: &str,
) -> Result<Value, BuildError> {
    slots
        .get(i)
        .and_then(|s| s.first().copied().flatten())
        .ok_or_else(|| vjp_error(op, format!("its Vjp needs {what} {i}, which is missing")))
}

/// The results of grad op `grad` as the gradients of the forward operands, dropping unwanted
/// ones (`ConstructVjpResultByStopGradients`).
fn by_stop_gradients(b: &Builder<'_>, grad: OpId, args: &VjpArgs<'_>) -> VjpResult {
    let op = b.program().op(grad);
    args.stop_gradients
        .iter()
        .enumerate()
        .map(|(i, stop)| {
            let wanted = !stop.first().copied().unwrap_or(true);
            smallvec![Some(op.result(i)).filter(|_| wanted)]
        })
        .collect()
}

/// `ExpandOp::Vjp`: `expand_grad(x, out_grad, shape)`, the shape passed as the forward op's
/// operand.
impl VjpOp for ExpandOp {
    fn vjp(b: &mut Builder<'_>, _op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.expand";
        let x = first(args.inputs, 0, OP, "input")?;
        let shape = first(args.inputs, 1, OP, "input")?;
        let out_grad = first(args.out_grads, 0, OP, "output grad")?;
        let def = op_def(b, OP, "pd_op.expand_grad")?;
        let grad = build_with_values(b, def, &[Some(x), Some(out_grad), Some(shape)], &[])?;
        Ok(by_stop_gradients(b, grad, args))
    }
}

/// `FusedGemmEpilogueOp::Vjp`: `fused_gemm_epilogue_grad(x, y, reserve_space, out_grad)` with
/// the forward op's `trans_x`, `trans_y`, and its `activation` as `activation_grad`. As in
/// Paddle, only activation `"none"` (no reserve space) has a backward.
impl VjpOp for FusedGemmEpilogueOp {
    fn vjp(b: &mut Builder<'_>, op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.fused_gemm_epilogue";
        let x = first(args.inputs, 0, OP, "input")?;
        let y = first(args.inputs, 1, OP, "input")?;
        let out_grad = first(args.out_grads, 0, OP, "output grad")?;
        let reserve_space = args
            .outputs
            .get(1)
            .and_then(|s| s.first().copied().flatten())
            .filter(|v| b.program().value_type(*v).is_some());
        if reserve_space.is_some() {
            return Err(vjp_error(
                OP,
                "fused_gemm_epilogue could not run backward with activation".into(),
            ));
        }
        let attrs = {
            let prog = b.program();
            let fwd = prog.op(op);
            let get = |name: &str| {
                fwd.attr(name).ok_or_else(|| {
                    vjp_error(
                        OP,
                        format!("its Vjp needs attribute `{name}`, which is missing"),
                    )
                })
            };
            let (act, tx, ty) = (get("activation")?, get("trans_x")?, get("trans_y")?);
            prog.ctx().dict_attr_sorted(&[
                ("activation_grad", act),
                ("trans_x", tx),
                ("trans_y", ty),
            ])
        };
        let def = op_def(b, OP, "pd_op.fused_gemm_epilogue_grad")?;
        let grad = build_with_attributes(b, def, &[Some(x), Some(y), None, Some(out_grad)], attrs)?;
        Ok(by_stop_gradients(b, grad, args))
    }
}

/// Whether the gradient of the `i`-th operand with grad semantics is wanted (its
/// `stop_gradient` is false).
fn wanted(args: &VjpArgs<'_>, i: usize) -> bool {
    !args
        .stop_gradients
        .get(i)
        .and_then(|s| s.first())
        .copied()
        .unwrap_or(true)
}

/// Paddle's C++ `zeros_like(x)`: `full_like(x, 0)` with its defaults (dtype undefined, an
/// undefined place), the fill value materialised as a `full`.
fn zeros_like(b: &mut Builder<'_>, op: &'static str, x: Value) -> Result<Value, BuildError> {
    let def = op_def(b, op, "pd_op.full_like")?;
    let zeros = build_typed(
        b,
        def,
        &[Some(x)],
        &[AttrArg::F32(0.0)],
        &[
            AttrArg::DataType(DataType::Undefined),
            AttrArg::Place(Place::default()),
        ],
    )?;
    Ok(b.program().op(zeros).result(0))
}

/// `AssignOut_Op::Vjp`: `x` gets the output grad itself, `output` (overwritten) a zero
/// gradient, `zeros_like(output)` (`full_like(output, 0)`, dtype undefined).
impl VjpOp for AssignOut_Op {
    fn vjp(b: &mut Builder<'_>, _op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.assign_out_";
        let out_grad = first(args.out_grads, 0, OP, "output grad")?;
        let x_grad = Some(out_grad).filter(|_| wanted(args, 0));
        let output_grad = if wanted(args, 1) {
            let output = first(args.inputs, 1, OP, "input")?;
            Some(zeros_like(b, OP, output)?)
        } else {
            None
        };
        Ok(vec![smallvec![x_grad], smallvec![output_grad]])
    }
}

/// `IncrementOp::Vjp`: `scale(out_grad)` with Paddle's API defaults (scale 1, materialised as a
/// `full`, bias 0, bias after scale).
impl VjpOp for IncrementOp {
    fn vjp(b: &mut Builder<'_>, _op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.increment";
        let out_grad = first(args.out_grads, 0, OP, "output grad")?;
        let def = op_def(b, OP, "pd_op.scale")?;
        let scale = build_typed(
            b,
            def,
            &[Some(out_grad)],
            &[AttrArg::Scalar(pir_runtime::meta::Scalar::F32(1.0))],
            &[
                AttrArg::Scalar(pir_runtime::meta::Scalar::F32(0.0)),
                AttrArg::Bool(true),
            ],
        )?;
        Ok(vec![smallvec![Some(b.program().op(scale).result(0))]])
    }
}

/// `Increment_Op::Vjp`: undoes the step on the (popped) counter, `increment_(x, -value)`, and
/// returns no gradient (`x` has no grad semantics).
impl VjpOp for Increment_Op {
    fn vjp(b: &mut Builder<'_>, op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        const OP: &str = "pd_op.increment_";
        let x = first(args.inputs, 0, OP, "input")?;
        let value = match b.program().op(op).attr_data("value") {
            Some(pir_runtime::AttrData::Float(v)) => *v,
            _ => return Err(vjp_error(OP, "its `value` is not a float".into())),
        };
        let def = op_def(b, OP, "pd_op.increment_")?;
        build_typed(b, def, &[Some(x)], &[], &[AttrArg::F32(-value)])?;
        Ok(Vec::new())
    }
}
