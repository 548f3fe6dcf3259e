// The name lacks the `dialect.` prefix.
use pir_macros::pir_op;

#[pir_op(name = "abs")]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
