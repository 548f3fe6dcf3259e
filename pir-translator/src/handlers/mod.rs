//! The special handlers (Paddle's `OpTranslator::special_handlers`): each overrides only the
//! stages of [`OpTranscriber`] it needs.
//!
//! | legacy op | handler | what it changes |
//! |---|---|---|
//! | `feed`, `fetch`/`fetch_v2`, `data`, `shadow_output` | [`Feed`], [`Fetch`], [`Data`], [`ShadowOutput`] | operands, attributes, result mapping |
//! | `fill_constant` | [`FillConstant`] | `pd_op.full` from `shape`/`value`/`dtype`/`place_type` |
//! | `mul`, `mul_grad` | [`Mul`] | reshapes around `pd_op.matmul(_grad)` |
//! | `elementwise_*`, `elementwise_*_grad`, `grad_add` | [`Elementwise`], [`ElementwiseGrad`], [`GradAdd`] | legacy `axis` broadcasting |
//! | `split` | [`Split`] | `split` / `split_with_num` |
//! | `reshape2_grad`, `flatten_contiguous_range_grad`, `squeeze2_grad`, `unsqueeze2_grad` | [`WithXShapeGrad`] | `XShape` through a `pd_op.data` |
//! | `sum`, `add_n`, `cast`, `assign`, `lookup_table(_v2)`, `lookup_table_v2_grad`, `gather`, `slice`, `matmul` | [`AddN`], [`Cast`], [`Assign`], [`Embedding`], [`Gather`], [`Slice`], [`LegacyMatmul`] | see each |
//! | `batch_norm`, `conv2d`, `pool2d`, `scale`, `dropout`, `softmax`, `box_coder`, `im2sequence`, `sequence_pool`, `fused_feedforward`, `fake_*quantize*`, `quantize_linear`, `top_p_sampling`, `c_embedding`, ... | [`WithDefaults`] | defaults for missing attributes |
//! | `rnn`, `one_hot_v2` | [`Rnn`], [`OneHot`] | one input from elsewhere (`DropoutState`'s `full`; `depth_tensor` or a `full` of `depth`) |
//! | `range`, `reduce_all/any`, `increment` | [`Arange`], [`ReduceAllAny`], [`Increment`] | attributes (`Start`'s dtype; `axis` by `reduce_all`; `value` from `step`) |
//! | `assign_value` | [`AssignValue`] | `shape`, `dtype`, undefined `place`, the first non-empty `*values` |
//! | `set_value(_grad)`, `repeat_interleave(_grad)`, `randint`, `lod_array_length`, `write_to_array`, `fused_elemwise_add_activation_grad` | [`SetValue`], [`RepeatInterleave`], [`RandInt`], [`ArrayOp`], [`FusedElemwiseAddActivationGrad`] | target and operands by the inputs present; result type by `dtype`; a `create_array` for an unmapped array |
//! | `tril_triu(_grad)`, `share_buffer`, `matrix_rank`, `read_from_array`, `c_sync_comm_stream`, `select_input/output`, ... | [`NeedsOps`] | the target by the op's attributes/inputs, else the general rule; a clear error when the dialect lacks it |

mod assign_value;
mod defaults;
mod elementwise;
mod feed_fetch;
mod fill_constant;
mod misc;
mod mul;
mod special_attrs;
mod special_inputs;
mod split;
mod unsupported;
mod variants;
mod xshape;

use std::borrow::Cow;
use std::sync::Arc;

use pir_legacy::AttrValue;

use crate::op_translator::{AttrList, OpContext, OpTranscriber, TargetOp};
use crate::translate_error::TranslateError;

pub use assign_value::AssignValue;
pub use defaults::{
    DefaultAttr, WithDefaults, ARGSORT, BATCH_NORM, BOX_CODER, CONV, C_EMBEDDING, DROPOUT,
    FAKE_QUANTIZE, FUSED_ELEMWISE_ADD_ACTIVATION, FUSED_FEEDFORWARD, IM2SEQUENCE, POOL,
    QUANTIZE_LINEAR, SCALE, SEQUENCE_POOL, SOFTMAX, SOFTMAX_WITH_CROSS_ENTROPY, TOP_P_SAMPLING,
};
pub use elementwise::{elementwise_inputs, Elementwise, ElementwiseGrad, GradAdd};
pub use feed_fetch::{Data, Feed, Fetch, ShadowOutput};
pub use fill_constant::FillConstant;
pub use misc::{AddN, Assign, Cast, Embedding, Gather, LegacyMatmul, Slice};
pub use mul::Mul;
pub use special_attrs::{Arange, Increment, ReduceAllAny};
pub use special_inputs::{OneHot, Rnn};
pub use split::Split;
pub use unsupported::{NeedsFn, NeedsOps};
pub use variants::{ArrayOp, FusedElemwiseAddActivationGrad, RandInt, RepeatInterleave, SetValue};
pub use xshape::WithXShapeGrad;

/// A located [`TranslateError::Attribute`] for attribute `name` of `target` (legacy `legacy`).
fn attr_error(
    cx: &OpContext<'_, '_>,
    target: TargetOp,
    name: &str,
    legacy: &str,
    problem: String,
) -> TranslateError {
    TranslateError::Attribute {
        at: Box::new(cx.at_attr(legacy)),
        op: target.def.name.to_string(),
        name: name.to_string(),
        legacy: legacy.to_string(),
        problem,
    }
}

/// A located [`TranslateError::Input`] for input `input` of `target` (legacy `legacy`).
fn input_error(
    cx: &OpContext<'_, '_>,
    target: TargetOp,
    input: &str,
    legacy: &str,
    problem: String,
) -> TranslateError {
    TranslateError::Input {
        at: Box::new(cx.at()),
        op: target.def.name.to_string(),
        input: input.to_string(),
        legacy: legacy.to_string(),
        problem,
    }
}

/// Copies the op's legacy oneDNN data-type attributes, as Paddle 3.3.1's oneDNN build does for
/// `cast` and `split`.
fn copy_onednn_data_types(cx: &OpContext<'_, '_>, attrs: &mut AttrList) {
    for name in ["mkldnn_data_type", "onednn_data_type"] {
        if let Some(AttrValue::String(s)) = cx.attr(name) {
            attrs.push((Cow::Borrowed(name), cx.ctx().str_attr(s)));
        }
    }
}

/// Legacy op types Paddle's `ProgramTranslator` refuses (`unsupported_ops`).
pub const UNSUPPORTED_OPS: [&str; 1] = ["while_grad"];

/// The elementwise ops with a legacy `axis`, and their grads.
const ELEMENTWISE: [(&str, &str); 8] = [
    ("elementwise_add", "elementwise_add_grad"),
    ("elementwise_sub", "elementwise_sub_grad"),
    ("elementwise_mul", "elementwise_mul_grad"),
    ("elementwise_div", "elementwise_div_grad"),
    ("elementwise_max", "elementwise_max_grad"),
    ("elementwise_min", "elementwise_min_grad"),
    ("elementwise_mod", "elementwise_mod_grad"),
    ("elementwise_floordiv", "elementwise_floordiv_grad"),
];

/// The grads of legacy ops with an `XShape` output: `(op type, target, takes the axes)`.
const XSHAPE_GRADS: [(&str, &str, bool); 4] = [
    ("reshape2_grad", "pd_op.reshape_grad", false),
    ("flatten_contiguous_range_grad", "pd_op.flatten_grad", false),
    ("squeeze2_grad", "pd_op.squeeze_grad", true),
    ("unsqueeze2_grad", "pd_op.unsqueeze_grad", true),
];

/// The handlers registered by default, by legacy op type.
pub fn builtin_handlers() -> Vec<(&'static str, Arc<dyn OpTranscriber>)> {
    let mut h: Vec<(&'static str, Arc<dyn OpTranscriber>)> = vec![
        ("feed", Arc::new(Feed)),
        ("fetch", Arc::new(Fetch)),
        ("fetch_v2", Arc::new(Fetch)),
        ("data", Arc::new(Data)),
        ("shadow_output", Arc::new(ShadowOutput)),
        ("fill_constant", Arc::new(FillConstant)),
        ("mul", Arc::new(Mul { grad: false })),
        ("mul_grad", Arc::new(Mul { grad: true })),
        ("split", Arc::new(Split)),
        ("grad_add", Arc::new(GradAdd)),
        ("add_n", Arc::new(AddN)),
        ("sum", Arc::new(AddN)),
        ("cast", Arc::new(Cast)),
        ("assign", Arc::new(Assign)),
        ("lookup_table_v2", Arc::new(Embedding { grad: false })),
        ("lookup_table", Arc::new(Embedding { grad: false })),
        ("lookup_table_v2_grad", Arc::new(Embedding { grad: true })),
        ("gather", Arc::new(Gather)),
        ("slice", Arc::new(Slice)),
        ("matmul", Arc::new(LegacyMatmul)),
        ("batch_norm", Arc::new(BATCH_NORM)),
        ("conv2d", Arc::new(CONV)),
        ("conv3d", Arc::new(CONV)),
        ("depthwise_conv2d", Arc::new(CONV)),
        ("pool2d", Arc::new(POOL)),
        ("pool3d", Arc::new(POOL)),
        ("scale", Arc::new(SCALE)),
        ("dropout", Arc::new(DROPOUT)),
        ("softmax", Arc::new(SOFTMAX)),
        ("cross_entropy_with_softmax", Arc::new(SOFTMAX)),
        (
            "softmax_with_cross_entropy",
            Arc::new(SOFTMAX_WITH_CROSS_ENTROPY),
        ),
        ("argsort", Arc::new(ARGSORT)),
        ("rnn", Arc::new(Rnn)),
        ("one_hot_v2", Arc::new(OneHot)),
        ("range", Arc::new(Arange)),
        ("reduce_all", Arc::new(ReduceAllAny)),
        ("reduce_any", Arc::new(ReduceAllAny)),
        ("increment", Arc::new(Increment)),
        ("assign_value", Arc::new(AssignValue)),
        ("set_value", Arc::new(SetValue { grad: false })),
        ("set_value_grad", Arc::new(SetValue { grad: true })),
        (
            "repeat_interleave",
            Arc::new(RepeatInterleave { grad: false }),
        ),
        (
            "repeat_interleave_grad",
            Arc::new(RepeatInterleave { grad: true }),
        ),
        ("randint", Arc::new(RandInt)),
        (
            "lod_array_length",
            Arc::new(ArrayOp {
                target: "pd_op.array_length",
                input: "x",
                from_output: false,
            }),
        ),
        (
            "write_to_array",
            Arc::new(ArrayOp {
                target: "pd_op.array_write_",
                input: "array",
                from_output: true,
            }),
        ),
        ("im2sequence", Arc::new(IM2SEQUENCE)),
        ("sequence_pool", Arc::new(SEQUENCE_POOL)),
        ("box_coder", Arc::new(BOX_CODER)),
        ("fused_feedforward", Arc::new(FUSED_FEEDFORWARD)),
        (
            "fused_elemwise_add_activation",
            Arc::new(FUSED_ELEMWISE_ADD_ACTIVATION),
        ),
        (
            "fused_elemwise_add_activation_grad",
            Arc::new(FusedElemwiseAddActivationGrad),
        ),
        ("quantize_linear", Arc::new(QUANTIZE_LINEAR)),
        ("dequantize_linear", Arc::new(QUANTIZE_LINEAR)),
        ("top_p_sampling", Arc::new(TOP_P_SAMPLING)),
        ("c_embedding", Arc::new(C_EMBEDDING)),
    ];
    for op in [
        "fake_quantize_moving_average_abs_max",
        "fake_channel_wise_dequantize_max_abs",
        "fake_quantize_range_abs_max",
        "fake_quantize_dequantize_moving_average_abs_max",
    ] {
        h.push((op, Arc::new(FAKE_QUANTIZE)));
    }
    for (op, target, axes) in XSHAPE_GRADS {
        h.push((op, Arc::new(WithXShapeGrad { target, axes })));
    }
    for (fwd, grad) in ELEMENTWISE {
        h.push((fwd, Arc::new(Elementwise)));
        h.push((grad, Arc::new(ElementwiseGrad)));
    }
    for (op, needs) in unsupported::NEEDS {
        h.push((op, Arc::new(NeedsOps { needs: *needs })));
    }
    h
}
