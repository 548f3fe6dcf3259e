//! Names and lists taken from Paddle's own generator (`paddle/fluid/pir/dialect/op_generator/`
//! and `paddle/fluid/primitive/codegen/`), so that the traits and interfaces we attach follow the
//! same rules. Every list is quoted from a named Paddle source file; none is ours. The trait and
//! interface vocabulary itself is [`crate::known`].

use crate::known;

/// Paddle's `to_pascal_case` (`gen_utils.py`): split at `_`, capitalize each word (first letter
/// upper, the rest lower, like Python's `str.capitalize`), join, and keep a trailing `_`.
///
/// ```
/// use pir_spec::yaml::pascal_case;
/// assert_eq!(pascal_case("conv2d"), "Conv2d");
/// assert_eq!(pascal_case("adam_"), "Adam_");
/// assert_eq!(pascal_case("fft_c2c"), "FftC2c");
/// ```
pub fn pascal_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for word in name.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            for c in chars {
                out.extend(c.to_lowercase());
            }
        }
    }
    if name.ends_with('_') {
        out.push('_');
    }
    out
}

/// The C++ class name Paddle generates for an op name: `conv2d` → `Conv2dOp`, `adam_` →
/// `Adam_Op`.
///
/// ```
/// use pir_spec::yaml::class_name;
/// assert_eq!(class_name("conv2d"), "Conv2dOp");
/// assert_eq!(class_name("adam_"), "Adam_Op");
/// assert_eq!(class_name("adagrad_dense_param_sparse_grad_"), "AdagradDenseParamSparseGrad_Op");
/// ```
pub fn class_name(op_name: &str) -> String {
    let mut s = pascal_case(op_name);
    s.push_str("Op");
    s
}

/// The short name of a Paddle trait or interface as written in yaml or C++:
/// `paddle::dialect::InferSymbolicShapeInterface` → `InferSymbolicShapeInterface`.
///
/// ```
/// use pir_spec::yaml::short_name;
/// assert_eq!(short_name("paddle::dialect::InferSymbolicShapeInterface"), "InferSymbolicShapeInterface");
/// assert_eq!(short_name(" pir::SideEffectTrait "), "SideEffectTrait");
/// assert_eq!(short_name("InplaceTrait"), "InplaceTrait");
/// ```
pub fn short_name(cpp_name: &str) -> &str {
    let t = cpp_name.trim();
    t.rsplit("::").next().unwrap_or(t).trim()
}

/// The fully qualified C++ name of a trait or interface Paddle's generator or yaml attaches,
/// from its short name (read from the one table of [`known`]).
///
/// ```
/// use pir_spec::yaml::qualified_name;
/// assert_eq!(qualified_name("SideEffectTrait"), Some("pir::SideEffectTrait"));
/// assert_eq!(qualified_name("VjpInterface"), Some("paddle::dialect::VjpInterface"));
/// assert_eq!(qualified_name("NoSuchTrait"), None);
/// ```
pub fn qualified_name(short: &str) -> Option<&'static str> {
    let traits = known::TRAITS.iter().map(|t| t.cpp);
    let interfaces = known::INTERFACES.iter().map(|i| i.cpp);
    traits
        .chain(interfaces)
        .flatten()
        .find(|q| short_name(q) == short)
}

/// `PD_MANUAL_OP_LIST` of `op_gen.py` (Paddle 0ab6998c): ops whose classes Paddle writes by hand
/// in `manual_op.h` instead of generating them. The front end skips a class whose phi name
/// (the op or its `_` twin, before any per-kernel renaming) is listed, as op_gen.py does, so a
/// yaml entry never shadows the hand-written op (op-defs declares those with `#[pir_op]`).
///
/// ```
/// assert!(pir_spec::yaml::paddle::PD_MANUAL_OPS.contains(&"expand"));
/// ```
pub const PD_MANUAL_OPS: &[&str] = &[
    "add_n_",
    "split_grad",
    "expand",
    "increment",
    "increment_",
    "assign_out_",
];

/// `vjp_interface_black_list` of `vjp_interface_black_list.py` (Paddle 08a9ca06): ops that get
/// no `VjpInterface` although they declare a backward op (their backward has only a composite
/// rule).
///
/// ```
/// assert!(pir_spec::yaml::paddle::VJP_INTERFACE_BLACK_LIST.contains(&"silu_grad"));
/// ```
pub const VJP_INTERFACE_BLACK_LIST: &[&str] = &[
    "silu_grad",
    "exp_grad",
    "abs_double_grad",
    "where_grad",
    "bmm_grad",
    "index_put_grad",
    "gather_nd_grad",
    "take_along_axis_grad",
    "index_add_grad",
    "acos_grad",
    "scatter_grad",
];

/// `CUSTOM_VJP` of `paddle/fluid/primitive/codegen/decomp_vjp_gen.py` (the version with
/// `index_put_grad`/`index_add_grad`, as in PaddlePaddle/Paddle's 2025 tree mirrored at
/// waliwali777/Paddle2 ee1b8cfa). `op_gen.py` gives `CustomVjpTrait` to an op whose name plus
/// `_grad` is in this list.
///
/// ```
/// assert!(pir_spec::yaml::paddle::CUSTOM_VJP.contains(&"relu_grad"));
/// ```
pub const CUSTOM_VJP: &[&str] = &[
    "batch_norm_grad",
    "bce_loss_grad",
    "dropout_grad",
    "gelu_grad",
    "group_norm_grad",
    "hardsigmoid_grad",
    "hardswish_grad",
    "instance_norm_grad",
    "layer_norm_grad",
    "leaky_relu_grad",
    "mean_grad",
    "relu_grad",
    "relu6_grad",
    "silu_grad",
    "softmax_grad",
    "softsign_grad",
    "stack_grad",
    "swish_grad",
    "elu_grad",
    "swiglu_grad",
    "p_norm_grad",
    "masked_fill_grad",
    "index_put_grad",
    "index_add_grad",
];

/// `decomp_rule_interface_declare_gen_op_list` of `decomp_interface_gen_op_list.py` (Paddle
/// 0ab6998c: `GENERATE_IMPL_DECOMP + MANUAL_IMPL_DECOMP`). A class gets `DecompInterface` when
/// both its op name and its kernel function are in the list.
///
/// ```
/// assert!(pir_spec::yaml::paddle::DECOMP_RULE_OPS.contains(&"mean"));
/// ```
pub const DECOMP_RULE_OPS: &[&str] = &[
    "add_n",
    "addmm",
    "any",
    "bce_loss",
    "bmm",
    "diag",
    "dropout",
    "elu",
    "embedding",
    "eye",
    "flatten",
    "full_like",
    "gelu",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "heaviside",
    "huber_loss",
    "index_sample",
    "index_select",
    "instance_norm",
    "kldiv_loss",
    "layer_norm",
    "leaky_relu",
    "lerp",
    "log_loss",
    "log_softmax",
    "mean",
    "mean_all",
    "meshgrid",
    "numel",
    "p_norm",
    "reciprocal",
    "relu",
    "relu6",
    "sigmoid_cross_entropy_with_logits",
    "silu",
    "softmax",
    "softsign",
    "square",
    "squared_l2_norm",
    "squeeze",
    "stack",
    "swiglu",
    "swish",
    "unbind",
    "unsqueeze",
    "unstack",
    "batch_norm",
    "batch_norm_",
    "clip",
    "one_hot",
];

/// `decomp_vjp_interface_declare_gen_op_list` of `decomp_interface_gen_op_list.py` (Paddle
/// 0ab6998c: `GENERATE_IMPL_VJP + MANUAL_IMPL_VJP`). A class gets `DecompVjpInterface` when both
/// its op name and its kernel function are in the list (and it did not get `DecompInterface`).
///
/// ```
/// assert!(pir_spec::yaml::paddle::DECOMP_VJP_OPS.contains(&"relu_grad"));
/// ```
pub const DECOMP_VJP_OPS: &[&str] = &[
    "abs_grad",
    "add_grad",
    "angle_grad",
    "bce_loss_grad",
    "cos_grad",
    "divide_grad",
    "elementwise_pow_grad",
    "erf_grad",
    "exp_grad",
    "floor_grad",
    "gelu_grad",
    "group_norm_grad",
    "hardsigmoid_grad",
    "hardswish_grad",
    "leaky_relu_grad",
    "layer_norm_grad",
    "log_grad",
    "matmul_grad",
    "max_grad",
    "maximum_grad",
    "mean_grad",
    "minimum_grad",
    "multiply_grad",
    "pow_grad",
    "reduce_as_grad",
    "relu_grad",
    "relu6_grad",
    "reshape_grad",
    "roll_grad",
    "rsqrt_grad",
    "sigmoid_grad",
    "silu_grad",
    "sin_grad",
    "softmax_grad",
    "sqrt_grad",
    "squeeze_grad",
    "subtract_grad",
    "sum_grad",
    "swiglu_grad",
    "tanh_grad",
    "transpose_grad",
    "unsqueeze_grad",
    "p_norm_grad",
    "concat_grad",
    "stack_grad",
    "slice_grad",
];

/// `cache_grad_op_shape_black_list` of `op_gen.py` (Paddle 0ab6998c).
///
/// ```
/// assert_eq!(pir_spec::yaml::paddle::CACHE_GRAD_OP_SHAPE_BLACK_LIST, ["fused_attention"]);
/// ```
pub const CACHE_GRAD_OP_SHAPE_BLACK_LIST: &[&str] = &["fused_attention"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_matches_python_capitalize() {
        assert_eq!(pascal_case("c_identity"), "CIdentity");
        assert_eq!(pascal_case("a__b"), "AB");
        assert_eq!(pascal_case("lstm_LSTM"), "LstmLstm");
        assert_eq!(class_name("relu_"), "Relu_Op");
        assert_eq!(
            class_name("sgd_sparse_param_sparse_grad"),
            "SgdSparseParamSparseGradOp"
        );
    }

    #[test]
    fn every_known_name_round_trips() {
        let cpp = known::TRAITS.iter().map(|t| t.cpp);
        for q in cpp.chain(known::INTERFACES.iter().map(|i| i.cpp)).flatten() {
            assert_eq!(qualified_name(short_name(q)), Some(q));
        }
    }
}
