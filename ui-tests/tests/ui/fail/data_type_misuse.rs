// `data_type` names a C++ build-argument type, for Scalar and IntArray attributes only.
use pir_macros::pir_op;

#[pir_op(name = "test.fill")]
pub struct FillOp {
    #[input]
    x: DenseTensor,
    #[attr(data_type = "int8_t")]
    value: Scalar,
    #[attr(data_type = "int")]
    axis: i32,
    #[output]
    out: DenseTensor,
}

fn main() {}
