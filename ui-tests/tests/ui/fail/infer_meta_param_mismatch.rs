// A #[pir_op] whose infer_meta param list does not fit the registered function's parameters.
use pir_macros::{infer_meta, pir_op};
use pir_runtime::meta::{InferMetaError, InferMetaRegistry, Output, TensorMeta};

/// `ConcatInferMeta(x, axis)`.
#[infer_meta]
pub fn concat_infer_meta(
    x: &[TensorMeta],
    _axis: i64,
    out: Output<'_>,
) -> Result<(), InferMetaError> {
    out.set(x[0].clone())
}

static REGISTRY: InferMetaRegistry = InferMetaRegistry::from_entries(&[__CONCAT_INFER_META]);

#[pir_op(
    name = "test.concat",
    infer_meta(func = "ConcatInferMeta", param(x, axis), registry = REGISTRY)
)]
pub struct ConcatOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 0)]
    axis: i32,
    #[output]
    out: DenseTensor,
}

fn main() {}
