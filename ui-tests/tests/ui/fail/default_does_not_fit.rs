// Defaults that do not fit their attribute's type.
use pir_macros::pir_op;

#[pir_op(name = "test.conv")]
pub struct ConvOp {
    #[input]
    x: DenseTensor,
    #[attr(default = "1")]
    groups: i32,
    #[attr(default = 3000000000)]
    axis: i32,
    #[attr(default = [1, 1.5])]
    strides: Vec<i32>,
    #[attr(default = NCHW)]
    data_format: String,
    #[attr(default = DataType::Float128)]
    dtype: DataType,
    #[attr(data_type = "int", default = 0.5)]
    value: Scalar,
    #[output]
    out: DenseTensor,
}

fn main() {}
