//! `split` (Paddle's `SplitOpTranscriber`): `num > 0` → `pd_op.split_with_num` (attribute
//! `num`); else `pd_op.split` with `sections` from `SectionsTensorList` or a `full_int_array`
//! of the attribute, and `axis` from `AxisTensor` or a `full` of the attribute.

use std::borrow::Cow;

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::pir_spec::AttrKind;
use pir_runtime::{AttrData, OpDef};

use super::copy_onednn_data_types;
use crate::attribute_translator::{full_value_of, translate_attribute};
use crate::op_translator::{AttrList, OpContext, OpTranscriber, Operands, Param, TargetOp};
use crate::translate_error::TranslateError;

fn num(op: &LegacyOp) -> Option<i32> {
    match op.attr("num") {
        Some(AttrValue::Int(n)) => Some(*n),
        _ => None,
    }
}

fn target(op: &LegacyOp) -> &'static str {
    if num(op).unwrap_or(0) > 0 {
        "pd_op.split_with_num"
    } else {
        "pd_op.split"
    }
}

/// `split`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Split;

impl OpTranscriber for Split {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        if num(cx.op()).is_none() {
            return Err(cx.invalid("attribute `num` is missing or not an INT"));
        }
        cx.op_def(target(cx.op()))
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        [target(cx.op()), "pd_op.full_int_array", "pd_op.full"]
            .map(String::from)
            .to_vec()
    }

    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<Operands, TranslateError> {
        let [x_name] = cx.input("X") else {
            return Err(cx.invalid("input `X` of split must be one tensor"));
        };
        let x = cx.value_info(Param::input("X"), x_name)?.value;
        let mut operands = Operands::from_iter([Some(x)]);
        let ctx = cx.ctx();
        if num(cx.op()).unwrap_or(0) <= 0 {
            let list = cx.input("SectionsTensorList");
            if !list.is_empty() {
                operands.push(Some(cx.combine(Param::input("SectionsTensorList"), list)?));
            } else {
                let sections = translate_attribute(ctx, AttrKind::IntArray, cx.attr("sections"))
                    .ok()
                    .flatten();
                let Some(AttrData::IntArray(v)) = sections.map(|a| ctx.attr_data(a)) else {
                    return Err(cx.invalid("attribute `sections` is missing or not INTS/LONGS"));
                };
                operands.push(Some(cx.full_int_array(v)?));
            }
        }
        match cx.input("AxisTensor") {
            [] => {
                let axis = translate_attribute(ctx, AttrKind::Int32, cx.attr("axis"))
                    .ok()
                    .flatten()
                    .and_then(|a| full_value_of(ctx, a));
                let Some((v, dtype)) = axis else {
                    return Err(cx.invalid("attribute `axis` is missing or not a number"));
                };
                operands.push(Some(cx.full(v, dtype)?));
            }
            [axis] => operands.push(Some(cx.value_info(Param::input("AxisTensor"), axis)?.value)),
            more => {
                return Err(cx.invalid(format!(
                    "input `AxisTensor` of split must be one tensor, got {}",
                    more.len()
                )))
            }
        }
        Ok(operands)
    }

    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let ctx = cx.ctx();
        let mut attrs = AttrList::new();
        let n = num(cx.op()).unwrap_or(0);
        if n > 0 {
            attrs.push((Cow::Borrowed("num"), ctx.i32_attr(n)));
            return Ok(attrs);
        }
        copy_onednn_data_types(cx, &mut attrs);
        Ok(attrs)
    }
}
