//! Special handlers of the seed list whose target ops the dialect defines: `add_n` / `sum`,
//! `cast`, `assign`, `lookup_table_v2` / `lookup_table` / `lookup_table_v2_grad`, `gather`,
//! `slice`, and the legacy `matmul` (v1).

use std::borrow::Cow;

use pir_legacy::{AttrValue, LegacyOp, VarKind};
use pir_runtime::meta::Scalar;
use pir_runtime::op_support::AttrArg;
use pir_runtime::phi::DataType;
use pir_runtime::pir_spec::{AttributeSpec, InputSpec};
use pir_runtime::{Attribute, OpDef, OpId, Value};

use super::copy_onednn_data_types;
use crate::attribute_translator::{full_value_of, translate_attribute};
use crate::op_translator::{
    general, is_inplace, AttrList, OpContext, OpTranscriber, Operands, Outputs, Param, TargetOp,
};
use crate::translate_error::TranslateError;
use crate::variable_map::VariableDefiningInfo;

use super::defaults::DefaultAttr;

/// `add_n` / `sum` → `pd_op.add_n` (`add_n_` when in place; Paddle's `AddNOpTranscriber`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AddN;

impl AddN {
    fn name(cx: &OpContext<'_, '_>) -> String {
        let op = cx.op();
        let base = cx.compat().op_name(&op.op_type);
        if is_inplace(op) {
            format!("pd_op.{base}_")
        } else {
            format!("pd_op.{base}")
        }
    }
}

impl OpTranscriber for AddN {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def(&AddN::name(cx))
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        vec![AddN::name(cx)]
    }
}

/// `cast` (Paddle's `CastOpTranscriber`): the one attribute `dtype` comes from the legacy
/// `out_dtype`; like Paddle 3.3.1's oneDNN build, the legacy oneDNN data-type attributes are
/// copied.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cast;

impl OpTranscriber for Cast {
    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let ctx = cx.ctx();
        let Some(spec) = target.schema.attributes.first() else {
            return Err(cx.invalid(format!("`{}` has no attribute", target.def.name)));
        };
        let value = cx.attr("out_dtype");
        let attr = translate_attribute(ctx, spec.kind, value).map_err(|e| e.to_string());
        let attr = match value {
            Some(v) => general::check_attribute(cx, target, spec, "out_dtype", v, attr)?,
            None => attr
                .ok()
                .flatten()
                .ok_or_else(|| cx.invalid("attribute `out_dtype` is missing"))?,
        };
        let mut attrs = AttrList::new();
        attrs.push((Cow::Borrowed(static_name(spec)), attr));
        copy_onednn_data_types(cx, &mut attrs);
        Ok(attrs)
    }
}

fn static_name(spec: &'static AttributeSpec) -> &'static str {
    &spec.name
}

/// `assign` (Paddle's `AssignOpTranscriber`): `pd_op.assign_out_(x, out)` when `Out` is
/// already defined, `pd_op.assign_array` for a tensor-array `X`, else `pd_op.assign`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Assign;

impl Assign {
    fn name(cx: &OpContext<'_, '_>) -> Result<&'static str, TranslateError> {
        if let [out, ..] = cx.output("Out") {
            if cx.vars().contains(out) {
                return Ok("pd_op.assign_out_");
            }
        }
        let [x] = cx.input("X") else {
            return Err(cx.invalid("assign should have one input `X`"));
        };
        if cx.var_desc(x)?.kind == VarKind::DenseTensorArray {
            return Ok("pd_op.assign_array");
        }
        Ok("")
    }
}

impl OpTranscriber for Assign {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        match Assign::name(cx)? {
            "" => general::look_up(cx),
            name => cx.op_def(name),
        }
    }

    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<Operands, TranslateError> {
        if target.def.name != "pd_op.assign_out_" {
            return general::generate_inputs(self, cx, target);
        }
        let ([x, ..], [out, ..]) = (cx.input("X"), cx.output("Out")) else {
            return Err(cx.invalid("assign needs `X` and `Out`"));
        };
        let x = cx.value_info(Param::input("X"), x)?.value;
        let out = cx.value_info(Param::output("Out"), out)?.value;
        Ok(Operands::from_iter([Some(x), Some(out)]))
    }
}

/// `lookup_table_v2` / `lookup_table` → `pd_op.embedding` (Paddle's `EmbeddingOpTranscriber`),
/// `lookup_table`'s output then squeezed at axis `-2`; `lookup_table_v2_grad` (`grad`) →
/// `pd_op.embedding_sparse_grad` when `is_sparse`, else `pd_op.embedding_grad`
/// (`EmbeddingGradOpTranscriber`). Both default `padding_idx` to `-1` and `sparse` to `false`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Embedding {
    /// `lookup_table_v2_grad` rather than the forward ops.
    pub grad: bool,
}

impl Embedding {
    /// The target; `None` for a grad whose `is_sparse` is missing or not a BOOLEAN.
    fn target(&self, op: &LegacyOp) -> Option<&'static str> {
        if !self.grad {
            return Some("pd_op.embedding");
        }
        match op.attr("is_sparse") {
            Some(AttrValue::Bool(true)) => Some("pd_op.embedding_sparse_grad"),
            Some(AttrValue::Bool(false)) => Some("pd_op.embedding_grad"),
            _ => None,
        }
    }
}

impl OpTranscriber for Embedding {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        let name = self
            .target(cx.op())
            .ok_or_else(|| cx.invalid("attribute `is_sparse` is missing or not a BOOLEAN"))?;
        cx.op_def(name)
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        let target = self.target(cx.op()).unwrap_or("pd_op.embedding_grad");
        let mut ops = vec![target.to_string()];
        if cx.op_type() == "lookup_table" {
            ops.extend(["pd_op.squeeze", "pd_op.full_int_array"].map(String::from));
        }
        ops
    }

    fn missing_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        match &*spec.name {
            "padding_idx" => Ok(Some(DefaultAttr::I64(-1).attribute(cx.ctx()))),
            "sparse" => Ok(Some(DefaultAttr::Bool(false).attribute(cx.ctx()))),
            _ => general::missing_attribute(cx, target, spec),
        }
    }

    fn record_results<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        general::record_results(cx, op, outputs)?;
        if cx.op_type() != "lookup_table" {
            return Ok(());
        }
        let out_name = cx.single_output("Out")?;
        let out = cx.value_info(Param::output("Out"), out_name)?.value;
        let axis = cx.full_int_array(&[-2])?;
        let squeeze = cx.build("pd_op.squeeze", &[Some(out), Some(axis)], &[])?;
        let v = cx.first_result(squeeze)?;
        cx.push(out_name, VariableDefiningInfo::new(v));
        Ok(())
    }
}

/// `gather` (Paddle's `GatherOpTranscriber`): the `axis` operand is a `full` of the legacy
/// attribute, or `full(0)` (int64) when the op has none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gather;

impl OpTranscriber for Gather {
    fn attribute_as_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Value, TranslateError> {
        let legacy = self.legacy_attr_name(cx, &input.name);
        let Some(value) = cx.attr(legacy) else {
            return cx.full(0.0, DataType::Int64);
        };
        let attr = translate_attribute(
            cx.ctx(),
            pir_runtime::pir_spec::AttrKind::Scalar,
            Some(value),
        )
        .ok()
        .flatten()
        .and_then(|a| full_value_of(cx.ctx(), a));
        match attr {
            Some((v, dtype)) => cx.full(v, dtype),
            None => Err(cx.invalid(format!("attribute `{legacy}` is not a number"))),
        }
    }
}

/// `slice` (Paddle's `SliceOpTranscriber`): `pd_op.slice`, or `pd_op.slice_array_dense` /
/// `pd_op.slice_array` for a tensor-array input.
#[derive(Clone, Copy, Debug, Default)]
pub struct Slice;

impl Slice {
    fn name(op: &LegacyOp, kind_of: impl Fn(&str) -> Option<VarKind>) -> &'static str {
        let array_in = op
            .input("Input")
            .and_then(|v| v.first())
            .and_then(|n| kind_of(n))
            == Some(VarKind::DenseTensorArray);
        if !array_in {
            return "pd_op.slice";
        }
        let dense_out = op
            .output("Out")
            .and_then(|v| v.first())
            .and_then(|n| kind_of(n))
            == Some(VarKind::DenseTensor);
        if dense_out {
            "pd_op.slice_array_dense"
        } else {
            "pd_op.slice_array"
        }
    }
}

impl OpTranscriber for Slice {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        let name = Slice::name(cx.op(), |n| cx.var_desc(n).ok().map(|v| v.kind));
        cx.op_def(name)
    }
}

/// The legacy `matmul` (v1) → `pd_op.matmul` (Paddle's `LegacyMatmulOpTranscriber`):
/// `Scale_x/y/out` must be 1; an `alpha` other than 1 appends `scale(out, alpha)`, which is
/// then what `Out` maps to.
#[derive(Clone, Copy, Debug, Default)]
pub struct LegacyMatmul;

impl OpTranscriber for LegacyMatmul {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        for name in ["Scale_x", "Scale_y", "Scale_out"] {
            if let Some(AttrValue::Float(v)) = cx.attr(name) {
                if (v - 1.0).abs() > 1e-6 {
                    return Err(TranslateError::Unsupported {
                        at: Box::new(cx.at_attr(name)),
                        what: format!("legacy matmul with `{name}` = {v} (only 1 translates)"),
                    });
                }
            }
        }
        cx.op_def("pd_op.matmul")
    }

    fn required_ops(&self, _: &OpContext<'_, '_>) -> Vec<String> {
        vec!["pd_op.matmul".into()]
    }

    fn missing_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        match &*spec.name {
            "transpose_x" | "transpose_y" => Ok(Some(cx.ctx().bool_attr(false))),
            _ => general::missing_attribute(cx, target, spec),
        }
    }

    fn record_results<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        general::record_results(cx, op, outputs)?;
        let alpha = match cx.attr("alpha") {
            Some(AttrValue::Float(a)) => *a,
            _ => 1.0,
        };
        if (alpha - 1.0).abs() < 1e-6 {
            return Ok(());
        }
        let out_name = cx.single_output("Out")?;
        let out = outputs.value_of(cx, op, "Out", out_name)?;
        let scale = cx.full(alpha, DataType::Float32)?;
        let scaled = cx.build(
            "pd_op.scale",
            &[Some(out), Some(scale)],
            &[AttrArg::Scalar(Scalar::F32(0.0)), AttrArg::Bool(true)],
        )?;
        let v = cx.first_result(scaled)?;
        cx.push(out_name, VariableDefiningInfo::new(v));
        Ok(())
    }
}
