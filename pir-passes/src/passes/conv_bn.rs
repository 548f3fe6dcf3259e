//! `conv2d_bn_fuse_pass` (level 2): `batch_norm_(conv2d(x, w))` in inference becomes
//! `conv2d(x, w * scale/sqrt(var + eps)) + (bias - mean * scale/sqrt(var + eps))`, and a
//! non-in-place `batch_norm` is first turned into `batch_norm_` (Paddle's two patterns).
//!
//! Both are declarative rules ([`crate::drr`]), matched and rewritten by the one engine.

use pir_runtime::{AttrData, Attribute};

use crate::drr::{DrrPattern, DrrRewrite, MatchContext, ResultAttr, ResultOp, SourceOp};
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

/// The fusion.
pub static CONV2D_BN_FUSE: DrrPattern = DrrPattern {
    name: "Conv2dBnFusePattern",
    source: &[
        SourceOp {
            name: "pd_op.conv2d",
            inputs: &["input", "filter"],
            outputs: &["conv_out"],
            attrs: &[
                ("padding_algorithm", "padding_algorithm"),
                ("data_format", "data_format"),
                ("groups", "groups"),
            ],
        },
        SourceOp {
            name: "pd_op.batch_norm_",
            inputs: &["conv_out", "mean", "variance", "scale", "bias"],
            outputs: &[
                "out",
                "mean_out",
                "variance_out",
                "saved_mean",
                "saved_variance",
                "reserve_space",
            ],
            attrs: &[("epsilon", "epsilon")],
        },
    ],
    constraint: Some(conv_bn_applies),
    result: &[
        ResultOp {
            name: "pd_op.full",
            inputs: &[],
            outputs: &["eps"],
            attrs: &[
                ("shape", ResultAttr::Compute(variance_shape)),
                ("value", ResultAttr::Compute(epsilon_value)),
                ("dtype", ResultAttr::Compute(float32)),
                ("place", ResultAttr::Compute(cpu)),
            ],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.add",
            inputs: &["variance", "eps"],
            outputs: &["var_eps"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.sqrt",
            inputs: &["var_eps"],
            outputs: &["std"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.divide",
            inputs: &["scale", "std"],
            outputs: &["factor"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.full_int_array",
            inputs: &[],
            outputs: &["factor_shape"],
            attrs: &[
                ("value", ResultAttr::Compute(filter_scale_shape)),
                ("dtype", ResultAttr::Compute(int64)),
                ("place", ResultAttr::Compute(cpu)),
            ],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.reshape",
            inputs: &["factor", "factor_shape"],
            outputs: &["factor_4d"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.multiply",
            inputs: &["filter", "factor_4d"],
            outputs: &["new_filter"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.conv2d",
            inputs: &["input", "new_filter"],
            outputs: &["new_conv_out"],
            attrs: &[],
            copy_attrs_of: Some(0),
        },
        ResultOp {
            name: "pd_op.multiply",
            inputs: &["mean", "factor"],
            outputs: &["mean_factor"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.subtract",
            inputs: &["bias", "mean_factor"],
            outputs: &["new_bias"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.full_int_array",
            inputs: &[],
            outputs: &["bias_shape"],
            attrs: &[
                ("value", ResultAttr::Compute(bias_shape)),
                ("dtype", ResultAttr::Compute(int64)),
                ("place", ResultAttr::Compute(cpu)),
            ],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.reshape",
            inputs: &["new_bias", "bias_shape"],
            outputs: &["bias_4d"],
            attrs: &[],
            copy_attrs_of: None,
        },
        ResultOp {
            name: "pd_op.add",
            inputs: &["new_conv_out", "bias_4d"],
            outputs: &["fused"],
            attrs: &[],
            copy_attrs_of: None,
        },
    ],
    replace: &[("out", "fused")],
    benefit: 1,
};

/// `batch_norm` → `batch_norm_`, so the fusion sees one op.
pub static BATCH_NORM_REPLACE: DrrPattern = DrrPattern {
    name: "BatchNormReplacePattern",
    source: &[SourceOp {
        name: "pd_op.batch_norm",
        inputs: &["x", "mean", "variance", "scale", "bias"],
        outputs: &[
            "out",
            "mean_out",
            "variance_out",
            "saved_mean",
            "saved_variance",
            "reserve_space",
        ],
        attrs: &[],
    }],
    constraint: None,
    result: &[ResultOp {
        name: "pd_op.batch_norm_",
        inputs: &["x", "mean", "variance", "scale", "bias"],
        outputs: &[
            "out_",
            "mean_out_",
            "variance_out_",
            "saved_mean_",
            "saved_variance_",
            "reserve_space_",
        ],
        attrs: &[],
        copy_attrs_of: Some(0),
    }],
    replace: &[("out", "out_")],
    benefit: 1,
};

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
