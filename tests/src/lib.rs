//! Integration tests of pir-rs across crates; `mini` is a small dialect generated from
//! `tests/yaml/`, with a few hand-written infer-meta functions.

use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry, TensorMeta};

fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    let x = ctx.tensor(0)?.clone();
    ctx.set_output(0, x)
}

fn create(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    let shape = ctx.int_array(0)?;
    let dtype = ctx.dtype(1)?;
    let dims = shape
        .values
        .map(|v| v.to_vec())
        .unwrap_or_else(|| vec![-1; shape.len.unwrap_or(0)]);
    ctx.set_output(0, TensorMeta::new(dtype, &dims))
}

fn create_vec_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    let n = ctx.ints(0)?.len() as i64;
    let dtype = ctx.dtype(1)?;
    ctx.set_output(0, TensorMeta::new(dtype, &[n]))
}

/// The infer-meta functions of the `mini` dialect.
pub static MINI_INFER_META: InferMetaRegistry = InferMetaRegistry::new(&[
    ("CreateInferMeta", create),
    ("CreateVecShapeInferMeta", create_vec_shape),
    ("UnchangedInferMeta", unchanged),
]);

/// A small dialect generated from `tests/yaml/mini_ops.yaml`.
pub mod mini {
    pir_macros::define_ops_from_yaml! {
        dialect = "mini",
        ops = ["yaml/mini_ops.yaml"],
        compat = "yaml/mini_compat.yaml",
        infer_meta = crate::MINI_INFER_META,
    }
}

/// The examples of `docs/defining-a-dialect.md`, compiled and run as doctests so the guide stays
/// true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/defining-a-dialect.md")]
pub struct DefiningADialectGuide;

/// The examples of `docs/traits-and-interfaces.md`, compiled and run as doctests so the guide
/// stays true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/traits-and-interfaces.md")]
pub struct TraitsAndInterfacesGuide;

/// The examples of `docs/infer-meta.md`, compiled and run as doctests so the guide stays true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/infer-meta.md")]
pub struct InferMetaGuide;
