//! Handlers for legacy ops whose Paddle translation targets ops this project's dialect does not
//! define: translating one is a clear error naming the op it needs
//! ([`TranslateError::MissingOps`]), and the unknown-op report lists them.

use pir_legacy::{AttrValue, LegacyOp};
use pir_runtime::OpDef;

use crate::op_translator::{general, OpContext, OpTranscriber};
use crate::translate_error::TranslateError;

/// A legacy op whose translation needs ops the dialect lacks; `needs` picks them for one op
/// (e.g. `tril_triu` needs `pd_op.tril` or `pd_op.triu` by its `lower` attribute).
#[derive(Clone, Copy, Debug)]
pub struct NeedsOps {
    /// The ops Paddle's translation of this op creates.
    pub needs: NeedsFn,
}

impl NeedsOps {
    /// The ops the op needs, and those of them the dialect lacks.
    fn needs(&self, cx: &OpContext<'_, '_>) -> (Vec<&'static str>, Vec<String>) {
        let needs = (self.needs)(cx.op());
        let missing = needs
            .iter()
            .filter(|n| cx.ctx().op_def(n).is_none())
            .map(|n| n.to_string())
            .collect();
        (needs, missing)
    }
}

impl OpTranscriber for NeedsOps {
    fn translate(&self, cx: &mut OpContext<'_, '_>) -> Result<(), TranslateError> {
        let (needs, missing) = self.needs(cx);
        if !missing.is_empty() {
            return Err(cx.missing_ops(missing));
        }
        // The dialect has the ops (e.g. loaded from the yaml folder): a single target
        // translates by Paddle's general rule, with the target chosen by `look_up`.
        if needs.len() == 1 {
            return general::translate(self, cx);
        }
        Err(cx.invalid(format!(
            "the translation of `{}` into {} is not implemented",
            cx.op_type(),
            needs.join(", ")
        )))
    }

    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        let (needs, missing) = self.needs(cx);
        match needs.first() {
            Some(first) if missing.is_empty() => cx.op_def(first),
            _ => Err(cx.missing_ops(missing)),
        }
    }

    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        (self.needs)(cx.op())
            .into_iter()
            .map(String::from)
            .collect()
    }
}

/// `lower` when the op's `lower` attribute is true, else `upper`.
fn by_lower(op: &LegacyOp, lower: &'static str, upper: &'static str) -> Vec<&'static str> {
    let is_lower = matches!(op.attr("lower"), Some(AttrValue::Bool(true)));
    vec![if is_lower { lower } else { upper }]
}

/// `with` when the op has arguments for input `input`, else `without`.
fn by_input(
    op: &LegacyOp,
    input: &str,
    with: &'static str,
    without: &'static str,
) -> Vec<&'static str> {
    let has = op.input(input).is_some_and(|v| !v.is_empty());
    vec![if has { with } else { without }]
}

/// The ops a legacy op needs, chosen from its inputs and attributes.
pub type NeedsFn = fn(&LegacyOp) -> Vec<&'static str>;

/// `(legacy op type, needs)` of the handlers of this module.
pub(crate) const NEEDS: &[(&str, NeedsFn)] = &[
    ("tril_triu", |op| by_lower(op, "pd_op.tril", "pd_op.triu")),
    ("tril_triu_grad", |op| {
        by_lower(op, "pd_op.tril_grad", "pd_op.triu_grad")
    }),
    ("share_buffer", |_| vec!["pd_op.share_data_"]),
    ("matrix_rank", |op| {
        by_input(
            op,
            "TolTensor",
            "pd_op.matrix_rank_tol",
            "pd_op.matrix_rank",
        )
    }),
    ("select_input", |_| vec!["pd_op.select_input"]),
    ("select_output", |_| vec!["pd_op.select_output"]),
    ("read_from_array", |_| vec!["pd_op.array_read"]),
    ("c_sync_comm_stream", |_| vec!["pd_op.sync_comm_stream_"]),
    ("conditional_block", |_| vec!["pd_op.if"]),
    ("while", |_| vec!["pd_op.while"]),
];
