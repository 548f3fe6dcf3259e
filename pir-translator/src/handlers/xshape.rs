//! Grad ops of legacy ops with an `XShape` output (Paddle's `WithXShapeGradOpTranscriber` and
//! `WithXShapeAndAxisGradOpTranscriber`): `reshape2_grad`, `flatten_contiguous_range_grad`,
//! `squeeze2_grad`, `unsqueeze2_grad`.
//!
//! The PIR forward ops have no `XShape` result, so the variable is unmapped. The grad op reads
//! it through a new `pd_op.data` named after it whose shape is the `XShape` dims without the
//! leading `0` (the forward input's dims), built at the end of the block; the grad op is then
//! built (result types inferred) from that value and `Out@GRAD` (and the axes for
//! (un)squeeze), and `X@GRAD` is mapped to its result.

use pir_legacy::AttrValue;
use pir_runtime::{OpId, Value};
use smallvec::SmallVec;

use crate::op_translator::{OpContext, OpTranscriber, Param};
use crate::translate_error::TranslateError;
use crate::type_translator::tensor_meta;
use crate::variable_map::VariableDefiningInfo;

/// Paddle's `ParseXAndOutGradValue`: the `pd_op.data` standing for `XShape` and the value of
/// `Out@GRAD`.
fn x_and_out_grad(cx: &mut OpContext<'_, '_>) -> Result<(Value, Value), TranslateError> {
    let [xshape_name, ..] = cx.input("XShape") else {
        return Err(cx.invalid("input `XShape` is missing"));
    };
    let [out_grad_name, ..] = cx.input("Out@GRAD") else {
        return Err(cx.invalid("input `Out@GRAD` is missing"));
    };
    let var = cx.var_desc(xshape_name)?;
    let (dtype, dims) = tensor_meta(var).map_err(|e| cx.var_error(xshape_name, e.to_string()))?;
    let Some((_, shape)) = dims.split_first() else {
        return Err(cx.var_error(xshape_name, "an XShape variable needs at least one dim"));
    };
    let data = cx.data(xshape_name, dtype, shape)?;
    if let Some(old) = cx.vars().get(xshape_name).copied() {
        // Replace (and erase) an earlier definition, as Paddle does.
        cx.program_mut().replace_all_uses_with(old.value, data);
        cx.vars_mut().pop(xshape_name);
        if let Some(op) = cx.program().defining_op(old.value) {
            let at = cx.at();
            cx.program_mut()
                .erase_op(op)
                .map_err(|source| TranslateError::Ir {
                    at: Box::new(at),
                    source,
                })?;
        }
    }
    cx.push(xshape_name, VariableDefiningInfo::new(data));
    let out_grad = cx.sliced_value(Param::input("Out@GRAD"), out_grad_name)?;
    if cx.dense_dims(out_grad).is_none() {
        return Err(cx.var_error(out_grad_name, "expected a dense tensor value"));
    }
    Ok((data, out_grad))
}

/// Paddle's `ParseAxis`: `AxesTensor`, `AxesTensorList` (combined) or a `full_int_array` of
/// the `axes` attribute.
fn axes(cx: &mut OpContext<'_, '_>) -> Result<Value, TranslateError> {
    match cx.input("AxesTensor") {
        [name] => return Ok(cx.value_info(Param::input("AxesTensor"), name)?.value),
        [] => {}
        more => {
            return Err(cx.invalid(format!(
                "input `AxesTensor` must be one tensor, got {}",
                more.len()
            )))
        }
    }
    let list = cx.input("AxesTensorList");
    if !list.is_empty() {
        return cx.combine(Param::input("AxesTensorList"), list);
    }
    let axes: Vec<i64> = match cx.attr("axes") {
        Some(AttrValue::Ints(v)) => v.iter().map(|&a| i64::from(a)).collect(),
        Some(AttrValue::Longs(v)) => v.clone(),
        _ => return Err(cx.invalid("attribute `axes` is missing or not INTS/LONGS")),
    };
    cx.full_int_array(&axes)
}

fn finish(cx: &mut OpContext<'_, '_>, op: OpId) -> Result<(), TranslateError> {
    let [out_name, ..] = cx.output("X@GRAD") else {
        return Err(cx.invalid("output `X@GRAD` is missing"));
    };
    let result = cx.first_result(op)?;
    cx.push(out_name, VariableDefiningInfo::new(result));
    Ok(())
}

/// `reshape2_grad` → `pd_op.reshape_grad`, `flatten_contiguous_range_grad` →
/// `pd_op.flatten_grad`; with `axes` (Paddle's `WithXShapeAndAxisGradOpTranscriber`),
/// `squeeze2_grad` → `pd_op.squeeze_grad`, `unsqueeze2_grad` → `pd_op.unsqueeze_grad`, the axes
/// being the third operand.
#[derive(Clone, Copy, Debug)]
pub struct WithXShapeGrad {
    /// The grad op to build (`pd_op.reshape_grad`).
    pub target: &'static str,
    /// Whether the grad op takes the axes (`AxesTensor`, `AxesTensorList` or `axes`).
    pub axes: bool,
}

impl OpTranscriber for WithXShapeGrad {
    fn translate(&self, cx: &mut OpContext<'_, '_>) -> Result<(), TranslateError> {
        cx.op_def(self.target)?;
        let (x, out_grad) = x_and_out_grad(cx)?;
        let mut operands: SmallVec<[Option<Value>; 3]> =
            SmallVec::from_slice(&[Some(x), Some(out_grad)]);
        if self.axes {
            operands.push(Some(axes(cx)?));
        }
        let op = cx.build(self.target, &operands, &[])?;
        finish(cx, op)
    }

    fn required_ops(&self, _: &OpContext<'_, '_>) -> Vec<String> {
        let mut ops = vec![self.target.into(), "pd_op.data".into()];
        if self.axes {
            ops.push("pd_op.full_int_array".into());
        }
        ops
    }
}
