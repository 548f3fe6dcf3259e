// A misspelt pir-runtime trait.
use pir_macros::pir_op;

#[pir_op(name = "test.abs", traits(ReadOnli))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
