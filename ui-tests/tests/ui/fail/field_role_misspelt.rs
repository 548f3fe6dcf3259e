// `#[attribute]` instead of `#[attr]`.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[attribute]
    factor: f32,
    #[output]
    out: DenseTensor,
}

fn main() {}
