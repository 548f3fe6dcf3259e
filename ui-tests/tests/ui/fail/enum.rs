// `#[pir_op]` on an enum.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
pub enum AbsOp {
    X,
}

fn main() {}
