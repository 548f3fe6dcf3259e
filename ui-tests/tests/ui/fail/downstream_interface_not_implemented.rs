// An interface of another crate, declared but not implemented.
use pir_macros::pir_op;

#[pir_op(name = "test.abs", interfaces(pir_ui_tests::ext::Cost))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
