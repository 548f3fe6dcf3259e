// Unknown keys in `#[pir_op(...)]`: a typo and a key that belongs elsewhere.
use pir_macros::pir_op;

#[pir_op(name = "test.relu_", trait(ReadOnly), inplace(out = x))]
pub struct ReluInplaceOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
