//! Handlers that replace the translation of attributes (Paddle's
//! `GetSpecialAttributeHandlers` and `TranslateOpAttribute` overrides); inputs, outputs and the
//! other attributes follow the general rule.
//!
//! * `range` (`ArangeOpTranscriber`): `dtype` is the data type of the legacy input `Start`'s
//!   variable;
//! * `reduce_all`, `reduce_any` (`ReduceOpTranscriber`): `axis` is `[]` when the legacy
//!   `reduce_all` is true, else the legacy `dim` translated for the target kind;
//! * `increment` (`IncrementOpTranscriber`): the one attribute `value` is the legacy `step`
//!   translated by the general visitor (a FLOAT stays a `float`), `1.0` when absent.

use std::borrow::Cow;

use pir_legacy::AttrValue;
use pir_runtime::pir_spec::AttributeSpec;
use pir_runtime::Attribute;

use super::{attr_error, input_error};
use crate::attribute_translator::translate_general_attribute;
use crate::op_translator::{general, AttrList, OpContext, OpTranscriber, TargetOp};
use crate::translate_error::TranslateError;

/// `range` → `pd_op.arange`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arange;

impl OpTranscriber for Arange {
    fn translate_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        if spec.name != "dtype" {
            return general::translate_attribute(self, cx, target, spec);
        }
        let [start] = cx.input("Start") else {
            let problem = format!(
                "`dtype` is read from `Start`, which must be one variable, but the legacy op gives \
                 {}",
                cx.input("Start").len()
            );
            return Err(input_error(cx, target, "start", "Start", problem));
        };
        let var = cx.var_desc(start)?;
        let dtype = var.dtype().ok_or_else(|| {
            cx.var_error(
                start,
                "`range` reads its `dtype` from `Start`, which has no data type",
            )
        })?;
        Ok(Some(cx.ctx().dtype_attr(dtype)))
    }
}

/// `reduce_all` → `pd_op.all`, `reduce_any` → `pd_op.any`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReduceAllAny;

impl OpTranscriber for ReduceAllAny {
    fn translate_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        if spec.name != "axis" {
            return general::translate_attribute(self, cx, target, spec);
        }
        match cx.attr("reduce_all") {
            None | Some(AttrValue::Bool(false)) => {}
            Some(AttrValue::Bool(true)) => return Ok(Some(cx.ctx().array_attr(&[]))),
            Some(_) => {
                return Err(attr_error(
                    cx,
                    target,
                    "axis",
                    "reduce_all",
                    "expected a BOOLEAN".into(),
                ))
            }
        }
        if cx.attr(self.legacy_attr_name(cx, &spec.name)).is_none() {
            let legacy = self.legacy_attr_name(cx, &spec.name);
            return Err(attr_error(
                cx,
                target,
                "axis",
                legacy,
                "the legacy op has neither `reduce_all = true` nor this attribute".into(),
            ));
        }
        general::translate_attribute(self, cx, target, spec)
    }
}

/// `increment` → `pd_op.increment` (`increment_` in place).
#[derive(Clone, Copy, Debug, Default)]
pub struct Increment;

impl OpTranscriber for Increment {
    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let ctx = cx.ctx();
        let value = match cx.attr("step") {
            None => ctx.f32_attr(1.0),
            Some(step) => translate_general_attribute(ctx, Some(step))
                .ok()
                .flatten()
                .ok_or_else(|| {
                    attr_error(cx, target, "value", "step", "expected a number".into())
                })?,
        };
        Ok(AttrList::from_iter([(Cow::Borrowed("value"), value)]))
    }
}
