//! The run-time twin of the compile-time check: every op of the generated `pd_op` dialect fits
//! the signature of its infer-meta function, through `InferMetaRegistry::check_schema` (what a
//! dialect loaded from yaml while the program runs uses), and a definition that does not fit is
//! rejected with a typed error naming the op, its param list and the function.

use op_defs::infer_meta::REGISTRY;
use op_defs::pd_op::PdOpDialect;
use pir_runtime::meta::FitMismatch;
use pir_runtime::Dialect;
use pir_spec::yaml::{load_op_set, YamlSource};

#[test]
fn every_pd_op_fits_its_function_at_run_time_too() {
    let mut checked = Vec::new();
    for def in PdOpDialect::op_defs() {
        let s = def.schema.expect("generated ops carry their schema");
        if let Err(e) = REGISTRY.check_schema(s) {
            panic!("{e}");
        }
        let typed = REGISTRY
            .entry(&s.runtime.infer_meta_func)
            .is_some_and(|e| !e.signatures.is_empty());
        if typed {
            checked.push(def.name);
        }
    }
    // The ops whose functions are written with typed parameters were checked for real.
    for op in [
        "pd_op.conv2d",
        "pd_op.relu",
        "pd_op.reshape",
        "pd_op.full",
        "pd_op.split",
    ] {
        assert!(checked.contains(&op), "{op} was not checked: {checked:?}");
    }
}

fn load(yaml: &str) -> pir_spec::OpSchema {
    let set = load_op_set(
        "pd_op",
        &[YamlSource {
            path: "ops.yaml",
            text: yaml,
        }],
        None,
    )
    .unwrap();
    set.ops.into_iter().next().unwrap()
}

#[test]
fn definitions_that_do_not_fit_are_rejected_with_what_and_where() {
    // Reshape with its arguments swapped: an IntArray where the function takes a tensor.
    let swapped = load(
        "- op : reshape\n  args : (Tensor x, IntArray shape)\n  output : Tensor(out)\n  \
         infer_meta :\n    func : ReshapeInferMeta\n    param : [shape, x]\n",
    );
    let e = REGISTRY.check_schema(&swapped).unwrap_err();
    assert_eq!((&*e.op, &*e.func), ("pd_op.reshape", "ReshapeInferMeta"));
    assert_eq!(e.mismatch, FitMismatch::Kind { position: 0 });
    let msg = e.to_string();
    assert!(
        msg.starts_with(
            "op `pd_op.reshape` (ops.yaml:1): its infer_meta.param list does not fit \
             ReshapeInferMeta: argument 0 `shape` is IntArray but parameter `x: &TensorMeta` \
             takes a tensor\n  infer_meta.param: (IntArray shape, Tensor x)\n  function: \
             reshape_infer_meta(x: &TensorMeta, shape: IntArray<'_>) at op-defs/src/infer_meta/unary.rs:"
        ),
        "{msg}"
    );

    // One argument too many.
    let extra = load(
        "- op : relu\n  args : (Tensor x, int axis)\n  output : Tensor(out)\n  \
         infer_meta :\n    func : UnchangedInferMeta\n",
    );
    let e = REGISTRY.check_schema(&extra).unwrap_err();
    assert_eq!(e.mismatch, FitMismatch::Count { args: 2 });
    assert!(
        e.to_string()
            .contains("the op passes 2 arguments but the function takes 1"),
        "{e}"
    );

    // A function still written by position, or one not implemented, is not checked.
    let unchecked = load(
        "- op : foo\n  args : (Tensor x)\n  output : Tensor(out)\n  \
         infer_meta :\n    func : NoSuchInferMeta\n",
    );
    assert!(REGISTRY.check_schema(&unchecked).is_ok());
}
