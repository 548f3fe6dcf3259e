// Misuses of #[infer_meta], each reported at the offending token.
use pir_macros::infer_meta;
use pir_runtime::meta::{InferMetaError, Output, TensorMeta};

type R = Result<(), InferMetaError>;

#[infer_meta]
pub fn vec_param(x: &TensorMeta, axes: Vec<i64>, out: Output<'_>) -> R {
    let _ = (x, axes, out);
    Ok(())
}

#[infer_meta]
pub fn no_result(x: &TensorMeta, out: Output<'_>) {
    let _ = (x, out);
}

#[infer_meta]
pub fn output_first(out: Output<'_>, x: &TensorMeta) -> R {
    out.share(x)
}

#[infer_meta(nme = "FooInferMeta")]
pub fn unknown_key(x: &TensorMeta, out: Output<'_>) -> R {
    out.share(x)
}

#[infer_meta]
pub fn generic<T>(x: &TensorMeta, out: Output<'_>) -> R {
    out.share(x)
}

#[infer_meta]
pub fn wrong_result(x: &TensorMeta, out: Output<'_>) -> Result<(), String> {
    let _ = (x, out);
    Ok(())
}

#[infer_meta]
pub struct NotAFunction;

fn main() {}
