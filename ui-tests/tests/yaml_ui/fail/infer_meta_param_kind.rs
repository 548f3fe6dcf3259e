// cumsum passes its int attribute `axis` where UnchangedInferMeta takes a tensor; relu fits.
use pir_macros::infer_meta;
use pir_runtime::meta::{InferMetaError, InferMetaRegistry, Output, TensorMeta};

#[infer_meta]
pub fn unchanged_infer_meta(x: &TensorMeta, out: Output<'_>) -> Result<(), InferMetaError> {
    out.share(x)
}

static REGISTRY: InferMetaRegistry = InferMetaRegistry::from_entries(&[__UNCHANGED_INFER_META]);

pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/infer_meta_param_kind.yaml"],
    infer_meta = REGISTRY,
}

fn main() {}
