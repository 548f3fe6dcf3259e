// A field that is neither an input, an attribute nor an output.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    scale: f32,
    #[output]
    out: DenseTensor,
}

fn main() {}
