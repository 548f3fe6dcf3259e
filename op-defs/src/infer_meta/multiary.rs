//! Infer-meta functions of many inputs (tensor lists, optimizers, normalisations, recurrent
//! nets), after Paddle's `paddle/phi/infermeta/multiary.cc`.
//!
//! Optimizer outputs follow Paddle's setters exactly: an output Paddle only gives dims to keeps the
//! fresh tensor's float32 dtype, and `master_param_out` is set only when Paddle sets it (the master
//! parameter is present and, where Paddle asks for it, `multi_precision` is on).

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaCtx, InferMetaError, TensorMeta};
use pir_runtime::phi::DataType;

use super::common::{
    add, broadcast, concat_dims, dim_at, dims_dtype_lod_of, dims_dtype_of, div, err, fmt_dims,
    has_unknown, int_array, ints, layout_is_nchw, mp_dtype, mul, need_one_element, need_rank,
    need_rank_ge, need_same_dims, product, rem, set_opt, share_meta, str_arg, sub,
    with_dtype_lod_of, with_dtype_of, MetaBuilder, Res,
};

type R = Result<(), InferMetaError>;

// ---------------------------------------------------------------------------------------------
// Tensor lists
// ---------------------------------------------------------------------------------------------

fn first<'a>(xs: &'a [TensorMeta], what: &str) -> Res<&'a TensorMeta> {
    xs.first()
        .ok_or_else(|| err(format!("{what} is empty: at least one tensor is needed")))
}

/// `ConcatInferMeta(x, axis)`: concatenation along `axis`; unknown extents on the axis give -1,
/// other dims must agree where both are known. An `axis` from a tensor gives all `-1`.
#[infer_meta]
pub fn concat_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    let x0 = first(xs, "x")?;
    let axis = ctx.scalar(1)?;
    let base = MetaBuilder::new().dtype(x0.dtype).layout(x0.layout).lod(x0);
    let axis = match axis {
        None => {
            let d = vec![-1; x0.rank()];
            return ctx.set_output(0, base.dims(&d).build());
        }
        Some(a) => a.to_i64(),
    };
    let rank = x0.rank() as i64;
    ensure_meta!(
        axis >= -rank && axis < rank,
        "concat axis {axis} is out of range [{}, {rank}) for inputs of rank {rank}",
        -rank
    );
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    let dims: Vec<&[i64]> = xs.iter().map(|t| &t.dims[..]).collect();
    let d = concat_dims(&dims, Some(axis))?;
    ctx.set_output(0, base.dims(&d).build())
}

/// `StackInferMeta(x, axis)`: inserts a new axis of size `len(x)` at `axis` (in
/// `[-(rank+1), rank]`); all inputs must agree where extents are known.
#[infer_meta]
pub fn stack_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    let x0 = first(xs, "x")?;
    let axis = ctx.int(1)?;
    let dims: Vec<&[i64]> = xs.iter().map(|t| &t.dims[..]).collect();
    let mut d = concat_dims(&dims, None)?;
    let rank = x0.rank() as i64;
    ensure_meta!(
        axis >= -(rank + 1) && axis < rank + 1,
        "stack axis {axis} is out of range [{}, {}) for inputs of rank {rank}",
        -(rank + 1),
        rank + 1
    );
    let axis = if axis < 0 { axis + rank + 1 } else { axis } as usize;
    d.insert(axis, xs.len() as i64);
    ctx.set_output(0, with_dtype_lod_of(x0, &d))
}

/// `UnchangedMultiInferMeta(x)`: each output shares the metadata of the input at its position.
#[infer_meta]
pub fn unchanged_multi_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    ctx.set_outputs(0, xs.iter().map(share_meta).collect())
}

/// `MeshgridInferMeta(inputs)`: every output has dims `[len(in_0), len(in_1), ...]` (a 0-D input
/// counts 1) and the first input's dtype.
#[infer_meta]
pub fn meshgrid_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    let x0 = first(xs, "inputs")?;
    let shape: Vec<i64> = xs
        .iter()
        .map(|t| t.dims.first().copied().unwrap_or(1))
        .collect();
    let outs = xs.iter().map(|_| with_dtype_of(x0, &shape)).collect();
    ctx.set_outputs(0, outs)
}

/// `BroadcastTensorsInferMeta(input)`: every output gets the common broadcast shape (a -1
/// extent yields to a known one) with its own input's dtype and LoD.
#[infer_meta]
pub fn broadcast_tensors_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    let rank = xs.iter().map(|t| t.rank()).max().unwrap_or(0);
    let mut target = vec![0i64; rank];
    for index in 0..rank {
        let mut t = 1i64;
        for x in xs {
            let r = x.rank();
            let mut s = if index < r { x.dims[r - index - 1] } else { 1 };
            if t != 1 && s != 1 && t != s {
                if s == -1 {
                    s = t;
                } else if t == -1 {
                    t = s;
                    continue;
                } else {
                    return Err(err(format!(
                        "broadcast_tensors inputs do not broadcast: extent {s} vs {t} at \
                         dimension {index} counted from the end"
                    )));
                }
            }
            if s != 1 {
                t = s;
            }
        }
        target[rank - index - 1] = t;
    }
    let outs = xs.iter().map(|x| with_dtype_lod_of(x, &target)).collect();
    ctx.set_outputs(0, outs)
}

/// `AddNInferMeta(x)`: the common shape of the non-0-D inputs (unknown extents are lenient), the
/// first input's dtype and LoD; all 0-D inputs give a 0-D output.
#[infer_meta]
pub fn add_n_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    let x0 = first(xs, "x")?;
    let mut in_dim: Option<Vec<i64>> = None;
    for (i, x) in xs.iter().enumerate() {
        if x.rank() == 0 {
            continue;
        }
        match &mut in_dim {
            None => in_dim = Some(x.dims.to_vec()),
            Some(d) if product(d) == 0 => *d = x.dims.to_vec(),
            Some(d) => {
                ensure_meta!(
                    d.len() == x.rank(),
                    "add_n inputs need the same rank: x[0] is {} but x[{i}] is {}",
                    fmt_dims(d),
                    fmt_dims(&x.dims)
                );
                for j in 0..d.len() {
                    if x.dims[j] == -1 || d[j] == -1 {
                        continue;
                    }
                    ensure_meta!(
                        d[j] == x.dims[j],
                        "add_n inputs need the same shape: x[0] is {} but x[{i}] is {}",
                        fmt_dims(d),
                        fmt_dims(&x.dims)
                    );
                }
            }
        }
    }
    let d = in_dim.unwrap_or_default();
    ctx.set_output(0, with_dtype_lod_of(x0, &d))
}

/// `MultiDotInferMeta(x)`: the chained matrix product of 1-D/2-D ends and 2-D middles.
#[infer_meta]
pub fn multi_dot_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    ensure_meta!(
        xs.len() > 1,
        "multi_dot needs more than one input, got {}",
        xs.len()
    );
    let n = xs.len();
    let mut first_dim = xs[0].dims.to_vec();
    ensure_meta!(
        first_dim.len() < 3,
        "multi_dot: the first input must be 1-D or 2-D, got {}",
        fmt_dims(&first_dim)
    );
    let mut is_vector = false;
    if first_dim.len() == 1 {
        first_dim = vec![1, first_dim[0]];
        is_vector = true;
    }
    ensure_meta!(
        !first_dim.is_empty(),
        "multi_dot: the first input must be 1-D or 2-D, got a 0-D tensor"
    );
    let mut last_dim = xs[n - 1].dims.to_vec();
    ensure_meta!(
        !last_dim.is_empty() && last_dim.len() < 3,
        "multi_dot: the last input must be 1-D or 2-D, got {}",
        fmt_dims(&last_dim)
    );
    let out: Vec<i64> = if last_dim.len() == 1 {
        last_dim = vec![last_dim[0], 1];
        if is_vector {
            vec![]
        } else {
            vec![first_dim[0]]
        }
    } else if is_vector {
        vec![last_dim[1]]
    } else {
        vec![first_dim[0], last_dim[1]]
    };
    let mut width = first_dim[1];
    for (i, t) in xs.iter().enumerate().take(n - 1).skip(1) {
        ensure_meta!(
            t.rank() == 2,
            "multi_dot: input {i} must be 2-D, got {}",
            fmt_dims(&t.dims)
        );
        ensure_meta!(
            t.dims[0] == width,
            "multi_dot: input {i} {} has {} rows but the product so far has {width} columns",
            fmt_dims(&t.dims),
            t.dims[0]
        );
        width = t.dims[1];
    }
    ensure_meta!(
        last_dim[0] == width,
        "multi_dot: the last input has {} rows but the product so far has {width} columns",
        last_dim[0]
    );
    ctx.set_output(0, with_dtype_lod_of(&xs[0], &out))
}

/// `MultiplexInferMeta(inputs, index)`: the candidates' shape with dim 0 from `index` (`[N, 1]`).
#[infer_meta]
pub fn multiplex_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let ins = ctx.tensors(0)?;
    let ids = ctx.tensor(1)?;
    ensure_meta!(!ins.is_empty(), "multiplex needs candidate inputs");
    need_rank(ids, 2, "index")?;
    ensure_meta!(
        ids.dims[1] == 1,
        "index must have shape [batch, 1], got {}",
        fmt_dims(&ids.dims)
    );
    ensure_meta!(
        ins.len() > 1,
        "multiplex needs more than one candidate input, got {}",
        ins.len()
    );
    let mut d = ins[0].dims.to_vec();
    ensure_meta!(
        d.len() >= 2,
        "multiplex candidates must have rank ≥ 2, got {}",
        fmt_dims(&d)
    );
    for (i, t) in ins.iter().enumerate().skip(1) {
        ensure_meta!(
            t.dims[..] == d[..],
            "all multiplex candidates must have the same shape: inputs[0] is {} but inputs[{i}] \
             is {}",
            fmt_dims(&d),
            fmt_dims(&t.dims)
        );
    }
    ensure_meta!(
        d[0] >= ids.dims[0],
        "candidate dim 0 ({}) is smaller than the batch size of index ({})",
        d[0],
        ids.dims[0]
    );
    d[0] = ids.dims[0];
    ctx.set_output(0, with_dtype_of(&ins[0], &d))
}

/// `WhereInferMeta(condition, x, y)`: `out` shares `x`'s metadata; the three ranks must agree
/// and so must known, non-zero extents.
#[infer_meta]
pub fn where_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let c = ctx.tensor(0)?;
    let x = ctx.tensor(1)?;
    let y = ctx.tensor(2)?;
    let pair = |a: &TensorMeta, b: &TensorMeta, na: &str, nb: &str| -> R {
        ensure_meta!(
            a.rank() == b.rank(),
            "{na} {} and {nb} {} must have the same rank",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        );
        for i in 0..a.rank() {
            let (p, q) = (a.dims[i], b.dims[i]);
            if p == -1 || q == -1 || p == 0 || q == 0 {
                continue;
            }
            ensure_meta!(
                p == q,
                "dimension {i} of {na} {} and {nb} {} differ ({p} vs {q})",
                fmt_dims(&a.dims),
                fmt_dims(&b.dims)
            );
        }
        Ok(())
    };
    pair(c, x, "condition", "x")?;
    pair(x, y, "x", "y")?;
    ctx.set_output(0, share_meta(x))
}

/// `IndexPutInferMeta(x, indices, value, accumulate)`: `out` shares `x`'s metadata (rank < 7).
#[infer_meta]
pub fn index_put_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    ensure_meta!(
        x.rank() < 7,
        "index_put supports x of rank below 7, got {}",
        fmt_dims(&x.dims)
    );
    ctx.set_output(0, share_meta(x))
}

/// `CheckFiniteAndUnscaleInferMeta(x, scale)`: each output copies its input's dims and dtype;
/// `found_infinite` is bool `[1]`.
#[infer_meta]
pub fn check_finite_and_unscale_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    ctx.set_outputs(0, xs.iter().map(dims_dtype_of).collect())?;
    ctx.set_output(
        1,
        MetaBuilder::new().dims(&[1]).dtype(DataType::Bool).build(),
    )
}

/// `UpdateLossScalingInferMeta(x, found_infinite, prev_loss_scaling, in_good_steps,
/// in_bad_steps)`: outputs copy the inputs' dims and dtypes; `loss_scaling` gets dims `[1]`, the
/// step counters int32 `[1]`.
#[infer_meta]
pub fn update_loss_scaling_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    ctx.set_outputs(0, xs.iter().map(dims_dtype_of).collect())?;
    ctx.set_output(1, MetaBuilder::new().dims(&[1]).build())?;
    let counter = MetaBuilder::new().dims(&[1]).dtype(DataType::Int32).build();
    ctx.set_output(2, counter.clone())?;
    ctx.set_output(3, counter)
}

/// `CoalesceTensorInferMeta(input, dtype, copy_data, set_constant, persist_output, constant,
/// use_align, align_size, size_of_dtype, concated_shapes, concated_ranks)`: outputs copy the
/// inputs' dims, dtypes and layouts; at compile time `fused_output` is set only with alignment
/// on, to the aligned total element count.
#[infer_meta]
pub fn coalesce_tensor_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let xs = ctx.tensors(0)?;
    let dtype = ctx.dtype(1)?;
    let use_align = ctx.bool(6)?;
    let align_size = ctx.int(7)?;
    let mut size_of = ctx.int(8)?;
    if size_of == -1 {
        size_of = dtype.size_of() as i64;
    }
    let outs = xs
        .iter()
        .map(|x| {
            MetaBuilder::new()
                .dims(&x.dims)
                .dtype(x.dtype)
                .layout(x.layout)
                .build()
        })
        .collect();
    ctx.set_outputs(0, outs)?;
    if use_align && align_size > 0 {
        ensure_meta!(size_of > 0, "size_of_dtype must be positive, got {size_of}");
        let mut numel = 0i64;
        let mut unknown = false;
        for x in xs {
            let size = product(&x.dims);
            if size < 0 {
                unknown = true;
                continue;
            }
            let bytes = mul(size, size_of);
            let r = bytes % align_size;
            let aligned = if r == 0 {
                bytes
            } else {
                add(bytes, sub(align_size, r))
            };
            numel = add(numel, aligned / size_of);
        }
        let d = if unknown { -1 } else { numel };
        set_opt(ctx, 1, MetaBuilder::new().dims(&[d]).dtype(dtype).build())?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------------

fn batch_norm(
    ctx: &mut InferMetaCtx<'_>,
    x: &TensorMeta,
    mean: &TensorMeta,
    variance: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    data_format: &str,
) -> R {
    let xd = &x.dims;
    for &d in xd.iter() {
        ensure_meta!(
            d == -1 || d >= 0,
            "every dimension of x must be -1 or non-negative, got {d} in {}",
            fmt_dims(xd)
        );
    }
    let nchw = layout_is_nchw(data_format)?;
    ensure_meta!(
        (2..=5).contains(&xd.len()),
        "batch_norm x must have rank 2 to 5, got rank {} {}",
        xd.len(),
        fmt_dims(xd)
    );
    let c = if nchw { xd[1] } else { xd[xd.len() - 1] };
    if let Some(s) = scale {
        need_rank(s, 1, "scale")?;
    }
    if let Some(b) = bias {
        need_rank(b, 1, "bias")?;
    }
    if let (Some(s), Some(b)) = (scale, bias) {
        let check = !has_unknown(&s.dims) && !has_unknown(&b.dims) && c != -1;
        if check && c != 0 {
            ensure_meta!(
                s.dims[0] == c,
                "scale has {} elements but x {} has {c} channels (data_format {data_format})",
                s.dims[0],
                fmt_dims(xd)
            );
            ensure_meta!(
                b.dims[0] == c,
                "bias has {} elements but x {} has {c} channels (data_format {data_format})",
                b.dims[0],
                fmt_dims(xd)
            );
        }
    }
    let stat = match x.dtype {
        DataType::Float16 | DataType::BFloat16 | DataType::UInt16 => DataType::Float32,
        t => t,
    };
    let y = MetaBuilder::new()
        .dims(xd)
        .lod(x)
        .dtype(x.dtype)
        .layout(x.layout)
        .build();
    ctx.set_output(0, y)?;
    ctx.set_output(1, MetaBuilder::new().dims(&[c]).dtype(mean.dtype).build())?;
    ctx.set_output(
        2,
        MetaBuilder::new().dims(&[c]).dtype(variance.dtype).build(),
    )?;
    set_opt(ctx, 3, MetaBuilder::new().dims(&[c]).dtype(stat).build())?;
    set_opt(ctx, 4, MetaBuilder::new().dims(&[c]).dtype(stat).build())?;
    set_opt(
        ctx,
        5,
        MetaBuilder::new()
            .dims(&[-1])
            .dtype(DataType::UInt8)
            .build(),
    )
}

/// `BatchNormInferMeta(x, mean, variance, scale, bias, is_test, momentum, epsilon, data_format,
/// use_global_stats, trainable_statistics)`: `out` like `x`; running statistics `[C]` in their
/// own dtypes; saved statistics `[C]` in float32 for half inputs; `reserve_space` uint8 `[-1]`.
/// `C` is dim 1 for `NCHW`, the last dim otherwise.
#[infer_meta]
pub fn batch_norm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let mean = ctx.tensor(1)?;
    let variance = ctx.tensor(2)?;
    let scale = ctx.opt_tensor(3)?;
    let bias = ctx.opt_tensor(4)?;
    let fmt = str_arg(ctx, 8)?;
    batch_norm(ctx, x, mean, variance, scale, bias, &fmt)
}

/// `FusedBatchNormActInferMeta(x, scale, bias, mean, variance)`: `BatchNormInferMeta` with
/// `NHWC`.
#[infer_meta]
pub fn fused_batch_norm_act_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let scale = ctx.opt_tensor(1)?;
    let bias = ctx.opt_tensor(2)?;
    let mean = ctx.tensor(3)?;
    let variance = ctx.tensor(4)?;
    batch_norm(ctx, x, mean, variance, scale, bias, "NHWC")
}

/// `RmsNormInferMeta(x, bias, residual, norm_weight, norm_bias, epsilon, begin_norm_axis,
/// quant_scale, quant_round_type, quant_max_bound, quant_min_bound)`.
#[infer_meta]
pub fn rms_norm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let residual = ctx.opt_tensor(2)?;
    let w = ctx.tensor(3)?;
    let begin = ctx.int(6)?;
    let quant_scale = ctx.float(7)?;
    let quant_max = ctx.float(9)?;
    let rank = x.rank();
    ensure_meta!(
        begin >= 0 && begin as usize <= rank,
        "begin_norm_axis {begin} is out of range [0, {rank}] for x {}",
        fmt_dims(&x.dims)
    );
    let b = begin as usize;
    let norm = product(&x.dims[b..]);
    let unknown = has_unknown(&x.dims[b..]);
    if norm != 0 && !unknown {
        let w0 = dim_at(&w.dims, 0, "norm_weight")?;
        ensure_meta!(
            norm == w0,
            "the normalized size of x {} from axis {b} is {norm} but norm_weight has {w0} elements",
            fmt_dims(&x.dims)
        );
    }
    let mut out = MetaBuilder::new().dims(&x.dims).layout(x.layout).lod(x);
    if quant_scale > 0.0 {
        if (quant_max - 127.0).abs() < 1e-6 {
            out = out.dtype(DataType::Int8);
        } else if (quant_max - 448.0).abs() < 1e-6 {
            out = out.dtype(DataType::Float8E4M3FN);
        }
    } else {
        out = out.dtype(x.dtype);
    }
    ctx.set_output(0, out.build())?;
    let inv = MetaBuilder::new()
        .dims(&x.dims[..b])
        .dtype(DataType::Float32)
        .layout(x.layout)
        .build();
    set_opt(ctx, 2, inv)?;
    if residual.is_some() {
        let r = MetaBuilder::new()
            .dims(&x.dims)
            .dtype(x.dtype)
            .layout(x.layout)
            .lod(x);
        set_opt(ctx, 1, r.build())?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Optimizers
// ---------------------------------------------------------------------------------------------

/// Sets output `j` to `param`'s dims in the master-weight precision.
fn master_out(ctx: &mut InferMetaCtx<'_>, j: usize, dims: &[i64], dtype: DataType) -> R {
    set_opt(
        ctx,
        j,
        MetaBuilder::new().dims(dims).dtype(mp_dtype(dtype)).build(),
    )
}

/// `SgdInferMeta(param, learning_rate, grad, master_param, multi_precision)`.
#[infer_meta]
pub fn sgd_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let lr = ctx.tensor(1)?;
    let master = ctx.opt_tensor(3)?;
    let multi = ctx.bool(4)?;
    need_one_element(lr, "learning_rate")?;
    ctx.set_output(0, dims_dtype_of(param))?;
    if let (true, Some(m)) = (multi, master) {
        master_out(ctx, 1, &m.dims, m.dtype)?;
    }
    Ok(())
}

/// `MomentumInferMeta(param, grad, velocity, learning_rate, master_param, mu, use_nesterov,
/// regularization_method, regularization_coeff, multi_precision, rescale_grad)`: `param_out`
/// gets dims only (its dtype stays float32, as in Paddle); `velocity_out` is in the master
/// precision.
#[infer_meta]
pub fn momentum_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let lr = ctx.tensor(3)?;
    let master = ctx.opt_tensor(4)?;
    ensure_meta!(
        product(&lr.dims) != 0,
        "learning_rate has no elements ({}): it may not be initialized",
        fmt_dims(&lr.dims)
    );
    need_one_element(lr, "learning_rate")?;
    ctx.set_output(0, MetaBuilder::new().dims(&param.dims).build())?;
    let mp = mp_dtype(param.dtype);
    ctx.set_output(1, MetaBuilder::new().dims(&param.dims).dtype(mp).build())?;
    if master.is_some() {
        master_out(ctx, 2, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `DGCMomentumInferMeta(param, grad, velocity, learning_rate, master_param, current_step,
/// nranks, mu, use_nesterov, regularization_method, regularization_coeff, multi_precision,
/// rescale_grad, rampup_begin_step)`.
#[infer_meta(name = "DGCMomentumInferMeta")]
pub fn dgc_momentum_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let grad = ctx.tensor(1)?;
    let velocity = ctx.tensor(2)?;
    let lr = ctx.tensor(3)?;
    let master = ctx.opt_tensor(4)?;
    let multi = ctx.bool(11)?;
    ensure_meta!(product(&lr.dims) != 0, "learning_rate has no elements");
    need_one_element(lr, "learning_rate")?;
    need_same_dims(param, grad, "param", "grad")?;
    need_same_dims(param, velocity, "param", "velocity")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    let mp = mp_dtype(param.dtype);
    ctx.set_output(0, MetaBuilder::new().dims(&param.dims).build())?;
    ctx.set_output(1, MetaBuilder::new().dims(&param.dims).dtype(mp).build())?;
    if multi && master.is_some() {
        master_out(ctx, 2, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `AdamInferMeta` in both signatures: Paddle 3.3.1's (`param, grad, learning_rate, moment1,
/// moment2, moment2_max, beta1_pow, beta2_pow, master_param, skip_update, beta1, beta2, epsilon,
/// lazy_mode, min_row_size_to_use_multithread, multi_precision, use_global_beta_pow, amsgrad` →
/// 7 outputs) and the older one without `moment2_max`/`amsgrad` (16 arguments, 6 outputs).
#[infer_meta]
pub fn adam_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    match ctx.num_args() {
        16 => adam_common(ctx, false, 14, None),
        18 => adam_common(ctx, true, 15, Some(17)),
        n => Err(err(format!(
            "AdamInferMeta takes 16 or 18 arguments (with moment2_max and amsgrad), got {n}"
        ))),
    }
}

/// `AdamwInferMeta`: `AdamInferMeta` with the extra `lr_ratio, coeff, with_decay` attributes
/// (19 arguments, or 21 with `moment2_max` and `amsgrad`).
#[infer_meta]
pub fn adamw_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    match ctx.num_args() {
        19 => adam_common(ctx, false, 17, None),
        21 => adam_common(ctx, true, 18, Some(20)),
        n => Err(err(format!(
            "AdamwInferMeta takes 19 or 21 arguments (with moment2_max and amsgrad), got {n}"
        ))),
    }
}

fn adam_common(
    ctx: &mut InferMetaCtx<'_>,
    with_max: bool,
    multi_at: usize,
    amsgrad_at: Option<usize>,
) -> R {
    let o = usize::from(with_max);
    let param = ctx.tensor(0)?;
    let lr = ctx.tensor(2)?;
    let m1 = ctx.tensor(3)?;
    let m2 = ctx.tensor(4)?;
    let b1p = ctx.tensor(5 + o)?;
    let b2p = ctx.tensor(6 + o)?;
    let master = ctx.opt_tensor(7 + o)?;
    let multi = ctx.bool(multi_at)?;
    let amsgrad = match amsgrad_at {
        Some(i) => ctx.bool(i)?,
        None => false,
    };
    need_one_element(lr, "learning_rate")?;
    for (t, n) in [(b1p, "beta1_pow"), (b2p, "beta2_pow")] {
        let p = product(&t.dims);
        ensure_meta!(
            p >= 1,
            "{n} must hold at least one element, got dims {}",
            fmt_dims(&t.dims)
        );
    }
    need_same_dims(param, m1, "param", "moment1")?;
    need_same_dims(param, m2, "param", "moment2")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, with_dtype_of(param, &param.dims))?;
    ctx.set_output(1, with_dtype_of(m1, &param.dims))?;
    ctx.set_output(2, with_dtype_of(m2, &param.dims))?;
    if with_max && amsgrad {
        ctx.set_output(3, with_dtype_of(m2, &param.dims))?;
    }
    ctx.set_output(3 + o, dims_dtype_of(b1p))?;
    ctx.set_output(4 + o, dims_dtype_of(b2p))?;
    if multi && master.is_some() {
        master_out(ctx, 5 + o, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `AdadeltaInferMeta(param, grad, avg_squared_grad, avg_squared_update, learning_rate,
/// master_param, rho, epsilon, multi_precision)`.
#[infer_meta]
pub fn adadelta_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let grad = ctx.tensor(1)?;
    let asg = ctx.tensor(2)?;
    let asu = ctx.tensor(3)?;
    let lr = ctx.tensor(4)?;
    let master = ctx.opt_tensor(5)?;
    let multi = ctx.bool(8)?;
    need_one_element(lr, "learning_rate")?;
    need_same_dims(param, grad, "param", "grad")?;
    need_same_dims(param, asg, "param", "avg_squared_grad")?;
    need_same_dims(param, asu, "param", "avg_squared_update")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, with_dtype_of(asg, &param.dims))?;
    ctx.set_output(2, with_dtype_of(asu, &param.dims))?;
    if multi && master.is_some() {
        master_out(ctx, 3, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `AdagradInferMeta(param, grad, moment, learning_rate, master_param, epsilon,
/// multi_precision)`.
#[infer_meta]
pub fn adagrad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let moment = ctx.tensor(2)?;
    let lr = ctx.tensor(3)?;
    let master = ctx.opt_tensor(4)?;
    let multi = ctx.bool(6)?;
    need_one_element(lr, "learning_rate")?;
    need_same_dims(param, moment, "param", "moment")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, with_dtype_of(moment, &param.dims))?;
    if multi && master.is_some() {
        master_out(ctx, 2, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `AdamaxInferMeta(param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param,
/// beta1, beta2, epsilon, multi_precision)`.
#[infer_meta]
pub fn adamax_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let grad = ctx.tensor(1)?;
    let lr = ctx.tensor(2)?;
    let moment = ctx.tensor(3)?;
    let inf_norm = ctx.tensor(4)?;
    let b1p = ctx.tensor(5)?;
    let master = ctx.opt_tensor(6)?;
    let multi = ctx.bool(10)?;
    ensure_meta!(product(&lr.dims) != 0, "learning_rate has no elements");
    need_one_element(lr, "learning_rate")?;
    need_one_element(b1p, "beta1_pow")?;
    need_same_dims(param, grad, "param", "grad")?;
    need_same_dims(param, moment, "param", "moment")?;
    need_same_dims(param, inf_norm, "param", "inf_norm")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, with_dtype_of(moment, &param.dims))?;
    ctx.set_output(2, with_dtype_of(inf_norm, &param.dims))?;
    if multi && master.is_some() {
        master_out(ctx, 3, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `ASGDInferMeta(param, grad, learning_rate, d, y, n, master_param, multi_precision)`.
#[infer_meta(name = "ASGDInferMeta")]
pub fn asgd_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let d = ctx.tensor(3)?;
    let y = ctx.tensor(4)?;
    let master = ctx.opt_tensor(6)?;
    let multi = ctx.bool(7)?;
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, dims_dtype_of(d))?;
    ctx.set_output(2, dims_dtype_of(y))?;
    if let (true, Some(m)) = (multi, master) {
        master_out(ctx, 3, &m.dims, m.dtype)?;
    }
    Ok(())
}

/// `RpropInferMeta(param, grad, prev, learning_rate, master_param, learning_rate_range, etas,
/// multi_precision)`.
#[infer_meta]
pub fn rprop_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let prev = ctx.tensor(2)?;
    let lr = ctx.tensor(3)?;
    let master = ctx.opt_tensor(4)?;
    let multi = ctx.bool(7)?;
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, dims_dtype_of(prev))?;
    ctx.set_output(2, dims_dtype_of(lr))?;
    if let (true, Some(m)) = (multi, master) {
        master_out(ctx, 3, &m.dims, m.dtype)?;
    }
    Ok(())
}

/// `DecayedAdagradInferMeta(param, grad, moment, learning_rate, decay, epsilon)`.
#[infer_meta]
pub fn decayed_adagrad_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let grad = ctx.tensor(1)?;
    let moment = ctx.tensor(2)?;
    let lr = ctx.tensor(3)?;
    ensure_meta!(product(&lr.dims) != 0, "learning_rate has no elements");
    need_one_element(lr, "learning_rate")?;
    need_same_dims(param, grad, "param", "grad")?;
    need_same_dims(param, moment, "param", "moment")?;
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, dims_dtype_of(param))
}

/// `FtrlInferMeta(param, squared_accumulator, linear_accumulator, grad, learning_rate, l1, l2,
/// lr_power)`.
#[infer_meta]
pub fn ftrl_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let grad = ctx.tensor(3)?;
    let lr = ctx.tensor(4)?;
    need_same_dims(param, grad, "param", "grad")?;
    ensure_meta!(product(&lr.dims) != 0, "learning_rate has no elements");
    need_one_element(lr, "learning_rate")?;
    for j in 0..3 {
        ctx.set_output(j, dims_dtype_of(param))?;
    }
    Ok(())
}

/// `LambInferMeta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
/// master_param, skip_update, weight_decay, beta1, beta2, epsilon, always_adapt,
/// multi_precision)`: `param_out` gets dims only (float32 dtype, as in Paddle).
#[infer_meta]
pub fn lamb_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let lr = ctx.tensor(2)?;
    let m1 = ctx.tensor(3)?;
    let m2 = ctx.tensor(4)?;
    let b1p = ctx.tensor(5)?;
    let b2p = ctx.tensor(6)?;
    let master = ctx.opt_tensor(7)?;
    let multi = ctx.bool(14)?;
    ensure_meta!(product(&lr.dims) != 0, "learning_rate has no elements");
    need_one_element(lr, "learning_rate")?;
    for (t, n) in [(b1p, "beta1_pow"), (b2p, "beta2_pow")] {
        let p = product(&t.dims);
        ensure_meta!(
            p >= 1,
            "{n} must hold at least one element, got dims {}",
            fmt_dims(&t.dims)
        );
    }
    need_same_dims(param, m1, "param", "moment1")?;
    need_same_dims(param, m2, "param", "moment2")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, MetaBuilder::new().dims(&param.dims).build())?;
    ctx.set_output(1, with_dtype_of(m1, &param.dims))?;
    ctx.set_output(2, with_dtype_of(m2, &param.dims))?;
    set_opt(ctx, 3, dims_dtype_of(b1p))?;
    set_opt(ctx, 4, dims_dtype_of(b2p))?;
    if multi && master.is_some() {
        master_out(ctx, 5, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// The rules NAdam and RAdam share: inputs `(param, grad, learning_rate, three 1-element
/// state tensors, moment1, moment2, master_param, ...)` with `multi_precision` at `multi`;
/// outputs param, the three states (like their inputs), the moments (param's dims) and, with
/// multi_precision, the master param.
fn param_states_moments_infer_meta(ctx: &mut InferMetaCtx<'_>, multi: usize) -> R {
    let param = ctx.tensor(0)?;
    let lr = ctx.tensor(2)?;
    let states = [ctx.tensor(3)?, ctx.tensor(4)?, ctx.tensor(5)?];
    let m1 = ctx.tensor(6)?;
    let m2 = ctx.tensor(7)?;
    let master = ctx.opt_tensor(8)?;
    let multi = ctx.bool(multi)?;
    need_same_dims(param, m1, "param", "moment1")?;
    need_same_dims(param, m2, "param", "moment2")?;
    need_one_element(lr, "learning_rate")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, dims_dtype_of(param))?;
    for (j, state) in states.into_iter().enumerate() {
        ctx.set_output(1 + j, dims_dtype_of(state))?;
    }
    ctx.set_output(4, with_dtype_of(m1, &param.dims))?;
    ctx.set_output(5, with_dtype_of(m2, &param.dims))?;
    if multi && master.is_some() {
        master_out(ctx, 6, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `NAdamInferMeta(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product,
/// moment1, moment2, master_param, beta1, beta2, epsilon, momentum_decay, multi_precision)`.
#[infer_meta(name = "NAdamInferMeta")]
pub fn nadam_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    param_states_moments_infer_meta(ctx, 13)
}

/// `RAdamInferMeta(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2,
/// master_param, beta1, beta2, epsilon, multi_precision)`.
#[infer_meta(name = "RAdamInferMeta")]
pub fn radam_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    param_states_moments_infer_meta(ctx, 12)
}

/// `RmspropInferMeta(param, mean_square, grad, moment, learning_rate, mean_grad, master_param,
/// epsilon, decay, momentum, centered, multi_precision)`.
#[infer_meta]
pub fn rmsprop_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let param = ctx.tensor(0)?;
    let ms = ctx.tensor(1)?;
    let moment = ctx.tensor(3)?;
    let lr = ctx.tensor(4)?;
    let mean_grad = ctx.opt_tensor(5)?;
    let master = ctx.opt_tensor(6)?;
    let centered = ctx.bool(10)?;
    let multi = ctx.bool(11)?;
    need_same_dims(param, moment, "param", "moment")?;
    need_same_dims(param, ms, "param", "mean_square")?;
    need_one_element(lr, "learning_rate")?;
    if let Some(m) = master {
        need_same_dims(param, m, "param", "master_param")?;
    }
    ctx.set_output(0, dims_dtype_of(param))?;
    ctx.set_output(1, with_dtype_of(moment, &param.dims))?;
    ctx.set_output(2, with_dtype_of(ms, &param.dims))?;
    if centered {
        let mg = mean_grad.ok_or_else(|| err("centered rmsprop needs mean_grad"))?;
        ctx.set_output(3, with_dtype_of(mg, &param.dims))?;
    }
    if multi && master.is_some() {
        master_out(ctx, 4, &param.dims, param.dtype)?;
    }
    Ok(())
}

/// `AverageAccumulatesInferMeta(param, in_sum_1, in_sum_2, in_sum_3, in_num_accumulates,
/// in_old_num_accumulates, in_num_updates, average_window, max_average_window,
/// min_average_window)`.
#[infer_meta]
pub fn average_accumulates_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    for j in 0..3 {
        let s = ctx.tensor(1 + j)?;
        ctx.set_output(j, dims_dtype_of(s))?;
    }
    for j in 3..6 {
        let s = ctx.tensor(1 + j)?;
        ctx.set_output(j, MetaBuilder::new().dims(&[1]).dtype(s.dtype).build())?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Layers
// ---------------------------------------------------------------------------------------------

/// `BilinearInferMeta(x, y, weight, bias)`: `[batch, weight[0]]`.
#[infer_meta]
pub fn bilinear_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let bias = ctx.opt_tensor(3)?;
    need_rank(x, 2, "x")?;
    need_rank(y, 2, "y")?;
    need_rank(w, 3, "weight")?;
    if x.dims[0] > 0 && y.dims[0] > 0 {
        ensure_meta!(
            x.dims[0] == y.dims[0],
            "x {} and y {} must have the same batch size",
            fmt_dims(&x.dims),
            fmt_dims(&y.dims)
        );
    }
    ensure_meta!(
        x.dims[1] == w.dims[1],
        "x {} dim 1 must equal weight {} dim 1",
        fmt_dims(&x.dims),
        fmt_dims(&w.dims)
    );
    ensure_meta!(
        y.dims[1] == w.dims[2],
        "y {} dim 1 must equal weight {} dim 2",
        fmt_dims(&y.dims),
        fmt_dims(&w.dims)
    );
    if let Some(b) = bias {
        need_rank(b, 2, "bias")?;
        ensure_meta!(
            b.dims[0] == 1,
            "bias must be a row vector [1, n], got {}",
            fmt_dims(&b.dims)
        );
        ensure_meta!(
            b.dims[1] == w.dims[0],
            "bias {} dim 1 must equal weight {} dim 0",
            fmt_dims(&b.dims),
            fmt_dims(&w.dims)
        );
    }
    ctx.set_output(0, with_dtype_lod_of(x, &[x.dims[0], w.dims[0]]))
}

fn conv_output_size(input: i64, k: i64, dilation: i64, pad: i64, stride: i64) -> Res<i64> {
    let dk = add(mul(dilation, k - 1), 1);
    let out = add(div(sub(add(input, mul(2, pad)), dk), stride, "stride")?, 1);
    ensure_meta!(
        out > 0,
        "the output size {out} is not positive: input size {input}, filter size {k}, dilation \
         {dilation}, padding {pad}, stride {stride}"
    );
    Ok(out)
}

/// `DeformableConvInferMeta(x, offset, filter, mask, strides, paddings, dilations,
/// deformable_groups, groups, im2col_step)`.
#[infer_meta]
pub fn deformable_conv_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let f = ctx.tensor(2)?;
    let strides = ints(ctx, 4)?;
    let paddings = ints(ctx, 5)?;
    let dilations = ints(ctx, 6)?;
    let dg = ctx.int(7)?;
    let groups = ctx.int(8)?;
    let im2col = ctx.int(9)?;
    let (xd, fdm) = (&x.dims, &f.dims);
    need_rank(x, 4, "x")?;
    need_rank(f, 4, "filter")?;
    ensure_meta!(
        strides.len() == 2,
        "strides {} must have 2 values for a 4-D input",
        fmt_dims(&strides)
    );
    ensure_meta!(
        paddings.len() == strides.len(),
        "paddings {} and strides {} must have the same length",
        fmt_dims(&paddings),
        fmt_dims(&strides)
    );
    ensure_meta!(
        dilations.len() >= 2,
        "dilations {} must have 2 values",
        fmt_dims(&dilations)
    );
    if fdm[1] != -1 && xd[1] != -1 {
        ensure_meta!(
            xd[1] == mul(fdm[1], groups),
            "input channels {} do not match filter's {} × groups {groups}",
            xd[1],
            fdm[1]
        );
    }
    if fdm[0] != -1 {
        ensure_meta!(
            rem(fdm[0], groups, "groups")? == 0,
            "output channels {} are not divisible by groups {groups}",
            fdm[0]
        );
        ensure_meta!(
            rem(fdm[0], dg, "deformable_groups")? == 0,
            "output channels {} are not divisible by deformable_groups {dg}",
            fdm[0]
        );
    }
    if xd[0] > im2col {
        ensure_meta!(
            rem(xd[0], im2col, "im2col_step")? == 0,
            "batch size {} must be smaller than or divisible by im2col_step {im2col}",
            xd[0]
        );
    }
    for (i, &s) in strides.iter().enumerate() {
        ensure_meta!(s > 0, "stride {i} must be positive, got {s}");
    }
    for (i, &d) in dilations.iter().enumerate() {
        ensure_meta!(d > 0, "dilation {i} must be positive, got {d}");
    }
    let mut out = vec![xd[0], fdm[0]];
    for i in 0..2 {
        if xd[i + 2] <= 0 || fdm[i + 2] <= 0 {
            out.push(-1);
        } else {
            out.push(conv_output_size(
                xd[i + 2],
                fdm[i + 2],
                dilations[i],
                paddings[i],
                strides[i],
            )?);
        }
    }
    ensure_meta!(
        rem(out[1], dg, "deformable_groups")? == 0,
        "the number of filters {} must be divisible by deformable_groups {dg}",
        out[1]
    );
    ctx.set_output(0, with_dtype_of(x, &out))
}

/// `InterpolateInferMeta(x, out_size, size_tensor, scale_tensor, data_format, out_d, out_h,
/// out_w, scale, interp_method, align_corners, align_mode)` at compile time: spatial sizes from
/// `size_tensor`'s attributes, from `scale` (rounded down, -1 when unknown) or from
/// `out_d/out_h/out_w`; a `scale_tensor` gives -1.
#[infer_meta]
pub fn interpolate_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let size_tensor = ctx.opt_tensors(2)?;
    let scale_tensor = ctx.opt_tensor(3)?;
    let fmt = str_arg(ctx, 4)?;
    let (od, oh, ow) = (ctx.int(5)?, ctx.int(6)?, ctx.int(7)?);
    let scale = ctx.floats(8)?.to_vec();
    let method = str_arg(ctx, 9)?;
    let xd = &x.dims;
    let n = xd.len();
    ensure_meta!(
        (3..=5).contains(&n),
        "interpolate input must be 3-D, 4-D or 5-D, got {}",
        fmt_dims(xd)
    );
    let sp = n - 2;
    let allowed: &[&str] = match sp {
        1 => &["linear"],
        2 => &["bilinear", "nearest", "bicubic"],
        _ => &["nearest", "trilinear"],
    };
    ensure_meta!(
        allowed.contains(&&*method),
        "interp_method {method:?} is not allowed for a {n}-D input; use one of {allowed:?}"
    );
    let nchw = layout_is_nchw(&fmt)?;
    for (i, &d) in xd.iter().enumerate().skip(2) {
        ensure_meta!(d != 0, "dimension {i} of x {} must not be 0", fmt_dims(xd));
    }
    let attrs = [od, oh, ow];
    let attr_sizes = &attrs[3 - sp..];
    let spatial: Vec<i64> = if nchw {
        xd[2..].to_vec()
    } else {
        xd[1..n - 1].to_vec()
    };
    let sizes: Vec<i64> = if let Some(st) = size_tensor.filter(|s| !s.is_empty()) {
        ensure_meta!(
            st.len() == sp,
            "size_tensor must hold {sp} tensors for a {n}-D input, got {}",
            st.len()
        );
        attr_sizes.to_vec()
    } else if let Some(s) = scale_tensor {
        ensure_meta!(
            s.rank() <= 1,
            "scale_tensor must be 0-D or 1-D, got {}",
            fmt_dims(&s.dims)
        );
        if s.rank() == 1 {
            let ok = if sp == 1 {
                s.dims[0] == 1
            } else {
                s.dims[0] == sp as i64 || s.dims[0] == 1
            };
            ensure_meta!(
                ok,
                "scale_tensor {} must hold 1 or {sp} values",
                fmt_dims(&s.dims)
            );
        }
        vec![-1; sp]
    } else if !scale.is_empty() {
        ensure_meta!(
            scale.len() >= sp,
            "scale {:?} must hold {sp} values for a {n}-D input",
            scale
        );
        let mut v = Vec::with_capacity(sp);
        for (i, &s) in scale.iter().take(sp).enumerate() {
            let s = s as f32;
            ensure_meta!(s > 0.0, "scale[{i}] must be positive, got {s}");
            let o = (spatial[i] as f32 * s) as i64;
            v.push(if o > 0 { o } else { -1 });
        }
        v
    } else {
        attr_sizes.to_vec()
    };
    let mut out = vec![xd[0]];
    if nchw {
        out.push(xd[1]);
        out.extend_from_slice(&sizes);
    } else {
        out.extend_from_slice(&sizes);
        out.push(xd[n - 1]);
    }
    ctx.set_output(0, with_dtype_of(x, &out))
}

/// `PsroiPoolInferMeta(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
/// spatial_scale)`: `[num_rois, output_channels, pooled_height, pooled_width]`.
#[infer_meta]
pub fn psroi_pool_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let rois = ctx.tensor(1)?;
    let rois_num = ctx.opt_tensor(2)?;
    let ph = ctx.int(3)?;
    let pw = ctx.int(4)?;
    let oc = ctx.int(5)?;
    let ss = ctx.float(6)?;
    need_rank(x, 4, "x (NCHW)")?;
    need_rank(rois, 2, "boxes")?;
    ensure_meta!(
        rois.dims[1] == 4,
        "boxes must have shape [num_rois, 4], got {}",
        fmt_dims(&rois.dims)
    );
    if let Some(r) = rois_num {
        need_rank(r, 1, "boxes_num")?;
    }
    ensure_meta!(
        x.dims[1] == mul(mul(oc, ph), pw),
        "x has {} channels but output_channels {oc} × pooled_height {ph} × pooled_width {pw} = {}",
        x.dims[1],
        mul(mul(oc, ph), pw)
    );
    ensure_meta!(ph > 0, "pooled_height must be positive, got {ph}");
    ensure_meta!(pw > 0, "pooled_width must be positive, got {pw}");
    ensure_meta!(oc > 1, "output_channels must be greater than 1, got {oc}");
    ensure_meta!(ss > 0.0, "spatial_scale must be positive, got {ss}");
    ctx.set_output(0, with_dtype_of(x, &[rois.dims[0], oc, ph, pw]))
}

/// `SigmoidCrossEntropyWithLogitsInferMeta(x, label, pos_weight, normalize, ignore_index)`:
/// `out` like `x`; the shapes must match when fully known.
#[infer_meta]
pub fn sigmoid_cross_entropy_with_logits_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let pos_weight = ctx.opt_tensor(2)?;
    ensure_meta!(
        x.rank() == label.rank(),
        "x {} and label {} must have the same rank",
        fmt_dims(&x.dims),
        fmt_dims(&label.dims)
    );
    if !has_unknown(&x.dims) && !has_unknown(&label.dims) {
        need_same_dims(x, label, "x", "label")?;
        if let Some(w) = pos_weight {
            let r = x.rank().min(w.rank());
            ensure_meta!(
                w.rank() >= x.rank() && w.dims[..r] == label.dims[..r],
                "pos_weight {} and label {} must have the same shape",
                fmt_dims(&w.dims),
                fmt_dims(&label.dims)
            );
        }
    }
    ctx.set_output(0, dims_dtype_lod_of(x))
}

/// `YoloLossInferMeta(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
/// ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y)`.
#[infer_meta]
pub fn yolo_loss_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let gt_box = ctx.tensor(1)?;
    let gt_label = ctx.tensor(2)?;
    let gt_score = ctx.opt_tensor(3)?;
    let anchors = ints(ctx, 4)?;
    let mask = ints(ctx, 5)?;
    let class_num = ctx.int(6)?;
    let anchor_num = (anchors.len() / 2) as i64;
    let mask_num = mask.len() as i64;
    need_rank(x, 4, "x")?;
    let xd = &x.dims;
    ensure_meta!(
        xd[2] == xd[3],
        "x {} must have equal height and width",
        fmt_dims(xd)
    );
    ensure_meta!(
        xd[1] == mul(mask_num, add(5, class_num)),
        "x {} dim 1 must be anchor_mask count {mask_num} × (5 + class_num {class_num})",
        fmt_dims(xd)
    );
    need_rank(gt_box, 3, "gt_box")?;
    ensure_meta!(
        gt_box.dims[2] == 4,
        "gt_box {} dim 2 must be 4",
        fmt_dims(&gt_box.dims)
    );
    need_rank(gt_label, 2, "gt_label")?;
    ensure_meta!(
        gt_label.dims[..] == gt_box.dims[..2],
        "gt_label {} must match gt_box {} in dims 0 and 1",
        fmt_dims(&gt_label.dims),
        fmt_dims(&gt_box.dims)
    );
    ensure_meta!(!anchors.is_empty(), "anchors must not be empty");
    ensure_meta!(
        anchors.len() % 2 == 0,
        "anchors {} must have an even length",
        fmt_dims(&anchors)
    );
    for &m in &mask {
        ensure_meta!(
            m < anchor_num,
            "anchor_mask entry {m} exceeds the {anchor_num} anchors"
        );
    }
    ensure_meta!(class_num > 0, "class_num must be positive, got {class_num}");
    if let Some(s) = gt_score {
        need_rank(s, 2, "gt_score")?;
        ensure_meta!(
            s.dims[..] == gt_box.dims[..2],
            "gt_score {} must match gt_box {} in dims 0 and 1",
            fmt_dims(&s.dims),
            fmt_dims(&gt_box.dims)
        );
    }
    ctx.set_output(0, with_dtype_of(x, &[xd[0]]))?;
    ctx.set_output(1, with_dtype_of(x, &[xd[0], mask_num, xd[2], xd[3]]))?;
    ctx.set_output(2, with_dtype_of(x, &[gt_box.dims[0], gt_box.dims[1]]))
}

/// `YoloBoxPostInferMeta(...)`: float32 `[1, 6]` and int32 `[batch]`.
#[infer_meta]
pub fn yolo_box_post_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let image_shape = ctx.tensor(3)?;
    let batch = dim_at(&image_shape.dims, 0, "image_shape")?;
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&[1, 6])
            .dtype(DataType::Float32)
            .build(),
    )?;
    ctx.set_output(
        1,
        MetaBuilder::new()
            .dims(&[batch])
            .dtype(DataType::Int32)
            .build(),
    )
}

/// `WarpctcInferMeta(logits, label, logits_length, labels_length, blank, norm_by_times)`.
#[infer_meta]
pub fn warpctc_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let logits = ctx.tensor(0)?;
    let ll = ctx.opt_tensor(2)?;
    let lbl = ctx.opt_tensor(3)?;
    let blank = ctx.int(4)?;
    let d = &logits.dims;
    ensure_meta!(product(d) != 0, "logits {} must not be empty", fmt_dims(d));
    let (max_len, num_seq, width) = if ll.is_some() && lbl.is_some() {
        need_rank(logits, 3, "logits")?;
        (d[0], d[1], d[2])
    } else {
        let d0 = dim_at(d, 0, "logits")?;
        (-1, -1, div(product(d), d0, "logits dim 0")?)
    };
    ensure_meta!(
        blank >= 0 && blank < width,
        "blank {blank} must lie in [0, {width}), the sequence width"
    );
    ctx.set_output(0, with_dtype_of(logits, &[num_seq, 1]))?;
    ctx.set_output(1, with_dtype_of(logits, &[max_len, num_seq, width]))
}

/// `WarprnntInferMeta(input, label, input_lengths, label_lengths, blank, fastemit_lambda)`.
#[infer_meta]
pub fn warprnnt_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let blank = ctx.int(4)?;
    let d3 = dim_at(&input.dims, 3, "input")?;
    ensure_meta!(
        blank >= 0 && blank < d3,
        "blank {blank} must lie in [0, {d3})"
    );
    ctx.set_output(0, with_dtype_of(input, &[input.dims[0]]))?;
    ctx.set_output(1, dims_dtype_of(input))
}

/// `EditDistanceInferMeta(hyps, refs, hypslength, refslength, normalized)`: `sequencenum`
/// float32 `[1]`, `out` float32 with `refs`' dims.
#[infer_meta]
pub fn edit_distance_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let hyps = ctx.tensor(0)?;
    let refs = ctx.tensor(1)?;
    let hl = ctx.opt_tensor(2)?;
    let rl = ctx.opt_tensor(3)?;
    let (h, r) = (&hyps.dims, &refs.dims);
    if let (Some(hl), Some(rl)) = (hl, rl) {
        ensure_meta!(
            h.len() == 2 && r.len() == 2 && h[0] == r[0],
            "hyps {} and refs {} must be 2-D with the same dim 0",
            fmt_dims(h),
            fmt_dims(r)
        );
        let a = dim_at(&hl.dims, 0, "hypslength")?;
        let b = dim_at(&rl.dims, 0, "refslength")?;
        ensure_meta!(
            a == b && a == h[0],
            "hypslength {}, refslength {} and hyps {} must share dim 0",
            fmt_dims(&hl.dims),
            fmt_dims(&rl.dims),
            fmt_dims(h)
        );
    } else {
        ensure_meta!(
            h.len() == 2 && h[1] == 1,
            "hyps must be [N, 1], got {}",
            fmt_dims(h)
        );
        ensure_meta!(
            r.len() == 2 && r[1] == 1,
            "refs must be [N, 1], got {}",
            fmt_dims(r)
        );
    }
    ctx.set_output(
        0,
        MetaBuilder::new()
            .dims(&[1])
            .dtype(DataType::Float32)
            .build(),
    )?;
    ctx.set_output(
        1,
        MetaBuilder::new().dims(r).dtype(DataType::Float32).build(),
    )
}

/// `CrfDecodingInferMeta(emission, transition, label, length)`.
#[infer_meta]
pub fn crf_decoding_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let e = ctx.tensor(0)?;
    let t = ctx.tensor(1)?;
    let label = ctx.opt_tensor(2)?;
    let length = ctx.opt_tensor(3)?;
    let has_len = length.is_some();
    need_rank(e, if has_len { 3 } else { 2 }, "emission")?;
    need_rank(t, 2, "transition")?;
    ensure_meta!(
        sub(t.dims[0], 2) == t.dims[1],
        "transition must have shape [D + 2, D], got {}",
        fmt_dims(&t.dims)
    );
    let el = e.dims[e.rank() - 1];
    if el > 0 && t.dims[1] > 0 {
        ensure_meta!(
            el == t.dims[1],
            "the last dim of emission {} must equal the tag number of transition {}",
            fmt_dims(&e.dims),
            fmt_dims(&t.dims)
        );
    }
    if let Some(l) = label {
        let ld = &l.dims;
        let ok = if has_len {
            (ld.len() == 3 && ld[2] == 1) || ld.len() == 2
        } else {
            (ld.len() == 2 && ld[1] == 1) || ld.len() == 1
        };
        ensure_meta!(
            ok,
            "label {} has an invalid shape for this mode",
            fmt_dims(ld)
        );
        if e.dims[0] > 0 && ld[0] > 0 {
            ensure_meta!(
                e.dims[0] == ld[0],
                "emission {} and label {} must share dim 0",
                fmt_dims(&e.dims),
                fmt_dims(ld)
            );
        }
    }
    let d = if has_len {
        [e.dims[0], e.dims[1]]
    } else {
        [e.dims[0], 1]
    };
    ctx.set_output(0, MetaBuilder::new().lod(e).dims(&d).dtype(e.dtype).build())
}

/// `ChunkEvalInferMeta(inference, label, seq_length, num_chunk_types, chunk_scheme,
/// excluded_chunk_types)`: float32 precision/recall/f1 and int64 counts, all `[1]`.
#[infer_meta]
pub fn chunk_eval_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let inf = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let seq = ctx.opt_tensor(2)?;
    need_same_dims(inf, label, "inference", "label")?;
    if let Some(s) = seq {
        let d = &inf.dims;
        ensure_meta!(
            (d.len() == 3 && d[2] == 1) || d.len() == 2,
            "with seq_length, inference must be [batch, bucket] or [batch, bucket, 1], got {}",
            fmt_dims(d)
        );
        ensure_meta!(
            s.rank() <= 2,
            "seq_length must have rank ≤ 2, got {}",
            fmt_dims(&s.dims)
        );
    }
    for j in 0..6 {
        let t = if j < 3 {
            DataType::Float32
        } else {
            DataType::Int64
        };
        ctx.set_output(j, MetaBuilder::new().dims(&[1]).dtype(t).build())?;
    }
    Ok(())
}

/// `DetectionMapInferMeta(...)`: only `m_ap` gets dims `[1]` (the accumulators are left as
/// Paddle leaves them).
#[infer_meta]
pub fn detection_map_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let det = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let pos_count = ctx.opt_tensor(3)?;
    let true_pos = ctx.opt_tensor(4)?;
    let false_pos = ctx.opt_tensor(5)?;
    need_rank(det, 2, "detect_res")?;
    ensure_meta!(
        det.dims[1] == 6,
        "detect_res must be [N, 6], got {}",
        fmt_dims(&det.dims)
    );
    need_rank(label, 2, "label")?;
    if label.dims[1] > 0 {
        ensure_meta!(
            label.dims[1] == 6 || label.dims[1] == 5,
            "label must be [N, 6] or [N, 5], got {}",
            fmt_dims(&label.dims)
        );
    }
    if pos_count.is_some() {
        ensure_meta!(
            true_pos.is_some(),
            "true_pos is needed when pos_count is given"
        );
        ensure_meta!(
            false_pos.is_some(),
            "false_pos is needed when pos_count is given"
        );
    }
    ctx.set_output(3, MetaBuilder::new().dims(&[1]).build())
}

/// `AucInferMeta(x, label, stat_pos, stat_neg, ins_tag_weight, curve, num_thresholds,
/// slide_steps)`: int64 `auc` 0-D and int64 statistics.
#[infer_meta]
pub fn auc_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let nt = ctx.int(6)?;
    let slide = if ctx.num_args() > 7 { ctx.int(7)? } else { 1 };
    need_rank_ge(x, 2, "x (predictions)")?;
    ensure_meta!(
        product(&x.dims) != 0,
        "x {} must not be empty",
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        product(&label.dims) != 0,
        "label {} must not be empty",
        fmt_dims(&label.dims)
    );
    let buckets = add(nt, 1);
    ensure_meta!(buckets >= 1, "num_thresholds must be at least 0, got {nt}");
    ensure_meta!(slide >= 0, "slide_steps must be non-negative, got {slide}");
    let i64d = |d: &[i64]| MetaBuilder::new().dims(d).dtype(DataType::Int64).build();
    ctx.set_output(0, i64d(&[]))?;
    let stat: Vec<i64> = if slide != 0 {
        vec![add(mul(add(1, slide), buckets), 1)]
    } else {
        vec![1, buckets]
    };
    ctx.set_output(1, i64d(&stat))?;
    ctx.set_output(2, i64d(&stat))
}

/// `BeamSearchInferMeta(pre_ids, pre_scores, ids, scores, level, beam_size, end_id,
/// is_accumulated)`.
#[infer_meta]
pub fn beam_search_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let pre_ids = ctx.tensor(0)?;
    let pre_scores = ctx.tensor(1)?;
    let d0 = dim_at(&pre_ids.dims, 0, "pre_ids")?;
    ctx.set_output(0, dims_dtype_of(pre_ids))?;
    ctx.set_output(1, dims_dtype_of(pre_scores))?;
    set_opt(ctx, 2, with_dtype_of(pre_ids, &[d0]))
}

/// `FakeChannelWiseDequantizeMaxAbsInferMeta(x, scales, quant_bits, quant_axis,
/// x_num_col_dims)`: `out` like `x`.
#[infer_meta]
pub fn fake_channel_wise_dequantize_max_abs_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let axis = ctx.int(3)?;
    let cols = ctx.int(4)?;
    ensure_meta!(
        axis == 0 || axis == 1,
        "quant_axis must be 0 or 1, got {axis}"
    );
    ensure_meta!(
        cols != 0,
        "x_num_col_dims must be larger than 0, got {cols}"
    );
    ctx.set_output(0, dims_dtype_lod_of(x))
}

/// `FakeQuantOrWithDequantMovingAverageAbsMaxInferMeta(x, in_scale, in_accum, in_state,
/// moving_rate, bit_length, is_test, round_type)`.
#[infer_meta]
pub fn fake_quant_or_with_dequant_moving_average_abs_max_infer_meta(
    ctx: &mut InferMetaCtx<'_>,
) -> R {
    let x = ctx.tensor(0)?;
    let bits = ctx.int(5)?;
    ensure_meta!(
        (1..=16).contains(&bits),
        "bit_length must be in [1, 16], got {bits}"
    );
    ctx.set_output(0, MetaBuilder::new().dims(&x.dims).lod(x).build())?;
    ctx.set_output(1, MetaBuilder::new().dims(&[1]).build())?;
    set_opt(ctx, 2, MetaBuilder::new().dims(&[1]).build())?;
    set_opt(ctx, 3, MetaBuilder::new().dims(&[1]).build())
}

/// `GenerateProposalsV2InferMeta(...)`: `[-1, 4]` rois, `[-1, 1]` probabilities and
/// `[batch]` counts.
#[infer_meta]
pub fn generate_proposals_v2_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let scores = ctx.tensor(0)?;
    ctx.set_output(0, MetaBuilder::new().dims(&[-1, 4]).build())?;
    ctx.set_output(1, MetaBuilder::new().dims(&[-1, 1]).build())?;
    let b = dim_at(&scores.dims, 0, "scores")?;
    set_opt(ctx, 2, MetaBuilder::new().dims(&[b]).build())
}

fn graph_index_check(d: &[i64], name: &str) -> R {
    if d.len() == 2 {
        ensure_meta!(
            d[1] == 1,
            "{name} {} must have last dim 1 when it is 2-D",
            fmt_dims(d)
        );
    } else {
        ensure_meta!(d.len() == 1, "{name} {} must be 1-D or [N, 1]", fmt_dims(d));
    }
    Ok(())
}

/// `GraphKhopSamplerInferMeta(row, colptr, x, eids, sample_sizes, return_eids)`.
#[infer_meta]
pub fn graph_khop_sampler_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let row = ctx.tensor(0)?;
    let col = ctx.tensor(1)?;
    let x = ctx.tensor(2)?;
    let eids = ctx.opt_tensor(3)?;
    let sizes = ints(ctx, 4)?;
    let ret = ctx.bool(5)?;
    graph_index_check(&row.dims, "row")?;
    graph_index_check(&col.dims, "col_ptr")?;
    graph_index_check(&x.dims, "x")?;
    ensure_meta!(!sizes.is_empty(), "sample_sizes must not be empty");
    if ret {
        let e = eids.ok_or_else(|| err("return_eids needs eids"))?;
        graph_index_check(&e.dims, "eids")?;
        ctx.set_output(4, with_dtype_of(row, &[-1]))?;
    }
    ctx.set_output(0, with_dtype_of(row, &[-1, 1]))?;
    ctx.set_output(1, with_dtype_of(row, &[-1, 1]))?;
    ctx.set_output(
        2,
        MetaBuilder::new()
            .dims(&[-1])
            .dtype(DataType::Int32)
            .build(),
    )?;
    ctx.set_output(3, dims_dtype_of(x))
}

/// `GraphSampleNeighborsInferMeta(row, colptr, x, eids, perm_buffer, sample_size, return_eids,
/// flag_perm_buffer)`.
#[infer_meta]
pub fn graph_sample_neighbors_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let row = ctx.tensor(0)?;
    let col = ctx.tensor(1)?;
    let x = ctx.tensor(2)?;
    let eids = ctx.opt_tensor(3)?;
    let perm = ctx.opt_tensor(4)?;
    let ret = ctx.bool(6)?;
    let flag = ctx.bool(7)?;
    graph_index_check(&row.dims, "row")?;
    graph_index_check(&col.dims, "col_ptr")?;
    graph_index_check(&x.dims, "x")?;
    if ret {
        let e = eids.ok_or_else(|| err("return_eids needs eids"))?;
        graph_index_check(&e.dims, "eids")?;
        ctx.set_output(2, with_dtype_of(row, &[-1]))?;
    }
    if flag {
        let p = perm.ok_or_else(|| err("flag_perm_buffer needs perm_buffer"))?;
        graph_index_check(&p.dims, "perm_buffer")?;
    }
    ctx.set_output(0, with_dtype_of(row, &[-1]))?;
    ctx.set_output(
        1,
        MetaBuilder::new()
            .dims(&[-1])
            .dtype(DataType::Int32)
            .build(),
    )
}

/// `WeightedSampleNeighborsInferMeta(row, colptr, edge_weight, input_nodes, eids, sample_size,
/// return_eids)`.
#[infer_meta]
pub fn weighted_sample_neighbors_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let row = ctx.tensor(0)?;
    let col = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let x = ctx.tensor(3)?;
    let eids = ctx.opt_tensor(4)?;
    let ret = ctx.bool(6)?;
    graph_index_check(&row.dims, "row")?;
    graph_index_check(&col.dims, "colptr")?;
    graph_index_check(&w.dims, "edge_weight")?;
    graph_index_check(&x.dims, "input_nodes")?;
    if ret {
        let e = eids.ok_or_else(|| err("return_eids needs eids"))?;
        graph_index_check(&e.dims, "eids")?;
        ctx.set_output(2, with_dtype_of(row, &[-1]))?;
    }
    ctx.set_output(0, with_dtype_of(row, &[-1]))?;
    ctx.set_output(
        1,
        MetaBuilder::new()
            .dims(&[-1])
            .dtype(DataType::Int32)
            .build(),
    )
}

/// `GraphReindexInferMeta(x, neighbors, count, hashtable_value, hashtable_index)`.
#[infer_meta]
pub fn graph_reindex_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let nb = ctx.tensor(1)?;
    let count = ctx.tensor(2)?;
    let hv = ctx.opt_tensor(3)?;
    let hi = ctx.opt_tensor(4)?;
    graph_index_check(&x.dims, "X")?;
    graph_index_check(&nb.dims, "Neighbors")?;
    graph_index_check(&count.dims, "Count")?;
    if let (Some(v), Some(i)) = (hv, hi) {
        graph_index_check(&v.dims, "HashTable_Value")?;
        graph_index_check(&i.dims, "HashTable_Index")?;
    }
    ctx.set_output(0, with_dtype_of(nb, &[-1]))?;
    ctx.set_output(1, with_dtype_of(nb, &[-1]))?;
    ctx.set_output(2, with_dtype_of(x, &[-1]))
}

fn send_index_check(src: &TensorMeta, dst: &TensorMeta) -> R {
    graph_index_check(&src.dims, "src_index")?;
    graph_index_check(&dst.dims, "dst_index")?;
    Ok(())
}

/// Broadcast of `x[1:]` with `y[1:]` (trailing-aligned).
fn broadcast_tail(x: &[i64], y: &[i64]) -> Res<Vec<i64>> {
    let (a, b) = (&x[1.min(x.len())..], &y[1.min(y.len())..]);
    if a.is_empty() && b.is_empty() {
        return Ok(vec![]);
    }
    broadcast(a, b, -1)
}

/// `SendUERecvInferMeta(x, y, src_index, dst_index, message_op, reduce_op, out_size)`:
/// `[-1] + broadcast(x[1:], y[1:])`; `dst_count` int32 `[-1]` for `MEAN`.
#[infer_meta(name = "SendUERecvInferMeta")]
pub fn send_ue_recv_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    let src = ctx.tensor(2)?;
    let dst = ctx.tensor(3)?;
    let reduce = str_arg(ctx, 5)?;
    send_index_check(src, dst)?;
    if src.dims[0] != 0 && dst.dims[0] != 0 {
        ensure_meta!(
            src.dims[0] == dst.dims[0],
            "src_index {} and dst_index {} must have the same shape",
            fmt_dims(&src.dims),
            fmt_dims(&dst.dims)
        );
    }
    let y0 = dim_at(&y.dims, 0, "y")?;
    ensure_meta!(
        y0 == src.dims[0],
        "y {} must have as many rows as src_index {}",
        fmt_dims(&y.dims),
        fmt_dims(&src.dims)
    );
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
    let mut d = vec![-1];
    d.extend(broadcast_tail(&x.dims, &y.dims)?);
    ctx.set_output(0, with_dtype_of(x, &d))
}

/// `SendUVInferMeta(x, y, src_index, dst_index, message_op)`:
/// `[src_index[0]] + broadcast(x[1:], y[1:])`.
#[infer_meta(name = "SendUVInferMeta")]
pub fn send_uv_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let y = ctx.tensor(1)?;
    let src = ctx.tensor(2)?;
    let dst = ctx.tensor(3)?;
    send_index_check(src, dst)?;
    if src.dims[0] != 0 && dst.dims[0] != 0 {
        ensure_meta!(
            src.dims[0] == dst.dims[0],
            "src_index {} and dst_index {} must have the same shape",
            fmt_dims(&src.dims),
            fmt_dims(&dst.dims)
        );
    }
    let mut d = vec![src.dims[0]];
    d.extend(broadcast_tail(&x.dims, &y.dims)?);
    ctx.set_output(0, with_dtype_of(x, &d))
}

/// `HSigmoidLossInferMeta(x, label, w, bias, path, code, num_classes, is_sparse)`: `out`
/// `[batch, 1]`.
#[infer_meta(name = "HSigmoidLossInferMeta")]
pub fn hsigmoid_loss_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let label = ctx.tensor(1)?;
    let a = dim_at(&x.dims, 0, "x")?;
    let b = dim_at(&label.dims, 0, "label")?;
    ensure_meta!(
        a == b,
        "x {} and label {} must share dim 0",
        fmt_dims(&x.dims),
        fmt_dims(&label.dims)
    );
    ctx.set_output(0, with_dtype_lod_of(x, &[a, 1]))
}

/// `SparseAttentionInferMeta(q, k, v, offset, columns, key_padding_mask, attn_mask)`.
#[infer_meta]
pub fn sparse_attention_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let q = ctx.tensor(0)?;
    let k = ctx.tensor(1)?;
    let v = ctx.tensor(2)?;
    let columns = ctx.tensor(4)?;
    need_rank(q, 4, "q")?;
    need_rank(k, 4, "k")?;
    need_rank(v, 4, "v")?;
    let nnz = dim_at(&columns.dims, 2, "columns")?;
    let qd = &q.dims;
    ctx.set_output(0, with_dtype_lod_of(q, &[qd[0], qd[1], qd[2], qd[3]]))?;
    ctx.set_output(1, MetaBuilder::new().dims(&[qd[0], qd[1], nnz]).build())?;
    ctx.set_output(2, MetaBuilder::new().dims(&[qd[0], qd[1], nnz]).build())
}

/// `MemoryEfficientAttentionInferMeta(query, key, value, bias, ...)`: `[b, sq, h, dv]`,
/// float32 `logsumexp` `[h, b]`, int64 `seed_and_offset` `[2]`.
#[infer_meta]
pub fn memory_efficient_attention_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let q = ctx.tensor(0)?;
    let k = ctx.tensor(1)?;
    let v = ctx.tensor(2)?;
    need_rank(q, 4, "query")?;
    need_rank(k, 4, "key")?;
    need_rank(v, 4, "value")?;
    let (qd, kd, vd) = (&q.dims, &k.dims, &v.dims);
    ensure_meta!(
        qd[0] == kd[0] && kd[0] == vd[0],
        "query, key and value need the same batch size"
    );
    ensure_meta!(
        qd[2] == kd[2] && kd[2] == vd[2],
        "query, key and value need the same head count"
    );
    ensure_meta!(qd[3] == kd[3], "query and key need the same head size");
    ensure_meta!(
        kd[1] == vd[1],
        "key and value need the same sequence length"
    );
    let out = MetaBuilder::new()
        .dims(&[qd[0], qd[1], qd[2], vd[3]])
        .lod(q)
        .dtype(q.dtype)
        .layout(q.layout);
    ctx.set_output(0, out.build())?;
    ctx.set_output(
        1,
        MetaBuilder::new()
            .dims(&[qd[2], qd[0]])
            .dtype(DataType::Float32)
            .build(),
    )?;
    ctx.set_output(
        2,
        MetaBuilder::new().dims(&[2]).dtype(DataType::Int64).build(),
    )
}

/// `TopPSamplingInferMeta(x, ps, threshold, topp_seed, seed, k, mode)`.
#[infer_meta]
pub fn top_p_sampling_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let k = ctx.int(5)?;
    let mode = str_arg(ctx, 6)?;
    let bsz = dim_at(&x.dims, 0, "x")?;
    ensure_meta!(
        mode == "truncated" || mode == "non-truncated",
        "mode must be 'truncated' or 'non-truncated', got {mode:?}"
    );
    ctx.set_output(0, with_dtype_of(x, &[bsz, 1]))?;
    ctx.set_output(
        1,
        MetaBuilder::new()
            .dims(&[bsz, 1])
            .dtype(DataType::Int64)
            .build(),
    )?;
    if k > 0 {
        set_opt(ctx, 2, with_dtype_of(x, &[bsz, k]))?;
        set_opt(
            ctx,
            3,
            MetaBuilder::new()
                .dims(&[bsz, k])
                .dtype(DataType::Int64)
                .build(),
        )?;
    }
    Ok(())
}

/// `LLMInt8LinearInferMeta(x, weight, bias, weight_scale, threshold)`.
#[infer_meta(name = "LLMInt8LinearInferMeta")]
pub fn llm_int8_linear_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let w = ctx.tensor(1)?;
    let ws = ctx.tensor(3)?;
    need_rank(w, 2, "weight")?;
    need_rank_ge(x, 1, "x")?;
    let xl = x.dims[x.rank() - 1];
    ensure_meta!(
        xl == w.dims[1],
        "x's last dim {xl} must equal weight {} dim 1",
        fmt_dims(&w.dims)
    );
    ensure_meta!(
        w.dims[0] % 16 == 0,
        "weight dim 0 {} must be divisible by 16",
        w.dims[0]
    );
    ensure_meta!(
        w.dims[1] % 16 == 0,
        "weight dim 1 {} must be divisible by 16",
        w.dims[1]
    );
    let s0 = dim_at(&ws.dims, 0, "weight_scale")?;
    ensure_meta!(
        s0 == w.dims[0],
        "weight_scale dim 0 {s0} must equal weight dim 0 {}",
        w.dims[0]
    );
    let mut d = x.dims.to_vec();
    let last = d.len() - 1;
    d[last] = w.dims[0];
    ctx.set_output(0, with_dtype_of(x, &d))
}

/// `WeightOnlyLinearInferMeta(x, weight, bias, weight_scale, weight_dtype, arch, group_size)`.
#[infer_meta]
pub fn weight_only_linear_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let w = ctx.tensor(1)?;
    let bias = ctx.opt_tensor(2)?;
    let ws = ctx.tensor(3)?;
    let wdt = str_arg(ctx, 4)?;
    let gs = ctx.int(6)?;
    ensure_meta!(
        gs == -1 || gs == 64 || gs == 128,
        "group_size must be -1, 64 or 128, got {gs}"
    );
    let n = dim_at(&ws.dims, if gs == -1 { 0 } else { 1 }, "weight_scale")?;
    ensure_meta!(
        wdt == "int8" || wdt == "int4",
        "weight_dtype must be 'int8' or 'int4', got {wdt:?}"
    );
    need_rank(w, 2, "weight")?;
    need_rank_ge(x, 1, "x")?;
    if w.dims[0] >= 0 {
        ensure_meta!(
            w.dims[0] % 16 == 0,
            "weight dim 0 {} must be divisible by 16",
            w.dims[0]
        );
    }
    if w.dims[1] >= 0 {
        ensure_meta!(
            w.dims[1] % 16 == 0,
            "weight dim 1 {} must be divisible by 16",
            w.dims[1]
        );
    }
    let xl = x.dims[x.rank() - 1];
    if xl > 0 && w.dims[1] > 0 {
        ensure_meta!(
            xl == w.dims[1],
            "x's last dim {xl} must equal weight dim 1 {}",
            w.dims[1]
        );
    }
    if let Some(b) = bias {
        need_rank(b, 1, "bias")?;
    }
    if gs == -1 {
        need_rank(ws, 1, "weight_scale (per-channel)")?;
    } else {
        need_rank(ws, 2, "weight_scale (group-wise)")?;
        let want = add(w.dims[1], gs - 1) / gs;
        ensure_meta!(
            ws.dims[0] == want,
            "weight_scale dim 0 {} must equal ceil(weight dim 1 / group_size) = {want}",
            ws.dims[0]
        );
    }
    let mut d = x.dims.to_vec();
    let last = d.len() - 1;
    d[last] = n;
    ctx.set_output(0, with_dtype_of(x, &d))
}

/// `FullWithTensorInferMeta(shape, dtype)`: dims from `shape` (`-1`s when it comes from a
/// tensor), dtype `dtype`.
#[infer_meta]
pub fn full_with_tensor_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let shape = int_array(ctx, 0, "shape")?;
    let dtype = ctx.dtype(1)?;
    ctx.set_output(
        0,
        MetaBuilder::new().dims(&shape.values).dtype(dtype).build(),
    )
}

/// `LogspaceInferMeta(start, stop, num, base, dtype)`: `[-1]` of `dtype`.
#[infer_meta]
pub fn logspace_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    for (i, n) in [(0, "start"), (1, "stop"), (2, "num"), (3, "base")] {
        need_one_element(ctx.tensor(i)?, n)?;
    }
    let dtype = ctx.dtype(4)?;
    ctx.set_output(0, MetaBuilder::new().dims(&[-1]).dtype(dtype).build())
}

// ---------------------------------------------------------------------------------------------
// Recurrent nets
// ---------------------------------------------------------------------------------------------

/// `LSTMInferMeta(input, h0, c0, weight, bias, use_peepholes, is_reverse, is_test, ...)`.
#[infer_meta(name = "LSTMInferMeta")]
pub fn lstm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let h0 = ctx.opt_tensor(1)?;
    let c0 = ctx.opt_tensor(2)?;
    let w = ctx.tensor(3)?;
    let b = ctx.tensor(4)?;
    let peep = ctx.bool(5)?;
    let is_test = ctx.bool(7)?;
    need_rank(input, 2, "input")?;
    if let Some(h) = h0 {
        let c = c0.ok_or_else(|| err("c0 is needed when h0 is given"))?;
        need_same_dims(h, c, "h0", "c0")?;
    }
    let frame = input.dims[1] / 4;
    need_rank(w, 2, "weight")?;
    ensure_meta!(
        w.dims[0] == frame,
        "weight dim 0 must be {frame}, got {}",
        w.dims[0]
    );
    ensure_meta!(
        w.dims[1] == mul(4, frame),
        "weight dim 1 must be 4 × {frame}, got {}",
        w.dims[1]
    );
    need_rank(b, 2, "bias")?;
    ensure_meta!(b.dims[0] == 1, "bias dim 0 must be 1, got {}", b.dims[0]);
    let k = if peep { 7 } else { 4 };
    ensure_meta!(
        b.dims[1] == mul(k, frame),
        "bias dim 1 must be {k} × {frame}, got {}",
        b.dims[1]
    );
    let out = [input.dims[0], frame];
    ctx.set_output(0, with_dtype_lod_of(input, &out))?;
    ctx.set_output(1, with_dtype_lod_of(input, &out))?;
    if !is_test {
        set_opt(ctx, 2, MetaBuilder::new().dims(&input.dims).build())?;
        set_opt(ctx, 3, MetaBuilder::new().dims(&out).build())?;
    }
    Ok(())
}

/// `CudnnLSTMInferMeta(x, init_h, init_c, w, weight_list, sequence_length, dropout_prob,
/// is_bidirec, hidden_size, num_layers, is_test, seed)`.
#[infer_meta(name = "CudnnLSTMInferMeta")]
pub fn cudnn_lstm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let h = ctx.tensor(1)?;
    let c = ctx.tensor(2)?;
    let seq = ctx.opt_tensor(5)?;
    let bidirec = ctx.bool(7)?;
    let hidden = ctx.int(8)?;
    need_rank(x, 3, "x")?;
    need_rank(h, 3, "init_h")?;
    if let Some(s) = seq {
        let s0 = dim_at(&s.dims, 0, "sequence_length")?;
        ensure_meta!(
            x.dims[1] == s0,
            "sequence_length {s0} must equal the batch size {}",
            x.dims[1]
        );
    }
    ensure_meta!(
        x.dims[1] == h.dims[1],
        "x {} and init_h {} must share dim 1 (batch)",
        fmt_dims(&x.dims),
        fmt_dims(&h.dims)
    );
    need_same_dims(c, h, "init_c", "init_h")?;
    let mut d = x.dims.to_vec();
    d[2] = if bidirec { mul(hidden, 2) } else { hidden };
    ctx.set_output(0, with_dtype_of(x, &d))?;
    ctx.set_output(1, with_dtype_of(x, &c.dims))?;
    ctx.set_output(2, with_dtype_of(x, &h.dims))?;
    ctx.set_output(3, MetaBuilder::new().dtype(DataType::UInt8).build())?;
    ctx.set_output(4, MetaBuilder::new().dtype(DataType::UInt8).build())
}

/// `RnnInferMeta(x, pre_state, weight_list, sequence_length, dropout_prob, is_bidirec,
/// input_size, hidden_size, num_layers, mode, seed, is_test)`.
#[infer_meta]
pub fn rnn_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let pre = ctx.tensors(1)?;
    let seq = ctx.opt_tensor(3)?;
    let bidirec = ctx.bool(5)?;
    let hidden = ctx.int(7)?;
    let mode = str_arg(ctx, 9)?;
    need_rank(x, 3, "x")?;
    if let Some(s) = seq {
        let s0 = dim_at(&s.dims, 0, "sequence_length")?;
        ensure_meta!(
            x.dims[1] == s0,
            "sequence_length {s0} must equal the batch size {}",
            x.dims[1]
        );
    }
    let p0 = first(pre, "pre_state")?;
    need_rank(p0, 3, "pre_state[0]")?;
    for (i, p) in pre.iter().enumerate() {
        let p1 = dim_at(&p.dims, 1, "pre_state")?;
        ensure_meta!(
            x.dims[1] == p1,
            "pre_state[{i}] {} must have the batch size {} of x in dim 1",
            fmt_dims(&p.dims),
            x.dims[1]
        );
        need_same_dims(p0, p, "pre_state[0]", "every pre_state")?;
    }
    let want = if mode == "LSTM" { 2 } else { 1 };
    ensure_meta!(
        pre.len() == want,
        "{mode} needs {want} pre_state tensors, got {}",
        pre.len()
    );
    let mut d = x.dims.to_vec();
    d[2] = if bidirec { mul(hidden, 2) } else { hidden };
    ctx.set_output(0, with_dtype_of(x, &d))?;
    ctx.set_outputs(2, pre.iter().map(|p| with_dtype_of(x, &p.dims)).collect())
}

/// `GruInferMeta(input, h0, weight, bias, activation, gate_activation, is_reverse, origin_mode,
/// is_test)`.
#[infer_meta]
pub fn gru_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let h0 = ctx.opt_tensor(1)?;
    let w = ctx.tensor(2)?;
    let bias = ctx.opt_tensor(3)?;
    let is_test = ctx.bool(8)?;
    let frame = dim_at(&w.dims, 0, "weight")?;
    let w1 = dim_at(&w.dims, 1, "weight")?;
    let in0 = dim_at(&input.dims, 0, "input")?;
    dim_at(&input.dims, 1, "input")?;
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
    }
    if let Some(b) = bias {
        let (b0, b1) = (dim_at(&b.dims, 0, "bias")?, dim_at(&b.dims, 1, "bias")?);
        ensure_meta!(
            b0 == 1 && b1 == mul(frame, 3),
            "bias must be [1, 3 × {frame}], got {}",
            fmt_dims(&b.dims)
        );
    }
    if !is_test {
        ctx.set_output(0, dims_dtype_of(input))?;
        ctx.set_output(1, with_dtype_of(input, &[in0, frame]))?;
        ctx.set_output(2, with_dtype_of(input, &[in0, frame]))?;
    }
    ctx.set_output(3, with_dtype_lod_of(input, &[in0, frame]))
}

/// The frame size of a GRU unit (`hidden_prev` dim 1), after checking `input` is
/// `[batch, 3 × frame]`, `weight` `[frame, 3 × frame]` and `bias` `[1, 3 × frame]` (shared by
/// `GruUnitInferMeta` and `GruUnitGradInferMeta`).
pub(crate) fn gru_unit_frame(
    input: &TensorMeta,
    hp: &TensorMeta,
    w: &TensorMeta,
    bias: Option<&TensorMeta>,
) -> Res<i64> {
    let isz = dim_at(&input.dims, 1, "input")?;
    let frame = dim_at(&hp.dims, 1, "hidden_prev")?;
    let (w0, w1) = (dim_at(&w.dims, 0, "weight")?, dim_at(&w.dims, 1, "weight")?);
    if isz >= 0 {
        ensure_meta!(
            isz == mul(frame, 3),
            "input width {isz} must be 3 × the frame size {frame}"
        );
    }
    ensure_meta!(
        w0 == frame && w1 == mul(frame, 3),
        "weight must be [{frame}, 3 × {frame}], got {}",
        fmt_dims(&w.dims)
    );
    if let Some(b) = bias {
        let (b0, b1) = (dim_at(&b.dims, 0, "bias")?, dim_at(&b.dims, 1, "bias")?);
        ensure_meta!(
            b0 == 1 && b1 == mul(frame, 3),
            "bias must be [1, 3 × {frame}], got {}",
            fmt_dims(&b.dims)
        );
    }
    Ok(frame)
}

/// `GruUnitInferMeta(input, hidden_prev, weight, bias, activation, gate_activation,
/// origin_mode)`.
#[infer_meta]
pub fn gru_unit_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let input = ctx.tensor(0)?;
    let hp = ctx.tensor(1)?;
    let w = ctx.tensor(2)?;
    let bias = ctx.opt_tensor(3)?;
    let batch = dim_at(&input.dims, 0, "input")?;
    let frame = gru_unit_frame(input, hp, w, bias)?;
    ctx.set_output(0, with_dtype_of(input, &[batch, mul(frame, 3)]))?;
    ctx.set_output(1, with_dtype_of(input, &[batch, frame]))?;
    ctx.set_output(2, with_dtype_of(input, &[batch, frame]))
}

/// `AttentionLstmInferMeta(x, c0, h0, attention_weight, attention_bias, attention_scalar,
/// attention_scalar_bias, lstm_weight, lstm_bias, ...)`.
#[infer_meta]
pub fn attention_lstm_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let c0 = ctx.tensor(1)?;
    let h0 = ctx.opt_tensor(2)?;
    let aw = ctx.tensor(3)?;
    let w = ctx.tensor(7)?;
    let b = ctx.tensor(8)?;
    need_rank(x, 2, "x")?;
    let m = x.dims[1];
    need_rank(w, 2, "lstm_weight")?;
    let d = w.dims[1] / 4;
    ensure_meta!(
        w.dims[0] == add(d, m),
        "lstm_weight must be [({d} + {m}), 4 × {d}], got {}",
        fmt_dims(&w.dims)
    );
    need_rank(b, 2, "lstm_bias")?;
    ensure_meta!(
        b.dims[0] == 1 && b.dims[1] == mul(4, d),
        "lstm_bias must be [1, 4 × {d}], got {}",
        fmt_dims(&b.dims)
    );
    need_rank(c0, 2, "c0")?;
    if let Some(h) = h0 {
        need_rank(h, 2, "h0")?;
        if product(&c0.dims) > 0 && product(&h.dims) > 0 {
            need_same_dims(h, c0, "h0", "c0")?;
        }
    }
    need_rank(aw, 2, "attention_weight")?;
    ensure_meta!(
        aw.dims[0] == add(m, d) && aw.dims[1] == 1,
        "attention_weight must be [({m} + {d}), 1], got {}",
        fmt_dims(&aw.dims)
    );
    for (i, n) in [
        (4, "attention_bias"),
        (5, "attention_scalar"),
        (6, "attention_scalar_bias"),
    ] {
        if let Some(t) = ctx.opt_tensor(i)? {
            need_rank(t, 2, n)?;
            ensure_meta!(
                t.dims[0] == 1 && t.dims[1] == 1,
                "{n} must be [1, 1], got {}",
                fmt_dims(&t.dims)
            );
        }
    }
    let out = [x.dims[0], d];
    ctx.set_output(0, with_dtype_lod_of(x, &out))?;
    ctx.set_output(1, with_dtype_lod_of(x, &out))?;
    ctx.set_output(2, MetaBuilder::new().dims(&[x.dims[0], 1]).build())?;
    ctx.set_output(4, MetaBuilder::new().dims(&[1, m]).build())?;
    ctx.set_output(5, MetaBuilder::new().dims(&[1, mul(4, d)]).build())
}

/// `PyramidHashInferMeta(x, w, white_list, black_list, num_emb, space_len, pyramid_layer,
/// rand_len, ...)` at compile time: `out` `[-1, num_emb]`, `x_temp_out` with `x`'s dims.
#[infer_meta]
pub fn pyramid_hash_infer_meta(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    let w = ctx.tensor(1)?;
    let num_emb = ctx.int(4)?;
    let space_len = ctx.int(5)?;
    let rand_len = ctx.int(7)?;
    let wl_len = ctx.int(11)?;
    let bl_len = ctx.int(12)?;
    need_rank(x, 2, "x")?;
    need_rank(w, 2, "w")?;
    ensure_meta!(
        w.dims[0] == add(space_len, rand_len) && w.dims[1] == 1,
        "w must be [space_len {space_len} + rand_len {rand_len}, 1], got {}",
        fmt_dims(&w.dims)
    );
    ensure_meta!(
        rem(num_emb, rand_len, "rand_len")? == 0,
        "num_emb {num_emb} must be divisible by rand_len {rand_len}"
    );
    for (i, n, len) in [(2, "white_list", wl_len), (3, "black_list", bl_len)] {
        if len > 0 {
            let t = ctx.tensor(i)?;
            need_rank(t, 2, n)?;
            ensure_meta!(
                t.dims[0] == len && t.dims[1] == 1,
                "{n} must be [{len}, 1], got {}",
                fmt_dims(&t.dims)
            );
        }
    }
    ctx.set_output(0, MetaBuilder::new().dims(&[-1, num_emb]).lod(x).build())?;
    ctx.set_output(2, MetaBuilder::new().dims(&x.dims).build())
}
