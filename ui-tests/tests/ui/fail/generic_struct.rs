// Op handles are plain ids: no generics.
use pir_macros::pir_op;

#[pir_op(name = "test.abs")]
pub struct AbsOp<T> {
    #[input]
    x: T,
    #[output]
    out: DenseTensor,
}

fn main() {}
