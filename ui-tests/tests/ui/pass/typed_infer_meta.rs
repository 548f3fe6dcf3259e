// Typed infer-meta functions: registered, checked against the op at compile time, run by
// typed builds, and described at run time.
use pir_macros::{infer_meta, pir_op};
use pir_runtime::meta::{
    IntArray, InferMetaError, InferMetaRegistry, Output, OutputList, ParamKind, TensorMeta,
};
use pir_runtime::phi::DataType;
use pir_runtime::{builtin, Builder, IrContext, Op, Program};

/// `ScaleDimsInferMeta(x, factor, shape)`: x's dims times `factor`, then `shape` appended.
#[infer_meta(name = "ScaleDimsInferMeta")]
pub fn scale_dims(
    x: &TensorMeta,
    factor: i64,
    shape: IntArray<'_>,
    out: Output<'_>,
    parts: OutputList<'_>,
) -> Result<(), InferMetaError> {
    pir_runtime::ensure_meta!(factor > 0, "factor must be positive, got {factor}");
    let mut dims: Vec<i64> = x.dims.iter().map(|d| d * factor).collect();
    dims.extend_from_slice(shape.values());
    parts.set_if_present(vec![x.clone(); 2]);
    out.set(x.with_dims(&dims))
}

/// `UnchangedInferMeta(x)`.
#[infer_meta]
pub fn unchanged_infer_meta(x: &TensorMeta, out: Output<'_>) -> Result<(), InferMetaError> {
    out.share(x)
}

static REGISTRY: InferMetaRegistry =
    InferMetaRegistry::from_entries(&[__SCALE_DIMS, __UNCHANGED_INFER_META]);

#[pir_op(
    name = "test.scale_dims",
    infer_meta(func = "ScaleDimsInferMeta", param(x, factor, shape), registry = REGISTRY)
)]
pub struct ScaleDimsOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 2)]
    factor: i32,
    #[attr(default = [7])]
    shape: IntArray,
    #[output]
    out: DenseTensor,
}

#[pir_op(
    name = "test.relu",
    infer_meta(func = "UnchangedInferMeta", param(x), registry = REGISTRY)
)]
pub struct ReluOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

pir_runtime::dialect!(pub TestDialect = "test" [ScaleDimsOp, ReluOp]);

fn main() {
    assert!(REGISTRY.is_sorted());
    let sig = REGISTRY.entry("ScaleDimsInferMeta").unwrap().signatures[0];
    assert_eq!(sig.rust_name, "scale_dims");
    let kinds: Vec<_> = sig.params.iter().map(|p| (p.name, p.kind, p.rust_type)).collect();
    assert_eq!(
        kinds,
        [
            ("x", ParamKind::Tensor, "&TensorMeta"),
            ("factor", ParamKind::Int, "i64"),
            ("shape", ParamKind::IntArray, "IntArray<'_>"),
        ]
    );
    assert_eq!(sig.outputs.len(), 2);
    assert!(sig.location.ends_with("typed_infer_meta.rs:12"), "{}", sig.location);
    REGISTRY.check_schema(ScaleDimsOp::schema()).unwrap();

    let ctx = IrContext::new();
    ctx.register_dialect::<TestDialect>().unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let t = ctx.dense_tensor_type(DataType::Float32, &[2, 3]);
    let x = builtin::parameter(&mut b, "x", t).unwrap();
    let op = ScaleDimsOp::build(&mut b, x, ScaleDimsOpAttrs::default()).unwrap();
    let want = ctx.dense_tensor_type(DataType::Float32, &[4, 6, 7]);
    assert_eq!(b.program().value_type(op.out(b.program())), Some(want));
    let relu = ReluOp::build(&mut b, x).unwrap();
    assert_eq!(b.program().value_type(relu.out(b.program())), Some(t));
    let err = ScaleDimsOp::build(&mut b, x, ScaleDimsOpAttrs { factor: 0, shape: &[] }).unwrap_err();
    assert!(err.to_string().contains("factor must be positive, got 0"), "{err}");
    let _ = ScaleDimsOp::DEF;
}
