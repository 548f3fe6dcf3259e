// In-place and view pairs that cannot hold; `Inplace` listed on an op not named `..._`.
use pir_macros::pir_op;

#[pir_op(name = "test.update_")]
pub struct UpdateInplaceOp {
    #[input]
    x: DenseTensor,
    #[input]
    xs: Vec<DenseTensor>,
    #[output(inplace = x, view = x)]
    out: DenseTensor,
    #[output(inplace = x)]
    out2: DenseTensor,
    #[output(inplace = x)]
    outs: Vec<DenseTensor>,
}

#[pir_op(name = "test.relu", traits(Inplace))]
pub struct ReluOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
