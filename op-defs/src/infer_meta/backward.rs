//! Infer-meta functions of gradient ops, after Paddle's `paddle/phi/infermeta/backward.cc`
//! (plus the few gradient functions Paddle keeps in `unary.cc`/`ternary.cc`).
//!
//! Arguments are read by the position of the C++ parameter they bind to: when an op's
//! `infer_meta.param` lists tensors in another order than the C++ function names them, Paddle
//! binds them by position, and so do these functions. Gradients of absent optional inputs are
//! left unset, as Paddle leaves them.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaCtx, InferMetaError, TensorMeta};

use super::common::{
    axis_in, dim_at, dims_dtype_of, div, fmt_dims, has_unknown, ints, mul, need_rank, output_count,
    set_opt, share_meta, str_arg, with_dtype_lod_of, with_dtype_of, MetaBuilder,
};
use super::unary::{reverse_perm, transpose_dims};

type R = Result<(), InferMetaError>;

/// Sets output `j` to `share_meta(x)` when `x` is present.
/// Output `j` (if the op has it) shares the metadata of argument `i` (if present).
fn share_opt(ctx: &mut InferMetaCtx<'_>, j: usize, i: usize) -> R {
    if ctx.opt_tensor(i)?.is_some() && j < ctx.num_outputs() {
        ctx.share_output(j, i)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The general families
// ---------------------------------------------------------------------------------------------

/// `GeneralUnaryGradInferMeta(x)`: `dx` shares `x`'s metadata.
#[infer_meta]
pub fn general_unary_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    share_opt(ctx, 0, 0)
}

/// `GeneralBinaryGradInferMeta(x, y)`: `dx`, `dy` share the metadata of `x`, `y`.
#[infer_meta]
pub fn general_binary_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 2)
}

/// `GeneralTernaryGradInferMeta(x, y, z)`: each gradient shares its input's metadata (absent
/// optional inputs leave their gradients unset).
#[infer_meta]
pub fn general_ternary_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 3)
}

/// `GeneralQuaternaryGradInferMeta(x, y, z, k)`.
#[infer_meta]
pub fn general_quaternary_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 4)
}

/// `GeneralQuinaryGradInferMeta(x, y, z, k, l)`.
#[infer_meta]
pub fn general_quinary_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 5)
}

fn general_n_grad(ctx: &mut InferMetaCtx<'_>, n: usize) -> R {
    for i in 0..n {
        share_opt(ctx, i, i)?;
    }
    Ok(())
}

/// `GradSameWithXInferMeta(x, out)`: dims and LoD of `x`, dtype of `out` (the gradient).
#[infer_meta]
pub fn grad_same_with_x_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let out = ctx.tensor(1)?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&x.dims)
            .dtype(out.dtype)
            .lod(x)
            .build(),
    )
}

/// `LayerNormGradInferMeta(x, scale, bias)`: gradients share their inputs' metadata.
#[infer_meta]
pub fn layer_norm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 3)
}

/// `RmsNormGradInferMeta(x, norm_weight, norm_bias)`.
#[infer_meta]
pub fn rms_norm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 3)
}

/// `LSTMGradInferMeta(input, h0, c0, weight, bias)`.
#[infer_meta(name = "LSTMGradInferMeta")]
pub fn lstm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 5)
}

/// `FlashAttnGradInferMeta(q, k, v)`.
#[infer_meta]
pub fn flash_attn_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 3)
}

/// `FlashAttnQKVPackedGradInferMeta(qkv)`.
#[infer_meta(name = "FlashAttnQKVPackedGradInferMeta")]
pub fn flash_attn_qkv_packed_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 1)
}

/// `SwiGLUGradInferMeta(x, y)`.
#[infer_meta(name = "SwiGLUGradInferMeta")]
pub fn swi_glu_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 2)
}

/// `IndexPutGradInferMeta(x, indices, value, out_grad, accumulate)`: `x_grad` like `x`,
/// `value_grad` like `value`.
#[infer_meta]
pub fn index_put_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let v = ctx.tensor(2)?;
    ctx.set_output(0, share_meta(x))?;
    set_opt(ctx, 1, share_meta(v))
}

/// `MaxPoolWithIndexGradInferMeta(x, mask, dout, ...)`: `dx` like `x`.
#[infer_meta]
pub fn max_pool_with_index_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    ctx.set_output(0, share_meta(x))
}

/// `ConvTransposeGradInferMeta(x, filter, dout, ...)`: `GeneralBinaryGradInferMeta(x, filter)`.
#[infer_meta]
pub fn conv_transpose_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 2)
}

/// `Conv2dTransposeGradInferMeta(x, filter, dout, ...)`: `GeneralBinaryGradInferMeta(x,
/// filter)`.
#[infer_meta]
pub fn conv2d_transpose_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 2)
}

/// `Conv2dTransposeDoubleGradInferMeta(x, filter, dout, ddx, ddfilter, ...)`: `dx`, `dfilter`
/// like `x`, `filter`; `ddout` like `dout`.
#[infer_meta]
pub fn conv2d_transpose_double_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 3)
}

/// `DeformableConvGradInferMeta(x, offset, filter, mask, out_grad, ...)`.
#[infer_meta]
pub fn deformable_conv_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 4)
}

// ---------------------------------------------------------------------------------------------
// Dims from one input, dtype from another
// ---------------------------------------------------------------------------------------------

/// `GatherNdGradInferMeta(x, index, out_grad)`: dims and LoD of `x`, dtype of `out_grad`.
#[infer_meta]
pub fn gather_nd_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let g = ctx.tensor(2)?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&x.dims)
            .lod(x)
            .dtype(g.dtype)
            .build(),
    )
}

/// `IdentityLossGradInferMeta(x, out_grad, reduction)`: dims and LoD of `x`, dtype of
/// `out_grad`.
#[infer_meta]
pub fn identity_loss_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let g = ctx.tensor(1)?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&x.dims)
            .lod(x)
            .dtype(g.dtype)
            .build(),
    )
}

/// `InverseGradInferMeta(out, dout)`: dims of `dout`, dtype of `out`.
#[infer_meta]
pub fn inverse_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let out = ctx.tensor(0)?;
    let g = ctx.tensor(1)?;
    ctx.set_output(0, with_dtype_of(out, &g.dims))
}

/// `SpectralNormGradInferMeta(weight, u, v, out_grad, ...)`: dims of `weight`, dtype of
/// `out_grad`.
#[infer_meta]
pub fn spectral_norm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let w = ctx.tensor(0)?;
    let g = ctx.tensor(3)?;
    ctx.set_output(0, with_dtype_of(g, &w.dims))
}

/// The first tensor argument's dims and dtype (`LUGradInferMeta`, `LUUnpackGradInferMeta`,
/// `NanmedianGradInferMeta`, `OverlapAddGradInferMeta`, `YoloLossGradInferMeta`,
/// `BmmGrad`'s halves, ...).
fn first_same(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    ctx.set_output(0, dims_dtype_of(x))
}

/// `LUGradInferMeta(x, out, pivots, out_grad, pivot)`: dims and dtype of `x`.
#[infer_meta(name = "LUGradInferMeta")]
pub fn lu_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `LUUnpackGradInferMeta(x, pivots, l, u, pmat, l_grad, u_grad, ...)`: dims and dtype of `x`.
#[infer_meta(name = "LUUnpackGradInferMeta")]
pub fn lu_unpack_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `NanmedianGradInferMeta(x, median_index, out_grad, axes, keep_dim, mode)`.
#[infer_meta]
pub fn nanmedian_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `OverlapAddGradInferMeta(x, out_grad, hop_length, axis)`.
#[infer_meta]
pub fn overlap_add_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `YoloLossGradInferMeta(x, ...)`: only `x_grad` is set, like `x`'s dims and dtype.
#[infer_meta]
pub fn yolo_loss_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `FillDiagonalGradInferMeta(dout, value, offset, wrap)`.
#[infer_meta]
pub fn fill_diagonal_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `FillDiagonalTensorGradInferMeta(out_grad, offset, dim1, dim2)`.
#[infer_meta]
pub fn fill_diagonal_tensor_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `UniformRandomInplaceGradInferMeta(out_grad, ...)`.
#[infer_meta]
pub fn uniform_random_inplace_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `EigvalshGradInferMeta(out_v, out_w_grad, uplo, is_test)`: dims and dtype of `out_v`.
#[infer_meta]
pub fn eigvalsh_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    first_same(ctx)
}

/// `CropGradInferMeta(out_grad, x, offsets)`: dims and dtype of the C++ `x` parameter, i.e.
/// the second tensor argument.
#[infer_meta]
pub fn crop_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(1)?;
    ctx.set_output(0, dims_dtype_of(x))
}

/// `EigGradInferMeta(out_w, out_v, dout_w, dout_v)`: dims of `out_v` (dtype left float32, as in
/// Paddle).
#[infer_meta]
pub fn eig_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let v = ctx.tensor(1)?;
    ctx.set_output(0, MetaBuilder::new().dims(&v.dims).build())
}

/// `BmmGradInferMeta(x, y, out_grad)`.
#[infer_meta]
pub fn bmm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    ctx.set_output(0, dims_dtype_of(x))?;
    set_opt(ctx, 1, dims_dtype_of(y))
}

/// `ComplexGradInferMeta(x, y, dout)`.
#[infer_meta]
pub fn complex_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    bmm_grad_infer_meta(ctx)
}

/// `BatchFCGradInferMeta(input, w, bias, out_grad)`.
#[infer_meta(name = "BatchFCGradInferMeta")]
pub fn batch_fc_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    for i in 0..3 {
        let t = ctx.tensor(i)?;
        ctx.set_output(i, dims_dtype_of(t))?;
    }
    Ok(())
}

/// `BilinearGradInferMeta(x, y, weight, dout)`: `dbias` is `[1, dout[1]]`.
#[infer_meta]
pub fn bilinear_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let dout = ctx.tensor(3)?;
    need_rank(dout, 2, "out_grad")?;
    let x0 = dim_at(&x.dims, 0, "x")?;
    let w0 = dim_at(&w.dims, 0, "weight")?;
    ensure_meta!(
        x0 == dout.dims[0],
        "out_grad {} and x {} must share the batch size",
        fmt_dims(&dout.dims),
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        w0 == dout.dims[1],
        "out_grad {} dim 1 must equal weight {} dim 0",
        fmt_dims(&dout.dims),
        fmt_dims(&w.dims)
    );
    ctx.set_output(0, dims_dtype_of(x))?;
    ctx.set_output(1, dims_dtype_of(y))?;
    ctx.set_output(2, dims_dtype_of(w))?;
    set_opt(ctx, 3, with_dtype_of(dout, &[1, dout.dims[1]]))
}

/// `ChannelShuffleGradInferMeta(out_grad, groups, data_format)`: like `out_grad` (4-D).
#[infer_meta]
pub fn channel_shuffle_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    need_rank(g, 4, "out_grad")?;
    ctx.set_output(0, dims_dtype_of(g))
}

/// `CSoftmaxWithCrossEntropyGradInferMeta(softmax, label, loss_grad, ...)`: dims of `softmax`.
#[infer_meta]
pub fn c_softmax_with_cross_entropy_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let s = ctx.tensor(0)?;
    ctx.set_output(0, MetaBuilder::new().dims(&s.dims).build())
}

/// `MarginCrossEntropyGradInferMeta(logits, label, softmax, loss_grad, ...)`: like `softmax`.
#[infer_meta]
pub fn margin_cross_entropy_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let s = ctx.tensor(2)?;
    ctx.set_output(0, dims_dtype_of(s))
}

/// `RankAttentionGradInferMeta(x, rank_offset, rank_param, ...)`: like `rank_param`.
#[infer_meta]
pub fn rank_attention_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let p = ctx.tensor(2)?;
    ctx.set_output(0, dims_dtype_of(p))
}

/// `ShuffleBatchGradInferMeta(shuffle_idx, out_grad, startup_seed)`: like `out_grad`.
#[infer_meta]
pub fn shuffle_batch_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(1)?;
    ctx.set_output(0, with_dtype_lod_of(g, &g.dims))
}

/// `RealAndImagGradInferMeta(out_grad)`: dims and layout of `out_grad`, complex dtype.
#[infer_meta]
pub fn real_and_imag_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    let out = MetaBuilder::new()
        .dims(&g.dims)
        .dtype(g.dtype.to_complex())
        .layout(g.layout);
    ctx.set_output(0, out.build())
}

/// `EmbeddingGradInferMeta(x, weight)`: dims of `weight` (`share_dims`: the dtype stays
/// float32).
#[infer_meta]
pub fn embedding_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    if let Some(w) = ctx.opt_tensor(1)? {
        ctx.set_output(0, MetaBuilder::new().dims(&w.dims).build())?;
    }
    Ok(())
}

/// `PreluGradInferMeta(x, y)`: dims only (`share_dims`).
#[infer_meta]
pub fn prelu_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    for i in 0..2 {
        if let Some(t) = ctx.opt_tensor(i)? {
            set_opt(ctx, i, MetaBuilder::new().dims(&t.dims).build())?;
        }
    }
    Ok(())
}

/// `GumbelSoftmaxGradInferMeta(out, dout, axis)`: like `dout`, whose dims must equal `out`'s.
#[infer_meta]
pub fn gumbel_softmax_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let out = ctx.tensor(0)?;
    let g = ctx.tensor(1)?;
    ensure_meta!(
        out.dims == g.dims,
        "out {} and its gradient {} must have the same shape",
        fmt_dims(&out.dims),
        fmt_dims(&g.dims)
    );
    ctx.set_output(0, share_meta(g))
}

/// `IndexAddGradInferMeta(index, add_value, out_grad, axis)`.
#[infer_meta]
pub fn index_add_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let v = ctx.tensor(1)?;
    let g = ctx.tensor(2)?;
    let like = |t: &TensorMeta| {
        MetaBuilder::new()
            .dims(&t.dims)
            .dtype(t.dtype)
            .layout(t.layout)
            .lod(t)
            .build()
    };
    ctx.set_output(0, like(g))?;
    set_opt(ctx, 1, like(v))
}

/// `ScatterGradInferMeta(index, updates, out_grad, overwrite)`: `x_grad` like `out_grad`,
/// `updates_grad` with `updates`' dims; both in `out_grad`'s dtype.
#[infer_meta]
pub fn scatter_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let u = ctx.tensor(1)?;
    let g = ctx.tensor(2)?;
    ctx.set_output(0, dims_dtype_of(g))?;
    set_opt(ctx, 1, with_dtype_of(g, &u.dims))
}

/// `ScatterNdAddGradInferMeta(index, updates, out_grad)`.
#[infer_meta]
pub fn scatter_nd_add_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    scatter_grad_infer_meta(ctx)
}

/// `SetValueGradInferMeta(out_grad, values)`.
#[infer_meta]
pub fn set_value_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    let v = ctx.tensor(1)?;
    ctx.set_output(0, with_dtype_lod_of(g, &g.dims))?;
    set_opt(ctx, 1, with_dtype_lod_of(v, &v.dims))
}

/// `WeightOnlyLinearGradInferMeta(x, weight, bias, weight_scale, out_grad, weight_dtype, arch,
/// group_size)`: only arch 80/86 and per-channel mode.
#[infer_meta]
pub fn weight_only_linear_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let arch = ctx.int(6)?;
    let gs = ctx.int(7)?;
    ensure_meta!(
        arch == 80 || arch == 86,
        "weight-only linear grad supports arch 80 or 86, got {arch}"
    );
    ensure_meta!(
        gs == -1,
        "weight-only linear grad supports only per-channel mode (group_size -1), got {gs}"
    );
    ctx.set_output(0, dims_dtype_of(x))
}

/// `AffineGridGradInferMeta(output_grad, output_shape, align_corners)`: `[N, 2, 3]` for a 4-D
/// gradient, `[N, 3, 4]` otherwise (dims only).
#[infer_meta]
pub fn affine_grid_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    let n = dim_at(&g.dims, 0, "output_grad")?;
    let d = if g.rank() == 4 { [n, 2, 3] } else { [n, 3, 4] };
    ctx.set_output(0, MetaBuilder::new().dims(&d).build())
}

/// `PixelUnshuffleGradInferMeta(out_grad, downscale_factor, data_format)`.
#[infer_meta]
pub fn pixel_unshuffle_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    let f = ctx.int(1)?;
    let fmt = str_arg(ctx, 2)?;
    need_rank(g, 4, "out_grad")?;
    let mut d = g.dims.to_vec();
    let ff = mul(f, f);
    if fmt != "NHWC" {
        d[1] = div(g.dims[1], ff, "downscale_factor squared")?;
        d[2] = mul(g.dims[2], f);
        d[3] = mul(g.dims[3], f);
    } else {
        d[1] = mul(g.dims[1], f);
        d[2] = mul(g.dims[2], f);
        d[3] = div(g.dims[3], ff, "downscale_factor squared")?;
    }
    ctx.set_output(0, with_dtype_of(g, &d))
}

/// `FFTC2RGradInferMeta(x, axes, normalization, forward, last_dim_size)`: complex dtype; the
/// last transformed axis becomes `n / 2 + 1`.
#[infer_meta(name = "FFTC2RGradInferMeta")]
pub fn fft_c2r_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let axes = ints(ctx, 1)?;
    let last_size = ctx.int(4)?;
    let last = *axes
        .last()
        .ok_or_else(|| InferMetaError::new("axes must not be empty"))?;
    ensure_meta!(
        last >= 0 && (last as usize) < x.rank(),
        "fft axis {last} is out of range for x {}",
        fmt_dims(&x.dims)
    );
    let a = last as usize;
    let mut d = x.dims.to_vec();
    d[a] = if last_size > 0 {
        last_size / 2 + 1
    } else if d[a] == -1 {
        -1
    } else {
        d[a] / 2 + 1
    };
    let out = MetaBuilder::new()
        .layout(x.layout)
        .dtype(x.dtype.to_complex())
        .dims(&d);
    ctx.set_output(0, out.build())
}

/// `InstanceNormGradInferMeta(x, scale, [bias,] saved_mean, saved_variance, y_grad, epsilon)`:
/// `x_grad` with `x`'s dims, dtype and layout; `scale_grad`/`bias_grad` `[C]`.
#[infer_meta]
pub fn instance_norm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let c = dim_at(&x.dims, 1, "x")?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&x.dims)
            .dtype(x.dtype)
            .layout(x.layout)
            .build(),
    )?;
    set_opt(ctx, 1, MetaBuilder::new().dims(&[c]).build())?;
    set_opt(ctx, 2, MetaBuilder::new().dims(&[c]).build())
}

/// `InstanceNormDoubleGradInferMeta(x, scale, saved_mean, saved_variance, dy, ddx, ddscale,
/// ddbias, epsilon)`.
#[infer_meta]
pub fn instance_norm_double_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let c = dim_at(&x.dims, 1, "x")?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&x.dims)
            .dtype(x.dtype)
            .layout(x.layout)
            .build(),
    )?;
    set_opt(ctx, 1, MetaBuilder::new().dims(&[c]).build())?;
    set_opt(ctx, 2, MetaBuilder::new().dims(&x.dims).build())
}

/// `SequenceConvGradInferMeta(x, padding_data, filter, out_grad, context_length,
/// padding_trainable, ...)`.
#[infer_meta]
pub fn sequence_conv_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let pad = ctx.opt_tensor(1)?;
    let f = ctx.tensor(2)?;
    let trainable = ctx.bool(5)?;
    if let (true, Some(p)) = (trainable, pad) {
        set_opt(ctx, 1, dims_dtype_of(p))?;
    }
    ctx.set_output(0, with_dtype_lod_of(x, &x.dims))?;
    set_opt(ctx, 2, dims_dtype_of(f))
}

/// `GruGradInferMeta(input, h0, weight, bias)`.
#[infer_meta]
pub fn gru_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let h0 = ctx.opt_tensor(1)?;
    let w = ctx.tensor(2)?;
    let bias = ctx.opt_tensor(3)?;
    let isz = dim_at(&input.dims, 1, "input")?;
    let frame = dim_at(&w.dims, 0, "weight")?;
    let w1 = dim_at(&w.dims, 1, "weight")?;
    ensure_meta!(
        isz == mul(frame, 3),
        "input width {isz} must be 3 × the frame size {frame}"
    );
    ensure_meta!(
        w1 == mul(frame, 3),
        "weight must be [frame, 3 × frame], got {}",
        fmt_dims(&w.dims)
    );
    if let Some(h) = h0 {
        let h1 = dim_at(&h.dims, 1, "h0")?;
        ensure_meta!(
            h1 == frame,
            "h0 width {h1} must equal the frame size {frame}"
        );
        set_opt(ctx, 1, dims_dtype_of(h))?;
    }
    if let Some(b) = bias {
        let (b0, b1) = (dim_at(&b.dims, 0, "bias")?, dim_at(&b.dims, 1, "bias")?);
        ensure_meta!(
            b0 == 1 && b1 == mul(frame, 3),
            "bias must be [1, 3 × {frame}], got {}",
            fmt_dims(&b.dims)
        );
        set_opt(ctx, 3, dims_dtype_of(b))?;
    }
    ctx.set_output(0, dims_dtype_of(input))?;
    set_opt(ctx, 2, dims_dtype_of(w))
}

/// `GruUnitGradInferMeta(input, hidden_prev, weight, bias)`.
#[infer_meta]
pub fn gru_unit_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let hp = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let bias = ctx.opt_tensor(3)?;
    super::multiary::gru_unit_frame(input, hp, w, bias)?;
    if let Some(b) = bias {
        set_opt(ctx, 3, dims_dtype_of(b))?;
    }
    ctx.set_output(0, dims_dtype_of(input))?;
    set_opt(ctx, 1, dims_dtype_of(hp))?;
    set_opt(ctx, 2, dims_dtype_of(w))
}

/// `NllLossGradInferMeta(x, label, weight, total_weight, out_grad, ignore_index, reduction)`.
#[infer_meta]
pub fn nll_loss_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let g = ctx.tensor(4)?;
    let reduction = str_arg(ctx, 6)?;
    let (xd, gd) = (&x.dims, &g.dims);
    if !has_unknown(xd) && !has_unknown(gd) {
        if xd.len() == 2 {
            if reduction == "none" {
                ensure_meta!(
                    gd.len() == 1,
                    "out_grad must be 1-D for reduction 'none', got {}",
                    fmt_dims(gd)
                );
                ensure_meta!(
                    gd[0] == xd[0],
                    "out_grad {} must have the batch size {}",
                    fmt_dims(gd),
                    xd[0]
                );
            } else {
                ensure_meta!(
                    gd.is_empty(),
                    "out_grad must be 0-D for a reduced loss, got {}",
                    fmt_dims(gd)
                );
            }
        } else if xd.len() == 4 {
            if reduction == "none" {
                ensure_meta!(
                    gd.len() == 3,
                    "out_grad must be 3-D for reduction 'none', got {}",
                    fmt_dims(gd)
                );
                ensure_meta!(
                    label.dims.len() >= 3 && gd[..] == label.dims[..3],
                    "out_grad {} must match label {}",
                    fmt_dims(gd),
                    fmt_dims(&label.dims)
                );
            } else {
                ensure_meta!(
                    gd.is_empty(),
                    "out_grad must be 0-D for a reduced loss, got {}",
                    fmt_dims(gd)
                );
            }
        }
    }
    ctx.set_output(0, dims_dtype_of(x))
}

/// `CrossEntropyWithSoftmaxGradInferMeta(label, softmax, loss_grad, soft_label, use_softmax,
/// numeric_stable_mode, ignore_index, axis)`: like `softmax`; `label` must match it except on
/// `axis` (where it is 1 for hard labels).
#[infer_meta]
pub fn cross_entropy_with_softmax_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let label = ctx.tensor(0)?;
    let softmax = ctx.tensor(1)?;
    let soft = ctx.bool(3)?;
    let axis = ctx.int(7)?;
    let (sd, ld) = (&softmax.dims, &label.dims);
    let a = axis_in(axis, sd.len(), "axis")?;
    ensure_meta!(
        ld.len() == sd.len(),
        "label {} and softmax {} must have the same rank",
        fmt_dims(ld),
        fmt_dims(sd)
    );
    for i in 0..sd.len() {
        if i != a && sd[i] > 0 && ld[i] > 0 {
            ensure_meta!(
                sd[i] == ld[i],
                "softmax {} and label {} must match in every dim except axis {a}",
                fmt_dims(sd),
                fmt_dims(ld)
            );
        }
    }
    if soft {
        if sd[a] > 0 && ld[a] > 0 {
            ensure_meta!(
                sd[a] == ld[a],
                "with soft labels, label {} must match softmax {} on axis {a}",
                fmt_dims(ld),
                fmt_dims(sd)
            );
        }
    } else if ld[a] > 0 {
        ensure_meta!(
            ld[a] == 1,
            "with hard labels, label {} must have size 1 on axis {a}",
            fmt_dims(ld)
        );
    }
    ctx.set_output(0, dims_dtype_of(softmax))
}

/// `MemoryEfficientAttentionGradInferMeta(query, key, value, bias, ...)`.
#[infer_meta]
pub fn memory_efficient_attention_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let q = ctx.tensor(0)?;
    let k = ctx.tensor(1)?;
    let v = ctx.tensor(2)?;
    let bias = ctx.opt_tensor(3)?;
    let output = ctx.tensor(6)?;
    let og = ctx.tensor(9)?;
    need_rank(og, 4, "output_grad")?;
    need_rank(output, 4, "output")?;
    for (t, n) in [(q, "query"), (k, "key"), (v, "value")] {
        need_rank(t, 4, n)?;
    }
    let like = |t: &TensorMeta| {
        MetaBuilder::new()
            .dims(&t.dims)
            .lod(t)
            .dtype(t.dtype)
            .layout(t.layout)
            .build()
    };
    ctx.set_output(0, like(q))?;
    ctx.set_output(1, like(k))?;
    ctx.set_output(2, like(v))?;
    if let Some(b) = bias {
        need_rank(b, 4, "bias")?;
        set_opt(ctx, 3, like(b))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Layout changes and tensor lists
// ---------------------------------------------------------------------------------------------

/// `TransposeGradInferMeta(out_grad, perm)`: `out_grad` transposed by the inverse of `perm`.
#[infer_meta]
pub fn transpose_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    let perm = ints(ctx, 1)?;
    let rev = reverse_perm(&perm, g.rank())?;
    let d = transpose_dims(&g.dims, &rev)?;
    ctx.set_output(0, with_dtype_of(g, &d))
}

/// `StackGradInferMeta(out_grad, axis)`: one gradient per slice of `out_grad` along `axis`
/// (`x.size()` of the op equals `out_grad[axis]`), each without that axis.
#[infer_meta]
pub fn stack_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let g = ctx.tensor(0)?;
    let axis = ctx.int(1)?;
    let a = axis_in(axis, g.rank(), "axis")?;
    let n = output_count(g.dims[a], "the stacked extent of out_grad")?;
    let mut d = g.dims.to_vec();
    d.remove(a);
    ctx.set_outputs(0, (0..n).map(|_| with_dtype_of(g, &d)).collect())
}

/// `UnStackGradInferMeta(out_grad, axis)`: stacks the equal-shaped gradients along `axis`.
#[infer_meta]
pub fn un_stack_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let gs = ctx.tensors(0)?;
    let axis = ctx.int(1)?;
    let g0 = gs
        .first()
        .ok_or_else(|| InferMetaError::new("out_grad is empty: at least one tensor is needed"))?;
    for (i, g) in gs.iter().enumerate().skip(1) {
        ensure_meta!(
            g.dims == g0.dims,
            "every out_grad must have the same shape: out_grad[0] is {} but out_grad[{i}] is {}",
            fmt_dims(&g0.dims),
            fmt_dims(&g.dims)
        );
    }
    let rank = g0.rank() as i64;
    ensure_meta!(
        axis >= -(rank + 1) && axis < rank + 1,
        "axis {axis} is out of range [{}, {})",
        -(rank + 1),
        rank + 1
    );
    let a = if axis < 0 { axis + rank + 1 } else { axis } as usize;
    let mut d = g0.dims.to_vec();
    d.insert(a, gs.len() as i64);
    ctx.set_output(0, with_dtype_of(g0, &d))
}

/// `MeshgridGradInferMeta(inputs, out_grad)`: each input gradient shares its input's metadata.
#[infer_meta]
pub fn meshgrid_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let inputs = ctx.tensors(0)?;
    let grads = ctx.tensors(1)?;
    ensure_meta!(
        grads.len() > 1,
        "meshgrid_grad needs more than one out_grad, got {}",
        grads.len()
    );
    ctx.set_outputs(0, inputs.iter().map(share_meta).collect())
}

/// `MultiDotGradInferMeta(x, out_grad)`: each gradient gets its input's dims and LoD (dtype
/// left float32, as in Paddle).
#[infer_meta]
pub fn multi_dot_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    ctx.set_outputs(
        0,
        xs.iter()
            .map(|x| MetaBuilder::new().dims(&x.dims).lod(x).build())
            .collect(),
    )
}

/// `PartialConcatGradInferMeta(x)`: each gradient has its input's dims and dtype.
#[infer_meta]
pub fn partial_concat_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    ctx.set_outputs(0, xs.iter().map(dims_dtype_of).collect())
}

/// `PartialSumGradInferMeta(x)`: each gradient has its input's dims and dtype.
#[infer_meta]
pub fn partial_sum_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    partial_concat_grad_infer_meta(ctx)
}

/// `CudnnLSTMGradInferMeta(x, init_h, init_c, weight_list)`.
#[infer_meta(name = "CudnnLSTMGradInferMeta")]
pub fn cudnn_lstm_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    general_n_grad(ctx, 3)?;
    if let Some(ws) = ctx.opt_tensors(3)? {
        if ctx.num_outputs() > 3 {
            ctx.set_outputs(3, ws.iter().map(share_meta).collect())?;
        }
    }
    Ok(())
}

/// `RnnGradInferMeta(x, pre_state, weight_list)`.
#[infer_meta]
pub fn rnn_grad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let pre = ctx.tensors(1)?;
    let ws = ctx.tensors(2)?;
    ensure_meta!(!pre.is_empty(), "pre_state must not be empty");
    ctx.set_output(0, share_meta(x))?;
    ctx.set_outputs(1, pre.iter().map(share_meta).collect())?;
    ctx.set_outputs(2, ws.iter().map(share_meta).collect())
}
