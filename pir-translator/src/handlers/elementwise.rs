//! `elementwise_{add,sub,mul,div,max,min,mod,floordiv}` with an `axis` (Paddle's
//! `ElementwiseTranscriber`), their grads (`ElementwiseGradTranscriber`) and `grad_add`
//! (`GradAddOpTranscriber`).
//!
//! With `axis != -1`, `y` is reshaped so that the PIR op's numpy broadcasting matches the
//! legacy axis broadcasting: `r = rank(x) - axis - rank(y)`; `r <= 0` keeps `(x, y)`; else `y`
//! becomes `[1]*axis ++ y ++ [1]*r` (static dims) or `concat(shape64(y), [1]*r)` (dynamic).

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::phi::DataType;
use pir_runtime::{OpDef, OpId};
use smallvec::SmallVec;

use crate::op_translator::{
    general, is_inplace, OpContext, OpTranscriber, Operands, Outputs, Param, TargetOp,
};
use crate::translate_error::TranslateError;
use crate::variable_map::VariableDefiningInfo;

/// The legacy `axis` (`-1` when absent).
fn axis(op: &LegacyOp) -> i32 {
    match op.attr("axis") {
        Some(AttrValue::Int(a)) => *a,
        _ => -1,
    }
}

/// The operands of an elementwise op with Paddle's axis handling.
pub fn elementwise_inputs<T: OpTranscriber + ?Sized>(
    h: &T,
    cx: &mut OpContext<'_, '_>,
    target: TargetOp,
) -> Result<Operands, TranslateError> {
    let axis = axis(cx.op());
    if axis == -1 {
        return general::generate_inputs(h, cx, target);
    }
    let (x, x_dims) = cx.sliced_dense_input("X")?;
    let (y, y_dims) = cx.sliced_dense_input("Y")?;
    let axis = if axis < 0 {
        axis + x_dims.len() as i32
    } else {
        axis
    };
    let append = x_dims.len() as i64 - i64::from(axis) - y_dims.len() as i64;
    if append <= 0 || axis < 0 {
        return Ok(Operands::from_iter([Some(x), Some(y)]));
    }
    let y_new = if !y_dims.contains(&-1) {
        let shape: SmallVec<[i64; 8]> = std::iter::repeat_n(1, axis as usize)
            .chain(y_dims.iter().copied())
            .chain(std::iter::repeat_n(1, append as usize))
            .collect();
        cx.reshape(y, &shape)?
    } else {
        let shape_op = cx.build("pd_op.shape64", &[Some(y)], &[])?;
        let y_shape = cx.first_result(shape_op)?;
        let ones: SmallVec<[i64; 8]> = std::iter::repeat_n(1, append as usize).collect();
        let ones = cx.full_int_array(&ones)?;
        let parts = cx.build_combine(&[y_shape, ones])?;
        let axis0 = cx.full(0.0, DataType::Int32)?;
        let concat = cx.build("pd_op.concat", &[Some(parts), Some(axis0)], &[])?;
        let new_shape = cx.first_result(concat)?;
        let reshape = cx.build("pd_op.reshape", &[Some(y), Some(new_shape)], &[])?;
        cx.first_result(reshape)?
    };
    Ok(Operands::from_iter([Some(x), Some(y_new)]))
}

/// `elementwise_*` with axis handling; target from op_compat (`elementwise_add` → `pd_op.add`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Elementwise;

impl OpTranscriber for Elementwise {
    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<Operands, TranslateError> {
        elementwise_inputs(self, cx, target)
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        let mut ops = general::required_ops(cx);
        if axis(cx.op()) != -1 {
            ops.extend(["pd_op.reshape", "pd_op.full_int_array"].map(String::from));
        }
        ops
    }
}

/// `grad_add` → `pd_op.add` (`add_` in place) with the elementwise axis handling.
#[derive(Clone, Copy, Debug, Default)]
pub struct GradAdd;

impl GradAdd {
    fn name(op: &LegacyOp) -> &'static str {
        if is_inplace(op) {
            "pd_op.add_"
        } else {
            "pd_op.add"
        }
    }
}

impl OpTranscriber for GradAdd {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def(GradAdd::name(cx.op()))
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        vec![GradAdd::name(cx.op()).to_string()]
    }

    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<Operands, TranslateError> {
        elementwise_inputs(self, cx, target)
    }
}

/// `elementwise_*_grad`: general, then `Y@GRAD` is reshaped to `y`'s dims when `axis != -1`
/// and they differ.
#[derive(Clone, Copy, Debug, Default)]
pub struct ElementwiseGrad;

impl OpTranscriber for ElementwiseGrad {
    fn record_results<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        general::record_results(cx, op, outputs)?;
        if axis(cx.op()) == -1 {
            return Ok(());
        }
        if cx.output("Y@GRAD").is_empty() {
            return Ok(());
        }
        let y_grad_name = cx.single_output("Y@GRAD")?;
        let grad = outputs.value_of(cx, op, "Y@GRAD", y_grad_name)?;
        let [y_name, ..] = cx.input("Y") else {
            return Err(cx.invalid("input `Y` is missing"));
        };
        let y = cx.value_info(Param::input("Y"), y_name)?.value;
        let y_dims = cx
            .dense_dims(y)
            .ok_or_else(|| cx.var_error(y_name, "expected a dense tensor value"))?;
        let grad_dims = cx
            .dense_dims(grad)
            .ok_or_else(|| cx.var_error(y_grad_name, "expected a dense tensor result"))?;
        if grad_dims == y_dims {
            return Ok(());
        }
        let reshaped = cx.reshape(grad, &y_dims)?;
        cx.push(y_grad_name, VariableDefiningInfo::new(reshaped));
        Ok(())
    }
}
