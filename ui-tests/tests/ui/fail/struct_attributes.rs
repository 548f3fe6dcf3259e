// `#[derive]` on an op struct; a field attribute other than the roles.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
#[derive(Debug)]
pub struct AbsOp {
    #[input]
    #[allow(dead_code)]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
