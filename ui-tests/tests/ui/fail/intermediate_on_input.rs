// `intermediate` on an input.
use pir_macros::pir_op;

#[pir_op(name = "test.reshape")]
pub struct ReshapeOp {
    #[input(intermediate)]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
