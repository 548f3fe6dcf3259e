//! Infer-meta functions of fused ops, after Paddle's `paddle/phi/infermeta/fusion.cc` (and
//! the fused functions Paddle keeps in `multiary.cc` / `backward.cc` for the ops of
//! `fused_backward.yaml` and `inconsistent/static_*.yaml`).

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, Output, OutputList, TensorMeta};
use pir_runtime::phi::DataType;

use super::common::{dims_only, fmt_dims, need_rank, MetaBuilder};

type R = Result<(), InferMetaError>;

/// `FusedMultiTransformerInferMeta(x, ln_scales, ln_biases, qkv_weights, qkv_biases,
/// cache_kvs, pre_caches, rotary_tensor, beam_offset, time_step, seq_lengths, src_mask,
/// out_linear_weights, out_linear_biases, ffn_ln_scales, ffn_ln_biases, ffn1_weights,
/// ffn1_biases, ffn2_weights, ffn2_biases, pre_layer_norm, epsilon, residual_alpha,
/// dropout_rate, rotary_emb_dims, is_test, dropout_implementation, act_method, trans_qkvw,
/// ring_id, norm_type, use_neox_rotary_style, gqa_group_size)`: `x` is `[batch, seq, embed]`,
/// `qkv_weights[0]` is `[3, heads, head_dim, embed]` (`[heads + 2 kv_heads, head_dim, embed]`
/// with `gqa_group_size > 0`; the embed axis first when `trans_qkvw` is false); a cache is
/// `[2, batch, heads, max_seq, head_dim]`. `out` gets `x`'s dims only (Paddle sets no dtype);
/// `cache_kv_outs` stay unset.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_multi_transformer_infer_meta(
    x: &TensorMeta,
    _ln_scales: &[TensorMeta],
    _ln_biases: Option<&[TensorMeta]>,
    qkv_weights: &[TensorMeta],
    _qkv_biases: Option<&[TensorMeta]>,
    cache_kvs: Option<&[TensorMeta]>,
    _pre_caches: Option<&[TensorMeta]>,
    _rotary_tensor: Option<&TensorMeta>,
    _beam_offset: Option<&TensorMeta>,
    _time_step: Option<&TensorMeta>,
    _seq_lengths: Option<&TensorMeta>,
    _src_mask: Option<&TensorMeta>,
    _out_linear_weights: &[TensorMeta],
    _out_linear_biases: Option<&[TensorMeta]>,
    _ffn_ln_scales: &[TensorMeta],
    _ffn_ln_biases: Option<&[TensorMeta]>,
    _ffn1_weights: &[TensorMeta],
    _ffn1_biases: Option<&[TensorMeta]>,
    _ffn2_weights: &[TensorMeta],
    _ffn2_biases: Option<&[TensorMeta]>,
    _pre_layer_norm: bool,
    _epsilon: f64,
    _residual_alpha: f64,
    _dropout_rate: f64,
    _rotary_emb_dims: i64,
    _is_test: bool,
    _dropout_implementation: &str,
    _act_method: &str,
    trans_qkvw: bool,
    _ring_id: i64,
    _norm_type: &str,
    _use_neox_rotary_style: bool,
    gqa_group_size: i64,
    _cache_kv_outs: OutputList<'_>,
    out: Output<'_>,
) -> R {
    need_rank(x, 3, "x ([batch_size, seq_len, dim_embed])")?;
    let y = qkv_weights
        .first()
        .ok_or_else(|| InferMetaError::new("qkv_weights is empty: one weight per layer"))?;
    let gqa = gqa_group_size > 0;
    need_rank(y, if gqa { 3 } else { 4 }, "qkv_weights[0]")?;
    let embed = if !trans_qkvw {
        y.dims[0]
    } else if gqa {
        y.dims[2]
    } else {
        y.dims[3]
    };
    need_same_embed(x, "qkv_weights[0]", &y.dims, embed)?;
    if let Some(c) = cache_kvs.and_then(|c| c.first()) {
        let (heads, head_dim) = match (gqa, trans_qkvw) {
            (true, t) => (gqa_group_size, if t { y.dims[1] } else { y.dims[2] }),
            (false, true) => (y.dims[1], y.dims[2]),
            (false, false) => (y.dims[2], y.dims[3]),
        };
        check_cache(c, "cache_kvs[0]", x.dims[0], heads, head_dim, false)?;
    }
    out.set(dims_only(&x.dims))
}

/// Sets `out` to `like`'s dims and dtype (Paddle's `set_dims(like.dims());
/// set_dtype(like.dtype())`) when both the op's output and the tensor are there.
fn grad_like(out: Output<'_>, like: Option<&TensorMeta>) {
    if let Some(t) = like {
        out.set_if_present(TensorMeta::new(t.dtype, &t.dims));
    }
}

/// `FusedGateAttentionInferMeta(query, key, query_weight, key_weight, value_weight,
/// qkv_weight, nonbatched_bias, src_mask, gate_weight, gate_bias, out_linear_weight,
/// out_linear_bias, has_gating, merge_qkv, use_flash_attn)`: `query` is
/// `[batch, seq_m, seq_r, dim]`; heads and head size come from `qkv_weight`
/// `[3, heads, head_dim, dim]` (`merge_qkv`) or `query_weight` `[dim, heads, head_dim]`; the
/// transposed projections, `softmax_out` `[batch, seq_m, heads, seq_r, m]`, `fmha_out` (and
/// `gate_out` with gating) `[batch, seq_m, seq_r, heads, head_dim]` take `query`'s dtype;
/// `out` is `query`'s dims and dtype; `softmax_lse` stays unset.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_gate_attention_infer_meta(
    query: &TensorMeta,
    key: Option<&TensorMeta>,
    query_weight: Option<&TensorMeta>,
    _key_weight: Option<&TensorMeta>,
    _value_weight: Option<&TensorMeta>,
    qkv_weight: Option<&TensorMeta>,
    _nonbatched_bias: Option<&TensorMeta>,
    _src_mask: &TensorMeta,
    _gate_weight: Option<&TensorMeta>,
    _gate_bias: Option<&TensorMeta>,
    _out_linear_weight: &TensorMeta,
    _out_linear_bias: &TensorMeta,
    has_gating: bool,
    merge_qkv: bool,
    _use_flash_attn: bool,
    query_transpose_out: Output<'_>,
    key_transpose_out: Output<'_>,
    value_transpose_out: Output<'_>,
    qkv_transpose_out: Output<'_>,
    softmax_out: Output<'_>,
    _softmax_lse: Output<'_>,
    fmha_out: Output<'_>,
    gate_out: Output<'_>,
    out: Output<'_>,
) -> R {
    need_rank(query, 4, "query ([batch, seq_len_m, seq_len_r, dim])")?;
    let (batch, seq_m, seq_r) = (query.dims[0], query.dims[1], query.dims[2]);
    let dt = query.dtype;
    let (heads, head_dim, m) = if merge_qkv {
        let w = qkv_weight.ok_or_else(|| InferMetaError::new("merge_qkv needs qkv_weight"))?;
        need_rank(w, 4, "qkv_weight ([3, num_head, head_dim, dim])")?;
        let (heads, head_dim) = (w.dims[1], w.dims[2]);
        qkv_transpose_out.set_if_present(TensorMeta::new(
            dt,
            &[3, batch, seq_m, heads, seq_r, head_dim],
        ));
        (heads, head_dim, seq_r)
    } else {
        let k = key.ok_or_else(|| InferMetaError::new("without merge_qkv, key is needed"))?;
        let w = query_weight
            .ok_or_else(|| InferMetaError::new("without merge_qkv, query_weight is needed"))?;
        need_rank(k, 4, "key")?;
        need_rank(w, 3, "query_weight ([dim, num_head, head_dim])")?;
        let (heads, head_dim, m) = (w.dims[1], w.dims[2], k.dims[2]);
        query_transpose_out
            .set_if_present(TensorMeta::new(dt, &[batch, seq_m, heads, seq_r, head_dim]));
        key_transpose_out.set_if_present(TensorMeta::new(dt, &[batch, seq_m, heads, m, head_dim]));
        value_transpose_out
            .set_if_present(TensorMeta::new(dt, &[batch, seq_m, heads, m, head_dim]));
        (heads, head_dim, m)
    };
    softmax_out.set(TensorMeta::new(dt, &[batch, seq_m, heads, seq_r, m]))?;
    let fmha = [batch, seq_m, seq_r, heads, head_dim];
    fmha_out.set(TensorMeta::new(dt, &fmha))?;
    if has_gating {
        gate_out.set_if_present(TensorMeta::new(dt, &fmha));
    }
    out.set(TensorMeta::new(dt, &query.dims))
}

/// `FusedGateAttentionGradInferMeta(...)`: each gradient takes the dims and dtype of the
/// tensor it differentiates: `query`, `key`, then `qkv_weight` (`merge_qkv`) or the three
/// projection weights, the gating weight and bias (`has_gating`), `nonbatched_bias`, and the
/// output projection.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_gate_attention_grad_infer_meta(
    query: &TensorMeta,
    key: Option<&TensorMeta>,
    query_weight: Option<&TensorMeta>,
    key_weight: Option<&TensorMeta>,
    value_weight: Option<&TensorMeta>,
    qkv_weight: Option<&TensorMeta>,
    nonbatched_bias: Option<&TensorMeta>,
    _src_mask: Option<&TensorMeta>,
    gate_weight: Option<&TensorMeta>,
    gate_bias: Option<&TensorMeta>,
    out_linear_weight: &TensorMeta,
    out_linear_bias: &TensorMeta,
    _query_transpose_out: Option<&TensorMeta>,
    _key_transpose_out: Option<&TensorMeta>,
    _value_transpose_out: Option<&TensorMeta>,
    _qkv_transpose_out: Option<&TensorMeta>,
    _softmax_out: Option<&TensorMeta>,
    _softmax_lse: Option<&TensorMeta>,
    _fmha_out: &TensorMeta,
    _gate_out: Option<&TensorMeta>,
    _out_grad: &TensorMeta,
    has_gating: bool,
    merge_qkv: bool,
    _use_flash_attn: bool,
    query_grad: Output<'_>,
    key_grad: Output<'_>,
    query_weight_grad: Output<'_>,
    key_weight_grad: Output<'_>,
    value_weight_grad: Output<'_>,
    qkv_weight_grad: Output<'_>,
    nonbatched_bias_grad: Output<'_>,
    gate_weight_grad: Output<'_>,
    gate_bias_grad: Output<'_>,
    out_linear_weight_grad: Output<'_>,
    out_linear_bias_grad: Output<'_>,
) -> R {
    grad_like(query_grad, Some(query));
    grad_like(key_grad, key);
    if merge_qkv {
        grad_like(qkv_weight_grad, qkv_weight);
    } else {
        grad_like(query_weight_grad, query_weight);
        grad_like(key_weight_grad, key_weight);
        grad_like(value_weight_grad, value_weight);
    }
    if has_gating {
        grad_like(gate_weight_grad, gate_weight);
        grad_like(gate_bias_grad, gate_bias);
    }
    grad_like(nonbatched_bias_grad, nonbatched_bias);
    grad_like(out_linear_weight_grad, Some(out_linear_weight));
    grad_like(out_linear_bias_grad, Some(out_linear_bias));
    Ok(())
}

/// `ResnetUnitGradInferMeta(...)`: `x_grad`, `filter_x_grad`, `scale_x_grad`, `bias_x_grad`
/// take the dims and dtype of `x`, `filter_x`, `scale_x` (dims of `scale_x`, dtype of
/// `bias_x` for the bias); `z_grad` is `z`'s with `fuse_add` or `has_shortcut`; the shortcut's
/// filter / scale / bias gradients (scale and bias with `scale_x`'s dims) with `has_shortcut`.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn resnet_unit_grad_infer_meta(
    x: &TensorMeta,
    filter_x: &TensorMeta,
    _conv_x: &TensorMeta,
    scale_x: &TensorMeta,
    bias_x: &TensorMeta,
    _saved_mean_x: &TensorMeta,
    _saved_invstd_x: &TensorMeta,
    z: Option<&TensorMeta>,
    filter_z: Option<&TensorMeta>,
    _conv_z: Option<&TensorMeta>,
    scale_z: Option<&TensorMeta>,
    bias_z: Option<&TensorMeta>,
    _saved_mean_z: Option<&TensorMeta>,
    _saved_invstd_z: Option<&TensorMeta>,
    _out: &TensorMeta,
    _bit_mask: &TensorMeta,
    _out_grad: &TensorMeta,
    _stride: i64,
    _stride_z: i64,
    _padding: i64,
    _dilation: i64,
    _group: i64,
    _momentum: f64,
    _epsilon: f64,
    _data_format: &str,
    fuse_add: bool,
    has_shortcut: bool,
    _use_global_stats: bool,
    _is_test: bool,
    _use_addto: bool,
    _act_type: &str,
    x_grad: Output<'_>,
    filter_x_grad: Output<'_>,
    scale_x_grad: Output<'_>,
    bias_x_grad: Output<'_>,
    z_grad: Output<'_>,
    filter_z_grad: Output<'_>,
    scale_z_grad: Output<'_>,
    bias_z_grad: Output<'_>,
) -> R {
    let param = &scale_x.dims;
    x_grad.set(TensorMeta::new(x.dtype, &x.dims))?;
    filter_x_grad.set(TensorMeta::new(filter_x.dtype, &filter_x.dims))?;
    scale_x_grad.set(TensorMeta::new(scale_x.dtype, param))?;
    bias_x_grad.set(TensorMeta::new(bias_x.dtype, param))?;
    if fuse_add || has_shortcut {
        grad_like(z_grad, z);
    }
    if has_shortcut {
        grad_like(filter_z_grad, filter_z);
        if let Some(s) = scale_z {
            scale_z_grad.set_if_present(TensorMeta::new(s.dtype, param));
        }
        if let Some(b) = bias_z {
            bias_z_grad.set_if_present(TensorMeta::new(b.dtype, param));
        }
    }
    Ok(())
}

/// `ResnetBasicBlockGradInferMeta(...)`: `x_grad` and the filter gradients take the dims of
/// `x` / their filter and `x`'s dtype; the scale and bias gradients the dims of `scale1` /
/// `scale2` in float32; the third branch's gradients only with `has_shortcut`.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn resnet_basic_block_grad_infer_meta(
    x: &TensorMeta,
    filter1: &TensorMeta,
    _conv1: &TensorMeta,
    scale1: &TensorMeta,
    _bias1: &TensorMeta,
    _saved_mean1: &TensorMeta,
    _saved_invstd1: &TensorMeta,
    filter2: &TensorMeta,
    _conv2: &TensorMeta,
    _conv2_input: &TensorMeta,
    scale2: &TensorMeta,
    _bias2: &TensorMeta,
    _saved_mean2: &TensorMeta,
    _saved_invstd2: &TensorMeta,
    filter3: Option<&TensorMeta>,
    _conv3: Option<&TensorMeta>,
    _scale3: Option<&TensorMeta>,
    _bias3: Option<&TensorMeta>,
    _saved_mean3: Option<&TensorMeta>,
    _saved_invstd3: Option<&TensorMeta>,
    _max_input1: &TensorMeta,
    _max_filter1: &TensorMeta,
    _max_input2: &TensorMeta,
    _max_filter2: &TensorMeta,
    _max_input3: &TensorMeta,
    _max_filter3: &TensorMeta,
    _out: &TensorMeta,
    _out_grad: &TensorMeta,
    _stride1: i64,
    _stride2: i64,
    _stride3: i64,
    _padding1: i64,
    _padding2: i64,
    _padding3: i64,
    _dilation1: i64,
    _dilation2: i64,
    _dilation3: i64,
    _group: i64,
    _momentum: f64,
    _epsilon: f64,
    _data_format: &str,
    has_shortcut: bool,
    _use_global_stats: bool,
    _is_test: bool,
    _trainable_statistics: bool,
    _act_type: &str,
    _find_conv_input_max: bool,
    x_grad: Output<'_>,
    filter1_grad: Output<'_>,
    scale1_grad: Output<'_>,
    bias1_grad: Output<'_>,
    filter2_grad: Output<'_>,
    scale2_grad: Output<'_>,
    bias2_grad: Output<'_>,
    filter3_grad: Output<'_>,
    scale3_grad: Output<'_>,
    bias3_grad: Output<'_>,
) -> R {
    let f32_like = |d: &[i64]| TensorMeta::new(DataType::Float32, d);
    x_grad.set(TensorMeta::new(x.dtype, &x.dims))?;
    filter1_grad.set(TensorMeta::new(x.dtype, &filter1.dims))?;
    scale1_grad.set(f32_like(&scale1.dims))?;
    bias1_grad.set(f32_like(&scale1.dims))?;
    filter2_grad.set(TensorMeta::new(x.dtype, &filter2.dims))?;
    scale2_grad.set(f32_like(&scale2.dims))?;
    bias2_grad.set(f32_like(&scale2.dims))?;
    if has_shortcut {
        if let Some(f) = filter3 {
            filter3_grad.set_if_present(TensorMeta::new(x.dtype, &f.dims));
        }
        scale3_grad.set_if_present(f32_like(&scale2.dims));
        bias3_grad.set_if_present(f32_like(&scale2.dims));
    }
    Ok(())
}

/// Sets `out` to dims `d` alone (Paddle's bare `set_dims`: the dtype stays float32) when the
/// op has the output.
fn dims_if(out: Output<'_>, d: &[i64]) {
    out.set_if_present(dims_only(d));
}

/// Sets `out` to `t`'s dims alone (a gradient shaped like the optional tensor it
/// differentiates) when both are there.
fn dims_of(out: Output<'_>, t: Option<&TensorMeta>) {
    if let Some(t) = t {
        dims_if(out, &t.dims);
    }
}

/// `FusedAttentionInferMeta(x, ln_scale, ln_bias, qkv_weight, qkv_bias, cache_kv, src_mask,
/// out_linear_weight, out_linear_bias, ln_scale_2, ln_bias_2, num_heads, transpose_qkv_wb,
/// pre_layer_norm, epsilon, attn_dropout_rate, is_test, attn_dropout_fix_seed,
/// attn_dropout_seed, attn_dropout_implementation, dropout_rate, dropout_fix_seed,
/// dropout_seed, dropout_implementation, ln_epsilon, add_residual, ring_id)`: `x` is
/// `[batch, seq, embed]`; `qkv_weight` is `[embed, 3 embed]` (`transpose_qkv_wb`, heads from
/// `num_heads`) or `[3, heads, head_dim, embed]`; a cache is `[2, batch, heads, cache_seq,
/// head_dim]` and lengthens the attended sequence. Every intermediate gets dims only (as
/// Paddle sets them); `out` gets `x`'s dims and dtype.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_attention_infer_meta(
    x: &TensorMeta,
    _ln_scale: Option<&TensorMeta>,
    _ln_bias: Option<&TensorMeta>,
    qkv_weight: &TensorMeta,
    qkv_bias: Option<&TensorMeta>,
    cache_kv: Option<&TensorMeta>,
    src_mask: Option<&TensorMeta>,
    _out_linear_weight: &TensorMeta,
    _out_linear_bias: Option<&TensorMeta>,
    _ln_scale_2: Option<&TensorMeta>,
    _ln_bias_2: Option<&TensorMeta>,
    num_heads: i64,
    transpose_qkv_wb: bool,
    pre_layer_norm: bool,
    _epsilon: f64,
    _attn_dropout_rate: f64,
    is_test: bool,
    _attn_dropout_fix_seed: bool,
    _attn_dropout_seed: i64,
    _attn_dropout_implementation: &str,
    _dropout_rate: f64,
    _dropout_fix_seed: bool,
    _dropout_seed: i64,
    _dropout_implementation: &str,
    _ln_epsilon: f64,
    _add_residual: bool,
    ring_id: i64,
    ln_mean: Output<'_>,
    ln_var: Output<'_>,
    ln_out: Output<'_>,
    qkv_out: Output<'_>,
    qkv_bias_out: Output<'_>,
    transpose_out_2: Output<'_>,
    qk_out: Output<'_>,
    qktv_out: Output<'_>,
    softmax_out: Output<'_>,
    attn_dropout_mask_out: Output<'_>,
    attn_dropout_out: Output<'_>,
    src_mask_out: Output<'_>,
    fmha_out: Output<'_>,
    out_linear_out: Output<'_>,
    dropout_mask_out: Output<'_>,
    ln_mean_2: Output<'_>,
    ln_var_2: Output<'_>,
    bias_dropout_residual_out: Output<'_>,
    cache_kv_out: Output<'_>,
    out: Output<'_>,
) -> R {
    let (heads, head_dim, hidden) =
        attention_qkv_shape(qkv_weight, num_heads, transpose_qkv_wb, ring_id)?;
    need_rank(x, 3, "x ([batch_size, seq_len, dim_embed])")?;
    let (b, s) = (x.dims[0], x.dims[1]);
    need_same_embed(x, "qkv_weight", &qkv_weight.dims, hidden)?;
    let bs = b.wrapping_mul(s);
    if pre_layer_norm {
        set_layer_norm(ln_mean, ln_var, ln_out, bs, &x.dims);
    } else {
        set_layer_norm(ln_mean_2, ln_var_2, bias_dropout_residual_out, bs, &x.dims);
    }
    let qkv: Vec<i64> = if transpose_qkv_wb {
        vec![b, s, 3i64.wrapping_mul(heads).wrapping_mul(head_dim)]
    } else {
        vec![b, s, 3, heads, head_dim]
    };
    dims_if(qkv_out, &qkv);
    if qkv_bias.is_some() {
        dims_if(qkv_bias_out, &qkv);
    }
    dims_if(transpose_out_2, &[3, b, heads, s, head_dim]);
    let mut out_seq = s;
    if let Some(c) = cache_kv {
        check_cache(c, "cache_kv", b, heads, head_dim, false)?;
        let cd = &c.dims;
        out_seq = out_seq.wrapping_add(cd[3]);
        dims_if(cache_kv_out, &[cd[0], cd[1], cd[2], out_seq, cd[4]]);
    }
    let scores = [b, heads, s, out_seq];
    dims_if(qk_out, &scores);
    if src_mask.is_some() {
        dims_if(src_mask_out, &scores);
    }
    dims_if(attn_dropout_out, &scores);
    if !is_test {
        dims_if(attn_dropout_mask_out, &scores);
    }
    dims_if(softmax_out, &scores);
    dims_if(qktv_out, &[b, heads, s, head_dim]);
    dims_if(fmha_out, &[b, s, heads, head_dim]);
    dims_if(out_linear_out, &x.dims);
    if !is_test {
        dims_if(dropout_mask_out, &x.dims);
    }
    out.set(TensorMeta::new(x.dtype, &x.dims))
}

/// `(heads, head_dim, dim_embed)` of fused attention's `qkv_weight`, checked in the layout
/// `transpose_qkv_wb` selects.
fn attention_qkv_shape(
    qkv_weight: &TensorMeta,
    num_heads: i64,
    transpose_qkv_wb: bool,
    ring_id: i64,
) -> Result<(i64, i64, i64), InferMetaError> {
    if transpose_qkv_wb {
        transposed_qkv_shape(qkv_weight, num_heads, ring_id)
    } else {
        stacked_qkv_shape(qkv_weight, ring_id)
    }
}

/// The `[dim_embed, 3 dim_embed]` layout: heads come from `num_heads`, and with tensor
/// parallelism (`ring_id != -1`) the second dim holds one rank's share of the three projections.
fn transposed_qkv_shape(
    qkv_weight: &TensorMeta,
    num_heads: i64,
    ring_id: i64,
) -> Result<(i64, i64, i64), InferMetaError> {
    let y = &qkv_weight.dims;
    need_rank(qkv_weight, 2, "qkv_weight ([dim_embed, 3 * dim_embed])")?;
    ensure_meta!(
        num_heads > 0,
        "num_heads must be given and positive with transpose_qkv_wb, got {num_heads}"
    );
    ensure_meta!(
        y[0] % num_heads == 0,
        "qkv_weight's first dim {} must be divisible by num_heads {num_heads}",
        y[0]
    );
    let nranks = if ring_id == -1 {
        ensure_meta!(
            y[0].wrapping_mul(3) == y[1],
            "qkv_weight {} must be [dim_embed, 3 * dim_embed]",
            fmt_dims(y)
        );
        1
    } else {
        ensure_meta!(y[1] != 0, "qkv_weight {} has a 0 extent", fmt_dims(y));
        y[0].wrapping_mul(3) / y[1]
    };
    let per = num_heads.wrapping_mul(nranks);
    ensure_meta!(
        per != 0,
        "num_heads × nranks is 0 for qkv_weight {}",
        fmt_dims(y)
    );
    Ok((num_heads, y[0] / per, y[0]))
}

/// The `[3, heads, head_dim, dim_embed]` layout.
fn stacked_qkv_shape(
    qkv_weight: &TensorMeta,
    ring_id: i64,
) -> Result<(i64, i64, i64), InferMetaError> {
    let y = &qkv_weight.dims;
    need_rank(
        qkv_weight,
        4,
        "qkv_weight ([3, num_head, dim_head, dim_embed])",
    )?;
    ensure_meta!(
        y[0] == 3,
        "the first dim of qkv_weight {} must be 3",
        fmt_dims(y)
    );
    need_heads_fill_embed(ring_id, "qkv_weight", y, y[1], y[2], y[3])?;
    Ok((y[1], y[2], y[3]))
}

/// Without tensor parallelism (`ring_id == -1`) the heads of the qkv weight `w` must tile
/// the embedding exactly; a sharded weight holds only part of them.
fn need_heads_fill_embed(
    ring_id: i64,
    name: &str,
    w: &[i64],
    heads: i64,
    head_dim: i64,
    embed: i64,
) -> R {
    if ring_id == -1 {
        ensure_meta!(
            heads.wrapping_mul(head_dim) == embed,
            "{name} {} must satisfy num_head * dim_head == dim_embed",
            fmt_dims(w)
        );
    }
    Ok(())
}

/// Checks that `x` `[batch, seq, dim_embed]` and the qkv weight `w` agree on `dim_embed`.
fn need_same_embed(x: &TensorMeta, name: &str, w: &[i64], embed: i64) -> R {
    ensure_meta!(
        x.dims[2] == embed,
        "x {} and {name} {} must share dim_embed",
        fmt_dims(&x.dims),
        fmt_dims(w)
    );
    Ok(())
}

/// Checks a key/value cache `[2, batch, heads, cache_seq, head_dim]` against the attention it
/// feeds, as the fused attention family does; `seq_positive` adds the int8 op's
/// `cache_seq > 0`.
fn check_cache(
    c: &TensorMeta,
    name: &str,
    batch: i64,
    heads: i64,
    head_dim: i64,
    seq_positive: bool,
) -> R {
    need_rank(c, 5, name)?;
    let cd = &c.dims;
    ensure_meta!(
        cd[0] == 2,
        "the first dim of {name} {} must be 2",
        fmt_dims(cd)
    );
    ensure_meta!(
        cd[1] == batch,
        "the second dim of {name} {} must be the batch size {batch}",
        fmt_dims(cd)
    );
    ensure_meta!(
        cd[2] == heads,
        "the third dim of {name} {} must be the number of heads {heads}",
        fmt_dims(cd)
    );
    ensure_meta!(
        !seq_positive || cd[3] > 0,
        "the fourth dim of {name} {} must be greater than 0",
        fmt_dims(cd)
    );
    ensure_meta!(
        cd[4] == head_dim,
        "the fifth dim of {name} {} must be the head size {head_dim}",
        fmt_dims(cd)
    );
    Ok(())
}

/// Sets a layer norm's `[rows]` mean and variance and its output of `dims` (dims only).
fn set_layer_norm(mean: Output<'_>, var: Output<'_>, out: Output<'_>, rows: i64, dims: &[i64]) {
    dims_if(mean, &[rows]);
    dims_if(var, &[rows]);
    dims_if(out, dims);
}

/// `FusedAttentionGradInferMeta(...)`: out of test mode only; each gradient gets the dims
/// (only, as Paddle sets them) of the tensor it differentiates, for the layer-norm parameters
/// of the branch `pre_layer_norm` selects and for the optional tensors that are there.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_attention_grad_infer_meta(
    _out_grad: &TensorMeta,
    x: &TensorMeta,
    qkv_weight: &TensorMeta,
    qkv_bias: Option<&TensorMeta>,
    qkv_bias_out: Option<&TensorMeta>,
    _src_mask: Option<&TensorMeta>,
    src_mask_out: Option<&TensorMeta>,
    out_linear_weight: &TensorMeta,
    out_linear_bias: Option<&TensorMeta>,
    ln_scale: Option<&TensorMeta>,
    ln_bias: Option<&TensorMeta>,
    ln_scale_2: Option<&TensorMeta>,
    ln_bias_2: Option<&TensorMeta>,
    ln_out: Option<&TensorMeta>,
    _ln_mean: Option<&TensorMeta>,
    _ln_var: Option<&TensorMeta>,
    _ln_mean_2: Option<&TensorMeta>,
    _ln_var_2: Option<&TensorMeta>,
    bias_dropout_residual_out: Option<&TensorMeta>,
    qkv_out: &TensorMeta,
    transpose_out_2: &TensorMeta,
    qk_out: &TensorMeta,
    qktv_out: &TensorMeta,
    softmax_out: &TensorMeta,
    _attn_dropout_mask_out: &TensorMeta,
    attn_dropout_out: &TensorMeta,
    fmha_out: &TensorMeta,
    out_linear_out: &TensorMeta,
    _dropout_mask_out: &TensorMeta,
    _num_heads: i64,
    _transpose_qkv_wb: bool,
    pre_layer_norm: bool,
    _epsilon: f64,
    _attn_dropout_rate: f64,
    is_test: bool,
    _attn_dropout_fix_seed: bool,
    _attn_dropout_seed: i64,
    _attn_dropout_implementation: &str,
    _dropout_rate: f64,
    _dropout_fix_seed: bool,
    _dropout_seed: i64,
    _dropout_implementation: &str,
    _ln_epsilon: f64,
    _add_residual: bool,
    _ring_id: i64,
    qkv_bias_grad: Output<'_>,
    qkv_bias_out_grad: Output<'_>,
    src_mask_out_grad: Output<'_>,
    out_linear_bias_grad: Output<'_>,
    ln_scale_grad: Output<'_>,
    ln_bias_grad: Output<'_>,
    ln_scale_2_grad: Output<'_>,
    ln_bias_2_grad: Output<'_>,
    x_grad: Output<'_>,
    qkv_weight_grad: Output<'_>,
    out_linear_weight_grad: Output<'_>,
    ln_out_grad: Output<'_>,
    bias_dropout_residual_out_grad: Output<'_>,
    qkv_out_grad: Output<'_>,
    qktv_out_grad: Output<'_>,
    transpose_out_2_grad: Output<'_>,
    qk_out_grad: Output<'_>,
    softmax_out_grad: Output<'_>,
    attn_dropout_out_grad: Output<'_>,
    fmha_out_grad: Output<'_>,
    out_linear_out_grad: Output<'_>,
) -> R {
    ensure_meta!(
        !is_test,
        "the grad op is only callable when is_test is false"
    );
    if pre_layer_norm {
        if ln_scale.is_some() {
            dims_of(ln_scale_grad, ln_scale);
            dims_of(ln_bias_grad, ln_bias);
        }
        dims_of(ln_out_grad, ln_out);
    } else {
        dims_of(ln_scale_2_grad, ln_scale_2);
        dims_of(ln_bias_2_grad, ln_bias_2);
        dims_of(bias_dropout_residual_out_grad, bias_dropout_residual_out);
    }
    dims_if(x_grad, &x.dims);
    dims_of(out_linear_bias_grad, out_linear_bias);
    dims_if(out_linear_weight_grad, &out_linear_weight.dims);
    dims_if(qkv_weight_grad, &qkv_weight.dims);
    dims_of(qkv_bias_grad, qkv_bias);
    dims_if(fmha_out_grad, &fmha_out.dims);
    dims_if(qktv_out_grad, &qktv_out.dims);
    dims_if(transpose_out_2_grad, &transpose_out_2.dims);
    dims_if(qk_out_grad, &qk_out.dims);
    dims_if(softmax_out_grad, &softmax_out.dims);
    dims_if(attn_dropout_out_grad, &attn_dropout_out.dims);
    dims_of(src_mask_out_grad, src_mask_out);
    dims_if(qkv_out_grad, &qkv_out.dims);
    dims_of(qkv_bias_out_grad, qkv_bias_out);
    dims_if(out_linear_out_grad, &out_linear_out.dims);
    Ok(())
}

/// `FusedBiasDropoutResidualLnGradInferMeta(...)`: out of test mode only; each gradient gets
/// the dims of the tensor it differentiates and `y_grad`'s dtype.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_bias_dropout_residual_ln_grad_infer_meta(
    x: &TensorMeta,
    residual: &TensorMeta,
    bias: Option<&TensorMeta>,
    ln_scale: Option<&TensorMeta>,
    ln_bias: Option<&TensorMeta>,
    _ln_mean: &TensorMeta,
    _ln_variance: &TensorMeta,
    _bias_dropout_residual_out: &TensorMeta,
    _dropout_mask_out: &TensorMeta,
    y_grad: &TensorMeta,
    _dropout_rate: f64,
    is_test: bool,
    _dropout_fix_seed: bool,
    _dropout_seed: i64,
    _dropout_implementation: &str,
    _ln_epsilon: f64,
    x_grad: Output<'_>,
    residual_grad: Output<'_>,
    bias_grad: Output<'_>,
    ln_scale_grad: Output<'_>,
    ln_bias_grad: Output<'_>,
) -> R {
    ensure_meta!(
        !is_test,
        "the grad op is only callable when is_test is false"
    );
    let like = |out: Output<'_>, t: Option<&TensorMeta>| {
        if let Some(t) = t {
            out.set_if_present(TensorMeta::new(y_grad.dtype, &t.dims));
        }
    };
    like(ln_scale_grad, ln_scale);
    like(ln_bias_grad, ln_bias);
    like(residual_grad, Some(residual));
    like(bias_grad, bias);
    like(x_grad, Some(x));
    Ok(())
}

/// `FusedDotProductAttentionGradInferMeta(q, k, v, bias)`: the gradients share the metadata
/// of `q`, `k`, `v` and (when given) `bias`.
#[infer_meta]
pub fn fused_dot_product_attention_grad_infer_meta(
    q: &TensorMeta,
    k: &TensorMeta,
    v: &TensorMeta,
    bias: Option<&TensorMeta>,
    q_grad: Output<'_>,
    k_grad: Output<'_>,
    v_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    q_grad.share(q)?;
    k_grad.share(k)?;
    v_grad.share(v)?;
    if let (Some(b), true) = (bias, bias_grad.is_present()) {
        bias_grad.share(b)?;
    }
    Ok(())
}

/// `FusedFeedForwardInferMeta(...)`: `x` viewed as a matrix must be wider than 1; `out` is
/// `x` (dims, dtype, LoD); `linear1_out`, `dropout1_out` (and `dropout1_mask` in training) are
/// `x` with its last dim replaced by `linear1_weight`'s last; `dropout2_out` (and
/// `dropout2_mask` in training) are `x`'s dims; the layer-norm statistics of the selected
/// branch are `[rows]` (dims only, as Paddle sets them).
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_feed_forward_infer_meta(
    x: &TensorMeta,
    _dropout1_seed: Option<&TensorMeta>,
    _dropout2_seed: Option<&TensorMeta>,
    linear1_weight: &TensorMeta,
    _linear1_bias: Option<&TensorMeta>,
    _linear2_weight: &TensorMeta,
    _linear2_bias: Option<&TensorMeta>,
    _ln1_scale: Option<&TensorMeta>,
    _ln1_bias: Option<&TensorMeta>,
    _ln2_scale: Option<&TensorMeta>,
    _ln2_bias: Option<&TensorMeta>,
    pre_layer_norm: bool,
    _ln1_epsilon: f64,
    _ln2_epsilon: f64,
    _act_method: &str,
    _dropout1_prob: f64,
    _dropout2_prob: f64,
    _dropout1_implementation: &str,
    _dropout2_implementation: &str,
    is_test: bool,
    _dropout1_fix_seed: bool,
    _dropout2_fix_seed: bool,
    _dropout1_seed_val: i64,
    _dropout2_seed_val: i64,
    _add_residual: bool,
    _ring_id: i64,
    out: Output<'_>,
    dropout1_mask: Output<'_>,
    dropout2_mask: Output<'_>,
    ln1_mean: Output<'_>,
    ln1_variance: Output<'_>,
    ln2_mean: Output<'_>,
    ln2_variance: Output<'_>,
    linear1_out: Output<'_>,
    ln1_out: Output<'_>,
    dropout1_out: Output<'_>,
    dropout2_out: Output<'_>,
) -> R {
    ensure_meta!(x.rank() >= 1, "x must have at least one dimension");
    // Paddle's CreateMatrixDescriptor of a rank ≥ 2 x: rows = product of all but the last dim.
    let (rows, width) = if x.rank() == 1 {
        (1, x.dims[0])
    } else {
        let r = x.rank();
        (super::common::product(&x.dims[..r - 1]), x.dims[r - 1])
    };
    ensure_meta!(
        !(0..=1).contains(&width),
        "the product from x's shape[1] to shape[n-1] must be larger than 1, x is {}",
        fmt_dims(&x.dims)
    );
    let w = &linear1_weight.dims;
    ensure_meta!(
        !w.is_empty(),
        "linear1_weight must have at least one dimension"
    );
    let mut hidden = x.dims.to_vec();
    *hidden.last_mut().expect("rank checked") = w[w.len() - 1];
    if !is_test {
        dims_if(dropout1_mask, &hidden);
    }
    dims_if(dropout1_out, &hidden);
    dims_if(linear1_out, &hidden);
    dims_if(dropout2_out, &x.dims);
    if !is_test {
        dims_if(dropout2_mask, &x.dims);
    }
    if pre_layer_norm {
        dims_if(ln1_out, &x.dims);
        dims_if(ln1_mean, &[rows]);
        dims_if(ln1_variance, &[rows]);
    } else {
        dims_if(ln2_mean, &[rows]);
        dims_if(ln2_variance, &[rows]);
    }
    out.set(super::common::dims_dtype_lod_of(x))
}

/// `FusedFeedForwardGradInferMeta(...)`: `x_grad` gets `out_grad`'s dims; the weight
/// gradients their weight's dims; the bias and layer-norm gradients their tensor's dims when
/// it is given (dims only, as Paddle sets them).
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_feed_forward_grad_infer_meta(
    out_grad: &TensorMeta,
    _x: &TensorMeta,
    linear1_weight: &TensorMeta,
    linear1_bias: Option<&TensorMeta>,
    linear2_weight: &TensorMeta,
    _dropout1_mask: &TensorMeta,
    _dropout2_mask: &TensorMeta,
    _linear1_out: &TensorMeta,
    _dropout1_out: &TensorMeta,
    _dropout2_out: Option<&TensorMeta>,
    ln1_scale: Option<&TensorMeta>,
    ln1_bias: Option<&TensorMeta>,
    _ln1_out: Option<&TensorMeta>,
    _ln1_mean: Option<&TensorMeta>,
    _ln1_variance: Option<&TensorMeta>,
    ln2_scale: Option<&TensorMeta>,
    ln2_bias: Option<&TensorMeta>,
    _ln2_mean: Option<&TensorMeta>,
    _ln2_variance: Option<&TensorMeta>,
    linear2_bias: Option<&TensorMeta>,
    _pre_layer_norm: bool,
    _ln1_epsilon: f64,
    _ln2_epsilon: f64,
    _act_method: &str,
    _dropout1_prob: f64,
    _dropout2_prob: f64,
    _dropout1_implementation: &str,
    _dropout2_implementation: &str,
    _is_test: bool,
    _dropout1_fix_seed: bool,
    _dropout2_fix_seed: bool,
    _dropout1_seed_val: i64,
    _dropout2_seed_val: i64,
    _add_residual: bool,
    _ring_id: i64,
    x_grad: Output<'_>,
    linear1_weight_grad: Output<'_>,
    linear1_bias_grad: Output<'_>,
    linear2_weight_grad: Output<'_>,
    linear2_bias_grad: Output<'_>,
    ln1_scale_grad: Output<'_>,
    ln1_bias_grad: Output<'_>,
    ln2_scale_grad: Output<'_>,
    ln2_bias_grad: Output<'_>,
) -> R {
    x_grad.set(dims_only(&out_grad.dims))?;
    dims_of(ln1_scale_grad, ln1_scale);
    dims_of(ln1_bias_grad, ln1_bias);
    dims_of(ln2_scale_grad, ln2_scale);
    dims_of(ln2_bias_grad, ln2_bias);
    linear1_weight_grad.set(dims_only(&linear1_weight.dims))?;
    dims_of(linear1_bias_grad, linear1_bias);
    linear2_weight_grad.set(dims_only(&linear2_weight.dims))?;
    dims_of(linear2_bias_grad, linear2_bias);
    Ok(())
}

/// `FusedSeqpoolCvmGradInferMeta(x, cvm, out_grad, pooltype, pad_value, use_cvm,
/// cvm_offset)`: `cvm` is 2-D; each `out_grad[i]` has `x[i]`'s rank and last dim (less
/// `cvm_offset` without `use_cvm`); `x_grad[i]` takes `x[i]`'s dims, dtype and LoD; `cvm_grad`
/// stays unset, as Paddle leaves it.
#[infer_meta]
pub fn fused_seqpool_cvm_grad_infer_meta(
    x: &[TensorMeta],
    cvm: &TensorMeta,
    out_grad: &[TensorMeta],
    _pooltype: &str,
    _pad_value: f64,
    use_cvm: bool,
    cvm_offset: i64,
    x_grad: OutputList<'_>,
    _cvm_grad: Output<'_>,
) -> R {
    need_rank(cvm, 2, "cvm")?;
    ensure_meta!(
        out_grad.len() <= x.len(),
        "out_grad holds {} tensors but x only {}",
        out_grad.len(),
        x.len()
    );
    for (i, (og, xi)) in out_grad.iter().zip(x).enumerate() {
        ensure_meta!(
            og.rank() == xi.rank() && og.rank() > 0,
            "out_grad[{i}] {} must have the rank of x[{i}] {}",
            fmt_dims(&og.dims),
            fmt_dims(&xi.dims)
        );
        let last = og.rank() - 1;
        let want = if use_cvm {
            xi.dims[last]
        } else {
            xi.dims[last].wrapping_sub(cvm_offset)
        };
        ensure_meta!(
            og.dims[last] == want,
            "out_grad[{i}] {} does not match x[{i}] {} (use_cvm {use_cvm}, cvm_offset {cvm_offset})",
            fmt_dims(&og.dims),
            fmt_dims(&xi.dims)
        );
    }
    x_grad.set(x.iter().map(super::common::dims_dtype_lod_of).collect())
}

/// Whether `functor_list` (two names) lets `x` be absent: one of them is
/// `elementwise_add_grad` (Paddle's `funcs::InputXCanBeAbsent`).
fn input_x_can_be_absent(
    functor_list: &[std::borrow::Cow<'_, str>],
) -> Result<bool, InferMetaError> {
    ensure_meta!(
        functor_list.len() == 2,
        "invalid functor list size {}, which should be equal to 2",
        functor_list.len()
    );
    Ok(functor_list.iter().any(|f| f == "elementwise_add_grad"))
}

/// `FusedElemwiseActivationGradInferMeta(x, y, out, intermediate_out, out_grad, functor_list,
/// axis, scale, save_intermediate_out)`: `x_grad` takes `x`'s dims, dtype and LoD, or, when
/// `x` is absent (allowed only with `elementwise_add_grad` in `functor_list`), `out_grad`'s;
/// `y_grad` takes `y`'s.
#[infer_meta]
pub fn fused_elemwise_activation_grad_infer_meta(
    x: Option<&TensorMeta>,
    y: &TensorMeta,
    _out: &TensorMeta,
    intermediate_out: Option<&TensorMeta>,
    out_grad: &TensorMeta,
    functor_list: &[std::borrow::Cow<'_, str>],
    _axis: i64,
    _scale: f64,
    save_intermediate_out: bool,
    x_grad: Output<'_>,
    y_grad: Output<'_>,
) -> R {
    let x_optional = input_x_can_be_absent(functor_list)?;
    if save_intermediate_out {
        ensure_meta!(
            intermediate_out.is_some(),
            "intermediate_out must be given with save_intermediate_out"
        );
    } else {
        ensure_meta!(x.is_some() || x_optional, "x must be given");
    }
    if x_grad.is_present() {
        match x {
            Some(x) => x_grad.set(super::common::dims_dtype_lod_of(x))?,
            None => {
                ensure_meta!(
                    x_optional,
                    "only when the binary functor is elementwise_add can x be absent"
                );
                x_grad.set(super::common::dims_dtype_lod_of(out_grad))?;
            }
        }
    }
    y_grad.set_if_present(super::common::dims_dtype_lod_of(y));
    Ok(())
}

/// `MoeInferMeta(x, gate, bmm0, bias0, bmm1, bias1, act_type)`: `out` has `x`'s dims, dtype,
/// layout and LoD. (Paddle's body is not in the reference store; the rule is that of its
/// sibling `FusedMoeInferMeta`: the mixture of experts keeps the token tensor's shape.)
#[infer_meta]
pub fn moe_infer_meta(
    x: &TensorMeta,
    _gate: &TensorMeta,
    _bmm0: &TensorMeta,
    _bias0: &TensorMeta,
    _bmm1: &TensorMeta,
    _bias1: &TensorMeta,
    _act_type: &str,
    out: Output<'_>,
) -> R {
    out.set(super::common::share_meta(x))
}

/// `FusedMultiTransformerInt8InferMeta(x, ln_scale, ln_bias, qkv_w, qkv_bias, cache_kv,
/// time_step, src_mask, out_linear_w, out_linear_bias, ffn_ln_scale, ffn_ln_bias, ffn1_weight,
/// ffn1_bias, ffn2_weight, ffn2_bias, qkv_out_scale, out_linear_out_scale, ffn1_out_scale,
/// ffn2_out_scale, pre_layer_norm, epsilon, dropout_rate, is_test, dropout_implementation,
/// act_method, trans_qkvw, ring_id, num_head, dim_head, dim_ffn, qkv_in_scale,
/// out_linear_in_scale, ffn1_in_scale, ffn2_in_scale, quant_round_type, quant_max_bound,
/// quant_min_bound)`: `x` is `[batch, seq, embed]`, `qkv_w[0]` `[3, heads, head_dim, embed]`
/// (`[embed, 3, heads, head_dim]` without `trans_qkvw`) with `heads × head_dim = embed` when
/// `ring_id` is -1; a cache is `[2, batch, heads, cache_seq > 0, head_dim]`. `out` takes `x`'s
/// dims and dtype; `cache_kv_out` stays unset.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_multi_transformer_int8_infer_meta(
    x: &TensorMeta,
    _ln_scale: &[TensorMeta],
    _ln_bias: &[TensorMeta],
    qkv_w: &[TensorMeta],
    _qkv_bias: Option<&[TensorMeta]>,
    cache_kv: Option<&[TensorMeta]>,
    _time_step: Option<&TensorMeta>,
    _src_mask: Option<&TensorMeta>,
    _out_linear_w: &[TensorMeta],
    _out_linear_bias: Option<&[TensorMeta]>,
    _ffn_ln_scale: &[TensorMeta],
    _ffn_ln_bias: &[TensorMeta],
    _ffn1_weight: &[TensorMeta],
    _ffn1_bias: Option<&[TensorMeta]>,
    _ffn2_weight: &[TensorMeta],
    _ffn2_bias: Option<&[TensorMeta]>,
    _qkv_out_scale: Option<&[TensorMeta]>,
    _out_linear_out_scale: Option<&[TensorMeta]>,
    _ffn1_out_scale: Option<&[TensorMeta]>,
    _ffn2_out_scale: Option<&[TensorMeta]>,
    _pre_layer_norm: bool,
    _epsilon: f64,
    _dropout_rate: f64,
    _is_test: bool,
    _dropout_implementation: &str,
    _act_method: &str,
    trans_qkvw: bool,
    ring_id: i64,
    _num_head: i64,
    _dim_head: i64,
    _dim_ffn: i64,
    _qkv_in_scale: &[f64],
    _out_linear_in_scale: &[f64],
    _ffn1_in_scale: &[f64],
    _ffn2_in_scale: &[f64],
    _quant_round_type: i64,
    _quant_max_bound: f64,
    _quant_min_bound: f64,
    _cache_kv_out: OutputList<'_>,
    out: Output<'_>,
) -> R {
    need_rank(x, 3, "x ([batch_size, seq_len, dim_embed])")?;
    let y = qkv_w
        .first()
        .ok_or_else(|| InferMetaError::new("qkv_w is empty: one weight per layer"))?;
    need_rank(y, 4, "qkv_w[0]")?;
    let yd = &y.dims;
    // `[3, heads, head_dim, embed]`, or `[embed, 3, heads, head_dim]` without `trans_qkvw`.
    let (heads, head_dim, embed) = if trans_qkvw {
        (yd[1], yd[2], yd[3])
    } else {
        (yd[2], yd[3], yd[0])
    };
    need_same_embed(x, "qkv_w[0]", yd, embed)?;
    need_heads_fill_embed(ring_id, "qkv_w[0]", yd, heads, head_dim, embed)?;
    if let Some(c) = cache_kv.and_then(|c| c.first()) {
        check_cache(c, "cache_kv[0]", x.dims[0], heads, head_dim, true)?;
    }
    out.set(TensorMeta::new(x.dtype, &x.dims))
}

/// `FusedLayerNormInferMeta(x, bias, residual, norm_weight, norm_bias, epsilon, residual_alpha,
/// begin_norm_axis, quant_scale, quant_round_type, quant_max_bound, quant_min_bound)` (op
/// `fused_bias_residual_layernorm`, Paddle's `multiary.cc`). `out` and `residual_out` get `x`'s
/// dims and layout; `mean` and `variance` are float32 of dims `[rows]`, `rows` being the
/// product of `x`'s extents before `begin_norm_axis` taken in 32-bit arithmetic as Paddle does
/// (a `-1` extent enters the product, so `-1x8` gives `[-1]`; a non-positive axis gives `[1]`).
/// `residual_out` is `x`'s dtype. `out` is too, except when a weight or bias is given and
/// `quant_scale > 0`: then a `quant_max_bound` of 127 gives int8, 448 float8_e4m3fn, and any
/// other bound leaves the dtype unset. The weight size check is a run-time one in Paddle and
/// is not made here. An axis past `x`'s rank, whose extents Paddle would read out of bounds,
/// is refused.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_layer_norm_infer_meta(
    x: &TensorMeta,
    _bias: Option<&TensorMeta>,
    _residual: Option<&TensorMeta>,
    norm_weight: Option<&TensorMeta>,
    norm_bias: Option<&TensorMeta>,
    _epsilon: f32,
    _residual_alpha: f32,
    begin_norm_axis: i64,
    quant_scale: f32,
    _quant_round_type: i64,
    quant_max_bound: f32,
    _quant_min_bound: f32,
    out: Output<'_>,
    residual_out: Output<'_>,
    mean: Output<'_>,
    variance: Output<'_>,
) -> R {
    let rank = x.rank() as i64;
    ensure_meta!(
        begin_norm_axis <= rank,
        "begin_norm_axis {begin_norm_axis} is past the rank {rank} of x {}",
        fmt_dims(&x.dims)
    );
    // Paddle counts rows in an int32, -1 extents included.
    let lead = usize::try_from(begin_norm_axis).unwrap_or(0);
    let rows = x.dims[..lead]
        .iter()
        .fold(1i32, |r, &d| r.wrapping_mul(d as i32));
    let out_meta = MetaBuilder::new().dims(&x.dims).layout(x.layout);
    // Without a weight or bias (the residual-add-only form) `out` is never quantized.
    let unquantized = residual_out.is_present() && norm_weight.is_none() && norm_bias.is_none();
    let out_meta = match quantized_dtype(quant_scale, quant_max_bound) {
        Some(Some(t)) if !unquantized => out_meta.dtype(t),
        Some(None) if !unquantized => out_meta,
        _ => out_meta.dtype(x.dtype),
    };
    out.set(out_meta.build())?;
    let like_x = MetaBuilder::new()
        .dims(&x.dims)
        .dtype(x.dtype)
        .layout(x.layout);
    residual_out.set_if_present(like_x.build());
    let stat = MetaBuilder::new()
        .dims(&[i64::from(rows)])
        .dtype(DataType::Float32)
        .layout(x.layout)
        .build();
    mean.set(stat.clone())?;
    variance.set(stat)
}

/// The dtype of a quantized `out`: `None` when not quantizing (`quant_scale <= 0`), else the
/// type `quant_max_bound` selects (127: int8, 448: float8_e4m3fn; others: `Some(None)`, unset).
fn quantized_dtype(quant_scale: f32, quant_max_bound: f32) -> Option<Option<DataType>> {
    if quant_scale <= 0.0 {
        return None;
    }
    let near = |b: f32| (quant_max_bound - b).abs() < 0.000_001;
    Some(if near(127.0) {
        Some(DataType::Int8)
    } else if near(448.0) {
        Some(DataType::Float8E4M3FN)
    } else {
        None
    })
}
