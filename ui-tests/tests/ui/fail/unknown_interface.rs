// An interface pir-runtime does not have, given by a bare name.
use pir_macros::pir_op;

#[pir_op(name = "test.abs", interfaces(ShapeInference))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
