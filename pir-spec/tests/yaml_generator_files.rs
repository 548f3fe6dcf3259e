//! The rules Paddle's generator applies across its nine generator files: sparse classes
//! (`<name>_sp`, `<func>_sp`, `_sp_`), one class per kernel function, the hand-written ops that
//! yaml must not shadow, literals in `param` lists, and one error (not a cascade) for an `args`
//! list that does not parse.

#![cfg(feature = "yaml")]

use pir_spec::yaml::{load_op_set, OpSet, SpecError, YamlSource};

fn load(files: &[(&str, &str)], compat: &str) -> Result<OpSet, Vec<SpecError>> {
    let sources: Vec<YamlSource<'_>> = files
        .iter()
        .map(|(path, text)| YamlSource { path, text })
        .collect();
    let compat = (!compat.is_empty()).then_some(YamlSource {
        path: "op_compat.yaml",
        text: compat,
    });
    load_op_set("pd_op", &sources, compat).map_err(|e| e.into_vec())
}

fn names(set: &OpSet) -> Vec<&str> {
    set.iter().map(|o| o.op_name.as_ref()).collect()
}

const DENSE_ABS: &str = "\
- op : abs
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : RealAndImagInferMeta
  kernel :
    func : abs
  backward : abs_grad
";

const DENSE_ABS_GRAD: &str = "\
- backward_op : abs_grad
  forward : abs (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : abs_grad
";

const SPARSE_OPS: &str = "\
- op : abs
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : RealAndImagInferMeta
  kernel :
    func : abs_coo{sparse_coo -> sparse_coo},
           abs_csr{sparse_csr -> sparse_csr}
  backward : abs_grad

- op : values
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : sparse::ValuesInferMeta
  kernel :
    func : values_coo{sparse_coo -> dense}
  backward : values_grad

- op : scale
  args : (Tensor x, float scale, float bias, bool bias_after_scale)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : scale_coo{sparse_coo -> sparse_coo}

- op : masked_matmul
  args : (Tensor x, Tensor y, Tensor mask)
  output : Tensor(out)
  infer_meta :
    func : MatmulInferMeta
    param : [x, y, false, false]
  kernel :
    func : masked_matmul_csr{dense, dense, sparse_csr -> sparse_csr}

- op : sync_batch_norm_
  args : (Tensor x, Tensor mean)
  output : Tensor(out), Tensor(mean_out)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : sync_batch_norm_coo{sparse_coo, dense -> sparse_coo, dense}
  inplace : (mean -> mean_out)
";

const SPARSE_BACKWARD: &str = "\
- backward_op : abs_grad
  forward : abs(Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : abs_coo_grad {sparse_coo, sparse_coo -> sparse_coo},
           abs_csr_grad {sparse_csr, sparse_csr -> sparse_csr}

- backward_op : values_grad
  forward : values(Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
  infer_meta :
    func : UnchangedInferMeta
    param : [x]
  kernel :
    func : values_coo_grad{sparse_coo, dense-> sparse_coo}
";

const SCALE_COMPAT: &str = "\
- op : scale
  scalar :
    scale :
      data_type : float
      tensor_name : ScaleTensor
";

fn sparse_set() -> OpSet {
    load(
        &[
            ("dir/ops.yaml", DENSE_ABS),
            ("dir/backward.yaml", DENSE_ABS_GRAD),
            ("dir/sparse_ops.yaml", SPARSE_OPS),
            ("dir/sparse_backward.yaml", SPARSE_BACKWARD),
        ],
        SCALE_COMPAT,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"))
}

#[test]
fn sparse_entries_make_sp_classes_beside_their_dense_namesakes() {
    let set = sparse_set();
    assert_eq!(
        names(&set),
        [
            "abs",
            "abs_grad",
            "abs_coo_sp",
            "abs_csr_sp",
            "values_sp",
            "scale_sp",
            "masked_matmul_sp",
            "sync_batch_norm_sp_",
            "abs_coo_grad_sp",
            "abs_csr_grad_sp",
            "values_grad_sp",
        ]
    );
    let class = |n: &str| set.get(n).unwrap().class_name.to_string();
    assert_eq!(class("abs_coo_sp"), "AbsCooSpOp");
    assert_eq!(class("values_sp"), "ValuesSpOp");
    assert_eq!(class("sync_batch_norm_sp_"), "SyncBatchNorm_SpOp");
    assert_eq!(class("abs"), "AbsOp");
    // The origin (GetOpInfo's fifth element) is the name as written.
    assert_eq!(set.get("abs_coo_sp").unwrap().origin_name, "abs");
    assert_eq!(set.get("pd_op.abs_csr_sp").unwrap().op_name, "abs_csr_sp");
}

#[test]
fn sparse_classes_take_their_kernels_tensor_kinds() {
    let set = sparse_set();
    let info = set.get("abs_csr_sp").unwrap().op_info_tuple();
    assert_eq!(
        info.inputs[0].type_name,
        "paddle::dialect::SparseCsrTensorType"
    );
    assert_eq!(
        info.outputs[0].type_name,
        "paddle::dialect::SparseCsrTensorType"
    );
    let info = set.get("masked_matmul_sp").unwrap().op_info_tuple();
    let kinds: Vec<&str> = info.inputs.iter().map(|i| i.type_name.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "paddle::dialect::DenseTensorType",
            "paddle::dialect::DenseTensorType",
            "paddle::dialect::SparseCsrTensorType"
        ]
    );
    // PyYAML reads `false` in a param list as Python's False.
    assert_eq!(
        info.runtime_info.infer_meta_param,
        ["x", "y", "False", "False"]
    );
    // Qualified infer-meta functions are kept as written.
    let values = set.get("values_sp").unwrap().op_info_tuple();
    assert_eq!(
        values.runtime_info.infer_meta_func,
        "sparse::ValuesInferMeta"
    );
}

#[test]
fn sparse_grad_semantic_needs_the_backward_written_name_to_exist() {
    let set = sparse_set();
    // op_gen.py tests `abs_grad` (dense, present) then reads `abs_grad_sp`.
    let abs = set.get("abs_coo_sp").unwrap().op_info_tuple();
    assert!(abs.inputs[0].with_grad_semantic);
    // `values_grad` exists only as a sparse op: no grad semantic, but a VjpInterface.
    let values = set.get("values_sp").unwrap();
    assert!(!values.op_info_tuple().inputs[0].with_grad_semantic);
    assert!(values.has_interface("VjpInterface"));
    // Sparse ops never get CacheGradOpSymbolicShapeInterface; the dense one does.
    assert!(!set
        .get("abs_coo_sp")
        .unwrap()
        .has_interface("CacheGradOpSymbolicShapeInterface"));
    assert!(set
        .get("abs")
        .unwrap()
        .has_interface("CacheGradOpSymbolicShapeInterface"));
}

#[test]
fn sparse_ops_keep_compat_scalars_as_attributes() {
    let set = sparse_set();
    let scale = set.get("scale_sp").unwrap().op_info_tuple();
    assert_eq!(scale.inputs.len(), 1, "no mutable `scale` operand");
    assert_eq!(scale.attributes[0].name, "scale");
    assert_eq!(scale.attributes[0].type_name, "pir::FloatAttribute");
}

#[test]
fn sparse_twin_has_inplace_trait_and_pairs() {
    let set = sparse_set();
    let op = set.get("sync_batch_norm_sp_").unwrap();
    assert!(op.has_trait("InplaceTrait"));
    assert_eq!(op.runtime.inplace[0], ("mean_out".into(), "mean".into()));
}

#[test]
fn a_file_is_sparse_by_its_name_only() {
    // The same text in ops.yaml is dense: `abs` takes the one kernel function per class rule.
    let set = load(&[("ops.yaml", SPARSE_OPS)], "").unwrap();
    assert!(set.get("abs_coo").is_some());
    assert!(set.get("abs_coo_sp").is_none());
}

#[test]
fn a_dense_multi_kernel_entry_makes_a_class_per_function() {
    let ops = "\
- op : isnan
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : IsfiniteInferMeta
  kernel :
    func : isnan {dense -> dense},
           isnan_sr {selected_rows -> selected_rows}
";
    let set = load(&[("ops.yaml", ops)], "").unwrap();
    assert_eq!(names(&set), ["isnan", "isnan_sr"]);
    let sr = set.get("isnan_sr").unwrap();
    assert_eq!(sr.class_name, "IsnanSrOp");
    assert_eq!(
        sr.op_info_tuple().inputs[0].type_name,
        "paddle::dialect::SelectedRowsType"
    );
}

#[test]
fn hand_written_ops_are_not_generated() {
    let ops = "\
- op : expand
  args : (Tensor x, IntArray shape = {})
  output : Tensor(out)
  infer_meta :
    func : ExpandInferMeta
  kernel :
    func : expand

- op : increment
  args : (Tensor x, float value = 1.0)
  output : Tensor(out)
  infer_meta :
    func : IncrementInferMeta
  kernel :
    func : increment
  inplace : (x -> out)

- op : add_n
  args : (Tensor[] inputs)
  output : Tensor(out)
  infer_meta :
    func : AddNInferMeta
  kernel :
    func : add_n
  inplace : (inputs -> out)
  backward : add_n_grad

- op : relu
  args : (Tensor x)
  output : Tensor(out)
";
    let backward = "\
- backward_op : add_n_grad
  forward : add_n (Tensor[] inputs) -> Tensor(out)
  args : (Tensor[] inputs, Tensor out_grad)
  output : Tensor[](inputs_grad){inputs.size()}
  invoke : add_n_grad_impl(inputs, out_grad)
";
    let set = load(&[("ops.yaml", ops), ("backward.yaml", backward)], "").unwrap();
    // `expand`, `increment`, `increment_` and `add_n_` are Paddle's PD_MANUAL_OP_LIST; the
    // `add_n_grad` entry only serves AddNOp's Vjp.
    assert_eq!(names(&set), ["add_n", "relu"]);
    // The skipped backward still gives its forward grad semantic.
    assert!(set.get("add_n").unwrap().op_info_tuple().inputs[0].with_grad_semantic);
}

#[test]
fn an_args_list_that_does_not_parse_is_reported_once() {
    let ops = "\
- op : f
  args : (Tensor x, Tensor y, float eps = 1e-5, int bad = ??)
  output : Tensor(out), Tensor(out2)
  optional : y, out2
  intermediate : out2
  no_need_buffer : x
  inplace : (x -> out)
  infer_meta :
    func : FInferMeta
    param : [x, y, eps]
  kernel :
    func : f
    param : [x, y, eps]
    data_type : x
";
    let errors = load(&[("ops.yaml", ops)], "").unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let msg = errors[0].to_string();
    assert!(msg.starts_with("ops.yaml:2: op `f`:"), "{msg}");
    assert!(msg.contains("args"), "{msg}");
}

#[test]
fn cpp_literal_defaults_paddle_accepts() {
    // fused_backward.yaml writes `int dropout_seed = true`; C++ converts it to 1.
    let ops = "\
- op : f
  args : (Tensor x, float rate = 0.5f, bool is_test = false, int seed = true, float eps = 1e-5, int64_t big = -1L, int mask = 0x10)
  output : Tensor(out)
";
    let set = load(&[("ops.yaml", ops)], "").unwrap();
    let f = set.get("f").unwrap();
    let default = |n: &str| {
        f.attributes
            .iter()
            .find(|a| a.name == n)
            .and_then(|a| a.default.clone())
            .unwrap()
    };
    use pir_spec::DefaultValue as D;
    assert_eq!(default("seed"), D::Int(1));
    assert_eq!(default("rate"), D::Float(0.5));
    assert_eq!(default("eps"), D::Float(1e-5));
    assert_eq!(default("big"), D::Int(-1));
    assert_eq!(default("mask"), D::Int(16));
}
