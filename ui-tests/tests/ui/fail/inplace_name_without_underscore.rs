// An in-place op whose name does not end with `_`.
use pir_macros::pir_op;

#[pir_op(name = "test.relu")]
pub struct ReluOp {
    #[input]
    x: DenseTensor,
    #[output(inplace = x)]
    out: DenseTensor,
}

fn main() {}
