//! Paddle's sparse tensor types (`SparseCooTensorType`, `SparseCsrTensorType`): interning,
//! printing as Paddle's `PrintTypeImpl` does, reading the printed form back, and the type
//! kinds the op signatures of sparse classes check.

use pir_runtime::meta::TensorMeta;
use pir_runtime::phi::{DataLayout, DataType};
use pir_runtime::types::{SparseCooType, SparseCsrType};
use pir_runtime::{parser, IrContext, TypeData, TypeKey, TypeKind};

fn coo(ctx: &IrContext, dims: &[i64], coalesced: bool) -> pir_runtime::Type {
    let ty = SparseCooType {
        dtype: DataType::Float32,
        dims: dims.into(),
        non_zero_dims: vec![3].into(),
        layout: DataLayout::Nchw,
        indices: ctx.dense_tensor_type(DataType::Int64, &[2, 3]),
        elements: ctx.dense_tensor_type(DataType::Float32, &[3]),
        coalesced,
    };
    ctx.intern_type(TypeKey::SparseCoo(&ty))
}

#[test]
fn sparse_types_are_interned_by_every_part() {
    let ctx = IrContext::new();
    let a = coo(&ctx, &[4, 5], false);
    assert_eq!(a, coo(&ctx, &[4, 5], false));
    assert_ne!(a, coo(&ctx, &[4, 5], true));
    assert_ne!(a, coo(&ctx, &[4, 6], false));
    assert_eq!(a.kind(), TypeKind::SparseCoo);
    // Same dims and dtype as a dense tensor, but another type.
    assert_ne!(a, ctx.dense_tensor_type(DataType::Float32, &[4, 5]));
    let csr = SparseCsrType {
        dtype: DataType::Float32,
        dims: vec![4, 5].into(),
        layout: DataLayout::Nchw,
        crows: None,
        cols: None,
        elements: None,
    };
    let c = ctx.intern_type(TypeKey::SparseCsr(&csr));
    assert_eq!(c.kind(), TypeKind::SparseCsr);
    assert_eq!(
        c,
        ctx.sparse_csr_type_of(&TensorMeta::new(DataType::Float32, &[4, 5]))
    );
    assert_eq!(c.data(&ctx), &TypeData::SparseCsr(csr));
}

#[test]
fn printed_as_paddle_and_read_back_in_the_built_form() {
    let ctx = IrContext::new();
    let built = ctx.sparse_coo_type_of(&TensorMeta::new(DataType::Float16, &[-1, 8]));
    let text = built.display(&ctx).to_string();
    assert_eq!(text, "pd_op.sparsecootensor<-1x8xf16>");
    assert_eq!(parser::parse_type(&ctx, &text).unwrap(), Some(built));
    let csr = ctx.sparse_csr_type_of(&TensorMeta::new(DataType::Int32, &[2, 2]));
    let text = csr.display(&ctx).to_string();
    assert_eq!(text, "pd_op.sparsecsrtensor<2x2xi32>");
    assert_eq!(parser::parse_type(&ctx, &text).unwrap(), Some(csr));
    // Inside a vector.
    let v = ctx.vector_type(&[built, csr]);
    let text = v.display(&ctx).to_string();
    assert_eq!(parser::parse_type(&ctx, &text).unwrap(), Some(v));
    let e = parser::parse_type(&ctx, "pd_op.sparsecootensor<2x").unwrap_err();
    assert!(e.to_string().starts_with("1:"), "{e}");
}
