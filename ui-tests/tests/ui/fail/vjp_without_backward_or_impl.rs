// `Vjp` without `backward = "..."` is a hand-written Vjp: the op must implement `VjpOp`.
use pir_macros::pir_op;

#[pir_op(name = "test.abs", interfaces(Vjp))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
