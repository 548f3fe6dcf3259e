//! Handlers that replace the translation of one target input (Paddle's
//! `GetSpecialInputHandlers`): the named input gets its operand from the handler, every other
//! input from the general rule.
//!
//! * `rnn` (`RnnOpTranscriber`): `dropout_state_in` exists only in the dynamic-graph `rnn`; it
//!   is a `pd_op.full(0)` on the CPU with the dims and dtype of the legacy *output*
//!   `DropoutState` (a null operand when the op has no such output);
//! * `one_hot_v2` (`OneHotTranscriber`): `num_classes` is the legacy input `depth_tensor`, else
//!   a `pd_op.full([1])` of the legacy attribute `depth` translated by the general visitor
//!   (an INT gives an `int32` full).

use pir_runtime::phi::Place;
use pir_runtime::pir_spec::InputSpec;
use pir_runtime::{OpDef, Value};

use super::{attr_error, input_error};
use crate::attribute_translator::{full_value_of, translate_general_attribute};
use crate::op_translator::{general, OpContext, OpTranscriber, Param, TargetOp};
use crate::translate_error::TranslateError;

/// `rnn`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rnn;

impl OpTranscriber for Rnn {
    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        let mut ops = general::required_ops(cx);
        ops.push("pd_op.full".into());
        ops
    }

    fn generate_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Option<Value>, TranslateError> {
        if input.name != "dropout_state_in" {
            return general::generate_input(self, cx, target, input);
        }
        let Some(name) = cx.output("DropoutState").first() else {
            return Ok(None);
        };
        let ty = cx.var_type(name)?;
        let Some(t) = ty.as_dense_tensor(cx.ctx()) else {
            return Err(cx.var_error(
                name,
                "rnn's output `DropoutState` (which feeds `dropout_state_in`) should be a dense \
                 tensor",
            ));
        };
        let (dims, dtype) = (t.dims.to_vec(), t.dtype);
        cx.full_shaped(&dims, 0.0, dtype, Place::cpu()).map(Some)
    }
}

/// `one_hot_v2`.
#[derive(Clone, Copy, Debug, Default)]
pub struct OneHot;

impl OpTranscriber for OneHot {
    /// Paddle looks the target up by the general rule, through op_compat.yaml's
    /// `one_hot (one_hot_v2)`; the compiled-in op_compat subset lacks that entry, so the name
    /// is given here.
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def("pd_op.one_hot")
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        let mut ops = vec!["pd_op.one_hot".to_string()];
        if cx.input("depth_tensor").is_empty() {
            ops.push("pd_op.full".into());
        }
        ops
    }

    fn generate_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Option<Value>, TranslateError> {
        if input.name != "num_classes" {
            return general::generate_input(self, cx, target, input);
        }
        match cx.input("depth_tensor") {
            [] => {}
            [name] => {
                return Ok(Some(
                    cx.value_info(Param::input("depth_tensor"), name)?.value,
                ))
            }
            more => {
                let problem = format!(
                    "`depth_tensor` must be one tensor, but the legacy op gives {}",
                    more.len()
                );
                return Err(input_error(
                    cx,
                    target,
                    &input.name,
                    "depth_tensor",
                    problem,
                ));
            }
        }
        let bad = |cx: &OpContext<'_, '_>, problem: &str| {
            attr_error(cx, target, &input.name, "depth", problem.to_string())
        };
        let Some(depth) = cx.attr("depth") else {
            return Err(bad(
                cx,
                "the op has neither a `depth_tensor` input nor a `depth`",
            ));
        };
        let full = translate_general_attribute(cx.ctx(), Some(depth))
            .map_err(|e| bad(cx, &e.to_string()))?
            .and_then(|a| full_value_of(cx.ctx(), a));
        match full {
            Some((v, dtype)) => cx.full(v, dtype).map(Some),
            None => Err(bad(cx, "expected a number")),
        }
    }
}
