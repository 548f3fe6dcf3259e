// `infer_meta` and `kernel` without their function; `registry` and `with` together.
use pir_macros::pir_op;

fn unchanged(
    _: &mut pir_runtime::meta::InferMetaCtx<'_>,
) -> Result<(), pir_runtime::meta::InferMetaError> {
    Ok(())
}

#[pir_op(name = "test.abs", infer_meta(param(x)), kernel(param(x)))]
pub struct AbsOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

#[pir_op(
    name = "test.exp",
    infer_meta(func = "UnchangedInferMeta", registry = pir_runtime::meta::EMPTY_REGISTRY, with = unchanged)
)]
pub struct ExpOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn main() {}
