// `grad` (gradient semantics stated by hand) contradicting `no_grad`, and implied by `backward`.
use pir_macros::pir_op;

#[pir_op(name = "test.scale", backward = "scale_grad")]
pub struct ScaleOp {
    #[input(grad, no_grad)]
    x: DenseTensor,
    #[input(grad)]
    y: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
