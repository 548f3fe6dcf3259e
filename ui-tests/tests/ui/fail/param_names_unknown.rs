// infer_meta / kernel parameter lists name inputs and attributes.
use pir_macros::pir_op;

#[pir_op(
    name = "test.scale",
    infer_meta(func = "ScaleInferMeta", param(x, scal)),
    kernel(func = "scale", data_type(out))
)]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 1.0)]
    scale: f32,
    #[output]
    out: DenseTensor,
}

fn main() {}
