//! Handlers that only supply defaults for attributes a legacy op may lack (Paddle's
//! `HandleNonexistentAttribute` overrides: `BatchNormOpTranscriber`, `Conv2dOpTranscriber`,
//! `Pool2dOpTranscriber`, `ScaleOpTranscriber`, ...). Attributes they do not cover fall back
//! to the general rule.

use pir_runtime::pir_spec::AttributeSpec;
use pir_runtime::{Attribute, IrContext};

use crate::op_translator::{general, OpContext, OpTranscriber, TargetOp};
use crate::translate_error::TranslateError;

/// A default attribute value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultAttr {
    /// `pir::BoolAttribute`.
    Bool(bool),
    /// `pir::Int32Attribute`.
    I32(i32),
    /// `pir::Int64Attribute`.
    I64(i64),
    /// `pir::FloatAttribute`.
    F32(f32),
    /// A `ScalarAttribute` holding a double.
    ScalarF64(f64),
    /// `pir::StrAttribute`.
    Str(&'static str),
    /// `pir::ArrayAttribute` of `pir::Int32Attribute`s.
    I32s(&'static [i32]),
    /// `pir::ArrayAttribute` of `pir::FloatAttribute`s (`[]` for Paddle's empty array).
    F32s(&'static [f32]),
}

impl DefaultAttr {
    /// The IR attribute.
    pub fn attribute(self, ctx: &IrContext) -> Attribute {
        match self {
            DefaultAttr::Bool(b) => ctx.bool_attr(b),
            DefaultAttr::I32(i) => ctx.i32_attr(i),
            DefaultAttr::I64(i) => ctx.i64_attr(i),
            DefaultAttr::F32(f) => ctx.f32_attr(f),
            DefaultAttr::ScalarF64(f) => ctx.f64_attr(f),
            DefaultAttr::Str(s) => ctx.str_attr(s),
            DefaultAttr::I32s(v) => {
                let items: Vec<Attribute> = v.iter().map(|&x| ctx.i32_attr(x)).collect();
                ctx.array_attr(&items)
            }
            DefaultAttr::F32s(v) => {
                let items: Vec<Attribute> = v.iter().map(|&x| ctx.f32_attr(x)).collect();
                ctx.array_attr(&items)
            }
        }
    }
}

/// The general translation with defaults for missing attributes.
///
/// ```
/// use pir_translator::handlers::{DefaultAttr, WithDefaults};
/// let mut t = pir_translator::Translator::with_pd_op().unwrap();
/// t.register_handler(
///     "softmax",
///     WithDefaults { defaults: &[("axis", DefaultAttr::I32(-1))] },
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WithDefaults {
    /// `(attribute name, default)` pairs.
    pub defaults: &'static [(&'static str, DefaultAttr)],
}

impl OpTranscriber for WithDefaults {
    fn missing_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        match self.defaults.iter().find(|(n, _)| *n == spec.name) {
            Some((_, d)) => Ok(Some(d.attribute(cx.ctx()))),
            None => general::missing_attribute(cx, target, spec),
        }
    }
}

/// `batch_norm`.
pub const BATCH_NORM: WithDefaults = WithDefaults {
    defaults: &[
        ("use_global_stats", DefaultAttr::Bool(false)),
        ("trainable_statistics", DefaultAttr::Bool(false)),
    ],
};
/// `conv2d`, `conv3d`, `depthwise_conv2d`.
pub const CONV: WithDefaults = WithDefaults {
    defaults: &[("padding_algorithm", DefaultAttr::Str("EXPLICIT"))],
};
/// `pool2d`, `pool3d`.
pub const POOL: WithDefaults = WithDefaults {
    defaults: &[
        ("exclusive", DefaultAttr::Bool(true)),
        ("adaptive", DefaultAttr::Bool(false)),
        ("padding_algorithm", DefaultAttr::Str("EXPLICIT")),
    ],
};
/// `scale`.
pub const SCALE: WithDefaults = WithDefaults {
    defaults: &[
        ("bias", DefaultAttr::ScalarF64(0.0)),
        ("bias_after_scale", DefaultAttr::Bool(true)),
    ],
};
/// `dropout`.
pub const DROPOUT: WithDefaults = WithDefaults {
    defaults: &[("mode", DefaultAttr::Str("downscale_in_infer"))],
};
/// `softmax`, `cross_entropy_with_softmax`.
pub const SOFTMAX: WithDefaults = WithDefaults {
    defaults: &[("axis", DefaultAttr::I32(-1))],
};
/// `softmax_with_cross_entropy`.
pub const SOFTMAX_WITH_CROSS_ENTROPY: WithDefaults = WithDefaults {
    defaults: &[
        ("use_softmax", DefaultAttr::Bool(true)),
        ("axis", DefaultAttr::I32(-1)),
    ],
};
/// `argsort`.
pub const ARGSORT: WithDefaults = WithDefaults {
    defaults: &[("stable", DefaultAttr::Bool(false))],
};
/// `im2sequence` (`Im2sequenceOpTranscriber`).
pub const IM2SEQUENCE: WithDefaults = WithDefaults {
    defaults: &[("out_stride", DefaultAttr::I32s(&[1, 1]))],
};
/// `sequence_pool` (`SequencePoolOpTranscriber`).
pub const SEQUENCE_POOL: WithDefaults = WithDefaults {
    defaults: &[("pad_value", DefaultAttr::F32(0.0))],
};
/// `box_coder` (`BoxCoderOpTranscriber`).
pub const BOX_CODER: WithDefaults = WithDefaults {
    defaults: &[
        ("axis", DefaultAttr::I32(0)),
        ("variance", DefaultAttr::F32s(&[])),
    ],
};
/// `fused_feedforward` (`FusedFeedForwardOpTranscriber`; Paddle's `Int32Attribute::get(ctx,
/// false)` for the seeds is `0`).
pub const FUSED_FEEDFORWARD: WithDefaults = WithDefaults {
    defaults: &[
        ("ln1_epsilon", DefaultAttr::F32(1e-5)),
        ("ln2_epsilon", DefaultAttr::F32(1e-5)),
        ("act_method", DefaultAttr::Str("gelu")),
        ("dropout1_prob", DefaultAttr::F32(0.5)),
        ("dropout2_prob", DefaultAttr::F32(0.5)),
        (
            "dropout1_implementation",
            DefaultAttr::Str("downgrade_in_infer"),
        ),
        (
            "dropout2_implementation",
            DefaultAttr::Str("downgrade_in_infer"),
        ),
        ("is_test", DefaultAttr::Bool(false)),
        ("dropout1_fix_seed", DefaultAttr::Bool(false)),
        ("dropout2_fix_seed", DefaultAttr::Bool(false)),
        ("dropout1_seed_val", DefaultAttr::I32(0)),
        ("dropout2_seed_val", DefaultAttr::I32(0)),
        ("add_residual", DefaultAttr::Bool(true)),
        ("ring_id", DefaultAttr::I32(-1)),
    ],
};
/// `fused_elemwise_add_activation` and its grad (`FusedElemwiseAddActivationOpTranscriber`).
pub const FUSED_ELEMWISE_ADD_ACTIVATION: WithDefaults = WithDefaults {
    defaults: &[
        ("scale", DefaultAttr::F32(0.0)),
        ("axis", DefaultAttr::I32(-1)),
        ("save_intermediate_out", DefaultAttr::Bool(false)),
    ],
};
/// The fake quantize ops (`FakeQuantizeOpTranscriber`).
pub const FAKE_QUANTIZE: WithDefaults = WithDefaults {
    defaults: &[
        ("round_type", DefaultAttr::I32(1)),
        ("x_num_col_dims", DefaultAttr::I32(1)),
        ("quant_axis", DefaultAttr::I32(0)),
    ],
};
/// `quantize_linear`, `dequantize_linear` (`QuantizeLinearOpTranscriber`).
pub const QUANTIZE_LINEAR: WithDefaults = WithDefaults {
    defaults: &[
        ("round_type", DefaultAttr::I32(0)),
        ("is_test", DefaultAttr::Bool(true)),
        ("only_observer", DefaultAttr::Bool(false)),
        ("moving_rate", DefaultAttr::F32(0.9)),
        ("qmin", DefaultAttr::I32(-128)),
        ("qmax", DefaultAttr::I32(127)),
    ],
};
/// `top_p_sampling` (`TopPSamplingOpTranscriber`).
pub const TOP_P_SAMPLING: WithDefaults = WithDefaults {
    defaults: &[
        ("seed", DefaultAttr::I32(-1)),
        ("k", DefaultAttr::I32(0)),
        ("mode", DefaultAttr::Str("truncated")),
    ],
};
/// `c_embedding` (`CEmbeddingOpTranscriber`).
pub const C_EMBEDDING: WithDefaults = WithDefaults {
    defaults: &[("vocab_size", DefaultAttr::I64(-1))],
};
