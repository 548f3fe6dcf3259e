// The same option twice, in the struct attribute and in a field attribute.
use pir_macros::pir_op;

#[pir_op(name = "test.scale", traits(ReadOnly), traits(SideEffect))]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 1.0, default = 2.0)]
    factor: f32,
    #[output]
    out: DenseTensor,
}

fn main() {}
