// `view` names an attribute, not a tensor input.
use pir_macros::pir_op;

#[pir_op(name = "test.reshape_")]
pub struct ReshapeInplaceOp {
    #[input]
    x: DenseTensor,
    #[attr]
    shape: Vec<i64>,
    #[output(view = shape)]
    out: DenseTensor,
}

fn main() {}
