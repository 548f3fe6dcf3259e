// `#[pir_op]` on a union.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
pub union AbsOp {
    x: u32,
}

fn main() {}
