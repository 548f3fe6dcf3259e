//! Infer-meta functions of gradient ops, after Paddle's `paddle/phi/infermeta/backward.cc`
//! (plus the few gradient functions Paddle keeps in `unary.cc`/`ternary.cc`).
//!
//! Every function takes Paddle's C++ parameters in order: when an op's `infer_meta.param`
//! lists tensors in another order than the C++ function names them, Paddle binds them by
//! position, and so do these functions. Gradients of absent optional inputs are left unset, as
//! Paddle leaves them.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, IntArrayArg, Output, OutputList, Scalar, TensorMeta};

use super::common::{
    axis_in, dim_at, dims_dtype_lod_of, dims_dtype_of, dims_lod_with_dtype, dims_only, div,
    fmt_dims, has_unknown, mul, need_rank, output_count, share_each, share_if_present, share_meta,
    with_dtype_of, MetaBuilder,
};
use super::unary::{reverse_perm, transpose_dims};

type R = Result<(), InferMetaError>;

// ---------------------------------------------------------------------------------------------
// The general families
// ---------------------------------------------------------------------------------------------

/// `GeneralUnaryGradInferMeta(x)`: `dx` shares `x`'s metadata. Also
/// `FlashAttnQKVPackedGradInferMeta(qkv)`, which Paddle writes the same way.
#[infer_meta(also = ["FlashAttnQKVPackedGradInferMeta"])]
pub fn general_unary_grad_infer_meta(x: Option<&TensorMeta>, dx: Output<'_>) -> R {
    share_if_present(x, dx)
}

/// `GeneralBinaryGradInferMeta(x, y)`: `dx`, `dy` share the metadata of `x`, `y`. Also
/// `SwiGLUGradInferMeta(x, y)`.
#[infer_meta(also = ["SwiGLUGradInferMeta"])]
pub fn general_binary_grad_infer_meta(
    x: Option<&TensorMeta>,
    y: Option<&TensorMeta>,
    dx: Output<'_>,
    dy: Output<'_>,
) -> R {
    share_each([(x, dx), (y, dy)])
}

/// `GeneralTernaryGradInferMeta(x, y, z)`: each gradient shares its input's metadata (absent
/// optional inputs leave their gradients unset). Also `LayerNormGradInferMeta(x, scale, bias)`,
/// `RmsNormGradInferMeta(x, norm_weight, norm_bias)`, `FlashAttnGradInferMeta(q, k, v)` and
/// `FlashAttnV3GradInferMeta(q, k, v)` (declared like `FlashAttnGradInferMeta` in Paddle's
/// `backward.h`; its body is not in the reference store, so v2's `share_meta` rule is taken).
#[infer_meta(also = [
    "LayerNormGradInferMeta",
    "RmsNormGradInferMeta",
    "FlashAttnGradInferMeta",
    "FlashAttnV3GradInferMeta"
])]
pub fn general_ternary_grad_infer_meta(
    x: Option<&TensorMeta>,
    y: Option<&TensorMeta>,
    z: Option<&TensorMeta>,
    dx: Output<'_>,
    dy: Output<'_>,
    dz: Output<'_>,
) -> R {
    share_each([(x, dx), (y, dy), (z, dz)])
}

/// `GeneralQuaternaryGradInferMeta(x, y, z, k)`.
#[infer_meta]
pub fn general_quaternary_grad_infer_meta(
    x: Option<&TensorMeta>,
    y: Option<&TensorMeta>,
    z: Option<&TensorMeta>,
    k: Option<&TensorMeta>,
    dx: Output<'_>,
    dy: Output<'_>,
    dz: Output<'_>,
    dk: Output<'_>,
) -> R {
    share_each([(x, dx), (y, dy), (z, dz), (k, dk)])
}

/// `GeneralQuinaryGradInferMeta(x, y, z, k, l)`. Also `LSTMGradInferMeta(input, h0, c0,
/// weight, bias)`.
#[infer_meta(also = ["LSTMGradInferMeta"])]
pub fn general_quinary_grad_infer_meta(
    x: Option<&TensorMeta>,
    y: Option<&TensorMeta>,
    z: Option<&TensorMeta>,
    k: Option<&TensorMeta>,
    l: Option<&TensorMeta>,
    dx: Output<'_>,
    dy: Output<'_>,
    dz: Output<'_>,
    dk: Output<'_>,
    dl: Output<'_>,
) -> R {
    share_each([(x, dx), (y, dy), (z, dz), (k, dk), (l, dl)])
}

/// `GradSameWithXInferMeta(xshape, out)`: dims and LoD of `xshape` (the forward input), dtype
/// of `out` (the gradient).
#[infer_meta]
pub fn grad_same_with_x_infer_meta(xshape: &TensorMeta, out: &TensorMeta, dx: Output<'_>) -> R {
    dx.set(dims_lod_with_dtype(xshape, out.dtype))
}

/// `IndexPutGradInferMeta(x, indices, value, out_grad, accumulate)`: `x_grad` like `x`,
/// `value_grad` like `value`.
#[infer_meta]
pub fn index_put_grad_infer_meta(
    x: &TensorMeta,
    _indices: &[TensorMeta],
    value: &TensorMeta,
    _out_grad: &TensorMeta,
    _accumulate: bool,
    x_grad: Output<'_>,
    value_grad: Output<'_>,
) -> R {
    x_grad.set(share_meta(x))?;
    value_grad.set_if_present(share_meta(value));
    Ok(())
}

/// `MaxPoolWithIndexGradInferMeta(x, mask, dout, kernel_size, strides, paddings,
/// global_pooling, adaptive, ceil_mode)`: `dx` like `x`.
#[infer_meta]
pub fn max_pool_with_index_grad_infer_meta(
    x: &TensorMeta,
    _mask: &TensorMeta,
    _dout: &TensorMeta,
    _kernel_size: &[i64],
    _strides: &[i64],
    _paddings: &[i64],
    _global_pooling: bool,
    _adaptive: bool,
    _ceil_mode: bool,
    dx: Output<'_>,
) -> R {
    dx.set(share_meta(x))
}

/// `ConvTransposeGradInferMeta(x, filter, dout, strides, paddings, output_padding,
/// output_size, padding_algorithm, groups, dilations, data_format)`:
/// `GeneralBinaryGradInferMeta(x, filter)`. Also `Conv2dTransposeGradInferMeta`, whose
/// `output_size` is an `IntArray` instead of an `int[]`: neither reads it, and one parameter
/// takes both.
#[infer_meta(also = ["Conv2dTransposeGradInferMeta"])]
pub fn conv_transpose_grad_infer_meta(
    x: Option<&TensorMeta>,
    filter: Option<&TensorMeta>,
    _dout: &TensorMeta,
    _strides: &[i64],
    _paddings: &[i64],
    _output_padding: &[i64],
    _output_size: IntArrayArg,
    _padding_algorithm: &str,
    _groups: i64,
    _dilations: &[i64],
    _data_format: &str,
    dx: Output<'_>,
    dfilter: Output<'_>,
) -> R {
    share_each([(x, dx), (filter, dfilter)])
}

/// `Conv2dTransposeDoubleGradInferMeta(x, filter, dout, ddx, ddfilter, ...)`: `dx`, `dfilter`
/// like `x`, `filter`; `ddout` like `dout`.
#[infer_meta]
pub fn conv2d_transpose_double_grad_infer_meta(
    x: Option<&TensorMeta>,
    filter: Option<&TensorMeta>,
    dout: Option<&TensorMeta>,
    _ddx: &TensorMeta,
    _ddfilter: &TensorMeta,
    _strides: &[i64],
    _paddings: &[i64],
    _output_padding: &[i64],
    _output_size: IntArrayArg,
    _padding_algorithm: &str,
    _groups: i64,
    _dilations: &[i64],
    _data_format: &str,
    dx: Output<'_>,
    dfilter: Output<'_>,
    ddout: Output<'_>,
) -> R {
    share_each([(x, dx), (filter, dfilter), (dout, ddout)])
}

/// `DeformableConvGradInferMeta(x, offset, filter, mask, out_grad, ...)`: each gradient shares
/// its input's metadata (`mask_grad` only when `mask` is present).
#[infer_meta]
pub fn deformable_conv_grad_infer_meta(
    x: Option<&TensorMeta>,
    offset: Option<&TensorMeta>,
    filter: Option<&TensorMeta>,
    mask: Option<&TensorMeta>,
    _out_grad: &TensorMeta,
    _strides: &[i64],
    _paddings: &[i64],
    _dilations: &[i64],
    _deformable_groups: i64,
    _groups: i64,
    _im2col_step: i64,
    dx: Output<'_>,
    offset_grad: Output<'_>,
    filter_grad: Output<'_>,
    mask_grad: Output<'_>,
) -> R {
    share_each([
        (x, dx),
        (offset, offset_grad),
        (filter, filter_grad),
        (mask, mask_grad),
    ])
}

// ---------------------------------------------------------------------------------------------
// Dims from one input, dtype from another
// ---------------------------------------------------------------------------------------------

/// `GatherNdGradInferMeta(x, index, out_grad)`: dims and LoD of `x`, dtype of `out_grad`.
#[infer_meta]
pub fn gather_nd_grad_infer_meta(
    x: &TensorMeta,
    _index: &TensorMeta,
    out_grad: &TensorMeta,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_lod_with_dtype(x, out_grad.dtype))
}

/// `IdentityLossGradInferMeta(x, out_grad, reduction)`: dims and LoD of `x`, dtype of
/// `out_grad`.
#[infer_meta]
pub fn identity_loss_grad_infer_meta(
    x: &TensorMeta,
    out_grad: &TensorMeta,
    _reduction: i64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_lod_with_dtype(x, out_grad.dtype))
}

/// `InverseGradInferMeta(out, dout)`: dims of `dout`, dtype of `out`.
#[infer_meta]
pub fn inverse_grad_infer_meta(out: &TensorMeta, dout: &TensorMeta, dx: Output<'_>) -> R {
    dx.set_new(out.dtype, &dout.dims)
}

/// `SpectralNormGradInferMeta(weight, u, v, out_grad, dim, power_iters, eps)`: dims of
/// `weight`, dtype of `out_grad`.
#[infer_meta]
pub fn spectral_norm_grad_infer_meta(
    weight: &TensorMeta,
    _u: &TensorMeta,
    _v: &TensorMeta,
    out_grad: &TensorMeta,
    _dim: i64,
    _power_iters: i64,
    _eps: f64,
    weight_grad: Output<'_>,
) -> R {
    weight_grad.set_new(out_grad.dtype, &weight.dims)
}

/// `LUGradInferMeta(x, out, pivots, out_grad, pivot)`: dims and dtype of `x`.
#[infer_meta(name = "LUGradInferMeta")]
pub fn lu_grad_infer_meta(
    x: &TensorMeta,
    _out: &TensorMeta,
    _pivots: &TensorMeta,
    _out_grad: &TensorMeta,
    _pivot: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `LUUnpackGradInferMeta(x, pivots, l, u, pmat, l_grad, u_grad, unpack_ludata,
/// unpack_pivots)`: dims and dtype of `x`.
#[infer_meta(name = "LUUnpackGradInferMeta")]
pub fn lu_unpack_grad_infer_meta(
    x: &TensorMeta,
    _pivots: &TensorMeta,
    _l: &TensorMeta,
    _u: &TensorMeta,
    _pmat: &TensorMeta,
    _l_grad: &TensorMeta,
    _u_grad: &TensorMeta,
    _unpack_ludata: bool,
    _unpack_pivots: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `NanmedianGradInferMeta(x, median_index, out_grad, axes, keep_dim, mode)`: dims and dtype
/// of `x` (the signature of the yaml snapshot).
#[infer_meta(name = "NanmedianGradInferMeta")]
pub fn nanmedian_grad_infer_meta(
    x: &TensorMeta,
    _median_index: &TensorMeta,
    _out_grad: &TensorMeta,
    _axes: IntArrayArg,
    _keep_dim: bool,
    _mode: &str,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `NanmedianGradInferMeta(x, median_data, median_index, out_grad, axes, keep_dim, mode)`:
/// Paddle 3.3.1's signature, which passes the medians too (its `nanmedian_grad` takes four
/// tensors: `paddle-ref/ops/vjp/nanmedian.txt`); the same result.
#[infer_meta(name = "NanmedianGradInferMeta")]
pub fn nanmedian_grad_with_medians_infer_meta(
    x: &TensorMeta,
    _median_data: &TensorMeta,
    _median_index: &TensorMeta,
    _out_grad: &TensorMeta,
    _axes: IntArrayArg,
    _keep_dim: bool,
    _mode: &str,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `OverlapAddGradInferMeta(x, out_grad, hop_length, axis)`: dims and dtype of `x`.
#[infer_meta]
pub fn overlap_add_grad_infer_meta(
    x: &TensorMeta,
    _out_grad: &TensorMeta,
    _hop_length: i64,
    _axis: i64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `YoloLossGradInferMeta(x, gt_box, gt_label, gt_score, ...)`: only `x_grad` is set, with
/// `x`'s dims and dtype.
#[infer_meta]
pub fn yolo_loss_grad_infer_meta(
    x: &TensorMeta,
    _gt_box: &TensorMeta,
    _gt_label: &TensorMeta,
    _gt_score: Option<&TensorMeta>,
    _objectness_mask: &TensorMeta,
    _gt_match_mask: &TensorMeta,
    _loss_grad: &TensorMeta,
    _anchors: &[i64],
    _anchor_mask: &[i64],
    _class_num: i64,
    _ignore_thresh: f64,
    _downsample_ratio: i64,
    _use_label_smooth: bool,
    _scale_x_y: f64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `FillDiagonalGradInferMeta(dout, value, offset, wrap)`: dims and dtype of `dout`.
#[infer_meta]
pub fn fill_diagonal_grad_infer_meta(
    dout: &TensorMeta,
    _value: f64,
    _offset: i64,
    _wrap: bool,
    dx: Output<'_>,
) -> R {
    dx.set(dims_dtype_of(dout))
}

/// `FillDiagonalTensorGradInferMeta(out_grad, offset, dim1, dim2)`: dims and dtype of
/// `out_grad`.
#[infer_meta]
pub fn fill_diagonal_tensor_grad_infer_meta(
    out_grad: &TensorMeta,
    _offset: i64,
    _dim1: i64,
    _dim2: i64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(out_grad))
}

/// `UniformRandomInplaceGradInferMeta(out_grad, min, max, seed, diag_num, diag_step,
/// diag_val)`: dims and dtype of `out_grad`.
#[infer_meta]
pub fn uniform_random_inplace_grad_infer_meta(
    out_grad: &TensorMeta,
    _min: f64,
    _max: f64,
    _seed: i64,
    _diag_num: i64,
    _diag_step: i64,
    _diag_val: f64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(out_grad))
}

/// `EigvalshGradInferMeta(out_v, out_w_grad, uplo, is_test)`: dims and dtype of `out_v`.
#[infer_meta]
pub fn eigvalsh_grad_infer_meta(
    out_v: &TensorMeta,
    _out_w_grad: &TensorMeta,
    _uplo: &str,
    _is_test: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(out_v))
}

/// `CropGradInferMeta(out_grad, x, offsets)`: dims and dtype of `x`.
#[infer_meta]
pub fn crop_grad_infer_meta(
    _out_grad: &TensorMeta,
    x: &TensorMeta,
    _offsets: IntArrayArg,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `EigGradInferMeta(out_w, out_v, dout_w, dout_v)`: dims of `out_v` (dtype left float32, as
/// in Paddle).
#[infer_meta]
pub fn eig_grad_infer_meta(
    _out_w: &TensorMeta,
    out_v: &TensorMeta,
    _dout_w: &TensorMeta,
    _dout_v: &TensorMeta,
    dx: Output<'_>,
) -> R {
    dx.set(dims_only(&out_v.dims))
}

/// `BmmGradInferMeta(x, y, out_grad)`: `x_grad`, `y_grad` with the dims and dtype of `x`, `y`.
/// Also `ComplexGradInferMeta(x, y, dout)`, which Paddle writes the same way.
#[infer_meta(also = ["ComplexGradInferMeta"])]
pub fn bmm_grad_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    _out_grad: &TensorMeta,
    x_grad: Output<'_>,
    y_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))?;
    y_grad.set_if_present(dims_dtype_of(y));
    Ok(())
}

/// `BatchFCGradInferMeta(input, w, bias, out_grad)`: each gradient with its input's dims and
/// dtype.
#[infer_meta(name = "BatchFCGradInferMeta")]
pub fn batch_fc_grad_infer_meta(
    input: &TensorMeta,
    w: &TensorMeta,
    bias: &TensorMeta,
    _out_grad: &TensorMeta,
    input_grad: Output<'_>,
    w_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    input_grad.set(dims_dtype_of(input))?;
    w_grad.set(dims_dtype_of(w))?;
    bias_grad.set(dims_dtype_of(bias))
}

/// `BilinearGradInferMeta(x, y, weight, dout)`: `dbias` is `[1, dout[1]]`.
#[infer_meta]
pub fn bilinear_grad_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    weight: &TensorMeta,
    dout: &TensorMeta,
    dx: Output<'_>,
    dy: Output<'_>,
    dweight: Output<'_>,
    dbias: Output<'_>,
) -> R {
    need_rank(dout, 2, "out_grad")?;
    let x0 = dim_at(&x.dims, 0, "x")?;
    let w0 = dim_at(&weight.dims, 0, "weight")?;
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
        fmt_dims(&weight.dims)
    );
    dx.set(dims_dtype_of(x))?;
    dy.set(dims_dtype_of(y))?;
    dweight.set(dims_dtype_of(weight))?;
    dbias.set_if_present(with_dtype_of(dout, &[1, dout.dims[1]]));
    Ok(())
}

/// `ChannelShuffleGradInferMeta(out_grad, groups, data_format)`: like `out_grad` (4-D).
#[infer_meta]
pub fn channel_shuffle_grad_infer_meta(
    out_grad: &TensorMeta,
    _groups: i64,
    _data_format: &str,
    x_grad: Output<'_>,
) -> R {
    need_rank(out_grad, 4, "out_grad")?;
    x_grad.set(dims_dtype_of(out_grad))
}

/// `CSoftmaxWithCrossEntropyGradInferMeta(softmax, label, loss_grad, ignore_index, rank,
/// nranks)`: dims of `softmax` (dtype left float32, as in Paddle).
#[infer_meta]
pub fn c_softmax_with_cross_entropy_grad_infer_meta(
    softmax: &TensorMeta,
    _label: &TensorMeta,
    _loss_grad: &TensorMeta,
    _ignore_index: i64,
    _rank: i64,
    _nranks: i64,
    logits_grad: Output<'_>,
) -> R {
    logits_grad.set(dims_only(&softmax.dims))
}

/// `MarginCrossEntropyGradInferMeta(logits, label, softmax, loss_grad, ...)`: like `softmax`.
#[infer_meta]
pub fn margin_cross_entropy_grad_infer_meta(
    _logits: &TensorMeta,
    _label: &TensorMeta,
    softmax: &TensorMeta,
    _loss_grad: &TensorMeta,
    _return_softmax: bool,
    _ring_id: i64,
    _rank: i64,
    _nranks: i64,
    _margin1: f64,
    _margin2: f64,
    _margin3: f64,
    _scale: f64,
    logits_grad: Output<'_>,
) -> R {
    logits_grad.set(dims_dtype_of(softmax))
}

/// `RankAttentionGradInferMeta(x, rank_offset, rank_param, input_help, ins_rank, out_grad,
/// max_rank, max_size)`: like `rank_param`.
#[infer_meta]
pub fn rank_attention_grad_infer_meta(
    _x: &TensorMeta,
    _rank_offset: &TensorMeta,
    rank_param: &TensorMeta,
    _input_help: &TensorMeta,
    _ins_rank: &TensorMeta,
    _out_grad: &TensorMeta,
    _max_rank: i64,
    _max_size: i64,
    rank_param_grad: Output<'_>,
) -> R {
    rank_param_grad.set(dims_dtype_of(rank_param))
}

/// `ShuffleBatchGradInferMeta(shuffle_idx, out_grad, startup_seed)`: dims, dtype and LoD of
/// `out_grad`.
#[infer_meta]
pub fn shuffle_batch_grad_infer_meta(
    _shuffle_idx: &TensorMeta,
    out_grad: &TensorMeta,
    _startup_seed: i64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_lod_of(out_grad))
}

/// `RealAndImagGradInferMeta(out_grad)`: dims and layout of `out_grad`, complex dtype.
#[infer_meta]
pub fn real_and_imag_grad_infer_meta(out_grad: &TensorMeta, dx: Output<'_>) -> R {
    let meta = MetaBuilder::new()
        .dims(&out_grad.dims)
        .dtype(out_grad.dtype.to_complex())
        .layout(out_grad.layout);
    dx.set(meta.build())
}

/// `EmbeddingGradInferMeta(x, weight)`: dims of `weight` (`share_dims`: the dtype stays
/// float32).
#[infer_meta]
pub fn embedding_grad_infer_meta(
    _x: &TensorMeta,
    weight: Option<&TensorMeta>,
    out: Output<'_>,
) -> R {
    match weight {
        Some(w) => out.set(dims_only(&w.dims)),
        None => Ok(()),
    }
}

/// `PreluGradInferMeta(x, y)`: dims only (`share_dims`).
#[infer_meta]
pub fn prelu_grad_infer_meta(
    x: Option<&TensorMeta>,
    y: Option<&TensorMeta>,
    dx: Output<'_>,
    dy: Output<'_>,
) -> R {
    for (t, out) in [(x, dx), (y, dy)] {
        if let Some(t) = t {
            out.set_if_present(dims_only(&t.dims));
        }
    }
    Ok(())
}

/// `GumbelSoftmaxGradInferMeta(out, dout, axis)`: like `dout`, whose dims must equal `out`'s.
#[infer_meta]
pub fn gumbel_softmax_grad_infer_meta(
    out: &TensorMeta,
    dout: &TensorMeta,
    _axis: i64,
    dx: Output<'_>,
) -> R {
    ensure_meta!(
        out.dims == dout.dims,
        "out {} and its gradient {} must have the same shape",
        fmt_dims(&out.dims),
        fmt_dims(&dout.dims)
    );
    dx.set(share_meta(dout))
}

/// `IndexAddGradInferMeta(index, add_value, out_grad, axis)`: `x_grad` like `out_grad`,
/// `add_value_grad` like `add_value` (dims, dtype, layout and LoD).
#[infer_meta]
pub fn index_add_grad_infer_meta(
    _index: &TensorMeta,
    add_value: &TensorMeta,
    out_grad: &TensorMeta,
    _axis: i64,
    x_grad: Output<'_>,
    add_value_grad: Output<'_>,
) -> R {
    x_grad.set(share_meta(out_grad))?;
    add_value_grad.set_if_present(share_meta(add_value));
    Ok(())
}

/// `x_grad` like `out_grad`; `updates_grad` with `updates`' dims: both in `out_grad`'s dtype
/// (`ScatterGradInferMeta`, `ScatterNdAddGradInferMeta`).
fn scatter_grads(
    updates: &TensorMeta,
    out_grad: &TensorMeta,
    x_grad: Output<'_>,
    updates_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(out_grad))?;
    updates_grad.set_if_present(with_dtype_of(out_grad, &updates.dims));
    Ok(())
}

/// `ScatterGradInferMeta(index, updates, out_grad, overwrite)`: `x_grad` like `out_grad`,
/// `updates_grad` with `updates`' dims; both in `out_grad`'s dtype.
#[infer_meta]
pub fn scatter_grad_infer_meta(
    _index: &TensorMeta,
    updates: &TensorMeta,
    out_grad: &TensorMeta,
    _overwrite: bool,
    x_grad: Output<'_>,
    updates_grad: Output<'_>,
) -> R {
    scatter_grads(updates, out_grad, x_grad, updates_grad)
}

/// `ScatterNdAddGradInferMeta(index, updates, out_grad)`: as `ScatterGradInferMeta`.
#[infer_meta]
pub fn scatter_nd_add_grad_infer_meta(
    _index: &TensorMeta,
    updates: &TensorMeta,
    out_grad: &TensorMeta,
    x_grad: Output<'_>,
    updates_grad: Output<'_>,
) -> R {
    scatter_grads(updates, out_grad, x_grad, updates_grad)
}

/// `SetValueGradInferMeta(out_grad, values)`: each gradient with its tensor's dims, dtype and
/// LoD.
#[infer_meta]
pub fn set_value_grad_infer_meta(
    out_grad: &TensorMeta,
    values: &TensorMeta,
    x_grad: Output<'_>,
    value_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_lod_of(out_grad))?;
    value_grad.set_if_present(dims_dtype_lod_of(values));
    Ok(())
}

/// `WeightOnlyLinearGradInferMeta(x, weight, bias, weight_scale, out_grad, weight_dtype, arch,
/// group_size)`: only arch 80/86 and per-channel mode.
#[infer_meta]
pub fn weight_only_linear_grad_infer_meta(
    x: &TensorMeta,
    _weight: &TensorMeta,
    _bias: Option<&TensorMeta>,
    _weight_scale: &TensorMeta,
    _out_grad: &TensorMeta,
    _weight_dtype: &str,
    arch: i64,
    group_size: i64,
    x_grad: Output<'_>,
) -> R {
    ensure_meta!(
        arch == 80 || arch == 86,
        "weight-only linear grad supports arch 80 or 86, got {arch}"
    );
    ensure_meta!(
        group_size == -1,
        "weight-only linear grad supports only per-channel mode (group_size -1), got \
         {group_size}"
    );
    x_grad.set(dims_dtype_of(x))
}

/// `AffineGridGradInferMeta(output_grad, output_shape, align_corners)`: `[N, 2, 3]` for a 4-D
/// gradient, `[N, 3, 4]` otherwise (dims only).
#[infer_meta]
pub fn affine_grid_grad_infer_meta(
    output_grad: &TensorMeta,
    _output_shape: IntArrayArg,
    _align_corners: bool,
    input_grad: Output<'_>,
) -> R {
    let n = dim_at(&output_grad.dims, 0, "output_grad")?;
    let d = if output_grad.rank() == 4 {
        [n, 2, 3]
    } else {
        [n, 3, 4]
    };
    input_grad.set(dims_only(&d))
}

/// `PixelUnshuffleGradInferMeta(out_grad, downscale_factor, data_format)`.
#[infer_meta]
pub fn pixel_unshuffle_grad_infer_meta(
    out_grad: &TensorMeta,
    downscale_factor: i64,
    data_format: &str,
    x_grad: Output<'_>,
) -> R {
    let (g, f) = (out_grad, downscale_factor);
    need_rank(g, 4, "out_grad")?;
    let mut d = g.dims.to_vec();
    let ff = mul(f, f);
    if data_format != "NHWC" {
        d[1] = div(g.dims[1], ff, "downscale_factor squared")?;
        d[2] = mul(g.dims[2], f);
        d[3] = mul(g.dims[3], f);
    } else {
        d[1] = mul(g.dims[1], f);
        d[2] = mul(g.dims[2], f);
        d[3] = div(g.dims[3], ff, "downscale_factor squared")?;
    }
    x_grad.set_new(g.dtype, &d)
}

/// `FFTC2RGradInferMeta(x, axes, normalization, forward, last_dim_size)`: complex dtype; the
/// last transformed axis becomes `n / 2 + 1`.
#[infer_meta(name = "FFTC2RGradInferMeta")]
pub fn fft_c2r_grad_infer_meta(
    x: &TensorMeta,
    axes: &[i64],
    _normalization: &str,
    _forward: bool,
    last_dim_size: i64,
    out: Output<'_>,
) -> R {
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
    d[a] = if last_dim_size > 0 {
        last_dim_size / 2 + 1
    } else if d[a] == -1 {
        -1
    } else {
        d[a] / 2 + 1
    };
    let meta = MetaBuilder::new()
        .layout(x.layout)
        .dtype(x.dtype.to_complex())
        .dims(&d);
    out.set(meta.build())
}

/// `x_grad` with `x`'s dims, dtype and layout (no LoD), the instance-norm gradients' first
/// output; returns `x`'s channel count `C` (dim 1).
fn instance_norm_x_grad(x: &TensorMeta, x_grad: Output<'_>) -> Result<i64, InferMetaError> {
    let c = dim_at(&x.dims, 1, "x")?;
    let meta = MetaBuilder::new()
        .dims(&x.dims)
        .dtype(x.dtype)
        .layout(x.layout);
    x_grad.set(meta.build())?;
    Ok(c)
}

/// `InstanceNormGradInferMeta(x, scale, bias, saved_mean, saved_variance, y_grad, epsilon)`:
/// `x_grad` with `x`'s dims, dtype and layout; `scale_grad`/`bias_grad` `[C]`, each only when
/// its forward input is present (Paddle 3.3.1 leaves the gradient of an absent `scale`/`bias`
/// without a type: `paddle-ref/ops/vjp/instance_norm.txt`).
#[infer_meta]
pub fn instance_norm_grad_infer_meta(
    x: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    _saved_mean: &TensorMeta,
    _saved_variance: &TensorMeta,
    _y_grad: &TensorMeta,
    _epsilon: f64,
    x_grad: Output<'_>,
    scale_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    let c = instance_norm_x_grad(x, x_grad)?;
    if scale.is_some() {
        scale_grad.set_if_present(dims_only(&[c]));
    }
    if bias.is_some() {
        bias_grad.set_if_present(dims_only(&[c]));
    }
    Ok(())
}

/// `InstanceNormDoubleGradInferMeta(x, scale, saved_mean, saved_variance, dy, ddx, ddscale,
/// ddbias, epsilon)`: `dx` as in `InstanceNormGradInferMeta`, `dscale` `[C]`, `ddy` with `x`'s
/// dims.
#[infer_meta]
pub fn instance_norm_double_grad_infer_meta(
    x: &TensorMeta,
    _scale: Option<&TensorMeta>,
    _saved_mean: &TensorMeta,
    _saved_variance: &TensorMeta,
    _dy: &TensorMeta,
    _ddx: Option<&TensorMeta>,
    _ddscale: Option<&TensorMeta>,
    _ddbias: Option<&TensorMeta>,
    _epsilon: f64,
    dx: Output<'_>,
    dscale: Output<'_>,
    ddy: Output<'_>,
) -> R {
    let c = instance_norm_x_grad(x, dx)?;
    dscale.set_if_present(dims_only(&[c]));
    ddy.set_if_present(dims_only(&x.dims));
    Ok(())
}

/// `SequenceConvGradInferMeta(x, padding_data, filter, out_grad, context_length,
/// padding_trainable, context_start, context_stride)`.
#[infer_meta]
pub fn sequence_conv_grad_infer_meta(
    x: &TensorMeta,
    padding_data: Option<&TensorMeta>,
    filter: &TensorMeta,
    _out_grad: &TensorMeta,
    _context_length: i64,
    padding_trainable: bool,
    _context_start: i64,
    _context_stride: i64,
    x_grad: Output<'_>,
    padding_data_grad: Output<'_>,
    filter_grad: Output<'_>,
) -> R {
    if let (true, Some(p)) = (padding_trainable, padding_data) {
        padding_data_grad.set_if_present(dims_dtype_of(p));
    }
    x_grad.set(dims_dtype_lod_of(x))?;
    filter_grad.set_if_present(dims_dtype_of(filter));
    Ok(())
}

/// `GruGradInferMeta(input, h0, weight, bias)`.
#[infer_meta]
pub fn gru_grad_infer_meta(
    input: &TensorMeta,
    h0: Option<&TensorMeta>,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    input_grad: Output<'_>,
    h0_grad: Output<'_>,
    weight_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    let isz = dim_at(&input.dims, 1, "input")?;
    let frame = dim_at(&weight.dims, 0, "weight")?;
    let w1 = dim_at(&weight.dims, 1, "weight")?;
    ensure_meta!(
        isz == mul(frame, 3),
        "input width {isz} must be 3 × the frame size {frame}"
    );
    ensure_meta!(
        w1 == mul(frame, 3),
        "weight must be [frame, 3 × frame], got {}",
        fmt_dims(&weight.dims)
    );
    if let Some(h) = h0 {
        let h1 = dim_at(&h.dims, 1, "h0")?;
        ensure_meta!(
            h1 == frame,
            "h0 width {h1} must equal the frame size {frame}"
        );
        h0_grad.set_if_present(dims_dtype_of(h));
    }
    if let Some(b) = bias {
        let (b0, b1) = (dim_at(&b.dims, 0, "bias")?, dim_at(&b.dims, 1, "bias")?);
        ensure_meta!(
            b0 == 1 && b1 == mul(frame, 3),
            "bias must be [1, 3 × {frame}], got {}",
            fmt_dims(&b.dims)
        );
        bias_grad.set_if_present(dims_dtype_of(b));
    }
    input_grad.set(dims_dtype_of(input))?;
    weight_grad.set_if_present(dims_dtype_of(weight));
    Ok(())
}

/// `GruUnitGradInferMeta(input, hidden_prev, weight, bias)`.
#[infer_meta]
pub fn gru_unit_grad_infer_meta(
    input: &TensorMeta,
    hidden_prev: &TensorMeta,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    input_grad: Output<'_>,
    hidden_prev_grad: Output<'_>,
    weight_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    super::multiary::gru_unit_frame(input, hidden_prev, weight, bias)?;
    if let Some(b) = bias {
        bias_grad.set_if_present(dims_dtype_of(b));
    }
    input_grad.set(dims_dtype_of(input))?;
    hidden_prev_grad.set_if_present(dims_dtype_of(hidden_prev));
    weight_grad.set_if_present(dims_dtype_of(weight));
    Ok(())
}

/// The rank `out_grad` must have for `reduction` (`"none"` keeps the loss per element: the
/// batch dims of `x` without the class dim), checked on known dims only.
fn nll_loss_out_grad_rank(gd: &[i64], unreduced_rank: usize, reduction: &str) -> R {
    if reduction == "none" {
        ensure_meta!(
            gd.len() == unreduced_rank,
            "out_grad must be {unreduced_rank}-D for reduction 'none', got {}",
            fmt_dims(gd)
        );
    } else {
        ensure_meta!(
            gd.is_empty(),
            "out_grad must be 0-D for a reduced loss, got {}",
            fmt_dims(gd)
        );
    }
    Ok(())
}

/// `NllLossGradInferMeta(input, label, weight, total_weight, out_grad, ignore_index,
/// reduction)`: dims and dtype of `input`; `out_grad` must have the loss's shape.
#[infer_meta]
pub fn nll_loss_grad_infer_meta(
    input: &TensorMeta,
    label: &TensorMeta,
    _weight: Option<&TensorMeta>,
    _total_weight: &TensorMeta,
    out_grad: &TensorMeta,
    _ignore_index: i64,
    reduction: &str,
    input_grad: Output<'_>,
) -> R {
    let (xd, gd) = (&input.dims, &out_grad.dims);
    if !has_unknown(xd) && !has_unknown(gd) {
        if xd.len() == 2 {
            nll_loss_out_grad_rank(gd, 1, reduction)?;
            if reduction == "none" {
                ensure_meta!(
                    gd[0] == xd[0],
                    "out_grad {} must have the batch size {}",
                    fmt_dims(gd),
                    xd[0]
                );
            }
        } else if xd.len() == 4 {
            nll_loss_out_grad_rank(gd, 3, reduction)?;
            if reduction == "none" {
                ensure_meta!(
                    label.dims.len() >= 3 && gd[..] == label.dims[..3],
                    "out_grad {} must match label {}",
                    fmt_dims(gd),
                    fmt_dims(&label.dims)
                );
            }
        }
    }
    input_grad.set(dims_dtype_of(input))
}

/// `CrossEntropyWithSoftmaxGradInferMeta(label, softmax, loss_grad, soft_label, use_softmax,
/// numeric_stable_mode, ignore_index, axis)`: like `softmax`; `label` must match it except on
/// `axis` (where it is 1 for hard labels).
#[infer_meta]
pub fn cross_entropy_with_softmax_grad_infer_meta(
    label: &TensorMeta,
    softmax: &TensorMeta,
    _loss_grad: &TensorMeta,
    soft_label: bool,
    _use_softmax: bool,
    _numeric_stable_mode: bool,
    _ignore_index: i64,
    axis: i64,
    logits_grad: Output<'_>,
) -> R {
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
    if soft_label {
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
    logits_grad.set(dims_dtype_of(softmax))
}

/// `MemoryEfficientAttentionGradInferMeta(query, key, value, bias, cu_seqlens_q, cu_seqlens_k,
/// output, logsumexp, seed_and_offset, output_grad, max_seqlen_q, max_seqlen_k, causal,
/// dropout_p, scale)`: each gradient like its (4-D) input.
#[infer_meta]
pub fn memory_efficient_attention_grad_infer_meta(
    query: &TensorMeta,
    key: &TensorMeta,
    value: &TensorMeta,
    bias: Option<&TensorMeta>,
    _cu_seqlens_q: Option<&TensorMeta>,
    _cu_seqlens_k: Option<&TensorMeta>,
    output: &TensorMeta,
    _logsumexp: &TensorMeta,
    _seed_and_offset: &TensorMeta,
    output_grad: &TensorMeta,
    _max_seqlen_q: Option<Scalar>,
    _max_seqlen_k: Option<Scalar>,
    _causal: bool,
    _dropout_p: f64,
    _scale: f64,
    query_grad: Output<'_>,
    key_grad: Output<'_>,
    value_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    need_rank(output_grad, 4, "output_grad")?;
    need_rank(output, 4, "output")?;
    for (t, n) in [(query, "query"), (key, "key"), (value, "value")] {
        need_rank(t, 4, n)?;
    }
    query_grad.set(share_meta(query))?;
    key_grad.set(share_meta(key))?;
    value_grad.set(share_meta(value))?;
    if let Some(b) = bias {
        need_rank(b, 4, "bias")?;
        bias_grad.set_if_present(share_meta(b));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Layout changes and tensor lists
// ---------------------------------------------------------------------------------------------

/// `TransposeGradInferMeta(x, axis)`: the gradient `x` transposed by the inverse of `axis`.
#[infer_meta]
pub fn transpose_grad_infer_meta(x: &TensorMeta, axis: &[i64], out: Output<'_>) -> R {
    let rev = reverse_perm(axis, x.rank())?;
    let d = transpose_dims(&x.dims, &rev)?;
    out.set_new(x.dtype, &d)
}

/// `StackGradInferMeta(out_grad, axis)`: one gradient per slice of `out_grad` along `axis`
/// (`x.size()` of the op equals `out_grad[axis]`), each without that axis.
#[infer_meta]
pub fn stack_grad_infer_meta(out_grad: &TensorMeta, axis: i64, x_grad: OutputList<'_>) -> R {
    let a = axis_in(axis, out_grad.rank(), "axis")?;
    let n = output_count(out_grad.dims[a], "the stacked extent of out_grad")?;
    let mut d = out_grad.dims.to_vec();
    d.remove(a);
    x_grad.set((0..n).map(|_| with_dtype_of(out_grad, &d)).collect())
}

/// `UnStackGradInferMeta(out_grad, axis)`: stacks the equal-shaped gradients along `axis`.
#[infer_meta]
pub fn un_stack_grad_infer_meta(out_grad: &[TensorMeta], axis: i64, x_grad: Output<'_>) -> R {
    let g0 = out_grad
        .first()
        .ok_or_else(|| InferMetaError::new("out_grad is empty: at least one tensor is needed"))?;
    for (i, g) in out_grad.iter().enumerate().skip(1) {
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
    d.insert(a, out_grad.len() as i64);
    x_grad.set_new(g0.dtype, &d)
}

/// `MeshgridGradInferMeta(inputs, outputs_grad)`: each input gradient shares its input's
/// metadata.
#[infer_meta]
pub fn meshgrid_grad_infer_meta(
    inputs: &[TensorMeta],
    outputs_grad: &[TensorMeta],
    inputs_grad: OutputList<'_>,
) -> R {
    ensure_meta!(
        outputs_grad.len() > 1,
        "meshgrid_grad needs more than one out_grad, got {}",
        outputs_grad.len()
    );
    inputs_grad.set(inputs.iter().map(share_meta).collect())
}

/// `MultiDotGradInferMeta(x, out_grad)`: each gradient gets its input's dims and LoD (dtype
/// left float32, as in Paddle).
#[infer_meta]
pub fn multi_dot_grad_infer_meta(
    x: &[TensorMeta],
    _out_grad: &TensorMeta,
    x_grad: OutputList<'_>,
) -> R {
    x_grad.set(
        x.iter()
            .map(|x| MetaBuilder::new().dims(&x.dims).lod(x).build())
            .collect(),
    )
}

/// `PartialConcatGradInferMeta(xs)`: each gradient has its input's dims and dtype. Also
/// `PartialSumGradInferMeta(xs)`, which Paddle writes the same way.
#[infer_meta(also = ["PartialSumGradInferMeta"])]
pub fn partial_concat_grad_infer_meta(xs: &[TensorMeta], x_grads: OutputList<'_>) -> R {
    x_grads.set(xs.iter().map(dims_dtype_of).collect())
}

/// `CudnnLSTMGradInferMeta(x, init_h, init_c, weight_list)`: each gradient shares its input's
/// metadata.
#[infer_meta(name = "CudnnLSTMGradInferMeta")]
pub fn cudnn_lstm_grad_infer_meta(
    x: Option<&TensorMeta>,
    init_h: Option<&TensorMeta>,
    init_c: Option<&TensorMeta>,
    weight_list: Option<&[TensorMeta]>,
    x_grad: Output<'_>,
    init_h_grad: Output<'_>,
    init_c_grad: Output<'_>,
    weight_list_grad: OutputList<'_>,
) -> R {
    share_each([(x, x_grad), (init_h, init_h_grad), (init_c, init_c_grad)])?;
    if let Some(ws) = weight_list {
        weight_list_grad.set_if_present(ws.iter().map(share_meta).collect());
    }
    Ok(())
}

/// `RnnGradInferMeta(x, pre_state, weight_list)`: each gradient shares its input's metadata.
#[infer_meta]
pub fn rnn_grad_infer_meta(
    x: &TensorMeta,
    pre_state: &[TensorMeta],
    weight_list: &[TensorMeta],
    x_grad: Output<'_>,
    pre_state_grad: OutputList<'_>,
    weight_grad_list: OutputList<'_>,
) -> R {
    ensure_meta!(!pre_state.is_empty(), "pre_state must not be empty");
    x_grad.set(share_meta(x))?;
    pre_state_grad.set(pre_state.iter().map(share_meta).collect())?;
    weight_grad_list.set(weight_list.iter().map(share_meta).collect())
}

/// `FusedRopeGradInferMeta(sin, cos, position_ids, out_q_grad, out_k_grad, out_v_grad,
/// use_neox_rotary_style, time_major, rotary_emb_base)`: `out_q_grad` is 4-D; each present
/// incoming gradient gives its input gradient its dims and dtype.
#[infer_meta]
pub fn fused_rope_grad_infer_meta(
    _sin: Option<&TensorMeta>,
    _cos: Option<&TensorMeta>,
    _position_ids: Option<&TensorMeta>,
    out_q_grad: &TensorMeta,
    out_k_grad: Option<&TensorMeta>,
    out_v_grad: Option<&TensorMeta>,
    _use_neox_rotary_style: bool,
    _time_major: bool,
    _rotary_emb_base: f64,
    q_grad: Output<'_>,
    k_grad: Output<'_>,
    v_grad: Output<'_>,
) -> R {
    need_rank(
        out_q_grad,
        4,
        "out_q_grad ([batch_size, seq_len, num_heads, head_dim])",
    )?;
    q_grad.set_if_present(dims_dtype_of(out_q_grad));
    if let Some(k) = out_k_grad {
        k_grad.set_if_present(dims_dtype_of(k));
    }
    if let Some(v) = out_v_grad {
        v_grad.set_if_present(dims_dtype_of(v));
    }
    Ok(())
}

/// `MultiplexGradInferMeta(index, out_grad)`: every input gradient gets `out_grad`'s dims
/// (Paddle sets no dtype). The number of gradients is the number of forward `inputs`, which
/// `multiplex_grad`'s `infer_meta.param` does not pass: the function cannot size the list, so
/// it leaves `inputs_grad` unset (a backward op may) rather than guess a count.
#[infer_meta]
pub fn multiplex_grad_infer_meta(
    _index: &TensorMeta,
    _out_grad: &TensorMeta,
    _inputs_grad: OutputList<'_>,
) -> R {
    Ok(())
}

/// `FusedDropoutAddGradInferMeta(seed_offset, out_grad)`: both gradients share `out_grad`'s
/// metadata.
#[infer_meta]
pub fn fused_dropout_add_grad_infer_meta(
    _seed_offset: &TensorMeta,
    out_grad: &TensorMeta,
    x_grad: Output<'_>,
    y_grad: Output<'_>,
) -> R {
    if x_grad.is_present() {
        x_grad.share(out_grad)?;
    }
    if y_grad.is_present() {
        y_grad.share(out_grad)?;
    }
    Ok(())
}

/// `NceGradInferMeta(input, bias, weight)`: each gradient takes the dims and dtype of its
/// tensor (`bias_grad` only when `bias` is given).
#[infer_meta]
pub fn nce_grad_infer_meta(
    input: &TensorMeta,
    bias: Option<&TensorMeta>,
    weight: &TensorMeta,
    input_grad: Output<'_>,
    bias_grad: Output<'_>,
    weight_grad: Output<'_>,
) -> R {
    input_grad.set_if_present(dims_dtype_of(input));
    weight_grad.set_if_present(dims_dtype_of(weight));
    if let Some(b) = bias {
        bias_grad.set_if_present(dims_dtype_of(b));
    }
    Ok(())
}

/// `RowConvGradInferMeta(out_grad, filter)`: `x_grad` gets `out_grad`'s dims, `filter_grad`
/// `filter`'s (dims only, as Paddle sets them).
#[infer_meta]
pub fn row_conv_grad_infer_meta(
    out_grad: &TensorMeta,
    filter: &TensorMeta,
    x_grad: Output<'_>,
    filter_grad: Output<'_>,
) -> R {
    x_grad.set_if_present(dims_only(&out_grad.dims));
    filter_grad.set_if_present(dims_only(&filter.dims));
    Ok(())
}

/// `LodResetGradInferMeta(x, out_grad, target_lod, append)`: `x_grad` takes `x`'s dims,
/// dtype and LoD.
#[infer_meta]
pub fn lod_reset_grad_infer_meta(
    x: &TensorMeta,
    _out_grad: &TensorMeta,
    _target_lod: &[i64],
    _append: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set_if_present(dims_dtype_lod_of(x));
    Ok(())
}

/// `CSoftmaxWithMultiLabelCrossEntropyGradInferMeta(softmax, label, smooth_weight, loss_grad,
/// ignore_index, sum_multi_label_loss, rank, nranks)`: `logits_grad` gets `softmax`'s dims
/// (only, as Paddle sets them).
#[infer_meta]
pub fn c_softmax_with_multi_label_cross_entropy_grad_infer_meta(
    softmax: &TensorMeta,
    _label: &TensorMeta,
    _smooth_weight: &TensorMeta,
    _loss_grad: &TensorMeta,
    _ignore_index: i64,
    _sum_multi_label_loss: bool,
    _rank: i64,
    _nranks: i64,
    logits_grad: Output<'_>,
) -> R {
    logits_grad.set(dims_only(&softmax.dims))
}

// The gradients below are declared in Paddle 3.3's `backward.h`, but their bodies are not in
// the reference store; each takes the rule every gradient of this file follows: the gradient
// of a tensor has that tensor's dims and dtype.

/// `CalAuxLossGradInferMeta(gate_prob, seqlen_float, ce, l_aux_loss_grad, num_experts,
/// use_group, moe_k)`: `gate_prob_grad` is shaped like `gate_prob`.
#[infer_meta]
pub fn cal_aux_loss_grad_infer_meta(
    gate_prob: &TensorMeta,
    _seqlen_float: &TensorMeta,
    _ce: &TensorMeta,
    _l_aux_loss_grad: &TensorMeta,
    _num_experts: i64,
    _use_group: bool,
    _moe_k: i64,
    gate_prob_grad: Output<'_>,
) -> R {
    gate_prob_grad.set(dims_dtype_of(gate_prob))
}

/// `FusedRMSNormGradInferMeta(x, scale, invvar, y_grad, epsilon)`: `x_grad` like `x`,
/// `scale_grad` like `scale`.
#[infer_meta(name = "FusedRMSNormGradInferMeta")]
pub fn fused_rms_norm_grad_infer_meta(
    x: &TensorMeta,
    scale: &TensorMeta,
    _invvar: &TensorMeta,
    _y_grad: &TensorMeta,
    _epsilon: f64,
    x_grad: Output<'_>,
    scale_grad: Output<'_>,
) -> R {
    x_grad.set_if_present(dims_dtype_of(x));
    scale_grad.set_if_present(dims_dtype_of(scale));
    Ok(())
}

/// `IndexElementwiseGetGradInferMeta(x, index, out_grad, input_dims, input_strides,
/// index_dims, index_stride, slice_offset, accumulate)`: `x_grad` like `x`.
#[infer_meta]
pub fn index_elementwise_get_grad_infer_meta(
    x: &TensorMeta,
    _index: &[TensorMeta],
    _out_grad: &TensorMeta,
    _input_dims: &[i64],
    _input_strides: &[i64],
    _index_dims: &[i64],
    _index_stride: &[i64],
    _slice_offset: i64,
    _accumulate: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `IndexElementwiseGetGradInferMeta(..., accumulate, is_combined)` (the newer signature):
/// `x_grad` like `x`.
#[infer_meta(name = "IndexElementwiseGetGradInferMeta")]
pub fn index_elementwise_get_grad_combined_infer_meta(
    x: &TensorMeta,
    _index: &[TensorMeta],
    _out_grad: &TensorMeta,
    _input_dims: &[i64],
    _input_strides: &[i64],
    _index_dims: &[i64],
    _index_stride: &[i64],
    _slice_offset: i64,
    _accumulate: bool,
    _is_combined: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dims_dtype_of(x))
}

/// `IndexElementwisePutGradInferMeta(x, index, out_grad, input_dims, input_strides,
/// index_dims, index_strides, slice_offset)`: `x_grad` like `x`.
#[infer_meta]
pub fn index_elementwise_put_grad_infer_meta(
    x: &TensorMeta,
    _index: &[TensorMeta],
    _out_grad: &TensorMeta,
    _input_dims: &[i64],
    _input_strides: &[i64],
    _index_dims: &[i64],
    _index_strides: &[i64],
    _slice_offset: i64,
    x_grad: Output<'_>,
) -> R {
    x_grad.set_if_present(dims_dtype_of(x));
    Ok(())
}

/// `IndexElementwisePutWithTensorGradInferMeta(x, index, value, out_grad, input_dims,
/// input_strides, index_dims, index_strides, slice_offset)`: `x_grad` like `x`, `value_grad`
/// like `value`.
#[infer_meta]
pub fn index_elementwise_put_with_tensor_grad_infer_meta(
    x: &TensorMeta,
    _index: &[TensorMeta],
    value: &TensorMeta,
    _out_grad: &TensorMeta,
    _input_dims: &[i64],
    _input_strides: &[i64],
    _index_dims: &[i64],
    _index_strides: &[i64],
    _slice_offset: i64,
    x_grad: Output<'_>,
    value_grad: Output<'_>,
) -> R {
    x_grad.set_if_present(dims_dtype_of(x));
    value_grad.set_if_present(dims_dtype_of(value));
    Ok(())
}

/// `MoeCombineGradInferMeta(x, combine_weights, scatter_index, y_grad)`: `x_grad` like `x`,
/// `combine_weights_grad` like `combine_weights`.
#[infer_meta]
pub fn moe_combine_grad_infer_meta(
    x: &TensorMeta,
    combine_weights: &TensorMeta,
    _scatter_index: &TensorMeta,
    _y_grad: &TensorMeta,
    x_grad: Output<'_>,
    combine_weights_grad: Output<'_>,
) -> R {
    x_grad.set_if_present(dims_dtype_of(x));
    combine_weights_grad.set_if_present(dims_dtype_of(combine_weights));
    Ok(())
}

/// `MoeGateDispatchPartialNoSoftmaxTopkGradInferMeta(combine_weights_out, scatter_index,
/// scatter_index_rev, expert_offset, expert_offset_local, y_grad, combine_weights_out_grad, k,
/// capacity, use_pad, expert_start_index, expert_end_index)`: the forward
/// (`MoeGateDispatchPartialNoSoftmaxTopKInferMeta`, `ternary.cc`) maps `x` `[rows, hidden]`
/// and `combine_weights` `[rows, k]` to `y` `[-1, hidden]` and `combine_weights_out` of
/// `combine_weights`' metadata; so `x_grad` is `[rows, hidden]` in `y_grad`'s dtype and
/// `combine_weights_grad` has `combine_weights_out`'s dims and dtype. (The body is not in the
/// reference store; the shapes are the forward's inputs'.)
#[infer_meta]
pub fn moe_gate_dispatch_partial_no_softmax_topk_grad_infer_meta(
    combine_weights_out: &TensorMeta,
    _scatter_index: &TensorMeta,
    _scatter_index_rev: &TensorMeta,
    _expert_offset: &TensorMeta,
    _expert_offset_local: &TensorMeta,
    y_grad: &TensorMeta,
    _combine_weights_out_grad: &TensorMeta,
    _k: i64,
    _capacity: i64,
    _use_pad: bool,
    _expert_start_index: i64,
    _expert_end_index: i64,
    x_grad: Output<'_>,
    combine_weights_grad: Output<'_>,
) -> R {
    let rows = dim_at(&combine_weights_out.dims, 0, "combine_weights_out")?;
    ensure_meta!(
        y_grad.rank() >= 1,
        "y_grad must have at least one dimension"
    );
    let hidden = y_grad.dims[y_grad.rank() - 1];
    x_grad.set_if_present(with_dtype_of(y_grad, &[rows, hidden]));
    combine_weights_grad.set_if_present(dims_dtype_of(combine_weights_out));
    Ok(())
}

/// `MoeGateDispatchGradInferMeta(combine_weights, scatter_index, expert_id, y_grad,
/// combine_weights_grad, k, capacity, use_pad)`: the shapes of Paddle's kernel
/// (`moe_dispatch_bwd`: `combine_weights` `[s, k]`, `scatter_index` `[k, s]`, `expert_id`
/// `[s, k]`, `y_grad` `[num_experts × capacity, h]`, `combine_weights_grad` `[s, k]`): every
/// input is 2-D; `x_grad` is `[s, h]` in `y_grad`'s dtype (the forward's `x`), and
/// `gate_logits_grad` float32 `[s, y_grad[0] / capacity]` (the forward's `gate_logits`, whose
/// dtype `MoeGateDispatch` requires to be float32). `s` is `scatter_index`'s second extent.
/// (The body is not in the reference store; the shapes are the kernel's.)
#[infer_meta]
pub fn moe_gate_dispatch_grad_infer_meta(
    combine_weights: &TensorMeta,
    scatter_index: &TensorMeta,
    expert_id: &TensorMeta,
    y_grad: &TensorMeta,
    combine_weights_grad: &TensorMeta,
    _k: i64,
    capacity: i64,
    _use_pad: bool,
    x_grad: Output<'_>,
    gate_logits_grad: Output<'_>,
) -> R {
    need_rank(combine_weights, 2, "combine_weights ([rows, k])")?;
    need_rank(scatter_index, 2, "scatter_index ([k, rows])")?;
    need_rank(expert_id, 2, "expert_id ([rows, k])")?;
    need_rank(y_grad, 2, "y_grad ([num_experts * capacity, hidden])")?;
    need_rank(combine_weights_grad, 2, "combine_weights_grad ([rows, k])")?;
    ensure_meta!(
        capacity > 0,
        "capacity must be greater than 0, but received capacity = {capacity}"
    );
    let rows = scatter_index.dims[1];
    let experts = if y_grad.dims[0] < 0 {
        -1
    } else {
        y_grad.dims[0] / capacity
    };
    x_grad.set_if_present(with_dtype_of(y_grad, &[rows, y_grad.dims[1]]));
    gate_logits_grad.set_if_present(TensorMeta::new(
        pir_runtime::phi::DataType::Float32,
        &[rows, experts],
    ));
    Ok(())
}

/// `MoeGateDispatchPermuteGradInferMeta(combine_weights, scatter_index, expert_id, y_grad,
/// combine_weights_grad, k, capacity, world_size)`: the forward
/// (`MoeGateDispatchPermuteInferMeta`, `ternary.cc`) maps `x` `[rows, hidden]` and float32
/// `gate_logits` `[rows, experts]` to `y` `[experts / world_size, world_size, capacity,
/// hidden]` and `combine_weights` `[rows, k]`; so `x_grad` is `[rows, hidden]` in `y_grad`'s
/// dtype and `gate_logits_grad` float32 `[rows, y[0] × y[1]]`. (The body is not in the
/// reference store; the shapes are the forward's inputs'.)
#[infer_meta]
pub fn moe_gate_dispatch_permute_grad_infer_meta(
    combine_weights: &TensorMeta,
    _scatter_index: &TensorMeta,
    _expert_id: &TensorMeta,
    y_grad: &TensorMeta,
    _combine_weights_grad: &TensorMeta,
    _k: i64,
    _capacity: i64,
    _world_size: i64,
    x_grad: Output<'_>,
    gate_logits_grad: Output<'_>,
) -> R {
    let rows = dim_at(&combine_weights.dims, 0, "combine_weights")?;
    need_rank(
        y_grad,
        4,
        "y_grad ([local_experts, world_size, capacity, hidden])",
    )?;
    let y = &y_grad.dims;
    let experts = if y[0] < 0 || y[1] < 0 {
        -1
    } else {
        mul(y[0], y[1])
    };
    x_grad.set_if_present(with_dtype_of(y_grad, &[rows, y[3]]));
    gate_logits_grad.set_if_present(TensorMeta::new(
        pir_runtime::phi::DataType::Float32,
        &[rows, experts],
    ));
    Ok(())
}
