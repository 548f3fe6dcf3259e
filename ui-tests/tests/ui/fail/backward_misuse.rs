// Backward-related keys that do not fit the op; `size` on a single-tensor output.
use pir_macros::pir_op;

#[pir_op(name = "test.gather", kind = "grad", forward = "gather", backward = "test.gather_grad")]
pub struct GatherOp {
    #[input(no_grad)]
    index: DenseTensor,
    #[output(size = "index.size()")]
    out: DenseTensor,
}

fn main() {}
