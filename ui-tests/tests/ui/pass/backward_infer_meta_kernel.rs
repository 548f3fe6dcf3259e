// infer_meta (by registry and by function), kernel, backward/forward ops, extra verifier.
use pir_macros::pir_op;
use pir_runtime::interfaces::{InferMeta, Vjp};
use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry};
use pir_runtime::pir_spec::OpKind;
use pir_runtime::{Op, OpRef};

fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    let x = ctx.tensor(0)?.clone();
    ctx.set_output(0, x)
}

static REGISTRY: InferMetaRegistry = InferMetaRegistry::new(&[("UnchangedInferMeta", unchanged)]);

fn positive_axis(op: OpRef<'_>) -> Result<(), String> {
    match op.attr_data("axis") {
        Some(pir_runtime::AttrData::Int32(a)) if *a < 0 => Err(format!("axis {a} is negative")),
        _ => Ok(()),
    }
}

#[pir_op(
    name = "test.cumsum",
    infer_meta(func = "UnchangedInferMeta", param(x), registry = REGISTRY),
    kernel(func = "cumsum", data_type(x)),
    backward = "cumsum_grad",
    verify = positive_axis
)]
pub struct CumsumOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 0)]
    axis: i32,
    #[output]
    out: DenseTensor,
}

#[pir_op(name = "test.cumsum_grad", infer_meta(with = unchanged), forward = "cumsum")]
pub struct CumsumGradOp {
    #[input]
    out_grad: DenseTensor,
    #[attr(default = 0)]
    axis: i32,
    #[output]
    x_grad: DenseTensor,
}

#[pir_op(name = "test.gather", kernel(func = "gather"), backward = "gather_grad")]
pub struct GatherOp {
    #[input]
    x: DenseTensor,
    #[input(no_grad, no_need_buffer)]
    index: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {
    let s = CumsumOp::schema();
    assert_eq!(s.runtime.infer_meta_param.iter().map(|p| &**p).collect::<Vec<_>>(), ["x"]);
    assert_eq!(s.runtime.kernel_param.iter().map(|p| &**p).collect::<Vec<_>>(), ["x", "axis"]);
    assert_eq!(s.runtime.kernel_key_dtype.iter().map(|p| &**p).collect::<Vec<_>>(), ["x"]);
    assert!(s.verify_signature);
    assert_eq!(CumsumOp::DEF.interface::<Vjp>().unwrap().backward_op, "test.cumsum_grad");
    assert_eq!(CumsumOp::DEF.interface::<InferMeta>().unwrap().func_name, "UnchangedInferMeta");
    assert!(CumsumOp::DEF.interface::<InferMeta>().unwrap().func().is_some());
    assert!(CumsumOp::DEF.verify.is_some());

    let g = CumsumGradOp::schema();
    assert_eq!(g.kind, OpKind::Backward);
    assert!(!g.verify_signature);
    assert_eq!(g.forward.as_deref(), Some("cumsum"));
    assert_eq!(g.runtime.infer_meta_func, "unchanged");
    // No kernel: infer_meta.param defaults to inputs then attributes.
    assert_eq!(g.runtime.infer_meta_param.iter().map(|p| &**p).collect::<Vec<_>>(), ["out_grad", "axis"]);
    assert!(g.runtime.kernel_param.is_empty());

    let info = GatherOp::get_op_info();
    assert!(info.inputs[0].with_grad_semantic);
    assert!(!info.inputs[1].with_grad_semantic);
    assert!(info.inputs[1].no_need_buffer);
    assert_eq!(info.runtime_info.kernel_param, ["x", "index"]);
    assert_eq!(info.runtime_info.infer_meta_func, "");
}
