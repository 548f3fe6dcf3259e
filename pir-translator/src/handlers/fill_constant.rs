//! `fill_constant` → `pd_op.full` (Paddle's `FillConstantTranscriber` and
//! `FillConstant2FullTranscriber`); with a `ShapeTensor`, `ShapeTensorList` or `ValueTensor`
//! input it needs `pd_op.full_with_tensor`.

use std::borrow::Cow;

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::phi::{AllocationType, Place};
use pir_runtime::pir_spec::AttrKind;
use pir_runtime::{AttrData, OpDef};

use crate::attribute_translator::{phi_dtype_of_code, translate_attribute};
use crate::op_translator::{AttrList, OpContext, OpTranscriber, Operands, TargetOp};
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
            vec!["pd_op.full_with_tensor".into()]
        } else {
            vec!["pd_op.full".into()]
        }
    }

    fn generate_inputs(
        &self,
        _: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<Operands, TranslateError> {
        Ok(Operands::new())
    }

    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let ctx = cx.ctx();
        let bad = |name: &str, problem: &str| TranslateError::Attribute {
            at: Box::new(cx.at_attr(name)),
            op: target.def.name.to_string(),
            name: name.to_string(),
            legacy: name.to_string(),
            problem: problem.to_string(),
        };
        let shape = translate_attribute(ctx, AttrKind::IntArray, cx.attr("shape"))
            .ok()
            .flatten()
            .filter(|a| matches!(ctx.attr_data(*a), AttrData::IntArray(_)))
            .ok_or_else(|| bad("shape", "expected INTS or LONGS"))?;
        let Some(AttrValue::Float(value)) = cx.attr("value") else {
            return Err(bad("value", "expected a FLOAT"));
        };
        let Some(AttrValue::Int(dtype)) = cx.attr("dtype") else {
            return Err(bad("dtype", "expected an INT (a legacy data type code)"));
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
            _ => return Err(bad("place_type", "expected -1, 0, 1, 2 or 3")),
        };
        Ok(AttrList::from_iter([
            (Cow::Borrowed("shape"), shape),
            (Cow::Borrowed("value"), ctx.f32_attr(*value)),
            (
                Cow::Borrowed("dtype"),
                ctx.dtype_attr(phi_dtype_of_code(*dtype)),
            ),
            (Cow::Borrowed("place"), ctx.place_attr(place)),
        ]))
    }
}
