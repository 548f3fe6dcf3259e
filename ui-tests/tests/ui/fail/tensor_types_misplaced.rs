// A tensor marked as an attribute, an attribute type marked as an input.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[attr]
    x: DenseTensor,
    #[input]
    factor: f32,
    #[output]
    out: Vec<i32>,
}

fn main() {}
