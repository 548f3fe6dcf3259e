// An output computed in place of an optional input must be optional too.
use pir_macros::pir_op;

#[pir_op(name = "test.update_")]
pub struct UpdateInplaceOp {
    #[input]
    param: DenseTensor,
    #[input]
    master_param: Option<DenseTensor>,
    #[output(inplace = param)]
    param_out: DenseTensor,
    #[output(inplace = master_param)]
    master_param_out: DenseTensor,
}

fn main() {}
