//! Infer-meta functions of three input tensors, after Paddle's
//! `paddle/phi/infermeta/ternary.cc`.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaCtx, InferMetaError, TensorMeta};
use pir_runtime::phi::DataType;

use super::common::{
    add, dim_at, dims_dtype_of, fmt_dims, has_unknown, int_array, ints, layout_is_nchw, mp_dtype,
    mul, need_one_element, need_rank, need_same_dims, product, rem, set_opt, str_arg, sub,
    with_dtype_lod_of, with_dtype_of, MetaBuilder, Res,
};

type R = Result<(), InferMetaError>;

/// `AccuracyInferMeta(out, indice, label)`: three 0-D outputs in `out`'s dtype; `label` must be
/// 2-D.
#[infer_meta]
pub fn accuracy_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let out = ctx.tensor(0)?;
    let label = ctx.tensor(2)?;
    need_rank(label, 2, "label")?;
    ctx.set_output(0, with_dtype_lod_of(out, &[]))?;
    ctx.set_output(1, with_dtype_of(out, &[]))?;
    ctx.set_output(2, with_dtype_of(out, &[]))
}

/// `AddmmInferMeta(input, x, y, beta, alpha)`: `[x[0], y[1]]` in `input`'s dtype.
#[infer_meta]
pub fn addmm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let x = ctx.tensor(1)?;
    let y = ctx.tensor(2)?;
    ensure_meta!(
        input.rank() == 1 || input.rank() == 2,
        "input must be 1-D or 2-D, got {}",
        fmt_dims(&input.dims)
    );
    need_rank(x, 2, "x")?;
    need_rank(y, 2, "y")?;
    ctx.set_output(0, with_dtype_lod_of(input, &[x.dims[0], y.dims[1]]))
}

/// `AffineChannelInferMeta(x, scale, bias, data_layout)`: like `x`; `scale` and `bias` are
/// `[C]`.
#[infer_meta]
pub fn affine_channel_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let scale = ctx.tensor(1)?;
    let bias = ctx.tensor(2)?;
    let layout = str_arg(ctx, 3)?;
    let nchw = layout_is_nchw(&layout)?;
    let c = if nchw {
        dim_at(&x.dims, 1, "x")?
    } else {
        dim_at(&x.dims, x.rank().saturating_sub(1), "x")?
    };
    need_rank(scale, 1, "scale")?;
    need_rank(bias, 1, "bias")?;
    if scale.dims[0] > 0 {
        ensure_meta!(
            scale.dims[0] == c,
            "scale has {} elements but x has {c} channels",
            scale.dims[0]
        );
    }
    if bias.dims[0] > 0 {
        ensure_meta!(
            bias.dims[0] == c,
            "bias has {} elements but x has {c} channels",
            bias.dims[0]
        );
    }
    ctx.set_output(0, with_dtype_lod_of(x, &x.dims))
}

/// `AssignPosInferMeta(x, cum_count, eff_num_len)`: dtype of `x` (int64, like `cum_count`).
#[infer_meta]
pub fn assign_pos_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let cum = ctx.tensor(1)?;
    ensure_meta!(
        cum.dtype == x.dtype,
        "cum_count ({}) and x ({}) must have the same dtype",
        cum.dtype,
        x.dtype
    );
    ensure_meta!(
        cum.dtype == DataType::Int64,
        "cum_count must be int64, got {}",
        cum.dtype
    );
    ctx.set_output(0, MetaBuilder::new().dtype(x.dtype).build())
}

/// `BatchFCInferMeta(input, w, bias)`: `[input[0], input[1], w[2]]`.
#[infer_meta(name = "BatchFCInferMeta")]
pub fn batch_fc_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let w = ctx.tensor(1)?;
    let bias = ctx.tensor(2)?;
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
    ctx.set_output(
        0,
        with_dtype_lod_of(input, &[input.dims[0], input.dims[1], w.dims[2]]),
    )
}

/// `BoxCoderInferMeta(prior_box, prior_box_var, target_box, code_type, box_normalized, axis,
/// variance)`.
#[infer_meta]
pub fn box_coder_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let prior = ctx.tensor(0)?;
    let target = ctx.tensor(2)?;
    let code = str_arg(ctx, 3)?;
    let axis = ctx.int(5)?;
    let mut out = MetaBuilder::new();
    match &*code {
        "encode_center_size" => {
            need_rank(target, 2, "target_box")?;
            ensure_meta!(
                target.dims[1] == 4,
                "target_box must be [N, 4], got {}",
                fmt_dims(&target.dims)
            );
            let p0 = dim_at(&prior.dims, 0, "prior_box")?;
            out = out.dims(&[target.dims[0], p0, 4]);
        }
        "decode_center_size" => {
            need_rank(target, 3, "target_box")?;
            ensure_meta!(axis == 0 || axis == 1, "axis must be 0 or 1, got {axis}");
            out = out.dims(&target.dims);
        }
        other => {
            return Err(InferMetaError::new(format!(
                "code_type {other:?} is not supported: use encode_center_size or \
                 decode_center_size"
            )))
        }
    }
    let lod_src = if code == "decode_center_size" && axis == 1 {
        prior
    } else {
        target
    };
    ctx.set_output(0, out.lod(lod_src).dtype(target.dtype).build())
}

/// `DpsgdInferMeta(param, grad, learning_rate, clip, batch_size, sigma, seed)`: dims of
/// `param` (dtype left float32, as in Paddle).
#[infer_meta]
pub fn dpsgd_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let grad = ctx.tensor(1)?;
    let lr = ctx.tensor(2)?;
    need_one_element(lr, "learning_rate")?;
    need_same_dims(param, grad, "param", "grad")?;
    ctx.set_output(0, MetaBuilder::new().dims(&param.dims).build())
}

/// `FakeQuantizeRangeAbsMaxInferMeta(x, in_scale, iter, window_size, bit_length, is_test,
/// round_type)`.
#[infer_meta]
pub fn fake_quantize_range_abs_max_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let window = ctx.int(3)?;
    let bits = ctx.int(4)?;
    ensure_meta!(
        (1..=16).contains(&bits),
        "bit_length must be in [1, 16], got {bits}"
    );
    ctx.set_output(0, MetaBuilder::new().dims(&x.dims).lod(x).build())?;
    ctx.set_output(1, MetaBuilder::new().dims(&[1]).build())?;
    set_opt(ctx, 2, MetaBuilder::new().dims(&[window]).build())
}

fn round128(v: i64) -> i64 {
    add(v, 127).wrapping_div(128).wrapping_mul(128)
}

/// `FlashAttnInferMeta(q, k, v)`: `out` like `q` with `v`'s head size; `softmax`,
/// `softmax_lse` with sequence lengths rounded up to 128; int64 `seed_offset` `[2]`.
#[infer_meta]
pub fn flash_attn_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let q = ctx.tensor(0)?;
    let k = ctx.tensor(1)?;
    let v = ctx.tensor(2)?;
    let mut od = q.dims.to_vec();
    let mut softmax = MetaBuilder::new().dtype(q.dtype);
    let mut lse = MetaBuilder::new().dtype(q.dtype);
    if od.len() == 4 {
        od[3] = dim_at(&v.dims, 3, "v")?;
        let (b, h) = (q.dims[0], q.dims[2]);
        let sq = round128(q.dims[1]);
        let sk = round128(dim_at(&k.dims, 1, "k")?);
        softmax = softmax.dims(&[b, h, sq, sk]);
        lse = lse.dims(&[b, h, sq]);
    } else if od.len() == 3 {
        let (t, h) = (q.dims[0], q.dims[1]);
        let s = round128(t);
        softmax = softmax.dims(&[h, s, s]);
        lse = lse.dims(&[h, s]);
    }
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&od)
            .dtype(q.dtype)
            .layout(q.layout)
            .build(),
    )?;
    set_opt(ctx, 1, softmax.build())?;
    set_opt(ctx, 2, lse.build())?;
    set_opt(
        ctx,
        3,
        MetaBuilder::new().dims(&[2]).dtype(DataType::Int64).build(),
    )
}

/// `FlashAttnQKVPackedInferMeta(qkv)`: packed `[.., nheads/nheads_k + 2, nheads_k, headdim]`.
#[infer_meta(name = "FlashAttnQKVPackedInferMeta")]
pub fn flash_attn_qkv_packed_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let qkv = ctx.tensor(0)?;
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
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&od)
            .dtype(qkv.dtype)
            .layout(qkv.layout)
            .build(),
    )?;
    set_opt(ctx, 1, MetaBuilder::new().dtype(qkv.dtype).build())?;
    set_opt(ctx, 2, MetaBuilder::new().dtype(qkv.dtype).build())?;
    set_opt(ctx, 3, MetaBuilder::new().dtype(DataType::Int64).build())
}

/// `CalcReducedAttnScoresInferMeta(q, k, softmax_lse)`: float32 `[batch, heads, 1, seqlen_k]`.
#[infer_meta]
pub fn calc_reduced_attn_scores_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let q = ctx.tensor(0)?;
    let k = ctx.tensor(1)?;
    let lse = ctx.tensor(2)?;
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
    ctx.set_output(
        0,
        MetaBuilder::new().dims(&d).dtype(DataType::Float32).build(),
    )
}

/// `CollectFpnProposalsInferMeta(multi_level_rois, multi_level_scores, multi_level_rois_num,
/// post_nms_topn)`: `[post_nms_topn, 4]` and int32 `[-1]`.
#[infer_meta]
pub fn collect_fpn_proposals_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let rois = ctx.tensors(0)?;
    let scores = ctx.tensors(1)?;
    let topn = ctx.int(3)?;
    for r in rois {
        let c = dim_at(&r.dims, 1, "multi_level_rois")?;
        ensure_meta!(
            c == 4,
            "multi_level_rois must be [N, 4], got {}",
            fmt_dims(&r.dims)
        );
    }
    for s in scores {
        let c = dim_at(&s.dims, 1, "multi_level_scores")?;
        ensure_meta!(
            c == 1,
            "multi_level_scores must be [N, 1], got {}",
            fmt_dims(&s.dims)
        );
    }
    let r0 = rois
        .first()
        .ok_or_else(|| InferMetaError::new("multi_level_rois must not be empty"))?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&[topn, 4])
            .dtype(r0.dtype)
            .lod(r0)
            .build(),
    )?;
    set_opt(
        ctx,
        1,
        MetaBuilder::new()
            .dims(&[-1])
            .dtype(DataType::Int32)
            .build(),
    )
}

/// `InstanceNormInferMeta(x, scale, bias, epsilon)`: `y` like `x`; saved statistics `[N × C]`.
#[infer_meta]
pub fn instance_norm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let scale = ctx.opt_tensor(1)?;
    let bias = ctx.opt_tensor(2)?;
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
    let y = MetaBuilder::new()
        .dims(xd)
        .lod(x)
        .dtype(x.dtype)
        .layout(x.layout)
        .build();
    ctx.set_output(0, y)?;
    let p = mp_dtype(x.dtype);
    set_opt(
        ctx,
        1,
        MetaBuilder::new().dims(&[mul(n, c)]).dtype(p).build(),
    )?;
    set_opt(
        ctx,
        2,
        MetaBuilder::new().dims(&[mul(n, c)]).dtype(p).build(),
    )
}

/// `GroupNormInferMeta(x, scale, bias, epsilon, groups, data_format)`: `y` like `x` (an
/// unknown channel count is taken from `scale`/`bias`); `mean`/`variance` `[N, groups]`.
#[infer_meta]
pub fn group_norm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let scale = ctx.opt_tensor(1)?;
    let bias = ctx.opt_tensor(2)?;
    let groups = ctx.int(4)?;
    let fmt = str_arg(ctx, 5)?;
    let xd = &x.dims;
    ensure_meta!(
        xd.len() >= 2,
        "group_norm x must have rank ≥ 2, got {}",
        fmt_dims(xd)
    );
    let nchw = layout_is_nchw(&fmt)?;
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
    ctx.set_output(0, with_dtype_lod_of(x, &od))?;
    let p = mp_dtype(x.dtype);
    ctx.set_output(
        1,
        MetaBuilder::new().dims(&[xd[0], groups]).dtype(p).build(),
    )?;
    ctx.set_output(
        2,
        MetaBuilder::new().dims(&[xd[0], groups]).dtype(p).build(),
    )
}

/// `LayerNormInferMeta(x, scale, bias, epsilon, begin_norm_axis)`: `out` like `x` (dims, dtype,
/// LoD); `mean`/`variance` with dims `x[..begin_norm_axis]` in float32 for half inputs.
#[infer_meta]
pub fn layer_norm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let scale = ctx.opt_tensor(1)?;
    let bias = ctx.opt_tensor(2)?;
    let eps = ctx.float(3)? as f32;
    let begin = ctx.int(4)?;
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
    ctx.set_output(0, with_dtype_lod_of(x, &x.dims))?;
    let p = mp_dtype(x.dtype);
    let before = &x.dims[..begin as usize];
    set_opt(ctx, 1, MetaBuilder::new().dims(before).dtype(p).build())?;
    set_opt(ctx, 2, MetaBuilder::new().dims(before).dtype(p).build())
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
pub fn lerp_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let d = dynamic_broadcast(&x.dims, &y.dims)?;
    let d = dynamic_broadcast(&d, &w.dims)?;
    ctx.set_output(0, with_dtype_lod_of(x, &d))
}

/// `LinspaceInferMeta(start, stop, number, dtype)`: `[-1]` in `start`'s dtype (the `dtype`
/// attribute is not used by the infer meta).
#[infer_meta]
pub fn linspace_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let start = ctx.tensor(0)?;
    need_one_element(start, "start")?;
    need_one_element(ctx.tensor(1)?, "stop")?;
    need_one_element(ctx.tensor(2)?, "number")?;
    ctx.set_output(0, with_dtype_of(start, &[-1]))
}

/// `MatchMatrixTensorInferMeta(x, y, w, dim_t)` at compile time: `[-1, 1]` outputs.
#[infer_meta]
pub fn match_matrix_tensor_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let dim_t = ctx.int(3)?;
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
    ctx.set_output(0, with_dtype_lod_of(x, &[-1, 1]))?;
    ctx.set_output(1, with_dtype_of(x, &[-1, 1]))
}

/// `MultiClassNMSInferMeta(bboxes, scores, rois_num, ...)`: `[-1, box_size + 2]`, int32
/// `[-1, 1]` indices and int32 `[-1]` counts.
#[infer_meta(name = "MultiClassNMSInferMeta")]
pub fn multi_class_nms_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let boxes = ctx.tensor(0)?;
    let b2 = dim_at(&boxes.dims, 2, "bboxes")?;
    ctx.set_output(0, with_dtype_of(boxes, &[-1, add(b2, 2)]))?;
    ctx.set_output(
        1,
        MetaBuilder::new()
            .dims(&[-1, 1])
            .dtype(DataType::Int32)
            .build(),
    )?;
    set_opt(
        ctx,
        2,
        MetaBuilder::new()
            .dims(&[-1])
            .dtype(DataType::Int32)
            .build(),
    )
}

/// `NllLossRawInferMeta(input, label, weight, ignore_index, reduction)`.
#[infer_meta]
pub fn nll_loss_raw_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let weight = ctx.opt_tensor(2)?;
    let reduction = str_arg(ctx, 4)?;
    let (xd, ld) = (&x.dims, &label.dims);
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
    ctx.set_output(0, with_dtype_of(x, &od))?;
    ctx.set_output(1, with_dtype_of(x, &[]))
}

/// `RandomRoutingInferMeta(prob, topk_value, topk_idx)`: like `topk_idx`.
#[infer_meta]
pub fn random_routing_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let prob = ctx.tensor(0)?;
    let val = ctx.tensor(1)?;
    let idx = ctx.tensor(2)?;
    let p0 = dim_at(&prob.dims, 0, "prob")?;
    let (v0, v1) = (
        dim_at(&val.dims, 0, "topk_value")?,
        dim_at(&val.dims, 1, "topk_value")?,
    );
    let (i0, i1) = (
        dim_at(&idx.dims, 0, "topk_idx")?,
        dim_at(&idx.dims, 1, "topk_idx")?,
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
    ctx.set_output(0, with_dtype_lod_of(idx, &idx.dims))
}

/// `RankAttentionInferMeta(x, rank_offset, rank_param, max_rank, max_size)`.
#[infer_meta]
pub fn rank_attention_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let off = ctx.tensor(1)?;
    let param = ctx.tensor(2)?;
    let max_rank = ctx.int(3)?;
    let ins = dim_at(&x.dims, 0, "x")?;
    let fea = dim_at(&x.dims, 1, "x")?;
    let col = dim_at(&param.dims, 1, "rank_param")?;
    let o1 = dim_at(&off.dims, 1, "rank_offset")?;
    ensure_meta!(
        sub(o1, 1).wrapping_div(2) == max_rank,
        "rank_offset {} must have 2 × max_rank {max_rank} + 1 columns",
        fmt_dims(&off.dims)
    );
    set_opt(ctx, 0, with_dtype_of(x, &[ins, mul(max_rank, fea)]))?;
    ctx.set_output(1, with_dtype_lod_of(x, &[ins, col]))?;
    set_opt(ctx, 2, with_dtype_of(x, &[ins, 1]))
}

fn roi_common(
    ctx: &mut InferMetaCtx<'_>,
    x: &TensorMeta,
    boxes: &TensorMeta,
    ph: i64,
    pw: i64,
    scale: f64,
) -> Res<Vec<i64>> {
    if let Some(n) = ctx.opt_tensor(2)? {
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
pub fn roi_align_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let boxes = ctx.tensor(1)?;
    let (ph, pw, s) = (ctx.int(3)?, ctx.int(4)?, ctx.float(5)?);
    let d = roi_common(ctx, x, boxes, ph, pw, s)?;
    ctx.set_output(0, with_dtype_of(x, &d))
}

/// `RoiPoolInferMeta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale)`: also an
/// int64 `arg_max` of the same dims.
#[infer_meta]
pub fn roi_pool_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let boxes = ctx.tensor(1)?;
    let (ph, pw, s) = (ctx.int(3)?, ctx.int(4)?, ctx.float(5)?);
    if boxes.rank() == 2 {
        ensure_meta!(
            boxes.dims[1] == 4,
            "boxes must be [num_boxes, 4], got {}",
            fmt_dims(&boxes.dims)
        );
    }
    let d = roi_common(ctx, x, boxes, ph, pw, s)?;
    ctx.set_output(0, with_dtype_of(x, &d))?;
    ctx.set_output(
        1,
        MetaBuilder::new().dims(&d).dtype(DataType::Int64).build(),
    )
}

/// `ScatterInferMeta(x, index, updates, overwrite)`: like `x`; `index` is 0-D, 1-D or `[N, 1]`.
#[infer_meta]
pub fn scatter_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let index = ctx.tensor(1)?;
    let updates = ctx.tensor(2)?;
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
    ctx.set_output(0, with_dtype_lod_of(x, &x.dims))
}

/// `ScatterNdAddInferMeta(x, index, updates)`: like `x`; `updates` must be
/// `index.shape[:-1] + x.shape[index.shape[-1]:]`.
#[infer_meta]
pub fn scatter_nd_add_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let index = ctx.tensor(1)?;
    let updates = ctx.tensor(2)?;
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
    ctx.set_output(0, with_dtype_lod_of(x, xd))
}

/// `SendURecvInferMeta(x, src_index, dst_index, reduce_op, out_size)`: `x` with dim 0 `-1`;
/// int32 `dst_count` `[-1]` for `MEAN`.
#[infer_meta]
pub fn send_u_recv_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let src = ctx.tensor(1)?;
    let dst = ctx.tensor(2)?;
    let reduce = str_arg(ctx, 3)?;
    let _ = int_array(ctx, 4, "out_size")?;
    for (t, n) in [(src, "src_index"), (dst, "dst_index")] {
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
        src.dims[0] == dst.dims[0],
        "src_index {} and dst_index {} must have the same shape",
        fmt_dims(&src.dims),
        fmt_dims(&dst.dims)
    );
    ensure_meta!(x.rank() >= 1, "x must have rank ≥ 1, got a 0-D tensor");
    let mut d = x.dims.to_vec();
    d[0] = -1;
    ctx.set_output(0, with_dtype_of(x, &d))?;
    if reduce == "MEAN" {
        set_opt(
            ctx,
            1,
            MetaBuilder::new()
                .dims(&[-1])
                .dtype(DataType::Int32)
                .build(),
        )?;
    }
    Ok(())
}

/// `SequenceConvInferMeta(x, padding_data, filter, context_length, padding_trainable,
/// context_start, context_stride)`: `[x[0], filter[1]]`.
#[infer_meta]
pub fn sequence_conv_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let pad = ctx.opt_tensor(1)?;
    let f = ctx.tensor(2)?;
    let len = ctx.int(3)?;
    let trainable = ctx.bool(4)?;
    let start = ctx.int(5)?;
    let stride = ctx.int(6)?;
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
    if trainable {
        let p = pad.ok_or_else(|| InferMetaError::new("padding_trainable needs padding_data"))?;
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
    ctx.set_output(0, with_dtype_lod_of(x, &[x.dims[0], f.dims[1]]))
}

/// `SpectralNormInferMeta(weight, u, v, dim, power_iters, eps)`: like `weight`.
#[infer_meta]
pub fn spectral_norm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let w = ctx.tensor(0)?;
    let u = ctx.tensor(1)?;
    let v = ctx.tensor(2)?;
    let dim = ctx.int(3)?;
    let iters = ctx.int(4)?;
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
    ctx.set_output(0, with_dtype_lod_of(w, &w.dims))
}

/// `ViterbiDecodeInferMeta(potentials, transition_params, lengths, include_bos_eos_tag)`:
/// `scores` like `lengths`; `path` is left as Paddle leaves it.
#[infer_meta]
pub fn viterbi_decode_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let trans = ctx.tensor(1)?;
    let length = ctx.tensor(2)?;
    need_rank(input, 3, "potentials")?;
    need_rank(length, 1, "lengths")?;
    need_rank(trans, 2, "transition_params")?;
    ctx.set_output(0, dims_dtype_of(length))
}

/// `TdmSamplerInferMeta(x, travel, layer, output_positive, neg_samples_num_list,
/// layer_offset, seed, dtype)` at compile time: `[-1, sum(neg + positive)]`.
#[infer_meta]
pub fn tdm_sampler_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let positive = ctx.bool(3)?;
    let negs = ints(ctx, 4)?;
    let len = negs
        .iter()
        .fold(0i64, |a, &n| add(a, add(n, i64::from(positive))));
    let d = [-1, len];
    ctx.set_output(0, with_dtype_of(x, &d))?;
    set_opt(ctx, 1, with_dtype_of(x, &d))?;
    ctx.set_output(2, with_dtype_of(x, &d))
}
