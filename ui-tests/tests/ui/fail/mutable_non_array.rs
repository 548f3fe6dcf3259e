// Only IntArray and Scalar attributes can be mutable; an IntArray is not an `#[input]`.
use pir_macros::pir_op;

#[pir_op(name = "test.split")]
pub struct SplitOp {
    #[input]
    x: DenseTensor,
    #[input]
    sections: IntArray,
    #[attr(mutable)]
    axis: i32,
    #[output]
    out: Vec<DenseTensor>,
}

fn main() {}
