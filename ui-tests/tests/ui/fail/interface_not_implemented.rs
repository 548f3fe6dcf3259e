// Declaring `InferShape` without implementing `InferShapeOp` for the op.
use pir_macros::pir_op;

#[pir_op(name = "test.abs", interfaces(InferShape))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
