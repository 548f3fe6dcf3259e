//! Infer-meta functions of three input tensors, after Paddle's
//! `paddle/phi/infermeta/ternary.cc`.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, IntArray, Output, TensorMeta};
use pir_runtime::phi::DataType;

use super::common::{
    add, broadcast, dim_at, dims_dtype_lod_of, dims_dtype_of, fmt_dims, has_unknown,
    layout_is_nchw, mp_dtype, mul, need_bit_length, need_one_element, need_rank, need_same_dims,
    product, rem, share_meta, sub, with_dtype_layout_of, with_dtype_lod_of, with_dtype_of,
    MetaBuilder, Res,
};

type R = Result<(), InferMetaError>;

/// Checks that `label` matches `logits` (same rank, at least 1) off the last axis wherever both
/// extents are known (the softmax-with-cross-entropy ops).
fn need_label_like_logits(logits: &TensorMeta, label: &TensorMeta) -> Res {
    let off_last = logits.rank() - 1;
    let known_differ = |(&a, &b): (&i64, &i64)| a > 0 && b > 0 && a != b;
    ensure_meta!(
        !logits.dims[..off_last]
            .iter()
            .zip(&label.dims)
            .any(known_differ),
        "logits {} and label {} must have the same shape off the last axis",
        fmt_dims(&logits.dims),
        fmt_dims(&label.dims)
    );
    Ok(())
}

/// `AccuracyInferMeta(out, indice, label)`: three 0-D outputs in `out`'s dtype; `label` must be
/// 2-D.
#[infer_meta]
pub fn accuracy_infer_meta(
    out: &TensorMeta,
    _indice: &TensorMeta,
    label: &TensorMeta,
    accuracy: Output<'_>,
    correct: Output<'_>,
    total: Output<'_>,
) -> R {
    need_rank(label, 2, "label")?;
    accuracy.set(with_dtype_lod_of(out, &[]))?;
    correct.set_new(out.dtype, &[])?;
    total.set_new(out.dtype, &[])
}

/// `AddmmInferMeta(input, x, y, beta, alpha)`: `[x[0], y[1]]` in `input`'s dtype.
#[infer_meta]
pub fn addmm_infer_meta(
    input: &TensorMeta,
    x: &TensorMeta,
    y: &TensorMeta,
    _beta: f64,
    _alpha: f64,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        input.rank() == 1 || input.rank() == 2,
        "input must be 1-D or 2-D, got {}",
        fmt_dims(&input.dims)
    );
    need_rank(x, 2, "x")?;
    need_rank(y, 2, "y")?;
    out.set(with_dtype_lod_of(input, &[x.dims[0], y.dims[1]]))
}

/// `BaddbmmInferMeta(input, x, y, beta, alpha)`: `[x[0], x[1], y[2]]` with `input`'s dtype and
/// LoD; `input` is 2-D or 3-D, `x` and `y` 3-D with `x[2] == y[1]`, none of them empty.
#[infer_meta]
pub fn baddbmm_infer_meta(
    input: &TensorMeta,
    x: &TensorMeta,
    y: &TensorMeta,
    _beta: f64,
    _alpha: f64,
    out: Output<'_>,
) -> R {
    for (t, what) in [(input, "input"), (x, "x"), (y, "y")] {
        ensure_meta!(
            !t.dims.contains(&0),
            "{what} {} has no elements",
            fmt_dims(&t.dims)
        );
    }
    ensure_meta!(
        input.rank() == 2 || input.rank() == 3,
        "input must be 2-D or 3-D, got {}",
        fmt_dims(&input.dims)
    );
    need_rank(x, 3, "x")?;
    need_rank(y, 3, "y")?;
    ensure_meta!(
        x.dims[2] == y.dims[1],
        "x {} and y {} do not multiply: x[2] must equal y[1]",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    out.set(with_dtype_lod_of(input, &[x.dims[0], x.dims[1], y.dims[2]]))
}

/// `MaskedFillInferMeta(x, mask, value)`: `x`'s dtype and layout over the broadcast of `x` and
/// `mask` (`BroadcastTwoDims(x, mask, -1)`, the shape Paddle's masked_fill kernels compute;
/// `value` is one element or is expanded to that shape, so it adds no extent). Paddle 3.3.1
/// names this function for `masked_fill(_)` (`paddle-ref/ops/MANIFEST.json`, case
/// masked_fill_/0); its source is not in the public sources searched, so the rule is the one its
/// printed results follow: `2x3` with a `2x3` mask stays `2x3`, and `1x-1x4` with a `1x45640x1`
/// mask gives `1x45640x4`.
#[infer_meta]
pub fn masked_fill_infer_meta(
    x: &TensorMeta,
    mask: &TensorMeta,
    _value: &TensorMeta,
    out: Output<'_>,
) -> R {
    let d = broadcast(&x.dims, &mask.dims, -1)?;
    out.set(with_dtype_layout_of(x, &d))
}

/// `CSoftmaxWithCrossEntropyInferMeta(logits, label, ignore_index, rank, nranks)`: `label`
/// matches `logits` off the last axis (known extents); `softmax` gets `logits`' dims, `loss`
/// those dims with the last one 1, both `logits`' dtype and LoD.
#[infer_meta]
pub fn c_softmax_with_cross_entropy_infer_meta(
    logits: &TensorMeta,
    label: &TensorMeta,
    _ignore_index: i64,
    _rank: i64,
    _nranks: i64,
    softmax: Output<'_>,
    loss: Output<'_>,
) -> R {
    let r = logits.rank();
    ensure_meta!(r >= 1, "logits must have at least one dimension");
    ensure_meta!(
        label.rank() == r,
        "logits {} and label {} must have the same rank",
        fmt_dims(&logits.dims),
        fmt_dims(&label.dims)
    );
    need_label_like_logits(logits, label)?;
    softmax.set(with_dtype_lod_of(logits, &logits.dims))?;
    let mut d = logits.dims.to_vec();
    d[r - 1] = 1;
    loss.set(with_dtype_lod_of(logits, &d))
}

/// Checks that the 1-D `t` (`what`) has `c` elements when its extent is known.
fn need_per_channel(t: &TensorMeta, c: i64, what: &str) -> R {
    need_rank(t, 1, what)?;
    if t.dims[0] > 0 {
        ensure_meta!(
            t.dims[0] == c,
            "{what} has {} elements but x has {c} channels",
            t.dims[0]
        );
    }
    Ok(())
}

/// `AffineChannelInferMeta(x, scale, bias, data_layout)`: like `x`; `scale` and `bias` are
/// `[C]`.
#[infer_meta]
pub fn affine_channel_infer_meta(
    x: &TensorMeta,
    scale: &TensorMeta,
    bias: &TensorMeta,
    data_layout: &str,
    out: Output<'_>,
) -> R {
    let nchw = layout_is_nchw(data_layout)?;
    let c = if nchw {
        dim_at(&x.dims, 1, "x")?
    } else {
        dim_at(&x.dims, x.rank().saturating_sub(1), "x")?
    };
    need_rank(scale, 1, "scale")?;
    need_rank(bias, 1, "bias")?;
    need_per_channel(scale, c, "scale")?;
    need_per_channel(bias, c, "bias")?;
    out.set(dims_dtype_lod_of(x))
}

/// `AssignPosInferMeta(x, cum_count, eff_num_len)`: dtype of `x` (int64, like `cum_count`).
#[infer_meta]
pub fn assign_pos_infer_meta(
    x: &TensorMeta,
    cum_count: &TensorMeta,
    _eff_num_len: &TensorMeta,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        cum_count.dtype == x.dtype,
        "cum_count ({}) and x ({}) must have the same dtype",
        cum_count.dtype,
        x.dtype
    );
    ensure_meta!(
        cum_count.dtype == DataType::Int64,
        "cum_count must be int64, got {}",
        cum_count.dtype
    );
    out.set(TensorMeta::new(x.dtype, &[]))
}

/// `BatchFCInferMeta(input, w, bias)`: `[input[0], input[1], w[2]]`.
#[infer_meta(name = "BatchFCInferMeta")]
pub fn batch_fc_infer_meta(
    input: &TensorMeta,
    w: &TensorMeta,
    bias: &TensorMeta,
    out: Output<'_>,
) -> R {
    need_rank(input, 3, "input")?;
    need_rank(w, 3, "w")?;
    ensure_meta!(
        input.dims[0] == w.dims[0],
        "input {} and w {} must share dim 0",
        fmt_dims(&input.dims),
        fmt_dims(&w.dims)
    );
    ensure_meta!(
        input.dims[2] == w.dims[1],
        "input {} dim 2 must equal w {} dim 1",
        fmt_dims(&input.dims),
        fmt_dims(&w.dims)
    );
    let b0 = dim_at(&bias.dims, 0, "bias")?;
    let b1 = dim_at(&bias.dims, 1, "bias")?;
    ensure_meta!(
        b0 == input.dims[0],
        "bias dim 0 {b0} must equal input dim 0 {}",
        input.dims[0]
    );
    ensure_meta!(
        b1 == w.dims[2],
        "bias dim 1 {b1} must equal w dim 2 {}",
        w.dims[2]
    );
    out.set(with_dtype_lod_of(
        input,
        &[input.dims[0], input.dims[1], w.dims[2]],
    ))
}

/// `BoxCoderInferMeta(prior_box, prior_box_var, target_box, code_type, box_normalized, axis,
/// variance)`.
#[infer_meta]
pub fn box_coder_infer_meta(
    prior_box: &TensorMeta,
    _prior_box_var: Option<&TensorMeta>,
    target_box: &TensorMeta,
    code_type: &str,
    _box_normalized: bool,
    axis: i64,
    _variance: &[f64],
    output_box: Output<'_>,
) -> R {
    let (prior, target) = (prior_box, target_box);
    let mut meta = MetaBuilder::new();
    match code_type {
        "encode_center_size" => {
            need_rank(target, 2, "target_box")?;
            ensure_meta!(
                target.dims[1] == 4,
                "target_box must be [N, 4], got {}",
                fmt_dims(&target.dims)
            );
            let p0 = dim_at(&prior.dims, 0, "prior_box")?;
            meta = meta.dims(&[target.dims[0], p0, 4]);
        }
        "decode_center_size" => {
            need_rank(target, 3, "target_box")?;
            ensure_meta!(axis == 0 || axis == 1, "axis must be 0 or 1, got {axis}");
            meta = meta.dims(&target.dims);
        }
        other => {
            return Err(InferMetaError::new(format!(
                "code_type {other:?} is not supported: use encode_center_size or \
                 decode_center_size"
            )))
        }
    }
    let lod_src = if code_type == "decode_center_size" && axis == 1 {
        prior
    } else {
        target
    };
    output_box.set(meta.lod(lod_src).dtype(target.dtype).build())
}

/// `DpsgdInferMeta(param, grad, learning_rate, clip, batch_size, sigma, seed)`: dims of
/// `param` (dtype left float32, as in Paddle).
#[infer_meta]
pub fn dpsgd_infer_meta(
    param: &TensorMeta,
    grad: &TensorMeta,
    learning_rate: &TensorMeta,
    _clip: f64,
    _batch_size: f64,
    _sigma: f64,
    _seed: i64,
    param_out: Output<'_>,
) -> R {
    need_one_element(learning_rate, "learning_rate")?;
    need_same_dims(param, grad, "param", "grad")?;
    param_out.set(TensorMeta::new(DataType::Float32, &param.dims))
}

/// `FakeQuantizeRangeAbsMaxInferMeta(x, in_scale, iter, window_size, bit_length, is_test,
/// round_type)`.
#[infer_meta]
pub fn fake_quantize_range_abs_max_infer_meta(
    x: &TensorMeta,
    _in_scale: &TensorMeta,
    _iter: Option<&TensorMeta>,
    window_size: i64,
    bit_length: i64,
    _is_test: bool,
    _round_type: i64,
    out: Output<'_>,
    out_scale: Output<'_>,
    out_scales: Output<'_>,
) -> R {
    need_bit_length(bit_length)?;
    out.set(MetaBuilder::new().dims(&x.dims).lod(x).build())?;
    out_scale.set(MetaBuilder::new().dims(&[1]).build())?;
    out_scales.set_if_present(MetaBuilder::new().dims(&[window_size]).build());
    Ok(())
}

fn round128(v: i64) -> i64 {
    add(v, 127).wrapping_div(128).wrapping_mul(128)
}

/// `FlashAttnInferMeta(q, k, v)`: `out` like `q` with `v`'s head size; `softmax`,
/// `softmax_lse` with sequence lengths rounded up to 128; int64 `seed_offset` `[2]`.
#[infer_meta]
pub fn flash_attn_infer_meta(
    q: &TensorMeta,
    k: &TensorMeta,
    v: &TensorMeta,
    out: Output<'_>,
    softmax: Output<'_>,
    softmax_lse: Output<'_>,
    seed_offset: Output<'_>,
) -> R {
    let mut od = q.dims.to_vec();
    let mut softmax_meta = MetaBuilder::new().dtype(q.dtype);
    let mut lse = MetaBuilder::new().dtype(q.dtype);
    if od.len() == 4 {
        od[3] = dim_at(&v.dims, 3, "v")?;
        let (b, h) = (q.dims[0], q.dims[2]);
        let sq = round128(q.dims[1]);
        let sk = round128(dim_at(&k.dims, 1, "k")?);
        softmax_meta = softmax_meta.dims(&[b, h, sq, sk]);
        lse = lse.dims(&[b, h, sq]);
    } else if od.len() == 3 {
        let (t, h) = (q.dims[0], q.dims[1]);
        let s = round128(t);
        softmax_meta = softmax_meta.dims(&[h, s, s]);
        lse = lse.dims(&[h, s]);
    }
    out.set(with_dtype_layout_of(q, &od))?;
    softmax.set_if_present(softmax_meta.build());
    softmax_lse.set_if_present(lse.build());
    seed_offset.set_if_present(TensorMeta::new(DataType::Int64, &[2]));
    Ok(())
}

/// `FlashAttnQKVPackedInferMeta(qkv)`: packed `[.., nheads/nheads_k + 2, nheads_k, headdim]`.
#[infer_meta(name = "FlashAttnQKVPackedInferMeta")]
pub fn flash_attn_qkv_packed_infer_meta(
    qkv: &TensorMeta,
    out: Output<'_>,
    softmax: Output<'_>,
    softmax_lse: Output<'_>,
    seed_offset: Output<'_>,
) -> R {
    let d = &qkv.dims;
    let od = match d.len() {
        4 => vec![d[0], mul(d[1] - 2, d[2]), d[3]],
        5 => vec![d[0], d[1], mul(d[2] - 2, d[3]), d[4]],
        _ => {
            return Err(InferMetaError::new(format!(
                "qkv must be 4-D (unpadded) or 5-D (padded batch), got {}",
                fmt_dims(d)
            )))
        }
    };
    out.set(with_dtype_layout_of(qkv, &od))?;
    softmax.set_if_present(TensorMeta::new(qkv.dtype, &[]));
    softmax_lse.set_if_present(TensorMeta::new(qkv.dtype, &[]));
    seed_offset.set_if_present(TensorMeta::new(DataType::Int64, &[]));
    Ok(())
}

/// `CalcReducedAttnScoresInferMeta(q, k, softmax_lse)`: float32 `[batch, heads, 1, seqlen_k]`.
#[infer_meta]
pub fn calc_reduced_attn_scores_infer_meta(
    q: &TensorMeta,
    k: &TensorMeta,
    softmax_lse: &TensorMeta,
    reduced_scores: Output<'_>,
) -> R {
    let lse = softmax_lse;
    need_rank(q, 4, "q")?;
    need_rank(k, 4, "k")?;
    need_rank(lse, 3, "softmax_lse")?;
    ensure_meta!(q.dims[0] == k.dims[0], "q and k need the same batch size");
    ensure_meta!(
        q.dims[0] == lse.dims[0],
        "q and softmax_lse need the same batch size"
    );
    ensure_meta!(
        add(q.dims[1], 127) / 128 * 128 == lse.dims[2],
        "softmax_lse {} does not match q's sequence length {} rounded up to 128",
        fmt_dims(&lse.dims),
        q.dims[1]
    );
    ensure_meta!(
        q.dims[2] == lse.dims[1],
        "q and softmax_lse need the same head count"
    );
    ensure_meta!(q.dims[3] == k.dims[3], "q and k need the same head size");
    let d = [q.dims[0], q.dims[2], 1, k.dims[1]];
    reduced_scores.set(TensorMeta::new(DataType::Float32, &d))
}

/// Checks that every tensor of `list` (`what`) is `[N, width]`.
fn need_width(list: &[TensorMeta], width: i64, what: &str) -> R {
    for t in list {
        let c = dim_at(&t.dims, 1, what)?;
        ensure_meta!(
            c == width,
            "{what} must be [N, {width}], got {}",
            fmt_dims(&t.dims)
        );
    }
    Ok(())
}

/// `CollectFpnProposalsInferMeta(multi_level_rois, multi_level_scores, multi_level_rois_num,
/// post_nms_topn)`: `[post_nms_topn, 4]` and int32 `[-1]`.
#[infer_meta]
pub fn collect_fpn_proposals_infer_meta(
    multi_level_rois: &[TensorMeta],
    multi_level_scores: &[TensorMeta],
    _multi_level_rois_num: Option<&[TensorMeta]>,
    post_nms_topn: i64,
    fpn_rois: Output<'_>,
    rois_num: Output<'_>,
) -> R {
    need_width(multi_level_rois, 4, "multi_level_rois")?;
    need_width(multi_level_scores, 1, "multi_level_scores")?;
    let r0 = multi_level_rois
        .first()
        .ok_or_else(|| InferMetaError::new("multi_level_rois must not be empty"))?;
    fpn_rois.set(
        MetaBuilder::new()
            .dims(&[post_nms_topn, 4])
            .dtype(r0.dtype)
            .lod(r0)
            .build(),
    )?;
    rois_num.set_if_present(TensorMeta::new(DataType::Int32, &[-1]));
    Ok(())
}

/// `InstanceNormInferMeta(x, scale, bias, epsilon)`: `y` like `x`; saved statistics `[N × C]`.
#[infer_meta]
pub fn instance_norm_infer_meta(
    x: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    _epsilon: f64,
    y: Output<'_>,
    saved_mean: Output<'_>,
    saved_variance: Output<'_>,
) -> R {
    let xd = &x.dims;
    ensure_meta!(product(xd) != 0, "x {} must not be empty", fmt_dims(xd));
    ensure_meta!(
        (2..=5).contains(&xd.len()),
        "instance_norm x must have rank 2 to 5, got {}",
        fmt_dims(xd)
    );
    let (n, c) = (xd[0], xd[1]);
    if let Some(s) = scale {
        need_rank(s, 1, "scale")?;
        // Paddle checks the scale extent at compile time only when it is unknown.
        if has_unknown(&s.dims) {
            ensure_meta!(
                s.dims[0] == c,
                "scale {} must have {c} elements",
                fmt_dims(&s.dims)
            );
        }
    }
    if let Some(b) = bias {
        need_rank(b, 1, "bias")?;
        if !has_unknown(&b.dims) {
            ensure_meta!(
                b.dims[0] == c,
                "bias {} must have {c} elements",
                fmt_dims(&b.dims)
            );
        }
    }
    y.set(share_meta(x))?;
    let stat = TensorMeta::new(mp_dtype(x.dtype), &[mul(n, c)]);
    saved_mean.set_if_present(stat.clone());
    saved_variance.set_if_present(stat);
    Ok(())
}

/// `GroupNormInferMeta(x, scale, bias, epsilon, groups, data_format)`: `y` like `x` (an
/// unknown channel count is taken from `scale`/`bias`); `mean`/`variance` `[N, groups]`.
#[infer_meta]
pub fn group_norm_infer_meta(
    x: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    _epsilon: f64,
    groups: i64,
    data_format: &str,
    y: Output<'_>,
    mean: Output<'_>,
    variance: Output<'_>,
) -> R {
    let fmt = data_format;
    let xd = &x.dims;
    ensure_meta!(
        xd.len() >= 2,
        "group_norm x must have rank ≥ 2, got {}",
        fmt_dims(xd)
    );
    let nchw = layout_is_nchw(fmt)?;
    let ci = if nchw { 1 } else { xd.len() - 1 };
    let c = xd[ci];
    let check = c != -1;
    if check {
        ensure_meta!(
            groups <= c,
            "groups {groups} must not exceed the {c} channels of x {} (data_format {fmt})",
            fmt_dims(xd)
        );
        ensure_meta!(groups >= 1, "groups must be at least 1, got {groups}");
        ensure_meta!(
            rem(c, groups, "groups")? == 0,
            "the {c} channels of x are not divisible by groups {groups}"
        );
    }
    for (t, n) in [(scale, "scale"), (bias, "bias")] {
        if let (Some(t), true) = (t, check) {
            need_rank(t, 1, n)?;
            ensure_meta!(
                t.dims[0] == c,
                "{n} {} must have one element per channel ({c}, data_format {fmt})",
                fmt_dims(&t.dims)
            );
        }
    }
    let mut od = xd.to_vec();
    if c < 0 {
        let w = match (scale, bias) {
            (Some(s), _) => dim_at(&s.dims, 0, "scale")?,
            (None, Some(b)) => dim_at(&b.dims, 0, "bias")?,
            _ => c,
        };
        if w > 0 {
            od[ci] = w;
        }
    }
    y.set(with_dtype_lod_of(x, &od))?;
    let stat = TensorMeta::new(mp_dtype(x.dtype), &[xd[0], groups]);
    mean.set(stat.clone())?;
    variance.set(stat)
}

/// `LayerNormInferMeta(x, scale, bias, epsilon, begin_norm_axis)`: `out` like `x` (dims, dtype,
/// LoD); `mean`/`variance` with dims `x[..begin_norm_axis]` in float32 for half inputs.
#[infer_meta]
pub fn layer_norm_infer_meta(
    x: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    epsilon: f32,
    begin_norm_axis: i64,
    out: Output<'_>,
    mean: Output<'_>,
    variance: Output<'_>,
) -> R {
    let (eps, begin) = (epsilon, begin_norm_axis);
    let rank = x.rank() as i64;
    ensure_meta!(
        begin > 0,
        "begin_norm_axis must be greater than 0, got {begin}"
    );
    ensure_meta!(
        begin < rank,
        "begin_norm_axis {begin} must be less than the rank {rank} of x {}",
        fmt_dims(&x.dims)
    );
    if let Some(s) = scale {
        need_rank(s, 1, "scale")?;
    }
    if let Some(b) = bias {
        need_rank(b, 1, "bias")?;
    }
    ensure_meta!(
        (0.0..=0.001).contains(&eps),
        "epsilon must lie in [0, 0.001], got {eps}"
    );
    out.set(dims_dtype_lod_of(x))?;
    let stat = TensorMeta::new(mp_dtype(x.dtype), &x.dims[..begin as usize]);
    mean.set_if_present(stat.clone());
    variance.set_if_present(stat);
    Ok(())
}

/// `funcs::GetOutputDimsForDynamicShape`: trailing broadcast where -1 yields to a known extent.
fn dynamic_broadcast(a: &[i64], b: &[i64]) -> Res<Vec<i64>> {
    let (s, l) = if a.len() > b.len() { (b, a) } else { (a, b) };
    let mut out = l.to_vec();
    let off = l.len() - s.len();
    for i in 0..s.len() {
        let (sv, lv) = (s[i], l[i + off]);
        if sv != lv {
            out[i + off] = if lv == 1 {
                sv
            } else if sv == 1 || sv == -1 {
                lv
            } else if lv == -1 {
                sv
            } else {
                return Err(InferMetaError::new(format!(
                    "shapes {} and {} do not broadcast: {sv} vs {lv}",
                    fmt_dims(s),
                    fmt_dims(l)
                )));
            };
        }
    }
    Ok(out)
}

/// `LerpInferMeta(x, y, weight)`: the broadcast of the three shapes.
#[infer_meta]
pub fn lerp_infer_meta(x: &TensorMeta, y: &TensorMeta, weight: &TensorMeta, out: Output<'_>) -> R {
    let d = dynamic_broadcast(&x.dims, &y.dims)?;
    let d = dynamic_broadcast(&d, &weight.dims)?;
    out.set(with_dtype_lod_of(x, &d))
}

/// `LinspaceInferMeta(start, stop, number, dtype)`: `[-1]` in `start`'s dtype (the `dtype`
/// attribute is not used by the infer meta).
#[infer_meta]
pub fn linspace_infer_meta(
    start: &TensorMeta,
    stop: &TensorMeta,
    number: &TensorMeta,
    _dtype: DataType,
    out: Output<'_>,
) -> R {
    need_one_element(start, "start")?;
    need_one_element(stop, "stop")?;
    need_one_element(number, "number")?;
    out.set_new(start.dtype, &[-1])
}

/// `MatchMatrixTensorInferMeta(x, y, w, dim_t)` at compile time: `[-1, 1]` outputs.
#[infer_meta]
pub fn match_matrix_tensor_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    w: &TensorMeta,
    dim_t: i64,
    out: Output<'_>,
    tmp: Output<'_>,
) -> R {
    need_rank(x, 2, "x")?;
    need_rank(y, 2, "y")?;
    need_rank(w, 3, "w")?;
    ensure_meta!(
        w.dims[0] == x.dims[1],
        "w {} dim 0 must equal x {} dim 1",
        fmt_dims(&w.dims),
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        w.dims[1] == dim_t,
        "w {} dim 1 must equal dim_t {dim_t}",
        fmt_dims(&w.dims)
    );
    ensure_meta!(
        w.dims[2] == y.dims[1],
        "w {} dim 2 must equal y {} dim 1",
        fmt_dims(&w.dims),
        fmt_dims(&y.dims)
    );
    out.set(with_dtype_lod_of(x, &[-1, 1]))?;
    tmp.set_new(x.dtype, &[-1, 1])
}

/// `MultiClassNMSInferMeta(bboxes, scores, rois_num, score_threshold, nms_top_k, keep_top_k,
/// nms_threshold, normalized, nms_eta, background_label)`: `[-1, box_size + 2]`, int32
/// `[-1, 1]` indices and int32 `[-1]` counts.
#[infer_meta(name = "MultiClassNMSInferMeta")]
pub fn multi_class_nms_infer_meta(
    bboxes: &TensorMeta,
    _scores: &TensorMeta,
    _rois_num: Option<&TensorMeta>,
    _score_threshold: f64,
    _nms_top_k: i64,
    _keep_top_k: i64,
    _nms_threshold: f64,
    _normalized: bool,
    _nms_eta: f64,
    _background_label: i64,
    out: Output<'_>,
    index: Output<'_>,
    nms_rois_num: Output<'_>,
) -> R {
    let b2 = dim_at(&bboxes.dims, 2, "bboxes")?;
    out.set_new(bboxes.dtype, &[-1, add(b2, 2)])?;
    index.set(TensorMeta::new(DataType::Int32, &[-1, 1]))?;
    nms_rois_num.set_if_present(TensorMeta::new(DataType::Int32, &[-1]));
    Ok(())
}

/// `NllLossRawInferMeta(input, label, weight, ignore_index, reduction)`.
#[infer_meta]
pub fn nll_loss_raw_infer_meta(
    input: &TensorMeta,
    label: &TensorMeta,
    weight: Option<&TensorMeta>,
    _ignore_index: i64,
    reduction: &str,
    out: Output<'_>,
    total_weight: Output<'_>,
) -> R {
    let (xd, ld) = (&input.dims, &label.dims);
    ensure_meta!(
        xd.len() == 2 || xd.len() == 4,
        "input must be 2-D or 4-D, got {}",
        fmt_dims(xd)
    );
    if !has_unknown(xd) && !has_unknown(ld) {
        let l0 = dim_at(ld, 0, "label")?;
        ensure_meta!(
            xd[0] == l0,
            "input {} and label {} must have the same batch size",
            fmt_dims(xd),
            fmt_dims(ld)
        );
        if let Some(w) = weight {
            need_rank(w, 1, "weight")?;
            ensure_meta!(
                xd[1] == w.dims[0],
                "weight has {} elements but input {} has {} classes",
                w.dims[0],
                fmt_dims(xd),
                xd[1]
            );
        }
    }
    let od: Vec<i64> = if xd.len() == 2 {
        if reduction == "none" {
            vec![xd[0]]
        } else {
            vec![]
        }
    } else {
        need_rank(label, 3, "label")?;
        ensure_meta!(
            xd[0] == ld[0] && xd[2] == ld[1] && xd[3] == ld[2],
            "input {} and label {} shapes do not match",
            fmt_dims(xd),
            fmt_dims(ld)
        );
        if reduction == "none" {
            vec![xd[0], xd[2], xd[3]]
        } else {
            vec![]
        }
    };
    out.set_new(input.dtype, &od)?;
    total_weight.set_new(input.dtype, &[])
}

/// `RandomRoutingInferMeta(prob, topk_value, topk_idx)`: like `topk_idx`.
#[infer_meta]
pub fn random_routing_infer_meta(
    prob: &TensorMeta,
    topk_value: &TensorMeta,
    topk_idx: &TensorMeta,
    out: Output<'_>,
) -> R {
    let p0 = dim_at(&prob.dims, 0, "prob")?;
    let (v0, v1) = (
        dim_at(&topk_value.dims, 0, "topk_value")?,
        dim_at(&topk_value.dims, 1, "topk_value")?,
    );
    let (i0, i1) = (
        dim_at(&topk_idx.dims, 0, "topk_idx")?,
        dim_at(&topk_idx.dims, 1, "topk_idx")?,
    );
    ensure_meta!(
        p0 == v0,
        "prob and topk_value must share dim 0 ({p0} vs {v0})"
    );
    ensure_meta!(
        i1 == v1,
        "topk_idx and topk_value must share dim 1 ({i1} vs {v1})"
    );
    ensure_meta!(
        i0 == v0,
        "topk_idx and topk_value must share dim 0 ({i0} vs {v0})"
    );
    out.set(dims_dtype_lod_of(topk_idx))
}

/// `RankAttentionInferMeta(x, rank_offset, rank_param, max_rank, max_size)`.
#[infer_meta]
pub fn rank_attention_infer_meta(
    x: &TensorMeta,
    rank_offset: &TensorMeta,
    rank_param: &TensorMeta,
    max_rank: i64,
    _max_size: i64,
    input_help: Output<'_>,
    out: Output<'_>,
    ins_rank: Output<'_>,
) -> R {
    let ins = dim_at(&x.dims, 0, "x")?;
    let fea = dim_at(&x.dims, 1, "x")?;
    let col = dim_at(&rank_param.dims, 1, "rank_param")?;
    let o1 = dim_at(&rank_offset.dims, 1, "rank_offset")?;
    ensure_meta!(
        sub(o1, 1).wrapping_div(2) == max_rank,
        "rank_offset {} must have 2 × max_rank {max_rank} + 1 columns",
        fmt_dims(&rank_offset.dims)
    );
    input_help.set_if_present(with_dtype_of(x, &[ins, mul(max_rank, fea)]));
    out.set(with_dtype_lod_of(x, &[ins, col]))?;
    ins_rank.set_if_present(with_dtype_of(x, &[ins, 1]));
    Ok(())
}

/// The attributes of a region-of-interest pooling.
struct RoiArgs<'a> {
    boxes_num: Option<&'a TensorMeta>,
    pooled_height: i64,
    pooled_width: i64,
    spatial_scale: f64,
}

/// `[num_boxes, C, pooled_height, pooled_width]` for the NCHW `x` and the 2-D `boxes`.
fn roi_dims(x: &TensorMeta, boxes: &TensorMeta, a: RoiArgs<'_>) -> Res<Vec<i64>> {
    let (ph, pw, scale) = (a.pooled_height, a.pooled_width, a.spatial_scale);
    if let Some(n) = a.boxes_num {
        need_rank(n, 1, "boxes_num")?;
    }
    need_rank(x, 4, "x (NCHW)")?;
    need_rank(boxes, 2, "boxes")?;
    ensure_meta!(ph > 0, "pooled_height must be positive, got {ph}");
    ensure_meta!(pw > 0, "pooled_width must be positive, got {pw}");
    ensure_meta!(scale > 0.0, "spatial_scale must be positive, got {scale}");
    Ok(vec![boxes.dims[0], x.dims[1], ph, pw])
}

/// `RoiAlignInferMeta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
/// sampling_ratio, aligned)`: `[num_boxes, C, pooled_height, pooled_width]`.
#[infer_meta]
pub fn roi_align_infer_meta(
    x: &TensorMeta,
    boxes: &TensorMeta,
    boxes_num: Option<&TensorMeta>,
    pooled_height: i64,
    pooled_width: i64,
    spatial_scale: f64,
    _sampling_ratio: i64,
    _aligned: bool,
    out: Output<'_>,
) -> R {
    let a = RoiArgs {
        boxes_num,
        pooled_height,
        pooled_width,
        spatial_scale,
    };
    out.set_new(x.dtype, &roi_dims(x, boxes, a)?)
}

/// `RoiPoolInferMeta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale)`: also an
/// int64 `arg_max` of the same dims.
#[infer_meta]
pub fn roi_pool_infer_meta(
    x: &TensorMeta,
    boxes: &TensorMeta,
    boxes_num: Option<&TensorMeta>,
    pooled_height: i64,
    pooled_width: i64,
    spatial_scale: f64,
    out: Output<'_>,
    arg_max: Output<'_>,
) -> R {
    if boxes.rank() == 2 {
        ensure_meta!(
            boxes.dims[1] == 4,
            "boxes must be [num_boxes, 4], got {}",
            fmt_dims(&boxes.dims)
        );
    }
    let a = RoiArgs {
        boxes_num,
        pooled_height,
        pooled_width,
        spatial_scale,
    };
    let d = roi_dims(x, boxes, a)?;
    out.set_new(x.dtype, &d)?;
    arg_max.set(TensorMeta::new(DataType::Int64, &d))
}

/// `ScatterInferMeta(x, index, updates, overwrite)`: like `x`; `index` is 0-D, 1-D or `[N, 1]`.
#[infer_meta]
pub fn scatter_infer_meta(
    x: &TensorMeta,
    index: &TensorMeta,
    updates: &TensorMeta,
    _overwrite: bool,
    out: Output<'_>,
) -> R {
    let (id, ud) = (&index.dims, &updates.dims);
    if id.len() == 2 {
        ensure_meta!(
            id[1] == 1,
            "a 2-D index must be [N, 1], got {}",
            fmt_dims(id)
        );
    } else {
        ensure_meta!(
            id.len() <= 1,
            "index must be 0-D, 1-D or [N, 1], got {}",
            fmt_dims(id)
        );
    }
    if !id.is_empty() {
        ensure_meta!(
            x.rank() == ud.len(),
            "x {} and updates {} must have the same rank",
            fmt_dims(&x.dims),
            fmt_dims(ud)
        );
        let u0 = dim_at(ud, 0, "updates")?;
        if id[0] != -1 && u0 != -1 {
            ensure_meta!(
                id[0] <= u0,
                "index {} has more entries than updates {} has rows",
                fmt_dims(id),
                fmt_dims(ud)
            );
        }
    } else {
        ensure_meta!(
            x.rank() == ud.len() + 1,
            "with a 0-D index, updates {} must have one dim less than x {}",
            fmt_dims(ud),
            fmt_dims(&x.dims)
        );
    }
    out.set(dims_dtype_lod_of(x))
}

/// `ScatterNdAddInferMeta(x, index, updates)`: like `x`; `updates` must be
/// `index.shape[:-1] + x.shape[index.shape[-1]:]`.
#[infer_meta]
pub fn scatter_nd_add_infer_meta(
    x: &TensorMeta,
    index: &TensorMeta,
    updates: &TensorMeta,
    out: Output<'_>,
) -> R {
    let (xd, id, ud) = (&x.dims, &index.dims, &updates.dims);
    ensure_meta!(!id.is_empty(), "index must have rank ≥ 1, got a 0-D tensor");
    let last = id[id.len() - 1];
    if ud.is_empty() {
        ensure_meta!(
            id.len() == 1,
            "with 0-D updates, index must be 1-D, got {}",
            fmt_dims(id)
        );
        ensure_meta!(
            last == xd.len() as i64,
            "with 0-D updates, index {} must address every dim of x {}",
            fmt_dims(id),
            fmt_dims(xd)
        );
    } else {
        ensure_meta!(
            last <= xd.len() as i64,
            "the last dim of index {} exceeds the rank of x {}",
            fmt_dims(id),
            fmt_dims(xd)
        );
        let mut want: Vec<i64> = id[..id.len() - 1].to_vec();
        let mut dynamic = has_unknown(&want);
        let start = last.max(0) as usize;
        for &d in xd.iter().skip(start) {
            dynamic |= d == -1;
            want.push(d);
        }
        ensure_meta!(
            want.len() == ud.len(),
            "updates {} must have shape {} (index[:-1] + x[index[-1]:])",
            fmt_dims(ud),
            fmt_dims(&want)
        );
        if !dynamic {
            ensure_meta!(
                want[..] == ud[..],
                "updates {} must have shape {} (index[:-1] + x[index[-1]:])",
                fmt_dims(ud),
                fmt_dims(&want)
            );
        }
    }
    out.set(dims_dtype_lod_of(x))
}

/// `SendURecvInferMeta(x, src_index, dst_index, reduce_op, out_size)`: `x` with dim 0 `-1`;
/// int32 `dst_count` `[-1]` for `MEAN`.
#[infer_meta]
pub fn send_u_recv_infer_meta(
    x: &TensorMeta,
    src_index: &TensorMeta,
    dst_index: &TensorMeta,
    reduce_op: &str,
    _out_size: IntArray<'_>,
    out: Output<'_>,
    dst_count: Output<'_>,
) -> R {
    for (t, n) in [(src_index, "src_index"), (dst_index, "dst_index")] {
        if t.rank() == 2 {
            ensure_meta!(
                t.dims[1] == 1,
                "{n} {} must have last dim 1 when 2-D",
                fmt_dims(&t.dims)
            );
        } else {
            ensure_meta!(
                t.rank() == 1,
                "{n} {} must be 1-D or [N, 1]",
                fmt_dims(&t.dims)
            );
        }
    }
    ensure_meta!(
        src_index.dims[0] == dst_index.dims[0],
        "src_index {} and dst_index {} must have the same shape",
        fmt_dims(&src_index.dims),
        fmt_dims(&dst_index.dims)
    );
    ensure_meta!(x.rank() >= 1, "x must have rank ≥ 1, got a 0-D tensor");
    let mut d = x.dims.to_vec();
    d[0] = -1;
    out.set_new(x.dtype, &d)?;
    if reduce_op == "MEAN" {
        dst_count.set_if_present(TensorMeta::new(DataType::Int32, &[-1]));
    }
    Ok(())
}

/// `SequenceConvInferMeta(x, padding_data, filter, context_length, padding_trainable,
/// context_start, context_stride)`: `[x[0], filter[1]]`.
#[infer_meta]
pub fn sequence_conv_infer_meta(
    x: &TensorMeta,
    padding_data: Option<&TensorMeta>,
    filter: &TensorMeta,
    context_length: i64,
    padding_trainable: bool,
    context_start: i64,
    context_stride: i64,
    out: Output<'_>,
) -> R {
    let (f, len, start, stride) = (filter, context_length, context_start, context_stride);
    ensure_meta!(stride == 1, "context_stride must be 1, got {stride}");
    ensure_meta!(
        x.rank() == 2 && f.rank() == 2,
        "x {} and filter {} must be 2-D",
        fmt_dims(&x.dims),
        fmt_dims(&f.dims)
    );
    ensure_meta!(
        f.dims[0] == mul(len, x.dims[1]),
        "filter height {} must be context_length {len} × the input width {}",
        f.dims[0],
        x.dims[1]
    );
    if padding_trainable {
        let p = padding_data
            .ok_or_else(|| InferMetaError::new("padding_trainable needs padding_data"))?;
        ensure_meta!(
            !(start == 0 && len == 1),
            "padding_trainable must be false when context_start is 0 and context_length is 1"
        );
        need_rank(p, 2, "padding_data")?;
        let up = 0i64.max(-start);
        let down = 0i64.max(add(start, len) - 1);
        ensure_meta!(
            p.dims[0] == add(up, down) && p.dims[1] == x.dims[1],
            "padding_data {} does not fit context_start {start} and context_length {len}",
            fmt_dims(&p.dims)
        );
    }
    out.set(with_dtype_lod_of(x, &[x.dims[0], f.dims[1]]))
}

/// `SpectralNormInferMeta(weight, u, v, dim, power_iters, eps)`: like `weight`.
#[infer_meta]
pub fn spectral_norm_infer_meta(
    weight: &TensorMeta,
    u: &TensorMeta,
    v: &TensorMeta,
    dim: i64,
    power_iters: i64,
    _eps: f64,
    out: Output<'_>,
) -> R {
    let (w, iters) = (weight, power_iters);
    let r = w.rank();
    ensure_meta!(
        (2..=5).contains(&r),
        "weight must have rank 2 to 5, got {}",
        fmt_dims(&w.dims)
    );
    ensure_meta!(dim == 0 || dim == 1, "dim must be 0 or 1, got {dim}");
    ensure_meta!(iters >= 0, "power_iters must be non-negative, got {iters}");
    let h = w.dims[dim as usize];
    let wsz = w
        .dims
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != dim as usize)
        .fold(1i64, |a, (_, &b)| mul(a, b));
    let u0 = dim_at(&u.dims, 0, "u")?;
    let v0 = dim_at(&v.dims, 0, "v")?;
    if u0 > 0 && h > 0 {
        ensure_meta!(
            u0 == h,
            "u {} must have weight's dim {dim} ({h}) elements",
            fmt_dims(&u.dims)
        );
    }
    if v0 > 0 && wsz > 0 {
        ensure_meta!(
            v0 == wsz,
            "v {} must have {wsz} elements",
            fmt_dims(&v.dims)
        );
    }
    out.set(dims_dtype_lod_of(w))
}

/// `ViterbiDecodeInferMeta(potentials, transition_params, lengths, include_bos_eos_tag)`:
/// `scores` like `lengths`; `path` is left as Paddle leaves it.
#[infer_meta]
pub fn viterbi_decode_infer_meta(
    potentials: &TensorMeta,
    transition_params: &TensorMeta,
    lengths: &TensorMeta,
    _include_bos_eos_tag: bool,
    scores: Output<'_>,
) -> R {
    need_rank(potentials, 3, "potentials")?;
    need_rank(lengths, 1, "lengths")?;
    need_rank(transition_params, 2, "transition_params")?;
    scores.set(dims_dtype_of(lengths))
}

/// `TdmSamplerInferMeta(x, travel, layer, output_positive, neg_samples_num_list,
/// layer_offset_lod, seed, dtype)` at compile time: `[-1, sum(neg + positive)]`.
#[infer_meta]
pub fn tdm_sampler_infer_meta(
    x: &TensorMeta,
    _travel: &TensorMeta,
    _layer: &TensorMeta,
    output_positive: bool,
    neg_samples_num_list: &[i64],
    _layer_offset_lod: &[i64],
    _seed: i64,
    _dtype: i64,
    out: Output<'_>,
    labels: Output<'_>,
    mask: Output<'_>,
) -> R {
    let len = neg_samples_num_list
        .iter()
        .fold(0i64, |a, &n| add(a, add(n, i64::from(output_positive))));
    let meta = with_dtype_of(x, &[-1, len]);
    out.set(meta.clone())?;
    labels.set_if_present(meta.clone());
    mask.set(meta)
}

/// `CSoftmaxWithMultiLabelCrossEntropyInferMeta(logits, label, smooth_weight, ignore_index,
/// sum_multi_label_loss, rank, nranks)`: `label` matches `logits` off the last axis and
/// `smooth_weight` matches `label` (known extents); `softmax` gets `logits`' dims, `loss`
/// `label`'s dims (last one 1 when `sum_multi_label_loss`); both `logits`' LoD, no dtype (as
/// Paddle sets them).
#[infer_meta]
pub fn c_softmax_with_multi_label_cross_entropy_infer_meta(
    logits: &TensorMeta,
    label: &TensorMeta,
    smooth_weight: &TensorMeta,
    _ignore_index: i64,
    sum_multi_label_loss: bool,
    _rank: i64,
    _nranks: i64,
    softmax: Output<'_>,
    loss: Output<'_>,
) -> R {
    let r = logits.rank();
    ensure_meta!(r >= 1, "logits must have at least one dimension");
    ensure_meta!(
        label.rank() == r && smooth_weight.rank() == r,
        "logits {}, label {} and smooth_weight {} must have the same rank",
        fmt_dims(&logits.dims),
        fmt_dims(&label.dims),
        fmt_dims(&smooth_weight.dims)
    );
    need_label_like_logits(logits, label)?;
    ensure_meta!(
        label.dims[r - 1] >= 1 || label.dims[r - 1] == -1,
        "the last dimension of label {} must be at least 1",
        fmt_dims(&label.dims)
    );
    for i in 0..r {
        let (a, b) = (label.dims[i], smooth_weight.dims[i]);
        ensure_meta!(
            !(a > 0 && b > 0 && a != b),
            "label {} and smooth_weight {} must have the same shape",
            fmt_dims(&label.dims),
            fmt_dims(&smooth_weight.dims)
        );
    }
    softmax.set(MetaBuilder::new().dims(&logits.dims).lod(logits).build())?;
    let mut d = label.dims.to_vec();
    if sum_multi_label_loss {
        d[r - 1] = 1;
    }
    loss.set(MetaBuilder::new().dims(&d).lod(logits).build())
}

/// `FasterTokenizerInferMeta(vocab, text, text_pair, do_lower_case, is_split_into_words,
/// max_seq_len, pad_to_max_seq_len)`: int64 `input_ids` and `segment_ids` of `[-1, -1]`.
#[infer_meta]
pub fn faster_tokenizer_infer_meta(
    _vocab: &TensorMeta,
    _text: &TensorMeta,
    _text_pair: Option<&TensorMeta>,
    _do_lower_case: bool,
    _is_split_into_words: bool,
    _max_seq_len: i64,
    _pad_to_max_seq_len: bool,
    input_ids: Output<'_>,
    segment_ids: Output<'_>,
) -> R {
    input_ids.set(TensorMeta::new(DataType::Int64, &[-1, -1]))?;
    segment_ids.set(TensorMeta::new(DataType::Int64, &[-1, -1]))
}

/// `MovingAverageAbsMaxScaleInferMeta(x, in_accum, in_state)`: when the op has `out`, it gets
/// `x`'s dims and LoD and `out_scale` is `[1]`; `out_state` / `out_accum` get the dims of
/// `in_state` / `in_accum` (dims only, as Paddle sets them).
#[infer_meta]
pub fn moving_average_abs_max_scale_infer_meta(
    x: &TensorMeta,
    in_accum: Option<&TensorMeta>,
    in_state: Option<&TensorMeta>,
    out: Output<'_>,
    out_scale: Output<'_>,
    out_state: Output<'_>,
    out_accum: Output<'_>,
) -> R {
    if out.is_present() {
        out.set(MetaBuilder::new().dims(&x.dims).lod(x).build())?;
        out_scale.set(MetaBuilder::new().dims(&[1]).build())?;
    }
    if out_state.is_present() {
        let s = in_state.ok_or_else(|| {
            InferMetaError::new("in_state is absent but out_state needs its dims")
        })?;
        out_state.set(MetaBuilder::new().dims(&s.dims).build())?;
    }
    if out_accum.is_present() {
        let a = in_accum.ok_or_else(|| {
            InferMetaError::new("in_accum is absent but out_accum needs its dims")
        })?;
        out_accum.set(MetaBuilder::new().dims(&a.dims).build())?;
    }
    Ok(())
}
