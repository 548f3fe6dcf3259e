//! Program inputs and outputs: `feed`, `fetch` / `fetch_v2`, the legacy `data` op and
//! `shadow_output` (Paddle's `FeedOpTranscriber`, `FetchOpTranscriber`, `DataOpTranscriber`,
//! `ShadowOutputOpTranscriber`).

use std::borrow::Cow;

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::phi::{AllocationType, Place};
use pir_runtime::{builtin, Attribute, OpDef};

use super::attr_error;
use crate::attribute_translator::{phi_dtype_of_code, translate_attribute};
use crate::op_translator::{argument_names, AttrList, OpContext, OpTranscriber, Param, TargetOp};
use crate::translate_error::TranslateError;

fn int_attr_or(op: &LegacyOp, name: &str, default: i32) -> i32 {
    match op.attr(name) {
        Some(AttrValue::Int(i)) => *i,
        _ => default,
    }
}

/// The `name` (the fed or fetched variable) and `col` (the legacy `col`, 0 if absent)
/// attributes of `pd_op.feed` and `pd_op.fetch`.
fn name_and_col(cx: &OpContext<'_, '_>, name: &str) -> [(Cow<'static, str>, Attribute); 2] {
    let ctx = cx.ctx();
    [
        (Cow::Borrowed("name"), ctx.str_attr(name)),
        (
            Cow::Borrowed("col"),
            ctx.i32_attr(int_attr_or(cx.op(), "col", 0)),
        ),
    ]
}

fn first<'a>(
    cx: &OpContext<'_, '_>,
    names: impl Iterator<Item = &'a str>,
    what: &str,
) -> Result<&'a str, TranslateError> {
    let mut names = names;
    names
        .next()
        .ok_or_else(|| cx.invalid(format!("the op has no {what} variable")))
}

/// `feed` → `pd_op.feed`: no operands; attributes `name` (the output variable) and `col`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Feed;

impl OpTranscriber for Feed {
    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let name = first(cx, argument_names(&cx.op().outputs), "output")?;
        Ok(AttrList::from_iter(name_and_col(cx, name)))
    }
}

/// `fetch` / `fetch_v2` → `pd_op.fetch`: operand the fetched value; attributes `name` (the
/// input variable) and `col`; result type the operand's; the result is not mapped.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fetch;

impl OpTranscriber for Fetch {
    fn translate(&self, cx: &mut OpContext<'_, '_>) -> Result<(), TranslateError> {
        let def = self.look_up(cx)?;
        let target = cx.target(def)?;
        self.insert_slices(cx, target)?;
        let operands = self.generate_inputs(cx, target)?;
        let name = first(cx, argument_names(&cx.op().inputs), "input")?;
        let attrs = name_and_col(cx, name);
        let ty = operands
            .first()
            .copied()
            .flatten()
            .and_then(|v| cx.program().value_type(v))
            .ok_or_else(|| cx.invalid("the fetched value is null or has a null type"))?;
        cx.create_op(def, &operands, &attrs, &[Some(ty)])?;
        Ok(())
    }
}

/// The legacy `data` op → `pd_op.data`: no operands; attributes `name`, `shape`, `dtype` (from
/// the legacy type code) and `place` (from the legacy allocation type).
#[derive(Clone, Copy, Debug, Default)]
pub struct Data;

impl OpTranscriber for Data {
    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let ctx = cx.ctx();
        let required_int = |name: &str| match cx.attr(name) {
            Some(AttrValue::Int(i)) => Ok(*i),
            other => Err(attr_error(
                cx,
                target,
                name,
                name,
                match other {
                    Some(v) => format!("expected an INT, found {}", v.attr_type().proto_name()),
                    None => "the legacy op has no such attribute".into(),
                },
            )),
        };
        let place_code = required_int("place")?;
        let dtype = required_int("dtype")?;
        let kind = match place_code {
            0 => AllocationType::Undefined,
            1 => AllocationType::Cpu,
            2 => AllocationType::Gpu,
            3 => AllocationType::GpuPinned,
            4 => AllocationType::Xpu,
            7 => AllocationType::Ipu,
            9 => {
                return Err(TranslateError::Unsupported {
                    at: Box::new(cx.at_attr("place")),
                    what: "a custom-device place".into(),
                })
            }
            other => {
                return Err(cx.invalid(format!(
                    "attribute `place` is {other}, not an allocation type"
                )))
            }
        };
        let shape = translate_attribute(
            ctx,
            pir_runtime::pir_spec::AttrKind::IntArray,
            cx.attr("shape"),
        )
        .ok()
        .flatten()
        .filter(|a| matches!(ctx.attr_data(*a), pir_runtime::AttrData::IntArray(_)))
        .ok_or_else(|| cx.invalid("attribute `shape` is missing or not INTS/LONGS"))?;
        let name = match cx.attr("name") {
            Some(AttrValue::String(s)) => s.as_str(),
            _ => "",
        };
        Ok(AttrList::from_iter([
            (Cow::Borrowed("name"), ctx.str_attr(name)),
            (Cow::Borrowed("shape"), shape),
            (
                Cow::Borrowed("dtype"),
                ctx.dtype_attr(phi_dtype_of_code(dtype)),
            ),
            (
                Cow::Borrowed("place"),
                ctx.place_attr(Place { kind, device: 0 }),
            ),
        ]))
    }
}

/// `shadow_output` → `builtin.shadow_output(x) {output_name}` (skipped by the program
/// translator when `x` is unmapped).
#[derive(Clone, Copy, Debug, Default)]
pub struct ShadowOutput;

impl OpTranscriber for ShadowOutput {
    fn translate(&self, cx: &mut OpContext<'_, '_>) -> Result<(), TranslateError> {
        let [name, ..] = cx.input("x") else {
            return Err(cx.invalid("shadow_output has no input `x`"));
        };
        let value = cx.sliced_value(Param::input("x"), name)?;
        let output_name = match cx.attr("name") {
            Some(AttrValue::String(s)) => s.as_str(),
            _ => "",
        };
        let attrs = [(Cow::Borrowed("output_name"), cx.ctx().str_attr(output_name))];
        cx.create_op(&builtin::SHADOW_OUTPUT_DEF, &[Some(value)], &attrs, &[])?;
        Ok(())
    }

    fn look_up(&self, _: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        Ok(&builtin::SHADOW_OUTPUT_DEF)
    }

    fn required_ops(&self, _: &OpContext<'_, '_>) -> Vec<String> {
        vec!["builtin.shadow_output".into()]
    }
}
