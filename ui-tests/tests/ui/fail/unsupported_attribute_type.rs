// Attribute types Paddle does not have.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[attr]
    factor: u32,
    #[attr]
    name: &str,
    #[attr]
    strides: [i32; 2],
    #[output]
    out: DenseTensor,
}

fn main() {}
