// The field names are the op's input, attribute and output names.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
pub struct AbsOp(DenseTensor, DenseTensor);

fn main() {}
