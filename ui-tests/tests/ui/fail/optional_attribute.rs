// Attributes are not optional: they have defaults.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[attr]
    factor: Option<f32>,
    #[output]
    out: DenseTensor,
}

fn main() {}
