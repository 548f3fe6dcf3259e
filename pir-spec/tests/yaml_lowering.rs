//! What the yaml front end generates, rule by rule (Paddle's `op_gen.py` semantics).

#![cfg(feature = "yaml")]

use pir_spec::phi::{DataType, Place};
use pir_spec::yaml::{load_op_set, OpSet, YamlSource};
use pir_spec::{AttrKind, DefaultValue, InputKind, OpKind, TensorKind, ValueKind};

fn load(ops: &str, backward: &str, compat: &str) -> OpSet {
    load_dialect("pd_op", ops, backward, compat)
}

fn load_dialect(dialect: &str, ops: &str, backward: &str, compat: &str) -> OpSet {
    let mut files = vec![YamlSource {
        path: "ops.yaml",
        text: ops,
    }];
    if !backward.is_empty() {
        files.push(YamlSource {
            path: "backward.yaml",
            text: backward,
        });
    }
    let compat = (!compat.is_empty()).then_some(YamlSource {
        path: "op_compat.yaml",
        text: compat,
    });
    load_op_set(dialect, &files, compat).unwrap_or_else(|e| panic!("{e}"))
}

fn strs<T: AsRef<str>>(v: &[T]) -> Vec<&str> {
    v.iter().map(|s| s.as_ref()).collect()
}

const ABS: &str = "\
# Absolute value.
- op : abs
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : RealAndImagInferMeta
    spmd_rule : ElementwiseUnaryInferSpmd
  kernel :
    func : abs
    data_type : x
  inplace: (x -> out)
  backward : abs_grad
  interfaces : paddle::dialect::InferSymbolicShapeInterface
";

const ABS_GRAD: &str = "\
- backward_op : abs_grad
  forward : abs (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : abs_grad
    data_type : out_grad
  composite : abs_grad(x, out_grad, x_grad)
";

#[test]
fn inplace_twin_classes() {
    let set = load(ABS, ABS_GRAD, "");
    let names: Vec<&str> = set.iter().map(|o| o.name.as_ref()).collect();
    assert_eq!(names, ["pd_op.abs", "pd_op.abs_", "pd_op.abs_grad"]);
    let abs = set.get("abs").unwrap();
    let abs_ = set.get("pd_op.abs_").unwrap();
    assert_eq!(abs.class_name, "AbsOp");
    assert_eq!(abs_.class_name, "Abs_Op");
    assert_eq!(abs_.origin_name, "abs");
    assert_eq!(abs.kind, OpKind::Forward);
    // Inplace pairs and InplaceTrait only on the `_` class.
    assert!(abs.runtime.inplace.is_empty());
    assert!(!abs.has_trait("InplaceTrait"));
    assert_eq!(abs_.runtime.inplace.as_ref(), [("out".into(), "x".into())]);
    assert!(abs_.has_trait("InplaceTrait"));
    // Interfaces: yaml (short name) + generator rules, sorted.
    assert_eq!(
        strs(&abs.interfaces),
        [
            "CacheGradOpSymbolicShapeInterface",
            "GetKernelTypeForVarInterface",
            "InferMetaInterface",
            "InferSymbolicShapeInterface",
            "OpYamlInfoInterface",
            "VjpInterface",
        ]
    );
    // abs_grad: its backward is not declared, so no Vjp/CacheGrad; no verifier for grad ops.
    let grad = set.get("abs_grad").unwrap();
    assert_eq!(grad.kind, OpKind::Backward);
    assert_eq!(grad.forward.as_deref(), Some("abs"));
    assert!(!grad.verify_signature);
    assert!(abs.verify_signature);
    assert_eq!(
        strs(&grad.interfaces),
        [
            "DecompVjpInterface", // abs_grad is in Paddle's decomp_vjp list
            "GetKernelTypeForVarInterface",
            "InferMetaInterface",
            "OpYamlInfoInterface",
        ]
    );
    // Grad semantic: abs_grad outputs x_grad, so abs's x has a gradient.
    assert!(abs.inputs[0].with_grad_semantic);
    assert!(!grad.inputs[0].with_grad_semantic);
    // Kept keys, source and doc.
    assert!(abs
        .extra
        .iter()
        .any(|(k, v)| k == "infer_meta.spmd_rule" && v == "ElementwiseUnaryInferSpmd"));
    assert!(grad
        .extra
        .iter()
        .any(|(k, v)| k == "composite" && v == "abs_grad(x, out_grad, x_grad)"));
    let src = abs.source.as_ref().unwrap();
    assert_eq!((src.file.as_ref(), src.line), ("ops.yaml", 2));
    assert_eq!(abs.doc, "Absolute value.");
    assert_eq!(grad.source.as_ref().unwrap().file, "backward.yaml");
}

#[test]
fn forward_only_file_set_records_backward_names() {
    let set = load(ABS, "", "");
    let abs = set.get("abs").unwrap();
    assert_eq!(abs.backward.as_deref(), Some("abs_grad"));
    assert!(set.backward_of(abs).is_none());
    assert!(!abs.inputs[0].with_grad_semantic);
    assert!(abs.has_interface("VjpInterface"));
    assert!(!abs.has_interface("CacheGradOpSymbolicShapeInterface"));
}

#[test]
fn view_makes_a_twin_and_getopinfo_tuple() {
    let ops = "\
- op : reshape
  args : (Tensor x, IntArray shape)
  output : Tensor(out), Tensor(xshape)
  infer_meta :
    func : ReshapeWithXShapeInferMeta
  kernel :
    func : reshape
  view : (x -> out)
  intermediate : xshape
";
    let compat = "\
- op : reshape (reshape2)
  inputs :
    x : X
  outputs :
    {out : Out, xshape : XShape}
  int_array:
    shape :
      data_type : int
      tensor_name : Shape
      tensors_name : ShapeTensor
  extra :
    attrs : [bool use_mkldnn = false]
    outputs : [xshape]
";
    let set = load(ops, "", compat);
    let r = set.get("reshape").unwrap();
    let r_ = set.get("reshape_").unwrap();
    assert!(r.runtime.view.is_empty());
    assert_eq!(r_.runtime.view.as_ref(), [("out".into(), "x".into())]);
    assert!(r_.runtime.inplace.is_empty());
    let t = r.op_info_tuple();
    assert_eq!(t.op_name, "pd_op.reshape");
    assert_eq!(t.origin_name, "reshape");
    // The IntArray is a mutable attribute: an operand after the tensors, not an attribute.
    assert_eq!(t.inputs.len(), 2);
    assert_eq!(t.inputs[1].name, "shape");
    assert_eq!(t.inputs[1].type_name, "paddle::dialect::IntArrayAttribute");
    assert!(t.inputs[1].is_mutable_attribute);
    assert!(t.attributes.is_empty());
    match &r.inputs[1].kind {
        InputKind::MutableAttribute(m) => {
            assert_eq!(m.kind, AttrKind::IntArray);
            assert_eq!(m.data_type, "int");
        }
        k => panic!("{k:?}"),
    }
    // Intermediate outputs are optional in GetOpInfo.
    assert!(t.outputs[1].intermediate && t.outputs[1].optional);
    assert!(!t.outputs[0].optional);
    // Default params: infer_meta <- kernel <- inputs + attributes.
    assert_eq!(t.runtime_info.kernel_param, ["x", "shape"]);
    assert_eq!(t.runtime_info.infer_meta_param, ["x", "shape"]);
    // Compat for the translator.
    let c = r.compat.as_ref().unwrap();
    assert_eq!(c.legacy_name.as_deref(), Some("reshape2"));
    assert_eq!(c.outputs.len(), 2);
    assert_eq!(c.mutable[0].tensors_name.as_deref(), Some("ShapeTensor"));
    assert_eq!(strs(&c.extra_attrs), ["bool use_mkldnn = false"]);
    assert_eq!(strs(&c.extra_outputs), ["xshape"]);
    let by_legacy: Vec<&str> = set
        .by_legacy_name("reshape2")
        .iter()
        .map(|o| o.name.as_ref())
        .collect();
    assert_eq!(by_legacy, ["pd_op.reshape", "pd_op.reshape_"]);
}

#[test]
fn multi_kernel_ops_get_one_class_per_kernel() {
    let ops = "\
- op : sgd_
  args : (Tensor param, Tensor learning_rate, Tensor grad, Tensor master_param, bool multi_precision=false)
  output : Tensor(param_out), Tensor(master_param_out)
  infer_meta :
    func : SgdInferMeta
  kernel :
    func : sgd {dense, dense, dense, dense -> dense, dense},
           sgd_dense_param_sparse_grad {dense, dense, selected_rows, dense -> dense, dense},
           sgd_sparse_param_sparse_grad {selected_rows, dense, selected_rows, dense -> selected_rows, dense}
    data_type : param
  optional : master_param, master_param_out
  inplace : (param -> param_out), (master_param -> master_param_out)
  traits : pir::SideEffectTrait
- op : scale
  args : (Tensor x, Scalar scale=1.0, float bias=0.0, bool bias_after_scale=true)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : scale {dense -> dense},
           scale_sr {selected_rows -> selected_rows}
  inplace : (x -> out)
";
    let set = load(ops, "", "");
    let names: Vec<(&str, &str)> = set
        .iter()
        .map(|o| (o.name.as_ref(), o.class_name.as_ref()))
        .collect();
    assert_eq!(
        names,
        [
            ("pd_op.sgd_", "Sgd_Op"),
            (
                "pd_op.sgd_dense_param_sparse_grad_",
                "SgdDenseParamSparseGrad_Op"
            ),
            (
                "pd_op.sgd_sparse_param_sparse_grad_",
                "SgdSparseParamSparseGrad_Op"
            ),
            ("pd_op.scale", "ScaleOp"),
            ("pd_op.scale_sr", "ScaleSrOp"),
            ("pd_op.scale_", "Scale_Op"),
            ("pd_op.scale_sr_", "ScaleSr_Op"),
        ]
    );
    let sparse = set.get("sgd_sparse_param_sparse_grad_").unwrap();
    assert_eq!(sparse.origin_name, "sgd_");
    assert_eq!(sparse.runtime.kernel_func, "sgd_sparse_param_sparse_grad");
    assert_eq!(
        sparse.inputs[0].kind,
        InputKind::Value(ValueKind::Tensor(TensorKind::SelectedRows))
    );
    assert_eq!(
        sparse.outputs[0].kind,
        ValueKind::Tensor(TensorKind::SelectedRows)
    );
    assert_eq!(
        sparse.op_info_tuple().outputs[0].type_name,
        "paddle::dialect::SelectedRowsType"
    );
    // Optional master_param makes the inplace output optional too.
    assert!(sparse.outputs[1].optional);
    assert_eq!(strs(&sparse.traits), ["InplaceTrait", "SideEffectTrait"]);
    assert_eq!(sparse.runtime.inplace.len(), 2);
    let scale_sr = set.get("scale_sr").unwrap();
    assert_eq!(scale_sr.runtime.kernel_func, "scale_sr");
    assert_eq!(scale_sr.runtime.infer_meta_param.as_ref(), ["x"]);
    assert!(scale_sr.runtime.inplace.is_empty());
}

#[test]
fn mutable_attributes_follow_op_compat() {
    let ops = "\
- op : clip
  args : (Tensor x, Scalar(float) min, Scalar(float) max)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : clip
  backward : clip_grad
- op : isclose
  args : (Tensor x, Tensor y, Scalar(double) rtol=1e-5, Scalar(double) atol=1e-8, bool equal_nan=false)
  output : Tensor(out)
  infer_meta :
    func : ValueCompareInferMeta
    param: [x, y]
  kernel :
    func : isclose
- op : one_hot
  args : (Tensor x, Scalar(int) num_classes)
  output : Tensor(out)
  infer_meta :
    func : OneHotInferMeta
  kernel :
    func : one_hot
- op : pow
  args : (Tensor x, Scalar y=1.0f)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
    param: [x]
  kernel :
    func : pow
- op : scale
  args : (Tensor x, Scalar scale=1.0, Scalar bias=0.0)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : scale
- op : argmax
  args : (Tensor x, Scalar(int64_t) axis, bool keepdims = false)
  output : Tensor(out)
  infer_meta :
    func : ArgMinMaxInferMeta
  kernel :
    func : argmax
  support_tensor : [axis]
";
    let backward = "\
- backward_op : clip_grad
  forward : clip (Tensor x, Scalar min, Scalar max) -> Tensor(out)
  args : (Tensor x, Tensor out_grad, Scalar min = 0., Scalar max = 0.)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : clip_grad
";
    let compat = "\
- op : clip
  backward : clip_grad
  scalar :
    min :
      data_type : float
      tensor_name : Min
    max :
      data_type :  float
      tensor_name : Max
- op : isclose
  scalar :
    rtol :
      data_type : std::string
      tensor_name : Rtol
- op : one_hot (one_hot_v2)
  scalar :
    depth :
      data_type : int
      tensor_name : depth_tensor
- op : pow
  scalar :
    y :
      data_type : float
      tensor_name : FactorTensor
- op : scale
  scalar :
    scale :
      data_type : float
      tensor_name : ScaleTensor
    bias :
      data_type : float
      support_tensor : false
";
    let set = load(ops, backward, compat);
    let mutable = |op: &str| -> Vec<(String, String)> {
        set.get(op)
            .unwrap()
            .inputs
            .iter()
            .filter_map(|i| match &i.kind {
                InputKind::MutableAttribute(m) => {
                    Some((i.name.to_string(), m.data_type.to_string()))
                }
                InputKind::Value(_) => None,
            })
            .collect()
    };
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        mutable("clip"),
        [pair("min", "float"), pair("max", "float")]
    );
    // Backward ops share the forward's compat entry (listed under `backward`).
    assert_eq!(
        mutable("clip_grad"),
        [pair("min", "float"), pair("max", "float")]
    );
    // Paddle forces `double` for isclose/allclose.
    assert_eq!(mutable("isclose"), [pair("rtol", "double")]);
    // one_hot's compat `depth` is the op's `num_classes`.
    assert_eq!(mutable("one_hot"), [pair("num_classes", "int")]);
    // pow's compat scalar is dropped by Paddle.
    assert!(mutable("pow").is_empty());
    // support_tensor: false is not mutable.
    assert_eq!(mutable("scale"), [pair("scale", "float")]);
    let scale = set.get("scale").unwrap();
    assert_eq!(scale.attributes.len(), 1);
    assert_eq!(scale.attributes[0].name, "bias");
    assert_eq!(scale.attributes[0].data_type, "float");
    // The op's own `support_tensor` key.
    assert_eq!(mutable("argmax"), [pair("axis", "int64_t")]);
    let t = set.get("argmax").unwrap().op_info_tuple();
    assert_eq!(t.inputs[1].type_name, "paddle::dialect::ScalarAttribute");
    assert_eq!(t.attributes[0].name, "keepdims");
    // Non-mutable Scalar(T) attributes are ScalarAttribute with the C++ type as data_type.
    let isclose = set.get("isclose").unwrap().op_info_tuple();
    assert_eq!(isclose.attributes[0].name, "atol");
    assert_eq!(
        isclose.attributes[0].type_name,
        "paddle::dialect::ScalarAttribute"
    );
    assert_eq!(isclose.attributes[0].data_type, "double");
    // Mutable attributes whose gradient the backward op produces have grad semantic; here none.
    assert!(set.get("clip").unwrap().inputs[0].with_grad_semantic);
    assert!(!set.get("clip").unwrap().inputs[1].with_grad_semantic);
}

#[test]
fn runtime_info_and_defaults() {
    let ops = "\
- op : full_like
  args : (Tensor x, Scalar value, DataType dtype = DataType::UNDEFINED, Place place = {})
  output: Tensor(out)
  infer_meta :
    func : CreateLikeInferMeta
    param : [x, dtype]
  kernel :
    func : full_like
    param : [x, value, dtype]
    data_type : dtype > x
    backend : place > x
    layout : x
  data_transform :
    skip_transform : x
- op : angle
  args : (Tensor x, int64_t n = INT64_MAX, int[] k = {1, 1}, float eps = 1.0e-6f, str fmt = \"NCHW\", Place p = CPUPlace())
  output : Tensor
  infer_meta :
    func : RealAndImagInferMeta
  kernel :
    func : angle
    data_type : complex(x)
- op : cast
  args : (Tensor x, DataType dtype)
  output : Tensor(out)
  infer_meta :
    func : CastInferMeta
    param :
  kernel :
    func : cast
    param : [x, dtype]
";
    let set = load(ops, "", "");
    let fl = set.get("full_like").unwrap().op_info_tuple();
    assert_eq!(fl.runtime_info.kernel_key_dtype, ["dtype", "x"]);
    assert_eq!(fl.runtime_info.kernel_key_backend, ["place", "x"]);
    assert_eq!(fl.runtime_info.infer_meta_param, ["x", "dtype"]);
    assert_eq!(fl.runtime_info.kernel_param, ["x", "value", "dtype"]);
    // pd_op's GetOpInfo does not carry skip_transform (only the oneDNN template does).
    assert!(fl.runtime_info.skip_transform_inputs.is_empty());
    let full_like = set.get("full_like").unwrap();
    assert!(full_like
        .extra
        .iter()
        .any(|(k, v)| k == "data_transform.skip_transform" && v == "x"));
    assert!(full_like
        .extra
        .iter()
        .any(|(k, v)| k == "kernel.layout" && v == "x"));
    assert_eq!(
        full_like.attributes[1].default,
        Some(DefaultValue::DataType(DataType::Undefined))
    );
    assert_eq!(
        full_like.attributes[2].default,
        Some(DefaultValue::Place(Place::default()))
    );

    let angle = set.get("angle").unwrap();
    let t = angle.op_info_tuple();
    assert_eq!(t.runtime_info.kernel_key_dtype, ["complex:x"]);
    assert_eq!(t.outputs[0].name, "out");
    let d: Vec<Option<DefaultValue>> = angle.attributes.iter().map(|a| a.default.clone()).collect();
    assert_eq!(
        d,
        [
            Some(DefaultValue::Int(i64::MAX)),
            Some(DefaultValue::IntList(vec![1, 1].into())),
            Some(DefaultValue::Float(1.0e-6)),
            Some(DefaultValue::Str("NCHW".into())),
            Some(DefaultValue::Place(Place::cpu())),
        ]
    );
    assert_eq!(angle.attributes[0].kind, AttrKind::Int64);
    assert_eq!(angle.attributes[1].yaml_type, "int[]");

    // An empty `param :` means the default: the kernel's params.
    let cast = set.get("cast").unwrap().op_info_tuple();
    assert_eq!(cast.runtime_info.infer_meta_param, ["x", "dtype"]);

    // In the oneDNN dialect skip_transform is part of the runtime info.
    let onednn = load_dialect("onednn_op", ops, "", "");
    let fl = onednn.get("onednn_op.full_like").unwrap();
    assert_eq!(fl.runtime.skip_transform_inputs.as_ref(), ["x"]);
    assert!(fl.has_trait("OneDNNTrait"));
}

#[test]
fn invoke_and_composite_only_ops() {
    let ops = "\
- op : full
  args : (IntArray shape, Scalar(double) value, DataType dtype=DataType::FLOAT32)
  output: Tensor(out)
  infer_meta :
    func : CreateInferMeta
    param : [shape, dtype]
  kernel :
    func : full
    param : [shape, value, dtype]
    data_type : dtype
- op : ones
  args : (IntArray shape, DataType dtype=DataType::FLOAT32)
  output : Tensor(out)
  invoke : full(shape, 1, dtype)
";
    let backward = "\
- backward_op : ones_like_grad
  forward : ones_like (Tensor x) -> Tensor(out)
  args : (Tensor out_grad)
  output : Tensor(x_grad)
  invoke : full(out_grad, 0)
- backward_op : silu_double_grad
  forward : silu_grad (Tensor x, Tensor out, Tensor grad_out) -> Tensor(grad_x)
  args : (Tensor x, Tensor out, Tensor grad_out, Tensor grad_x_grad)
  output : Tensor(x_grad), Tensor(grad_out_grad)
  infer_meta :
    func : GeneralBinaryGradInferMeta
    param : [x, x]
  composite : silu_double_grad(x, out, grad_out, grad_x_grad, x_grad, grad_out_grad)
  inplace : (grad_x_grad -> x_grad)
- backward_op : silu_grad
  forward : silu (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out, Tensor out_grad)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : silu_grad
  backward : silu_double_grad
";
    let set = load(ops, backward, "");
    let ones = set.get("ones").unwrap();
    assert_eq!(ones.invoke.as_deref(), Some("full(shape, 1, dtype)"));
    let t = ones.op_info_tuple();
    assert_eq!(t.runtime_info.infer_meta_func, "");
    // Paddle's template writes `{""}` for an empty parameter list.
    assert_eq!(t.runtime_info.infer_meta_param, [""]);
    assert_eq!(t.runtime_info.kernel_param, [""]);
    assert!(ones.runtime.kernel_param.is_empty());
    // Same-file invoke of an op with an InferMeta: InferMetaInterface.
    assert!(ones.has_interface("InferMetaInterface"));
    // Invoke of an op in another file: none (Paddle looks in the file's own items).
    let olg = set.get("ones_like_grad").unwrap();
    assert!(!olg.has_interface("InferMetaInterface"));
    // Composite without kernel: not a base op, so its infer_meta and inplace are unused.
    let sdg = set.get("silu_double_grad").unwrap();
    assert!(set.get("silu_double_grad_").is_none());
    assert_eq!(sdg.runtime.infer_meta_func, "");
    assert!(!sdg.has_interface("InferMetaInterface"));
    // silu_grad's backward is composite-only: Paddle blacklists its VjpInterface, and a
    // backward without a kernel gives no CacheGradOpSymbolicShapeInterface.
    let sg = set.get("silu_grad").unwrap();
    assert!(!sg.has_interface("VjpInterface"));
    assert!(!sg.has_interface("CacheGradOpSymbolicShapeInterface"));
    // Grad semantic through the double grad's `forward:` signature: x and grad_out.
    let gs: Vec<bool> = sg.inputs.iter().map(|i| i.with_grad_semantic).collect();
    assert_eq!(gs, [true, false, true]);
}

#[test]
fn paddle_lists_and_dialects() {
    let ops = "\
- op : relu
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : relu
  inplace : (x -> out)
  backward : relu_grad
  traits : paddle::dialect::ForwardOnlyTrait
  custom_verify : true
";
    let backward = "\
- backward_op : relu_grad
  forward : relu (Tensor x) -> Tensor(out)
  args : (Tensor out, Tensor out_grad)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [out]
  kernel :
    func : relu_grad
";
    let set = load(ops, backward, "");
    let relu = set.get("relu").unwrap();
    assert_eq!(
        strs(&relu.traits),
        ["CustomVjpTrait", "ForwardOnlyTrait"] // relu_grad is in CUSTOM_VJP
    );
    assert!(relu.has_interface("DecompInterface")); // relu is in the decomp rule list
    assert!(!set.get("relu_").unwrap().has_interface("DecompInterface")); // relu_ is not
    assert!(!relu.verify_signature); // custom_verify
    assert!(set
        .get("relu_grad")
        .unwrap()
        .has_interface("DecompVjpInterface"));
    assert!(std::ptr::eq(
        set.forward_of(set.get("relu_grad").unwrap()).unwrap(),
        relu
    ));

    // Another dialect: no GetKernelTypeForVar (pd_op/onednn_op only) nor CacheGrad (pd_op).
    let other = load_dialect("test", ops, backward, "");
    let relu = other.get("test.relu").unwrap();
    assert_eq!(relu.dialect, "test");
    assert!(!relu.has_interface("GetKernelTypeForVarInterface"));
    assert!(!relu.has_interface("CacheGradOpSymbolicShapeInterface"));
    assert!(relu.has_interface("OpYamlInfoInterface"));
}

#[test]
fn compat_lookups_for_the_translator() {
    let ops = "\
- op : sum
  args : (Tensor x, IntArray axis={}, DataType dtype=DataType::UNDEFINED, bool keepdim=false)
  output : Tensor(out)
  infer_meta :
    func : SumInferMeta
  kernel :
    func : sum
  backward : sum_grad
- op : legacy_sum
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : legacy_sum
";
    let backward = "\
- backward_op : sum_grad
  forward : sum (Tensor x, IntArray axis={}, DataType dtype=DataType::UNDEFINED, bool keepdim=false) -> Tensor(out)
  args : (Tensor x, Tensor out_grad, IntArray axis, bool keepdim)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : sum_grad
";
    let compat = "\
- op : sum (reduce_sum)
  backward : sum_grad (reduce_sum_grad), sum_double_grad
  inputs :
    x : X
  attrs :
    { axis : dim, keepdim : keep_dim, dtype : out_dtype}
  int_array:
    axis :
      data_type : int
      support_tensor : true
  complex_promote : [X]
  get_expected_kernel_type :
    sum : GetReduceExpectedKernelType
- op : legacy_sum (sum)
";
    let set = load(ops, backward, compat);
    let sum = set.get("sum").unwrap();
    let c = sum.compat.as_ref().unwrap();
    assert_eq!(c.legacy_name.as_deref(), Some("reduce_sum"));
    assert_eq!(c.attrs.len(), 3);
    assert_eq!(strs(&c.complex_promote), ["X"]);
    assert_eq!(c.expected_kernel_type.len(), 1);
    let grad = set.get("sum_grad").unwrap();
    assert_eq!(
        grad.compat.as_ref().unwrap().legacy_name.as_deref(),
        Some("reduce_sum_grad")
    );
    // The grad op shares the mutable `axis` from the forward's entry.
    assert!(grad.op_info_tuple().inputs[2].is_mutable_attribute);
    // Legacy `sum` is `legacy_sum`, not `sum`.
    let legacy: Vec<&str> = set
        .by_legacy_name("sum")
        .iter()
        .map(|o| o.op_name.as_ref())
        .collect();
    assert_eq!(legacy, ["legacy_sum"]);
    assert_eq!(set.by_legacy_name("reduce_sum")[0].op_name, "sum");
    assert!(set.by_legacy_name("nothing").is_empty());
    assert_eq!(set.compat_entry("sum_double_grad").unwrap().op, "sum");
    assert_eq!(set.compat_entries().len(), 2);
    assert_eq!(
        set.by_class_name("SumGradOp").unwrap().name,
        "pd_op.sum_grad"
    );
    assert_eq!(set.len(), 3);
    assert!(!set.is_empty());
}
