// `InferMeta` needs `infer_meta(...)`.
use pir_macros::pir_op;

#[pir_op(name = "test.abs", interfaces(InferMeta, Vjp))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
