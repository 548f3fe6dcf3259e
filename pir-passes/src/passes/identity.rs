//! `identity_op_clean_pass` (level 2): Paddle's seven rules removing ops that compute their
//! input (a `scale` by 1 with bias 0, a `cast` to the same type, a `concat` of one tensor, an
//! inference `dropout` in `upscale_in_train` mode) or folding pairs (two `scale`s, two
//! `cast`s), and replacing an inference `dropout` in `downgrade_in_infer` mode by a `scale`.
//! All are declarative rules run by the greedy driver.

use pir_runtime::{AttrData, Attribute};

use crate::drr::{DrrRewrite, MatchContext};
use crate::error::PassError;
use crate::greedy::{apply_patterns_greedily, GreedyConfig};
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::rewrite::PatternSet;

fn f32_of(m: &MatchContext<'_>, name: &str) -> Option<f32> {
    m.number(name).map(|v| v as f32)
}

fn bool_of(m: &MatchContext<'_>, name: &str) -> Option<bool> {
    match m.attr_data(name)? {
        AttrData::Bool(b) => Some(*b),
        _ => None,
    }
}

fn scale_is_identity(m: &MatchContext<'_>) -> bool {
    m.number("value") == Some(1.0) && f32_of(m, "bias") == Some(0.0)
}

/// The bias of `scale(scale(x, v1, b1), v2, b2)` as one scale applied after: Paddle's formula,
/// in single precision.
fn folded_bias(m: &MatchContext<'_>) -> Option<Attribute> {
    let (v1, b1, v2, b2) = (
        f32_of(m, "value_1")?,
        f32_of(m, "bias_1")?,
        f32_of(m, "value_2")?,
        f32_of(m, "bias_2")?,
    );
    let r1 = if bool_of(m, "bias_after_scale_1")? {
        b1
    } else {
        v1 * b1
    };
    let r2 = if bool_of(m, "bias_after_scale_2")? {
        r1 * v2 + b2
    } else {
        (r1 + b2) * v2
    };
    Some(m.ctx().f32_attr(r2))
}

fn folded_scale(m: &MatchContext<'_>) -> Option<Attribute> {
    let v = f32_of(m, "value_1")? * f32_of(m, "value_2")?;
    Some(m.ctx().f64_attr(f64::from(v)))
}

fn cast_is_identity(m: &MatchContext<'_>) -> bool {
    m.dtype("ret").is_some() && m.dtype("ret") == m.dtype("arg0")
}

fn first_cast_keeps_values(m: &MatchContext<'_>) -> bool {
    use pir_runtime::phi::DataType;
    !matches!(
        m.attr_data("dtype1"),
        Some(AttrData::DataType(
            DataType::Int64 | DataType::Int32 | DataType::Bool
        ))
    )
}

fn dropout_is_identity(m: &MatchContext<'_>) -> bool {
    bool_of(m, "is_test") == Some(true) && m.str("mode") == Some("upscale_in_train")
}

fn dropout_is_scale(m: &MatchContext<'_>) -> bool {
    bool_of(m, "is_test") == Some(true) && m.str("mode") != Some("upscale_in_train")
}

fn keep_probability(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().f64_attr(1.0 - f64::from(f32_of(m, "value")?)))
}

fn shape_1(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().int_array_attr(&[1]))
}

fn float32(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().dtype_attr(pir_runtime::phi::DataType::Float32))
}

fn cpu(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().place_attr(pir_runtime::phi::Place::cpu()))
}

pir_macros::drr! {
    schema = ["../ops-yaml/ops.yaml"],
    compat = "../ops-yaml/op_compat.yaml",
    /// `scale(x, full(1))` with bias 0 is `x`.
    pub static REMOVE_USELESS_SCALE: "RemoveUselessScalePattern" {
        source {
            s = pd_op.full() { shape: @shape, value: @value, dtype: @dtype, place: @place };
            scale_out = pd_op.scale(x, s) { bias: @bias, bias_after_scale: @bias_after_scale };
        }
        constraint scale_is_identity;
        result {}
        replace { scale_out => x }
    }

    /// Two `scale`s are one.
    pub static REMOVE_REDUNDANT_SCALE: "RemoveRedundantScalePattern" {
        source {
            s1 = pd_op.full() { shape: @shape_1, value: @value_1, dtype: @dtype_1, place: @place_1 };
            scale_1_out = pd_op.scale(x, s1) { bias: @bias_1, bias_after_scale: @bias_after_scale_1 };
            s2 = pd_op.full() { shape: @shape_2, value: @value_2, dtype: @dtype_2, place: @place_2 };
            scale_2_out = pd_op.scale(scale_1_out, s2) { bias: @bias_2, bias_after_scale: @bias_after_scale_2 };
        }
        result {
            s = pd_op.full() { shape: @shape_1, value: folded_scale, dtype: @dtype_1, place: @place_1 };
            out = pd_op.scale(x, s) { bias: folded_bias, bias_after_scale: true };
        }
        replace { scale_2_out => out }
    }

    /// A `cast` to the type it already has.
    pub static REMOVE_USELESS_CAST: "RemoveUselessCastPattern" {
        source { ret = pd_op.cast(arg0); }
        constraint cast_is_identity;
        result {}
        replace { ret => arg0 }
    }

    /// A `concat` of one tensor.
    pub static REMOVE_USELESS_CONCAT: "RemoveUselessConcatPattern" {
        source {
            combine_out = builtin.combine(x);
            out = pd_op.concat(combine_out, axis);
        }
        result {}
        replace { out => x }
    }

    /// `cast(cast(x))` is one `cast` when the first keeps the values.
    pub static REMOVE_REDUNDANT_CAST: "RemoveRedundantCastPattern" {
        source {
            tmp = pd_op.cast(arg0) { dtype: @dtype1 };
            ret = pd_op.cast(tmp) { dtype: @dtype2 };
        }
        constraint first_cast_keeps_values;
        result { ret2 = pd_op.cast(arg0) { dtype: @dtype2 }; }
        replace { ret => ret2 }
    }

    /// An inference `dropout` in `upscale_in_train` mode is the identity.
    pub static DELETE_DROPOUT: "DeleteDropoutOpPattern" {
        source {
            p = pd_op.full() { dtype: @dtype, place: @place, shape: @shape, value: @value };
            (dropout_out, dropout_mask) = pd_op.dropout(dropout_in, none, p) { is_test: @is_test, mode: @mode };
        }
        constraint dropout_is_identity;
        result {}
        replace { dropout_out => dropout_in }
    }

    /// An inference `dropout` in `downgrade_in_infer` mode scales by `1 - p`.
    pub static REPLACE_DROPOUT_WITH_SCALE: "ReplaceDropoutWithScalePattern" {
        source {
            p = pd_op.full() { dtype: @dtype, place: @place, shape: @shape, value: @value };
            (dropout_out, dropout_mask) = pd_op.dropout(dropout_in, none, p) { is_test: @is_test, mode: @mode };
        }
        constraint dropout_is_scale;
        result {
            s = pd_op.full() { shape: shape_1, value: keep_probability, dtype: float32, place: cpu };
            out = pd_op.scale(dropout_in, s) { bias: 0.0, bias_after_scale: true };
        }
        replace { dropout_out => out }
    }
}

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdentityOpClean;

impl Pass for IdentityOpClean {
    fn name(&self) -> &'static str {
        "identity_op_clean_pass"
    }

    fn opt_level(&self) -> u8 {
        2
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let mut set = PatternSet::new();
        for p in [
            &REMOVE_USELESS_SCALE,
            &REMOVE_REDUNDANT_SCALE,
            &REMOVE_USELESS_CAST,
            &REMOVE_USELESS_CONCAT,
            &REMOVE_REDUNDANT_CAST,
            &DELETE_DROPOUT,
            &REPLACE_DROPOUT_WITH_SCALE,
        ] {
            set.add(Box::new(DrrRewrite::new(p)));
        }
        let stats = apply_patterns_greedily(&mut m.program, &set, GreedyConfig::default())?;
        Ok(PassStats::changed(stats.rewrites))
    }
}
