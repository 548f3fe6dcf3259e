//! Infer-meta functions of fused ops, after Paddle's `paddle/phi/infermeta/fusion.cc` (and
//! the fused functions Paddle keeps in `multiary.cc` / `backward.cc` for the ops of
//! `fused_backward.yaml` and `inconsistent/static_*.yaml`).

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, Output, OutputList, TensorMeta};

use super::common::{dims_only, fmt_dims, need_rank};

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
    ensure_meta!(
        x.dims[2] == embed,
        "x {} and qkv_weights[0] {} must share dim_embed",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    if let Some(c) = cache_kvs.and_then(|c| c.first()) {
        need_rank(c, 5, "cache_kvs[0]")?;
        ensure_meta!(
            c.dims[0] == 2,
            "the first dim of cache_kvs[0] {} must be 2",
            fmt_dims(&c.dims)
        );
        ensure_meta!(
            c.dims[1] == x.dims[0],
            "the second dim of cache_kvs[0] {} must be the batch size {}",
            fmt_dims(&c.dims),
            x.dims[0]
        );
        let (heads, head_dim) = match (gqa, trans_qkvw) {
            (true, t) => (gqa_group_size, if t { y.dims[1] } else { y.dims[2] }),
            (false, true) => (y.dims[1], y.dims[2]),
            (false, false) => (y.dims[2], y.dims[3]),
        };
        ensure_meta!(
            c.dims[2] == heads,
            "the third dim of cache_kvs[0] {} must be the number of heads {heads}",
            fmt_dims(&c.dims)
        );
        ensure_meta!(
            c.dims[4] == head_dim,
            "the fifth dim of cache_kvs[0] {} must be the head size {head_dim}",
            fmt_dims(&c.dims)
        );
    }
    out.set(dims_only(&x.dims))
}
