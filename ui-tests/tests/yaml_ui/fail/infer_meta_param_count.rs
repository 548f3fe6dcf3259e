// The yaml passes one argument to CastInferMeta, whose Rust function takes two.
use pir_macros::infer_meta;
use pir_runtime::meta::{InferMetaError, InferMetaRegistry, Output, TensorMeta};
use pir_runtime::phi::DataType;

#[infer_meta]
pub fn cast_infer_meta(x: &TensorMeta, dtype: DataType, out: Output<'_>) -> Result<(), InferMetaError> {
    out.set(x.with_dtype(dtype))
}

static REGISTRY: InferMetaRegistry = InferMetaRegistry::from_entries(&[__CAST_INFER_META]);

pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/infer_meta_param_count.yaml"],
    infer_meta = REGISTRY,
}

fn main() {}
