// Unknown options in field attributes.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[input(no_need_bufer)]
    x: DenseTensor,
    #[attr(defualt = 1.0)]
    factor: f32,
    #[output]
    out: DenseTensor,
}

fn main() {}
