// An attribute named like an input: the names share one namespace.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[attr]
    x: f32,
    #[output]
    out: DenseTensor,
}

fn main() {}
