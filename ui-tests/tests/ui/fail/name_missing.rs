// `#[pir_op]` without the op's name.
use pir_macros::pir_op;

#[pir_op]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
