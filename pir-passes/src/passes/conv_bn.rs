//! `conv2d_bn_fuse_pass` (level 2): `batch_norm_(conv2d(x, w))` in inference becomes
//! `conv2d(x, w * scale/sqrt(var + eps)) + (bias - mean * scale/sqrt(var + eps))`, and a
//! non-in-place `batch_norm` is first turned into `batch_norm_` (Paddle's two patterns).
//!
//! Both are declarative rules ([`crate::drr`]), matched and rewritten by the one engine.

use pir_runtime::{AttrData, Attribute};

use crate::drr::{DrrRewrite, MatchContext};
use crate::error::PassError;
use crate::greedy::{apply_patterns_greedily, GreedyConfig};
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::rewrite::PatternSet;

/// Paddle's conditions: a supported padding algorithm and layout, `groups >= 1`, the BN
/// statistics outputs unused, `0 <= epsilon <= 0.001`, and a float32 filter (the float16
/// variant casts; it is not ported).
fn conv_bn_applies(m: &MatchContext<'_>) -> bool {
    let padding_ok = matches!(
        m.str("padding_algorithm"),
        Some("EXPLICIT" | "SAME" | "VALID")
    );
    let layout_ok = matches!(m.str("data_format"), Some("NCHW" | "AnyLayout" | "NHWC"));
    let groups_ok = m.number("groups").is_some_and(|g| g >= 1.0);
    let stats_unused = ["mean_out", "variance_out", "saved_mean", "saved_variance"]
        .iter()
        .all(|t| m.unused(t));
    let eps_ok = m
        .number("epsilon")
        .is_some_and(|e| (0.0..=0.001).contains(&(e as f32)));
    let f32_filter = m.dtype("filter") == Some(pir_runtime::phi::DataType::Float32);
    padding_ok && layout_ok && groups_ok && stats_unused && eps_ok && f32_filter
}

fn cpu(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().place_attr(pir_runtime::phi::Place::cpu()))
}

fn float32(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().dtype_attr(pir_runtime::phi::DataType::Float32))
}

fn int64(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().dtype_attr(pir_runtime::phi::DataType::Int64))
}

/// `full`'s shape: the variance's.
fn variance_shape(m: &MatchContext<'_>) -> Option<Attribute> {
    Some(m.ctx().int_array_attr(m.dims("variance")?))
}

/// `full`'s value: epsilon, widened to double as Paddle's `Build(shape, float)` does.
fn epsilon_value(m: &MatchContext<'_>) -> Option<Attribute> {
    let eps = match *m.attr_data("epsilon")? {
        AttrData::Float(v) => f64::from(v),
        AttrData::Double(v) => v,
        _ => return None,
    };
    Some(m.ctx().f64_attr(eps))
}

fn int64_array(m: &MatchContext<'_>, v: &[i64]) -> Attribute {
    let items: Vec<Attribute> = v.iter().map(|&x| m.ctx().i64_attr(x)).collect();
    m.ctx().array_attr(&items)
}

/// `[C_out, 1, 1, 1]`: the scale reshaped to multiply the filter.
fn filter_scale_shape(m: &MatchContext<'_>) -> Option<Attribute> {
    let rank = m.dims("filter")?.len();
    let mut v = vec![1; rank];
    *v.first_mut()? = *m.dims("scale")?.first()?;
    Some(int64_array(m, &v))
}

/// `[1, C, 1, 1]`: the bias reshaped to add to the conv output.
fn bias_shape(m: &MatchContext<'_>) -> Option<Attribute> {
    let out = m.dims("conv_out")?;
    let mut v = vec![1; out.len()];
    *v.get_mut(1)? = *out.get(1)?;
    Some(int64_array(m, &v))
}

pir_macros::drr! {
    schema = ["../ops-yaml/ops.yaml"],
    compat = "../ops-yaml/op_compat.yaml",
    /// The fusion (Paddle's `Conv2dBnFusePattern`).
    pub static CONV2D_BN_FUSE: "Conv2dBnFusePattern" {
        source {
            conv_out = pd_op.conv2d(input, filter) {
                padding_algorithm: @padding_algorithm,
                data_format: @data_format,
                groups: @groups,
            };
            (out, mean_out, variance_out, saved_mean, saved_variance, reserve_space) =
                pd_op.batch_norm_(conv_out, mean, variance, scale, bias) { epsilon: @epsilon };
        }
        constraint conv_bn_applies;
        result {
            eps = pd_op.full() { shape: variance_shape, value: epsilon_value, dtype: float32, place: cpu };
            var_eps = pd_op.add(variance, eps);
            std = pd_op.sqrt(var_eps);
            factor = pd_op.divide(scale, std);
            factor_shape = pd_op.full_int_array() { value: filter_scale_shape, dtype: int64, place: cpu };
            factor_4d = pd_op.reshape(factor, factor_shape);
            new_filter = pd_op.multiply(filter, factor_4d);
            new_conv_out = pd_op.conv2d(input, new_filter) { ..conv_out };
            mean_factor = pd_op.multiply(mean, factor);
            new_bias = pd_op.subtract(bias, mean_factor);
            bias_shape = pd_op.full_int_array() { value: bias_shape, dtype: int64, place: cpu };
            bias_4d = pd_op.reshape(new_bias, bias_shape);
            fused = pd_op.add(new_conv_out, bias_4d);
        }
        replace { out => fused }
    }

    /// `batch_norm` → `batch_norm_`, so the fusion sees one op (Paddle's
    /// `BatchNormReplacePattern`).
    pub static BATCH_NORM_REPLACE: "BatchNormReplacePattern" {
        source {
            (out, mean_out, variance_out, saved_mean, saved_variance, reserve_space) =
                pd_op.batch_norm(x, mean, variance, scale, bias);
        }
        result {
            (out_, mean_out_, variance_out_, saved_mean_, saved_variance_, reserve_space_) =
                pd_op.batch_norm_(x, mean, variance, scale, bias) { ..out };
        }
        replace { out => out_ }
    }
}

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Conv2dBnFuse;

impl Pass for Conv2dBnFuse {
    fn name(&self) -> &'static str {
        "conv2d_bn_fuse_pass"
    }

    fn opt_level(&self) -> u8 {
        2
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let mut set = PatternSet::new();
        set.add(Box::new(DrrRewrite::new(&BATCH_NORM_REPLACE)));
        set.add(Box::new(DrrRewrite::new(&CONV2D_BN_FUSE)));
        let stats = apply_patterns_greedily(&mut m.program, &set, GreedyConfig::default())?;
        Ok(PassStats::changed(stats.rewrites))
    }
}
