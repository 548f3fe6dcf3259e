//! Three real Paddle ops declared with `#[pir_op]`, their GetOpInfo tuples compared field by
//! field with the values Paddle 3.3.1 reports (`op_info_dev.json` of the reference data, copied
//! here by hand), and their trait and interface lists with the classes' lists.
//!
//! The reference has `pd_op.conv2d` and `pd_op.split`; it has no `pd_op.adam_`, so the in-place
//! optimizer is `pd_op.radam_`, which exercises the same features (in-place pairs, an optional
//! input and output, `InplaceTrait`, `SideEffectTrait`).

use pir_macros::pir_op;
use pir_runtime::pir_spec::schema::{
    OpAttributeInfo, OpInfoTuple, OpInputInfo, OpOutputInfo, OpRunTimeInfo,
};

/// `conv2d`, as `paddle/phi/ops/yaml/ops.yaml` declares it.
#[pir_op(
    name = "pd_op.conv2d",
    infer_meta(func = "ConvInferMeta"),
    kernel(func = "conv2d", data_type(input)),
    backward = "conv2d_grad",
    interfaces(InferSymbolicShape, CacheGradOpSymbolicShape, LayoutTransformation)
)]
pub struct Conv2dOp {
    #[input]
    input: DenseTensor,
    #[input]
    filter: DenseTensor,
    #[attr(default = [1, 1])]
    strides: Vec<i32>,
    #[attr(default = [0, 0])]
    paddings: Vec<i32>,
    #[attr(default = "EXPLICIT")]
    padding_algorithm: String,
    #[attr(default = [1, 1])]
    dilations: Vec<i32>,
    #[attr(default = 1)]
    groups: i32,
    #[attr(default = "NCHW")]
    data_format: String,
    #[output]
    out: DenseTensor,
}

/// `radam_`: every state updated in place.
#[pir_op(
    name = "pd_op.radam_",
    traits(ForwardOnly, SideEffect),
    infer_meta(func = "RAdamInferMeta"),
    kernel(func = "radam", data_type(param))
)]
pub struct RadamInplaceOp {
    #[input]
    param: DenseTensor,
    #[input]
    grad: DenseTensor,
    #[input]
    learning_rate: DenseTensor,
    #[input]
    beta1_pow: DenseTensor,
    #[input]
    beta2_pow: DenseTensor,
    #[input]
    rho: DenseTensor,
    #[input]
    moment1: DenseTensor,
    #[input]
    moment2: DenseTensor,
    #[input]
    master_param: Option<DenseTensor>,
    #[attr(default = 0.9)]
    beta1: f32,
    #[attr(default = 0.999)]
    beta2: f32,
    #[attr(default = 1.0e-8)]
    epsilon: f32,
    #[attr(default = false)]
    multi_precision: bool,
    #[output(inplace = param)]
    param_out: DenseTensor,
    #[output(inplace = beta1_pow)]
    beta1_pow_out: DenseTensor,
    #[output(inplace = beta2_pow)]
    beta2_pow_out: DenseTensor,
    #[output(inplace = rho)]
    rho_out: DenseTensor,
    #[output(inplace = moment1)]
    moment1_out: DenseTensor,
    #[output(inplace = moment2)]
    moment2_out: DenseTensor,
    #[output(inplace = master_param)]
    master_param_out: Option<DenseTensor>,
}

/// `split`: `sections` and `axis` arrive as operands (mutable attributes).
#[pir_op(
    name = "pd_op.split",
    infer_meta(func = "SplitInferMeta"),
    kernel(func = "split"),
    backward = "split_grad",
    interfaces(InferSymbolicShape, LayoutTransformation)
)]
pub struct SplitOp {
    #[input]
    x: DenseTensor,
    #[attr(mutable, data_type = "int")]
    sections: IntArray,
    #[attr(mutable, data_type = "int", default = 0)]
    axis: Scalar,
    #[output]
    out: Vec<DenseTensor>,
}

const DENSE: &str = "paddle::dialect::DenseTensorType";

fn input(name: &str, type_name: &str, flags: [bool; 4]) -> OpInputInfo {
    let [optional, no_need_buffer, is_mutable_attribute, with_grad_semantic] = flags;
    OpInputInfo {
        name: name.into(),
        type_name: type_name.into(),
        optional,
        no_need_buffer,
        is_mutable_attribute,
        with_grad_semantic,
    }
}

fn attr(name: &str, type_name: &str) -> OpAttributeInfo {
    OpAttributeInfo {
        name: name.into(),
        type_name: type_name.into(),
        data_type: String::new(),
    }
}

fn output(name: &str, type_name: &str, optional: bool) -> OpOutputInfo {
    OpOutputInfo {
        name: name.into(),
        type_name: type_name.into(),
        optional,
        intermediate: false,
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Compares field by field (for readable failures), then the whole tuple.
fn check(got: OpInfoTuple, want: OpInfoTuple) {
    assert_eq!(got.op_name, want.op_name);
    assert_eq!(
        got.inputs.len(),
        want.inputs.len(),
        "{}: inputs",
        want.op_name
    );
    for (g, w) in got.inputs.iter().zip(&want.inputs) {
        assert_eq!(g, w, "{}: input `{}`", want.op_name, w.name);
    }
    assert_eq!(
        got.attributes.len(),
        want.attributes.len(),
        "{}: attributes",
        want.op_name
    );
    for (g, w) in got.attributes.iter().zip(&want.attributes) {
        assert_eq!(g, w, "{}: attribute `{}`", want.op_name, w.name);
    }
    assert_eq!(
        got.outputs.len(),
        want.outputs.len(),
        "{}: outputs",
        want.op_name
    );
    for (g, w) in got.outputs.iter().zip(&want.outputs) {
        assert_eq!(g, w, "{}: output `{}`", want.op_name, w.name);
    }
    let (g, w) = (&got.runtime_info, &want.runtime_info);
    assert_eq!(g.infer_meta_func, w.infer_meta_func);
    assert_eq!(g.infer_meta_param, w.infer_meta_param);
    assert_eq!(g.kernel_func, w.kernel_func);
    assert_eq!(g.kernel_param, w.kernel_param);
    assert_eq!(g.kernel_key_dtype, w.kernel_key_dtype);
    assert_eq!(g.kernel_key_backend, w.kernel_key_backend);
    assert_eq!(g.inplace, w.inplace);
    assert_eq!(g.view, w.view);
    assert_eq!(g.skip_transform_inputs, w.skip_transform_inputs);
    assert_eq!(got, want);
}

fn names<'a>(list: &'a [std::borrow::Cow<'static, str>]) -> Vec<&'a str> {
    list.iter().map(|s| &**s).collect()
}

#[test]
fn conv2d_matches_paddle() {
    let args = [
        "input",
        "filter",
        "strides",
        "paddings",
        "padding_algorithm",
        "dilations",
        "groups",
        "data_format",
    ];
    let ints = "pir::ArrayAttribute<pir::Int32Attribute>";
    check(
        Conv2dOp::get_op_info(),
        OpInfoTuple {
            op_name: "pd_op.conv2d".into(),
            inputs: vec![
                input("input", DENSE, [false, false, false, true]),
                input("filter", DENSE, [false, false, false, true]),
            ],
            attributes: vec![
                attr("strides", ints),
                attr("paddings", ints),
                attr("padding_algorithm", "pir::StrAttribute"),
                attr("dilations", ints),
                attr("groups", "pir::Int32Attribute"),
                attr("data_format", "pir::StrAttribute"),
            ],
            outputs: vec![output("out", DENSE, false)],
            runtime_info: OpRunTimeInfo {
                infer_meta_func: "ConvInferMeta".into(),
                infer_meta_param: strings(&args),
                kernel_func: "conv2d".into(),
                kernel_param: strings(&args),
                kernel_key_dtype: strings(&["input"]),
                kernel_key_backend: vec![],
                inplace: vec![],
                view: vec![],
                skip_transform_inputs: vec![],
            },
            origin_name: "conv2d".into(),
        },
    );
    let s = Conv2dOp::schema();
    assert!(s.traits.is_empty());
    assert_eq!(
        names(&s.interfaces),
        [
            "CacheGradOpSymbolicShapeInterface",
            "GetKernelTypeForVarInterface",
            "InferMetaInterface",
            "InferSymbolicShapeInterface",
            "LayoutTransformationInterface",
            "OpYamlInfoInterface",
            "VjpInterface"
        ]
    );
    assert_eq!(s.class_name, "Conv2dOp");
}

#[test]
fn radam_matches_paddle() {
    let ins = [
        "param",
        "grad",
        "learning_rate",
        "beta1_pow",
        "beta2_pow",
        "rho",
        "moment1",
        "moment2",
        "master_param",
    ];
    let args = [
        "param",
        "grad",
        "learning_rate",
        "beta1_pow",
        "beta2_pow",
        "rho",
        "moment1",
        "moment2",
        "master_param",
        "beta1",
        "beta2",
        "epsilon",
        "multi_precision",
    ];
    let mut inputs: Vec<OpInputInfo> = ins
        .iter()
        .map(|n| input(n, DENSE, [false, false, false, false]))
        .collect();
    inputs[8].optional = true;
    check(
        RadamInplaceOp::get_op_info(),
        OpInfoTuple {
            op_name: "pd_op.radam_".into(),
            inputs,
            attributes: vec![
                attr("beta1", "pir::FloatAttribute"),
                attr("beta2", "pir::FloatAttribute"),
                attr("epsilon", "pir::FloatAttribute"),
                attr("multi_precision", "pir::BoolAttribute"),
            ],
            outputs: vec![
                output("param_out", DENSE, false),
                output("beta1_pow_out", DENSE, false),
                output("beta2_pow_out", DENSE, false),
                output("rho_out", DENSE, false),
                output("moment1_out", DENSE, false),
                output("moment2_out", DENSE, false),
                output("master_param_out", DENSE, true),
            ],
            runtime_info: OpRunTimeInfo {
                infer_meta_func: "RAdamInferMeta".into(),
                infer_meta_param: strings(&args),
                kernel_func: "radam".into(),
                kernel_param: strings(&args),
                kernel_key_dtype: strings(&["param"]),
                kernel_key_backend: vec![],
                inplace: pairs(&[
                    ("param_out", "param"),
                    ("beta1_pow_out", "beta1_pow"),
                    ("beta2_pow_out", "beta2_pow"),
                    ("rho_out", "rho"),
                    ("moment1_out", "moment1"),
                    ("moment2_out", "moment2"),
                    ("master_param_out", "master_param"),
                ]),
                view: vec![],
                skip_transform_inputs: vec![],
            },
            origin_name: "radam_".into(),
        },
    );
    let s = RadamInplaceOp::schema();
    assert_eq!(
        names(&s.traits),
        ["ForwardOnlyTrait", "InplaceTrait", "SideEffectTrait"]
    );
    assert_eq!(
        names(&s.interfaces),
        [
            "GetKernelTypeForVarInterface",
            "InferMetaInterface",
            "OpYamlInfoInterface"
        ]
    );
    assert_eq!(s.class_name, "Radam_Op");
}

#[test]
fn split_matches_paddle() {
    check(
        SplitOp::get_op_info(),
        OpInfoTuple {
            op_name: "pd_op.split".into(),
            inputs: vec![
                input("x", DENSE, [false, false, false, true]),
                input(
                    "sections",
                    "paddle::dialect::IntArrayAttribute",
                    [false, false, true, false],
                ),
                input(
                    "axis",
                    "paddle::dialect::ScalarAttribute",
                    [false, false, true, false],
                ),
            ],
            attributes: vec![],
            outputs: vec![output(
                "out",
                "pir::VectorType<paddle::dialect::DenseTensorType>",
                false,
            )],
            runtime_info: OpRunTimeInfo {
                infer_meta_func: "SplitInferMeta".into(),
                infer_meta_param: strings(&["x", "sections", "axis"]),
                kernel_func: "split".into(),
                kernel_param: strings(&["x", "sections", "axis"]),
                kernel_key_dtype: vec![],
                kernel_key_backend: vec![],
                inplace: vec![],
                view: vec![],
                skip_transform_inputs: vec![],
            },
            origin_name: "split".into(),
        },
    );
    let s = SplitOp::schema();
    assert!(s.traits.is_empty());
    assert_eq!(
        names(&s.interfaces),
        [
            "GetKernelTypeForVarInterface",
            "InferMetaInterface",
            "InferSymbolicShapeInterface",
            "LayoutTransformationInterface",
            "OpYamlInfoInterface",
            "VjpInterface"
        ]
    );
    // Paddle's SplitOp has no (non-mutable) attributes.
    assert!(SplitOp::ATTRIBUTE_NAMES.is_empty());
}
