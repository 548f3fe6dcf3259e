// `inplace` names an input the op does not have.
use pir_macros::pir_op;

#[pir_op(name = "test.relu_")]
pub struct ReluInplaceOp {
    #[input]
    x: DenseTensor,
    #[output(inplace = input)]
    out: DenseTensor,
}

fn main() {}
