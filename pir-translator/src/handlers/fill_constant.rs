//! `fill_constant` → `pd_op.full` (Paddle's `FillConstantTranscriber` and
//! `FillConstant2FullTranscriber`); with a `ShapeTensor`, `ShapeTensorList` or `ValueTensor`
//! input, `pd_op.full_with_tensor` (`FillConstant2FullWithTensorTranscriber`): its `value`
//! operand is the `ValueTensor` or a `full([1])` of the FLOAT `value`, its `shape` operand the
//! `ShapeTensor`, a `stack` of the `ShapeTensorList`, or a `full_int_array` of the `shape`
//! attribute, and its one attribute is `dtype`.

use std::borrow::Cow;

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::op_support::AttrArg;
use pir_runtime::phi::{AllocationType, DataType, Place};
use pir_runtime::pir_spec::AttrKind;
use pir_runtime::{AttrData, Attribute, OpDef};

use super::attr_error;
use crate::attribute_translator::{phi_dtype_of_code, translate_attribute};
use crate::op_translator::{AttrList, OpContext, OpTranscriber, Operands, Param, TargetOp};
use crate::translate_error::TranslateError;

const TENSOR_INPUTS: [&str; 3] = ["ShapeTensor", "ShapeTensorList", "ValueTensor"];

fn has_tensor_input(op: &LegacyOp) -> bool {
    TENSOR_INPUTS
        .iter()
        .any(|p| op.input(p).is_some_and(|v| !v.is_empty()))
}

/// `fill_constant`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FillConstant;

impl OpTranscriber for FillConstant {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        if has_tensor_input(cx.op()) {
            return cx.op_def("pd_op.full_with_tensor");
        }
        cx.op_def("pd_op.full")
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        if has_tensor_input(cx.op()) {
            [
                "pd_op.full_with_tensor",
                "pd_op.full",
                "pd_op.stack",
                "pd_op.full_int_array",
            ]
            .map(String::from)
            .to_vec()
        } else {
            vec!["pd_op.full".into()]
        }
    }

    fn insert_slices(&self, _: &mut OpContext<'_, '_>, _: TargetOp) -> Result<(), TranslateError> {
        // Paddle's fill_constant transcribers take every operand as mapped.
        Ok(())
    }

    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<Operands, TranslateError> {
        if !has_tensor_input(cx.op()) {
            return Ok(Operands::new());
        }
        let value = match cx.input("ValueTensor") {
            [] => {
                let Some(AttrValue::Float(v)) = cx.attr("value") else {
                    return Err(bad(cx, target, "value", "expected a FLOAT"));
                };
                cx.full(*v, DataType::Float32)?
            }
            [v, ..] => cx.value_info(Param::input("ValueTensor"), v)?.value,
        };
        let shape = match (cx.input("ShapeTensor"), cx.input("ShapeTensorList")) {
            ([s, ..], _) => cx.value_info(Param::input("ShapeTensor"), s)?.value,
            ([], list) if !list.is_empty() => {
                let combined = cx.combine(Param::input("ShapeTensorList"), list)?;
                let stack = cx.build("pd_op.stack", &[Some(combined)], &[AttrArg::I32(0)])?;
                cx.first_result(stack)?
            }
            _ => {
                let shape = shape_attr(cx, target)?;
                let AttrData::IntArray(v) = cx.ctx().attr_data(shape) else {
                    return Err(bad(cx, target, "shape", "expected INTS or LONGS"));
                };
                let v = v.to_vec();
                cx.full_int_array(&v)?
            }
        };
        Ok(Operands::from_iter([Some(value), Some(shape)]))
    }

    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let ctx = cx.ctx();
        let Some(AttrValue::Int(dtype)) = cx.attr("dtype") else {
            return Err(bad(
                cx,
                target,
                "dtype",
                "expected an INT (a legacy data type code)",
            ));
        };
        let dtype = (
            Cow::Borrowed("dtype"),
            ctx.dtype_attr(phi_dtype_of_code(*dtype)),
        );
        if has_tensor_input(cx.op()) {
            return Ok(AttrList::from_iter([dtype]));
        }
        let shape = shape_attr(cx, target)?;
        let Some(AttrValue::Float(value)) = cx.attr("value") else {
            return Err(bad(cx, target, "value", "expected a FLOAT"));
        };
        let mut place_type = match cx.attr("place_type") {
            Some(AttrValue::Int(p)) => *p,
            _ => -1,
        };
        if let Some(AttrValue::Bool(true)) = cx.attr("force_cpu") {
            place_type = 0;
        }
        let place = match place_type {
            -1 => Place::default(),
            0 => Place::cpu(),
            1 => Place::gpu(0),
            2 => Place {
                kind: AllocationType::GpuPinned,
                device: 0,
            },
            3 => Place {
                kind: AllocationType::Xpu,
                device: 0,
            },
            _ => return Err(bad(cx, target, "place_type", "expected -1, 0, 1, 2 or 3")),
        };
        Ok(AttrList::from_iter([
            (Cow::Borrowed("shape"), shape),
            (Cow::Borrowed("value"), ctx.f32_attr(*value)),
            dtype,
            (Cow::Borrowed("place"), ctx.place_attr(place)),
        ]))
    }
}

/// A located error for legacy attribute `name` of the op.
fn bad(cx: &OpContext<'_, '_>, target: TargetOp, name: &str, problem: &str) -> TranslateError {
    attr_error(cx, target, name, name, problem.to_string())
}

/// The `shape` attribute as an IntArray.
fn shape_attr(cx: &OpContext<'_, '_>, target: TargetOp) -> Result<Attribute, TranslateError> {
    let ctx = cx.ctx();
    translate_attribute(ctx, AttrKind::IntArray, cx.attr("shape"))
        .ok()
        .flatten()
        .filter(|a| matches!(ctx.attr_data(*a), AttrData::IntArray(_)))
        .ok_or_else(|| bad(cx, target, "shape", "expected INTS or LONGS"))
}
