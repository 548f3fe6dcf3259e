// The name is given as a path instead of a string.
use pir_macros::pir_op;

#[pir_op(name = test.abs)]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
