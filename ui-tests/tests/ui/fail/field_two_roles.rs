// A field marked both input and output.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
pub struct AbsOp {
    #[input]
    #[output]
    x: DenseTensor,
}

fn main() {}
