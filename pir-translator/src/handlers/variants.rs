//! Handlers whose target op or operands depend on which legacy inputs an op has:
//!
//! * `set_value` (`LegacySetValueDispatcher`): with a `ValueTensor`, `pd_op.set_value_with_tensor`
//!   whose `values` operand is that tensor (`SetValueWithTensorOpTranscriber`), else the
//!   general `pd_op.set_value(_)`; `set_value_grad` → `pd_op.set_value_with_tensor_grad`, its
//!   `values` likewise;
//! * `repeat_interleave(_grad)` (`RepeatInterLeave(Grad)OpTranscriber`): with a
//!   `RepeatsTensor`, `pd_op.repeat_interleave_with_tensor_index(_grad)`; the operands are `X`,
//!   the `RepeatsTensor` when present, and (grad) `Out@GRAD`;
//! * `randint` (`RandIntOpTranscriber`): the result has the dims of `Out`'s variable and the
//!   element type of the `dtype` attribute;
//! * `fused_elemwise_add_activation_grad`: refused when it produces `IntermediateOut@GRAD`,
//!   which the PIR op does not have;
//! * `lod_array_length` → `pd_op.array_length`, `write_to_array` → `pd_op.array_write_`
//!   (`LodArrayLengthOpTranscriber`, `WriteArrayOpTranscriber`): the array operand (`X`,
//!   respectively the `Out` variable) is its value when defined, else a new
//!   `pd_op.create_array` of the variable's dtype.

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::op_support::AttrArg;
use pir_runtime::pir_spec::InputSpec;
use pir_runtime::{OpDef, Value};

use super::defaults::FUSED_ELEMWISE_ADD_ACTIVATION;
use super::{attr_error, input_error};
use crate::attribute_translator::phi_dtype_of_code;
use crate::op_translator::{general, OpContext, OpTranscriber, Operands, Outputs, Param, TargetOp};
use crate::translate_error::TranslateError;

fn has_input(op: &LegacyOp, param: &str) -> bool {
    op.input(param).is_some_and(|v| !v.is_empty())
}

/// The `ValueTensor` of a set_value op, taken out of its vector when it is an element of one.
fn value_tensor(
    cx: &mut OpContext<'_, '_>,
    target: TargetOp,
    input: &'static InputSpec,
) -> Result<Value, TranslateError> {
    match cx.input("ValueTensor") {
        [name] => cx.sliced_value(Param::input("ValueTensor"), name),
        other => {
            let problem = format!(
                "`ValueTensor` must be one variable, but the legacy op gives {}",
                other.len()
            );
            Err(input_error(cx, target, &input.name, "ValueTensor", problem))
        }
    }
}

/// `set_value` (`grad: false`) and `set_value_grad` (`grad: true`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SetValue {
    /// `set_value_grad`.
    pub grad: bool,
}

impl SetValue {
    fn with_tensor(&self, op: &LegacyOp) -> bool {
        self.grad || has_input(op, "ValueTensor")
    }
}

impl OpTranscriber for SetValue {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        match (self.grad, self.with_tensor(cx.op())) {
            (true, _) => cx.op_def("pd_op.set_value_with_tensor_grad"),
            (false, true) => cx.op_def("pd_op.set_value_with_tensor"),
            (false, false) => general::look_up(cx),
        }
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        let mut ops = general::required_ops(cx);
        ops.push(
            match (self.grad, self.with_tensor(cx.op())) {
                (true, _) => "pd_op.set_value_with_tensor_grad",
                (false, true) => "pd_op.set_value_with_tensor",
                (false, false) => "pd_op.set_value",
            }
            .into(),
        );
        ops.push("pd_op.full_int_array".into());
        ops
    }

    fn generate_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Option<Value>, TranslateError> {
        if input.name == "values" && self.with_tensor(cx.op()) {
            return value_tensor(cx, target, input).map(Some);
        }
        general::generate_input(self, cx, target, input)
    }
}

/// `repeat_interleave` (`grad: false`) and `repeat_interleave_grad` (`grad: true`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RepeatInterleave {
    /// The grad op.
    pub grad: bool,
}

impl RepeatInterleave {
    fn target(&self, op: &LegacyOp) -> &'static str {
        match (has_input(op, "RepeatsTensor"), self.grad) {
            (true, false) => "pd_op.repeat_interleave_with_tensor_index",
            (true, true) => "pd_op.repeat_interleave_with_tensor_index_grad",
            (false, false) => "pd_op.repeat_interleave",
            (false, true) => "pd_op.repeat_interleave_grad",
        }
    }
}

impl OpTranscriber for RepeatInterleave {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def(self.target(cx.op()))
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        vec![self.target(cx.op()).into()]
    }

    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<Operands, TranslateError> {
        let mut params = vec!["X"];
        if has_input(cx.op(), "RepeatsTensor") {
            params.push("RepeatsTensor");
        }
        if self.grad {
            params.push("Out@GRAD");
        }
        let mut operands = Operands::new();
        for param in params {
            let Some(name) = cx.input(param).first() else {
                return Err(cx.invalid(format!("input `{param}` is missing")));
            };
            operands.push(Some(cx.value_info(Param::input(param), name)?.value));
        }
        Ok(operands)
    }
}

/// `randint`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandInt;

impl OpTranscriber for RandInt {
    fn generate_outputs<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        target: TargetOp,
    ) -> Result<Outputs<'a>, TranslateError> {
        let out = cx.single_output("Out")?;
        let dtype = match cx.attr("dtype") {
            Some(AttrValue::Int(code)) => phi_dtype_of_code(*code),
            _ => {
                return Err(attr_error(
                    cx,
                    target,
                    "dtype",
                    "dtype",
                    "expected an INT (a legacy data type code)".into(),
                ))
            }
        };
        let var = cx.var_desc(out)?;
        let Some(dims) = var.shape() else {
            return Err(cx.var_error(out, "randint's `Out` has no tensor description"));
        };
        let ty = cx.ctx().dense_tensor_type(dtype, dims);
        let mut outputs = Outputs::default();
        outputs.types.push(Some(ty));
        outputs.map(out, 0, 0);
        Ok(outputs)
    }
}

/// `fused_elemwise_add_activation_grad`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FusedElemwiseAddActivationGrad;

impl OpTranscriber for FusedElemwiseAddActivationGrad {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        if has_output(cx.op(), "IntermediateOut@GRAD") {
            return Err(TranslateError::Unsupported {
                at: Box::new(cx.at()),
                what: "output `IntermediateOut@GRAD` (pd_op.fused_elemwise_add_activation_grad \
                       has no such output)"
                    .into(),
            });
        }
        general::look_up(cx)
    }

    fn missing_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static pir_runtime::pir_spec::AttributeSpec,
    ) -> Result<Option<pir_runtime::Attribute>, TranslateError> {
        FUSED_ELEMWISE_ADD_ACTIVATION.missing_attribute(cx, target, spec)
    }
}

fn has_output(op: &LegacyOp, param: &str) -> bool {
    op.output(param).is_some_and(|v| !v.is_empty())
}

/// `lod_array_length` (`input: "x"`, the array from legacy input `X`) and `write_to_array`
/// (`input: "array"`, the array from legacy output `Out`).
#[derive(Clone, Copy, Debug)]
pub struct ArrayOp {
    /// The target.
    pub target: &'static str,
    /// The target input that is the array.
    pub input: &'static str,
    /// `true`: the array variable is the legacy output `Out`; `false`: the input `X`.
    pub from_output: bool,
}

impl OpTranscriber for ArrayOp {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def(self.target)
    }

    fn required_ops(&self, _: &OpContext<'_, '_>) -> Vec<String> {
        vec![self.target.into(), "pd_op.create_array".into()]
    }

    fn generate_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Option<Value>, TranslateError> {
        if input.name != self.input {
            return general::generate_input(self, cx, target, input);
        }
        let (param, vars) = if self.from_output {
            (Param::output("Out"), cx.output("Out"))
        } else {
            (Param::input("X"), cx.input("X"))
        };
        let [name] = vars else {
            return Err(cx.invalid(format!("{param} should be one variable")));
        };
        let var = cx.var_desc(name)?;
        if let Some(info) = cx.vars().get(name) {
            return Ok(Some(info.value));
        }
        let Some(dtype) = var.dtype() else {
            return Err(cx.var_error(name, "the array variable has no data type"));
        };
        let op = cx.build("pd_op.create_array", &[], &[AttrArg::DataType(dtype)])?;
        cx.first_result(op).map(Some)
    }
}
