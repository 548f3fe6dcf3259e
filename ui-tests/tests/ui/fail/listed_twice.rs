// The same trait or interface twice, under its short and its Paddle name.
use pir_macros::pir_op;

#[pir_op(
    name = "test.abs",
    traits(ReadOnly, ReadOnlyTrait),
    interfaces(InferSymbolicShape, InferSymbolicShapeInterface)
)]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
