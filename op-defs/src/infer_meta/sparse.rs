//! Infer-meta functions of the sparse ops (`sparse_ops.yaml`, `sparse_backward.yaml`), after
//! Paddle's `paddle/phi/infermeta/sparse/{unary,binary,multiary,backward}.cc`, registered under
//! Paddle's qualified names (`sparse::Conv3dInferMeta`). They compute dims, dtype and layout
//! like the dense functions; the build turns that metadata into the sparse COO / CSR type the
//! op's output declares (Paddle's `CvtToSparseCooTensorType`).

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, Output, TensorMeta};
use pir_runtime::phi::{DataLayout, DataType};

use super::common::{dim_at, div, fmt_dims, MetaBuilder, Res};

type R = Result<(), InferMetaError>;

/// `sparse::IndicesInferMeta(x)`: int32 `[rank(x) - 1, -1]`, NCHW (Paddle cannot see the
/// sparse dim and assumes a point cloud: values are 1-D).
#[infer_meta(name = "sparse::IndicesInferMeta")]
pub fn indices_infer_meta(x: &TensorMeta, out: Output<'_>) -> R {
    let d = [x.rank() as i64 - 1, -1];
    out.set(
        MetaBuilder::new()
            .dims(&d)
            .dtype(DataType::Int32)
            .layout(DataLayout::Nchw)
            .build(),
    )
}

/// `sparse::ValuesInferMeta(x)`: `[-1, x[-1]]` with `x`'s dtype and layout.
#[infer_meta(name = "sparse::ValuesInferMeta")]
pub fn values_infer_meta(x: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(x.rank() >= 1, "x must have at least one dimension");
    let d = [-1, x.dims[x.rank() - 1]];
    out.set(
        MetaBuilder::new()
            .dims(&d)
            .dtype(x.dtype)
            .layout(x.layout)
            .build(),
    )
}

/// `sparse::CastInferMeta(x, index_dtype, value_dtype)`: `x`'s dims, layout and LoD, dtype
/// `value_dtype` (as given, `Undefined` included: Paddle sets it unless the op works in place).
#[infer_meta(name = "sparse::CastInferMeta")]
pub fn cast_infer_meta(
    x: &TensorMeta,
    _index_dtype: DataType,
    value_dtype: DataType,
    out: Output<'_>,
) -> R {
    out.set(
        MetaBuilder::new()
            .dims(&x.dims)
            .layout(x.layout)
            .lod(x)
            .dtype(value_dtype)
            .build(),
    )
}

/// Paddle's `GetOutShape` of `sparse/binary.cc`: for channel-last `x` (`[N, H, W, C]` or
/// `[N, D, H, W, C]`) and a kernel `[.., C, OC]` of the same rank, each spatial extent is
/// `(x + 2p - d (k - 1) - 1) / s + 1` and the channels are `OC`.
fn conv_out_dims(
    x: &[i64],
    kernel: &[i64],
    paddings: &[i64],
    dilations: &[i64],
    strides: &[i64],
    rank: usize,
) -> Res<Vec<i64>> {
    let layout = if rank == 4 {
        "(N, H, W, C)"
    } else {
        "(N, D, H, W, C)"
    };
    ensure_meta!(
        x.len() == rank,
        "the shape of x {} should be {layout}",
        fmt_dims(x)
    );
    ensure_meta!(
        kernel.len() == rank,
        "the shape of kernel {} should have {rank} dims (spatial, C, OC)",
        fmt_dims(kernel)
    );
    let spatial = rank - 2;
    for (list, name) in [
        (paddings, "paddings"),
        (dilations, "dilations"),
        (strides, "strides"),
    ] {
        ensure_meta!(
            list.len() >= spatial,
            "{name} {} must hold {spatial} values",
            fmt_dims(list)
        );
    }
    let mut out = vec![1i64; rank];
    out[0] = x[0];
    out[rank - 1] = kernel[rank - 1];
    for i in 1..=spatial {
        let span = x[i]
            .wrapping_add(paddings[i - 1].wrapping_mul(2))
            .wrapping_sub(dilations[i - 1].wrapping_mul(kernel[i - 1].wrapping_sub(1)))
            .wrapping_sub(1);
        out[i] = div(span, strides[i - 1], "a stride")?.wrapping_add(1);
    }
    Ok(out)
}

/// The output dims of a sparse convolution: a submanifold convolution (`subm`) keeps the input
/// extents (padding `k / 2`, stride 1).
fn sparse_conv_dims(
    x: &TensorMeta,
    kernel: &TensorMeta,
    paddings: &[i64],
    dilations: &[i64],
    strides: &[i64],
    subm: bool,
) -> Res<Vec<i64>> {
    let rank = if x.rank() == 4 { 4 } else { 5 };
    let (mut p, mut s) = (paddings.to_vec(), strides.to_vec());
    if subm {
        for (i, pi) in p.iter_mut().enumerate() {
            *pi = dim_at(&kernel.dims, i, "kernel")? / 2;
            if let Some(si) = s.get_mut(i) {
                *si = 1;
            }
        }
    }
    conv_out_dims(&x.dims, &kernel.dims, &p, dilations, &s, rank)
}

/// An int32 `[1]`, NCHW (the rulebook and counter placeholders).
fn int32_one() -> TensorMeta {
    MetaBuilder::new()
        .dims(&[1])
        .dtype(DataType::Int32)
        .layout(DataLayout::Nchw)
        .build()
}

/// `sparse::Conv3dInferMeta(x, kernel, paddings, dilations, strides, groups, subm, key)`:
/// `out` takes the convolution's dims (see `conv_out_dims`) and `x`'s dtype and layout;
/// `rulebook` and `counter` are int32 `[1]`.
#[infer_meta(name = "sparse::Conv3dInferMeta")]
#[allow(clippy::too_many_arguments)]
pub fn conv3d_infer_meta(
    x: &TensorMeta,
    kernel: &TensorMeta,
    paddings: &[i64],
    dilations: &[i64],
    strides: &[i64],
    _groups: i64,
    subm: bool,
    _key: &str,
    out: Output<'_>,
    rulebook: Output<'_>,
    counter: Output<'_>,
) -> R {
    let d = sparse_conv_dims(x, kernel, paddings, dilations, strides, subm)?;
    out.set(
        MetaBuilder::new()
            .dims(&d)
            .dtype(x.dtype)
            .layout(x.layout)
            .build(),
    )?;
    rulebook.set_if_present(int32_one());
    counter.set_if_present(int32_one());
    Ok(())
}

/// `sparse::Conv3dImplicitGemmInferMeta(x, kernel, paddings, dilations, strides, groups, subm,
/// key)`: `out` as `sparse::Conv3dInferMeta`'s.
#[infer_meta(name = "sparse::Conv3dImplicitGemmInferMeta")]
#[allow(clippy::too_many_arguments)]
pub fn conv3d_implicit_gemm_infer_meta(
    x: &TensorMeta,
    kernel: &TensorMeta,
    paddings: &[i64],
    dilations: &[i64],
    strides: &[i64],
    _groups: i64,
    subm: bool,
    _key: &str,
    out: Output<'_>,
) -> R {
    let d = sparse_conv_dims(x, kernel, paddings, dilations, strides, subm)?;
    out.set(
        MetaBuilder::new()
            .dims(&d)
            .dtype(x.dtype)
            .layout(x.layout)
            .build(),
    )
}

/// `sparse::Pool3dInferMeta(x, kernel_sizes, paddings, dilations, strides)`: a 5-D channel-last
/// `x` pooled by a `[D, H, W]` kernel keeping the channels; `rulebook` and `counter` are int32
/// `[1]`.
#[infer_meta(name = "sparse::Pool3dInferMeta")]
pub fn pool3d_infer_meta(
    x: &TensorMeta,
    kernel_sizes: &[i64],
    paddings: &[i64],
    dilations: &[i64],
    strides: &[i64],
    out: Output<'_>,
    rulebook: Output<'_>,
    counter: Output<'_>,
) -> R {
    let c = dim_at(&x.dims, 4, "x")?;
    // Paddle's PoolResetKernel: the kernel grows to [D, H, W, C, C].
    let mut k = kernel_sizes.to_vec();
    k.resize(5, 0);
    k[3] = c;
    k[4] = c;
    let d = conv_out_dims(&x.dims, &k, paddings, dilations, strides, 5)?;
    out.set(
        MetaBuilder::new()
            .dims(&d)
            .dtype(x.dtype)
            .layout(x.layout)
            .build(),
    )?;
    rulebook.set_if_present(int32_one());
    counter.set_if_present(int32_one());
    Ok(())
}

/// `sparse::SparseCooTensorInferMeta(values, indices, shape)`: dims `shape`, `values`' dtype
/// and layout.
#[infer_meta(name = "sparse::SparseCooTensorInferMeta")]
pub fn sparse_coo_tensor_infer_meta(
    values: &TensorMeta,
    _indices: &TensorMeta,
    shape: &[i64],
    out: Output<'_>,
) -> R {
    out.set(
        MetaBuilder::new()
            .dims(shape)
            .dtype(values.dtype)
            .layout(values.layout)
            .build(),
    )
}

/// `sparse::FusedAttentionInferMeta(query, key, value, sparse_mask, key_padding_mask,
/// attn_mask)`: Paddle's body is empty (a TODO); both outputs stay unset.
#[infer_meta(name = "sparse::FusedAttentionInferMeta")]
pub fn fused_attention_infer_meta(
    _query: &TensorMeta,
    _key: &TensorMeta,
    _value: &TensorMeta,
    _sparse_mask: &TensorMeta,
    _key_padding_mask: Option<&TensorMeta>,
    _attn_mask: Option<&TensorMeta>,
) -> R {
    Ok(())
}

/// `sparse::FusedAttentionGradInferMeta(query, key, value, softmax, out_grad)`: Paddle's body
/// is empty (a TODO); the gradients stay unset.
#[infer_meta(name = "sparse::FusedAttentionGradInferMeta")]
pub fn fused_attention_grad_infer_meta(
    _query: &TensorMeta,
    _key: &TensorMeta,
    _value: &TensorMeta,
    _softmax: &TensorMeta,
    _out_grad: &TensorMeta,
) -> R {
    Ok(())
}
