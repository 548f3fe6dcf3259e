//! `assign_value` → `pd_op.assign_value` (Paddle's `AssignValueOpTranscriber`, which follows
//! `paddle.assign` in Python): no operands; `shape` and `dtype` from the legacy attributes of
//! the same names, translated for the target kinds; `place` undefined; `values` from the first
//! of `bool_values`, `fp32_values`, `int32_values`, `int64_values`, `values` that the op has
//! and that translates to a non-empty array.

use std::borrow::Cow;

use pir_runtime::phi::Place;
use pir_runtime::pir_spec::AttributeSpec;
use pir_runtime::{AttrData, OpDef};

use super::attr_error;
use crate::attribute_translator::translate_attribute;
use crate::op_translator::{general, AttrList, OpContext, OpTranscriber, TargetOp};
use crate::translate_error::TranslateError;

/// The legacy attributes that may hold the values, in Paddle's order.
const VALUE_ATTRS: [&str; 5] = [
    "bool_values",
    "fp32_values",
    "int32_values",
    "int64_values",
    "values",
];

/// `assign_value`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AssignValue;

fn spec(target: TargetOp, name: &str) -> Option<&'static AttributeSpec> {
    target.schema.attributes.iter().find(|a| a.name == name)
}

impl OpTranscriber for AssignValue {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def("pd_op.assign_value")
    }

    fn required_ops(&self, _: &OpContext<'_, '_>) -> Vec<String> {
        vec!["pd_op.assign_value".into()]
    }

    fn insert_slices(&self, _: &mut OpContext<'_, '_>, _: TargetOp) -> Result<(), TranslateError> {
        Ok(())
    }

    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let mut attrs = AttrList::new();
        for name in ["shape", "dtype"] {
            let Some(s) = spec(target, name) else {
                return Err(cx.invalid(format!("`{}` has no `{name}`", target.def.name)));
            };
            let Some(value) = cx.attr(name) else {
                return Err(attr_error(
                    cx,
                    target,
                    name,
                    name,
                    "assign_value must have it".into(),
                ));
            };
            let a = translate_attribute(cx.ctx(), s.kind, Some(value)).map_err(|e| e.to_string());
            attrs.push((
                Cow::Borrowed(name),
                general::check_attribute(cx, target, s, name, value, a)?,
            ));
        }
        attrs.push((
            Cow::Borrowed("place"),
            cx.ctx().place_attr(Place::default()),
        ));
        let Some(values_spec) = spec(target, "values") else {
            return Err(cx.invalid(format!("`{}` has no `values`", target.def.name)));
        };
        for name in VALUE_ATTRS {
            let Some(value) = cx.attr(name) else {
                continue;
            };
            let Ok(Some(a)) = translate_attribute(cx.ctx(), values_spec.kind, Some(value)) else {
                continue;
            };
            if matches!(cx.ctx().attr_data(a), AttrData::Array(v) if !v.is_empty()) {
                let a =
                    general::check_attribute(cx, target, values_spec, name, value, Ok(Some(a)))?;
                attrs.push((Cow::Borrowed("values"), a));
                return Ok(attrs);
            }
        }
        Err(attr_error(
            cx,
            target,
            "values",
            "values",
            "assign_value needs a non-empty `bool_values`, `fp32_values`, `int32_values`, \
             `int64_values` or `values`"
                .into(),
        ))
    }
}
