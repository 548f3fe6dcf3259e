// `optional` is expressed by the type; `intermediate` applies to outputs only.
use pir_macros::pir_op;

#[pir_op(name = "test.scale")]
pub struct ScaleOp {
    #[input(optional)]
    x: DenseTensor,
    #[attr(intermediate)]
    factor: f32,
    #[output(optional)]
    out: DenseTensor,
}

fn main() {}
