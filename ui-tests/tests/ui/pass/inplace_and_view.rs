// In-place and view ops: names ending with `_`, InplaceTrait, runtime pairs.
use pir_macros::pir_op;
use pir_runtime::traits::Inplace;
use pir_runtime::Op;

#[pir_op(name = "test.relu_", traits(SideEffect))]
pub struct ReluInplaceOp {
    #[input]
    x: DenseTensor,
    #[output(inplace = x)]
    out: DenseTensor,
}

#[pir_op(name = "test.reshape_")]
pub struct ReshapeInplaceOp {
    #[input]
    x: DenseTensor,
    #[attr(mutable)]
    shape: IntArray,
    #[output(view = x)]
    out: DenseTensor,
    #[output(intermediate)]
    xshape: DenseTensor,
}

#[pir_op(name = "test.relu")]
pub struct ReluOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {
    assert!(ReluInplaceOp::DEF.has_trait::<Inplace>());
    assert!(ReshapeInplaceOp::DEF.has_trait::<Inplace>());
    assert!(!ReluOp::DEF.has_trait::<Inplace>());
    let info = ReluInplaceOp::get_op_info();
    assert_eq!(info.runtime_info.inplace, [("out".to_string(), "x".to_string())]);
    assert!(info.runtime_info.view.is_empty());
    let info = ReshapeInplaceOp::get_op_info();
    assert_eq!(info.runtime_info.view, [("out".to_string(), "x".to_string())]);
    assert!(info.outputs[1].optional && info.outputs[1].intermediate);
    assert_eq!(
        ReluInplaceOp::schema().traits.iter().map(|t| &**t).collect::<Vec<_>>(),
        ["InplaceTrait", "SideEffectTrait"]
    );
}
