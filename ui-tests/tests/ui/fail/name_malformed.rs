// The op part of the name is not made of letters, digits and `_`.
use pir_macros::pir_op;

#[pir_op(name = "test.abs-value")]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
