//! Infer-meta functions of many inputs (tensor lists, optimizers, normalisations, recurrent
//! nets), after Paddle's `paddle/phi/infermeta/multiary.cc`.
//!
//! Every function takes Paddle's parameters in the op's `infer_meta.param` order and follows
//! Paddle's compile-time branch (`MetaConfig.is_runtime == false`): unknown extents stay `-1`.
//!
//! Optimizer outputs follow Paddle's setters exactly: an output Paddle only gives dims to keeps the
//! fresh tensor's float32 dtype, and `master_param_out` is set only when Paddle sets it (the master
//! parameter is present and, where Paddle asks for it, `multi_precision` is on).

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{
    InferMetaError, IntArray, IntArrayArg, Output, OutputList, Scalar, TensorMeta,
};
use pir_runtime::phi::DataType;

use super::common::{
    add, broadcast, concat_dims, dim_at, dims_dtype_lod_of, dims_dtype_of, div, err, fmt_dims,
    has_unknown, layout_is_nchw, mp_dtype, mul, need_bit_length, need_one_element, need_rank,
    need_rank_ge, need_same_batch_when_known, need_same_dims, product, rem, share_meta, sub,
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
pub fn concat_infer_meta(x: &[TensorMeta], axis: Option<Scalar>, out: Output<'_>) -> R {
    let x0 = first(x, "x")?;
    let base = MetaBuilder::new().dtype(x0.dtype).layout(x0.layout).lod(x0);
    let Some(axis) = axis.map(Scalar::to_i64) else {
        return out.set(base.dims(&vec![-1; x0.rank()]).build());
    };
    let rank = x0.rank() as i64;
    ensure_meta!(
        axis >= -rank && axis < rank,
        "concat axis {axis} is out of range [{}, {rank}) for inputs of rank {rank}",
        -rank
    );
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    let dims: Vec<&[i64]> = x.iter().map(|t| &t.dims[..]).collect();
    let d = concat_dims(&dims, Some(axis))?;
    out.set(base.dims(&d).build())
}

/// `StackInferMeta(x, axis)`: inserts a new axis of size `len(x)` at `axis` (in
/// `[-(rank+1), rank]`); all inputs must agree where extents are known.
#[infer_meta]
pub fn stack_infer_meta(x: &[TensorMeta], axis: i64, out: Output<'_>) -> R {
    let x0 = first(x, "x")?;
    let dims: Vec<&[i64]> = x.iter().map(|t| &t.dims[..]).collect();
    let mut d = concat_dims(&dims, None)?;
    let rank = x0.rank() as i64;
    ensure_meta!(
        axis >= -(rank + 1) && axis < rank + 1,
        "stack axis {axis} is out of range [{}, {}) for inputs of rank {rank}",
        -(rank + 1),
        rank + 1
    );
    let axis = if axis < 0 { axis + rank + 1 } else { axis } as usize;
    d.insert(axis, x.len() as i64);
    out.set(with_dtype_lod_of(x0, &d))
}

/// `UnchangedMultiInferMeta(x)`: each output shares the metadata of the input at its position.
#[infer_meta]
pub fn unchanged_multi_infer_meta(x: &[TensorMeta], out: OutputList<'_>) -> R {
    out.set(x.iter().map(share_meta).collect())
}

/// `MeshgridInferMeta(inputs)`: every output has dims `[len(in_0), len(in_1), ...]` (a 0-D input
/// counts 1) and the first input's dtype.
#[infer_meta]
pub fn meshgrid_infer_meta(inputs: &[TensorMeta], outputs: OutputList<'_>) -> R {
    let x0 = first(inputs, "inputs")?;
    let shape: Vec<i64> = inputs
        .iter()
        .map(|t| t.dims.first().copied().unwrap_or(1))
        .collect();
    outputs.set(inputs.iter().map(|_| with_dtype_of(x0, &shape)).collect())
}

/// `BroadcastTensorsInferMeta(input)`: every output gets the common broadcast shape (a -1
/// extent yields to a known one) with its own input's dtype and LoD.
#[infer_meta]
pub fn broadcast_tensors_infer_meta(input: &[TensorMeta], out: OutputList<'_>) -> R {
    let rank = input.iter().map(|t| t.rank()).max().unwrap_or(0);
    let mut target = vec![0i64; rank];
    for index in 0..rank {
        let mut t = 1i64;
        for x in input {
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
    out.set(
        input
            .iter()
            .map(|x| with_dtype_lod_of(x, &target))
            .collect(),
    )
}

/// `AddNInferMeta(x)`: the common shape of the non-0-D inputs (unknown extents are lenient), the
/// first input's dtype and LoD; all 0-D inputs give a 0-D output.
#[infer_meta]
pub fn add_n_infer_meta(x: &[TensorMeta], out: Output<'_>) -> R {
    let x0 = first(x, "x")?;
    let mut in_dim: Option<Vec<i64>> = None;
    for (i, xi) in x.iter().enumerate() {
        if xi.rank() == 0 {
            continue;
        }
        match &mut in_dim {
            None => in_dim = Some(xi.dims.to_vec()),
            Some(d) if product(d) == 0 => *d = xi.dims.to_vec(),
            Some(d) => {
                ensure_meta!(
                    d.len() == xi.rank(),
                    "add_n inputs need the same rank: x[0] is {} but x[{i}] is {}",
                    fmt_dims(d),
                    fmt_dims(&xi.dims)
                );
                for j in 0..d.len() {
                    if xi.dims[j] == -1 || d[j] == -1 {
                        continue;
                    }
                    ensure_meta!(
                        d[j] == xi.dims[j],
                        "add_n inputs need the same shape: x[0] is {} but x[{i}] is {}",
                        fmt_dims(d),
                        fmt_dims(&xi.dims)
                    );
                }
            }
        }
    }
    let d = in_dim.unwrap_or_default();
    out.set(with_dtype_lod_of(x0, &d))
}

/// `MultiDotInferMeta(x)`: the chained matrix product of 1-D/2-D ends and 2-D middles.
#[infer_meta]
pub fn multi_dot_infer_meta(x: &[TensorMeta], out: Output<'_>) -> R {
    ensure_meta!(
        x.len() > 1,
        "multi_dot needs more than one input, got {}",
        x.len()
    );
    let n = x.len();
    let mut first_dim = x[0].dims.to_vec();
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
    let mut last_dim = x[n - 1].dims.to_vec();
    ensure_meta!(
        !last_dim.is_empty() && last_dim.len() < 3,
        "multi_dot: the last input must be 1-D or 2-D, got {}",
        fmt_dims(&last_dim)
    );
    let d: Vec<i64> = if last_dim.len() == 1 {
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
    for (i, t) in x.iter().enumerate().take(n - 1).skip(1) {
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
    out.set(with_dtype_lod_of(&x[0], &d))
}

/// `MultiplexInferMeta(inputs, index)`: the candidates' shape with dim 0 from `index` (`[N, 1]`).
#[infer_meta]
pub fn multiplex_infer_meta(inputs: &[TensorMeta], index: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(!inputs.is_empty(), "multiplex needs candidate inputs");
    need_rank(index, 2, "index")?;
    ensure_meta!(
        index.dims[1] == 1,
        "index must have shape [batch, 1], got {}",
        fmt_dims(&index.dims)
    );
    ensure_meta!(
        inputs.len() > 1,
        "multiplex needs more than one candidate input, got {}",
        inputs.len()
    );
    let mut d = inputs[0].dims.to_vec();
    ensure_meta!(
        d.len() >= 2,
        "multiplex candidates must have rank ≥ 2, got {}",
        fmt_dims(&d)
    );
    for (i, t) in inputs.iter().enumerate().skip(1) {
        ensure_meta!(
            t.dims[..] == d[..],
            "all multiplex candidates must have the same shape: inputs[0] is {} but inputs[{i}] \
             is {}",
            fmt_dims(&d),
            fmt_dims(&t.dims)
        );
    }
    ensure_meta!(
        d[0] >= index.dims[0],
        "candidate dim 0 ({}) is smaller than the batch size of index ({})",
        d[0],
        index.dims[0]
    );
    d[0] = index.dims[0];
    out.set(with_dtype_of(&inputs[0], &d))
}

/// Checks that `a` and `b` have the same rank and agree on every extent known and non-zero in
/// both (`WhereInferMeta`'s rule).
fn need_where_compatible(a: &TensorMeta, b: &TensorMeta, na: &str, nb: &str) -> R {
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
}

/// `WhereInferMeta(condition, x, y)`: `out` shares `x`'s metadata; the three ranks must agree
/// and so must known, non-zero extents.
#[infer_meta]
pub fn where_infer_meta(
    condition: &TensorMeta,
    x: &TensorMeta,
    y: &TensorMeta,
    out: Output<'_>,
) -> R {
    need_where_compatible(condition, x, "condition", "x")?;
    need_where_compatible(x, y, "x", "y")?;
    out.set(share_meta(x))
}

/// `IndexPutInferMeta(x, indices, value, accumulate)`: `out` shares `x`'s metadata (rank < 7).
#[infer_meta]
pub fn index_put_infer_meta(
    x: &TensorMeta,
    _indices: &[TensorMeta],
    _value: &TensorMeta,
    _accumulate: bool,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        x.rank() < 7,
        "index_put supports x of rank below 7, got {}",
        fmt_dims(&x.dims)
    );
    out.set(share_meta(x))
}

/// `CheckFiniteAndUnscaleInferMeta(x, scale)`: each output copies its input's dims and dtype;
/// `found_infinite` is bool `[1]`.
#[infer_meta]
pub fn check_finite_and_unscale_infer_meta(
    x: &[TensorMeta],
    _scale: &TensorMeta,
    out: OutputList<'_>,
    found_infinite: Output<'_>,
) -> R {
    out.set(x.iter().map(dims_dtype_of).collect())?;
    found_infinite.set(TensorMeta::new(DataType::Bool, &[1]))
}

/// `UpdateLossScalingInferMeta(x, found_infinite, prev_loss_scaling, in_good_steps,
/// in_bad_steps)`: outputs copy the inputs' dims and dtypes; `loss_scaling` gets dims `[1]`, the
/// step counters int32 `[1]`.
#[infer_meta]
pub fn update_loss_scaling_infer_meta(
    x: &[TensorMeta],
    _found_infinite: &TensorMeta,
    _prev_loss_scaling: &TensorMeta,
    _in_good_steps: &TensorMeta,
    _in_bad_steps: &TensorMeta,
    out: OutputList<'_>,
    loss_scaling: Output<'_>,
    out_good_steps: Output<'_>,
    out_bad_steps: Output<'_>,
) -> R {
    out.set(x.iter().map(dims_dtype_of).collect())?;
    loss_scaling.set(TensorMeta::new(DataType::Float32, &[1]))?;
    let counter = TensorMeta::new(DataType::Int32, &[1]);
    out_good_steps.set(counter.clone())?;
    out_bad_steps.set(counter)
}

/// `CoalesceTensorInferMeta(input, dtype, copy_data, set_constant, persist_output, constant,
/// use_align, align_size, size_of_dtype, concated_shapes, concated_ranks)`: outputs copy the
/// inputs' dims, dtypes and layouts; at compile time `fused_output` is set only with alignment
/// on, to the aligned total element count.
#[infer_meta]
pub fn coalesce_tensor_infer_meta(
    input: &[TensorMeta],
    dtype: DataType,
    _copy_data: bool,
    _set_constant: bool,
    _persist_output: bool,
    _constant: f64,
    use_align: bool,
    align_size: i64,
    size_of_dtype: i64,
    _concated_shapes: &[i64],
    _concated_ranks: &[i64],
    output: OutputList<'_>,
    fused_output: Output<'_>,
) -> R {
    let size_of = if size_of_dtype == -1 {
        dtype.size_of() as i64
    } else {
        size_of_dtype
    };
    let outs = input
        .iter()
        .map(|x| {
            MetaBuilder::new()
                .dims(&x.dims)
                .dtype(x.dtype)
                .layout(x.layout)
                .build()
        })
        .collect();
    output.set(outs)?;
    if use_align && align_size > 0 {
        ensure_meta!(size_of > 0, "size_of_dtype must be positive, got {size_of}");
        let mut numel = 0i64;
        let mut unknown = false;
        for x in input {
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
        fused_output.set_if_present(TensorMeta::new(dtype, &[d]));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------------

/// The shared rule of `BatchNormInferMeta` and `FusedBatchNormActInferMeta`; `outs` are `y`,
/// `mean_out`, `variance_out`, `saved_mean`, `saved_variance` and `reserve_space`.
fn batch_norm(
    x: &TensorMeta,
    mean: &TensorMeta,
    variance: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    data_format: &str,
    outs: [Output<'_>; 6],
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
    let [y, mean_out, variance_out, saved_mean, saved_variance, reserve_space] = outs;
    let y_meta = MetaBuilder::new()
        .dims(xd)
        .lod(x)
        .dtype(x.dtype)
        .layout(x.layout)
        .build();
    y.set(y_meta)?;
    mean_out.set(TensorMeta::new(mean.dtype, &[c]))?;
    variance_out.set(TensorMeta::new(variance.dtype, &[c]))?;
    saved_mean.set_if_present(TensorMeta::new(stat, &[c]));
    saved_variance.set_if_present(TensorMeta::new(stat, &[c]));
    reserve_space.set_if_present(TensorMeta::new(DataType::UInt8, &[-1]));
    Ok(())
}

/// `BatchNormInferMeta(x, mean, variance, scale, bias, is_test, momentum, epsilon, data_format,
/// use_global_stats, trainable_statistics)`: `out` like `x`; running statistics `[C]` in their
/// own dtypes; saved statistics `[C]` in float32 for half inputs; `reserve_space` uint8 `[-1]`.
/// `C` is dim 1 for `NCHW`, the last dim otherwise.
#[infer_meta]
pub fn batch_norm_infer_meta(
    x: &TensorMeta,
    mean: &TensorMeta,
    variance: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    _is_test: bool,
    _momentum: f64,
    _epsilon: f64,
    data_format: &str,
    _use_global_stats: bool,
    _trainable_statistics: bool,
    y: Output<'_>,
    mean_out: Output<'_>,
    variance_out: Output<'_>,
    saved_mean: Output<'_>,
    saved_variance: Output<'_>,
    reserve_space: Output<'_>,
) -> R {
    let outs = [
        y,
        mean_out,
        variance_out,
        saved_mean,
        saved_variance,
        reserve_space,
    ];
    batch_norm(x, mean, variance, scale, bias, data_format, outs)
}

/// `FusedBatchNormActInferMeta(x, scale, bias, mean, variance)`: `BatchNormInferMeta` with
/// `NHWC`.
#[infer_meta]
pub fn fused_batch_norm_act_infer_meta(
    x: &TensorMeta,
    scale: Option<&TensorMeta>,
    bias: Option<&TensorMeta>,
    mean: &TensorMeta,
    variance: &TensorMeta,
    y: Output<'_>,
    mean_out: Output<'_>,
    variance_out: Output<'_>,
    saved_mean: Output<'_>,
    saved_variance: Output<'_>,
    reserve_space: Output<'_>,
) -> R {
    let outs = [
        y,
        mean_out,
        variance_out,
        saved_mean,
        saved_variance,
        reserve_space,
    ];
    batch_norm(x, mean, variance, scale, bias, "NHWC", outs)
}

/// `RmsNormInferMeta(x, bias, residual, norm_weight, norm_bias, epsilon, begin_norm_axis,
/// quant_scale, quant_round_type, quant_max_bound, quant_min_bound)`.
#[infer_meta]
pub fn rms_norm_infer_meta(
    x: &TensorMeta,
    _bias: Option<&TensorMeta>,
    residual: Option<&TensorMeta>,
    norm_weight: &TensorMeta,
    _norm_bias: Option<&TensorMeta>,
    _epsilon: f64,
    begin_norm_axis: i64,
    quant_scale: f64,
    _quant_round_type: i64,
    quant_max_bound: f64,
    _quant_min_bound: f64,
    out: Output<'_>,
    residual_out: Output<'_>,
    inv_var: Output<'_>,
) -> R {
    let begin = begin_norm_axis;
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
        let w0 = dim_at(&norm_weight.dims, 0, "norm_weight")?;
        ensure_meta!(
            norm == w0,
            "the normalized size of x {} from axis {b} is {norm} but norm_weight has {w0} elements",
            fmt_dims(&x.dims)
        );
    }
    let mut meta = MetaBuilder::new().dims(&x.dims).layout(x.layout).lod(x);
    if quant_scale > 0.0 {
        if (quant_max_bound - 127.0).abs() < 1e-6 {
            meta = meta.dtype(DataType::Int8);
        } else if (quant_max_bound - 448.0).abs() < 1e-6 {
            meta = meta.dtype(DataType::Float8E4M3FN);
        }
    } else {
        meta = meta.dtype(x.dtype);
    }
    out.set(meta.build())?;
    let inv = MetaBuilder::new()
        .dims(&x.dims[..b])
        .dtype(DataType::Float32)
        .layout(x.layout)
        .build();
    inv_var.set_if_present(inv);
    if residual.is_some() {
        let r = MetaBuilder::new()
            .dims(&x.dims)
            .dtype(x.dtype)
            .layout(x.layout)
            .lod(x);
        residual_out.set_if_present(r.build());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Optimizers
// ---------------------------------------------------------------------------------------------

/// Sets `master_param_out` (if the op has it) to `like`'s dims in the master-weight precision.
fn set_master(out: Output<'_>, like: &TensorMeta) {
    out.set_if_present(TensorMeta::new(mp_dtype(like.dtype), &like.dims));
}

/// Checks that each given state tensor has `param`'s dims (an absent optional one is skipped).
fn need_param_dims(param: &TensorMeta, states: &[(Option<&TensorMeta>, &str)]) -> R {
    for &(t, name) in states {
        if let Some(t) = t {
            need_same_dims(param, t, "param", name)?;
        }
    }
    Ok(())
}

/// Checks that `learning_rate` is initialized (has elements) and holds exactly one.
fn need_learning_rate(lr: &TensorMeta) -> R {
    ensure_meta!(product(&lr.dims) != 0, "learning_rate has no elements");
    need_one_element(lr, "learning_rate")
}

/// The checks Adam and Lamb share: the `beta1_pow` and `beta2_pow` accumulators hold at least
/// one element, the moments (and the master param, if given) have `param`'s dims.
fn need_moments_and_pows(
    param: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    master_param: Option<&TensorMeta>,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
) -> R {
    for (t, n) in [(beta1_pow, "beta1_pow"), (beta2_pow, "beta2_pow")] {
        let p = product(&t.dims);
        ensure_meta!(
            p >= 1,
            "{n} must hold at least one element, got dims {}",
            fmt_dims(&t.dims)
        );
    }
    need_param_dims(
        param,
        &[
            (Some(moment1), "moment1"),
            (Some(moment2), "moment2"),
            (master_param, "master_param"),
        ],
    )
}

/// `SgdInferMeta(param, learning_rate, grad, master_param, multi_precision)`.
#[infer_meta]
pub fn sgd_infer_meta(
    param: &TensorMeta,
    learning_rate: &TensorMeta,
    _grad: &TensorMeta,
    master_param: Option<&TensorMeta>,
    multi_precision: bool,
    param_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    need_one_element(learning_rate, "learning_rate")?;
    param_out.set(dims_dtype_of(param))?;
    if let (true, Some(m)) = (multi_precision, master_param) {
        set_master(master_param_out, m);
    }
    Ok(())
}

/// `MomentumInferMeta(param, grad, velocity, learning_rate, master_param, mu, use_nesterov,
/// regularization_method, regularization_coeff, multi_precision, rescale_grad)`: `param_out`
/// gets dims only (its dtype stays float32, as in Paddle); `velocity_out` is in the master
/// precision.
#[infer_meta]
pub fn momentum_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    _velocity: &TensorMeta,
    learning_rate: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _mu: f64,
    _use_nesterov: bool,
    _regularization_method: &str,
    _regularization_coeff: f64,
    _multi_precision: bool,
    _rescale_grad: f64,
    param_out: Output<'_>,
    velocity_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    let lr = learning_rate;
    ensure_meta!(
        product(&lr.dims) != 0,
        "learning_rate has no elements ({}): it may not be initialized",
        fmt_dims(&lr.dims)
    );
    need_one_element(lr, "learning_rate")?;
    param_out.set(TensorMeta::new(DataType::Float32, &param.dims))?;
    velocity_out.set(TensorMeta::new(mp_dtype(param.dtype), &param.dims))?;
    if master_param.is_some() {
        set_master(master_param_out, param);
    }
    Ok(())
}

/// `DGCMomentumInferMeta(param, grad, velocity, learning_rate, master_param, current_step,
/// nranks, mu, use_nesterov, regularization_method, regularization_coeff, multi_precision,
/// rescale_grad, rampup_begin_step)`.
#[infer_meta(name = "DGCMomentumInferMeta")]
pub fn dgc_momentum_infer_meta(
    param: &TensorMeta,
    grad: &TensorMeta,
    velocity: &TensorMeta,
    learning_rate: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _current_step_tensor: &TensorMeta,
    _nranks_tensor: &TensorMeta,
    _mu: f64,
    _use_nesterov: bool,
    _regularization_method: &str,
    _regularization_coeff: f64,
    multi_precision: bool,
    _rescale_grad: f64,
    _rampup_begin_step: f64,
    param_out: Output<'_>,
    velocity_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    need_learning_rate(learning_rate)?;
    need_param_dims(
        param,
        &[
            (Some(grad), "grad"),
            (Some(velocity), "velocity"),
            (master_param, "master_param"),
        ],
    )?;
    param_out.set(TensorMeta::new(DataType::Float32, &param.dims))?;
    velocity_out.set(TensorMeta::new(mp_dtype(param.dtype), &param.dims))?;
    if multi_precision && master_param.is_some() {
        set_master(master_param_out, param);
    }
    Ok(())
}

/// The rule of `AdamInferMeta` and `AdamwInferMeta` in every signature. `tensors` are `param`,
/// `learning_rate`, `moment1`, `moment2`, `beta1_pow` and `beta2_pow`; `outs` are `param_out`,
/// `moment1_out`, `moment2_out`, `beta1_pow_out`, `beta2_pow_out` and `master_param_outs`;
/// `moment2_max_out` is given when Paddle sets it (the signature with `amsgrad`, on).
fn adam(
    tensors: [&TensorMeta; 6],
    master_param: Option<&TensorMeta>,
    multi_precision: bool,
    outs: [Output<'_>; 6],
    moment2_max_out: Option<Output<'_>>,
) -> R {
    let [param, learning_rate, moment1, moment2, beta1_pow, beta2_pow] = tensors;
    need_one_element(learning_rate, "learning_rate")?;
    need_moments_and_pows(param, moment1, moment2, master_param, beta1_pow, beta2_pow)?;
    let [param_out, moment1_out, moment2_out, beta1_pow_out, beta2_pow_out, master_out] = outs;
    param_out.set(dims_dtype_of(param))?;
    moment1_out.set_new(moment1.dtype, &param.dims)?;
    moment2_out.set_new(moment2.dtype, &param.dims)?;
    if let Some(out) = moment2_max_out {
        out.set_new(moment2.dtype, &param.dims)?;
    }
    beta1_pow_out.set(dims_dtype_of(beta1_pow))?;
    beta2_pow_out.set(dims_dtype_of(beta2_pow))?;
    if multi_precision && master_param.is_some() {
        set_master(master_out, param);
    }
    Ok(())
}

/// `AdamInferMeta(param, grad, learning_rate, moment1, moment2, moment2_max, beta1_pow,
/// beta2_pow, master_param, skip_update, beta1, beta2, epsilon, lazy_mode,
/// min_row_size_to_use_multithread, multi_precision, use_global_beta_pow, amsgrad)`, Paddle
/// 3.3.1's signature: `moment2_max_out` is set with `amsgrad`.
#[infer_meta]
pub fn adam_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    _moment2_max: Option<&TensorMeta>,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _skip_update: Option<&TensorMeta>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _lazy_mode: bool,
    _min_row_size_to_use_multithread: i64,
    multi_precision: bool,
    _use_global_beta_pow: bool,
    amsgrad: bool,
    param_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    moment2_max_out: Output<'_>,
    beta1_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    let tensors = [param, learning_rate, moment1, moment2, beta1_pow, beta2_pow];
    let outs = [
        param_out,
        moment1_out,
        moment2_out,
        beta1_pow_out,
        beta2_pow_out,
        master_param_outs,
    ];
    adam(
        tensors,
        master_param,
        multi_precision,
        outs,
        amsgrad.then_some(moment2_max_out),
    )
}

/// `AdamInferMeta` before Paddle added `moment2_max` and `amsgrad` (16 arguments, 6 outputs), the
/// signature of the `adam_` entry of Paddle's yaml snapshot.
#[infer_meta(name = "AdamInferMeta")]
pub fn adam_before_amsgrad_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _skip_update: Option<&TensorMeta>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _lazy_mode: bool,
    _min_row_size_to_use_multithread: i64,
    multi_precision: bool,
    _use_global_beta_pow: bool,
    param_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    beta1_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    let tensors = [param, learning_rate, moment1, moment2, beta1_pow, beta2_pow];
    let outs = [
        param_out,
        moment1_out,
        moment2_out,
        beta1_pow_out,
        beta2_pow_out,
        master_param_outs,
    ];
    adam(tensors, master_param, multi_precision, outs, None)
}

/// `AdamwInferMeta`: `AdamInferMeta` with the extra `lr_ratio, coeff, with_decay` attributes
/// after `epsilon`, in Paddle 3.3.1's signature (with `moment2_max` and `amsgrad`).
#[infer_meta]
pub fn adamw_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    _moment2_max: Option<&TensorMeta>,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _skip_update: Option<&TensorMeta>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _lr_ratio: f64,
    _coeff: f64,
    _with_decay: bool,
    _lazy_mode: bool,
    _min_row_size_to_use_multithread: i64,
    multi_precision: bool,
    _use_global_beta_pow: bool,
    amsgrad: bool,
    param_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    moment2_max_out: Output<'_>,
    beta1_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    let tensors = [param, learning_rate, moment1, moment2, beta1_pow, beta2_pow];
    let outs = [
        param_out,
        moment1_out,
        moment2_out,
        beta1_pow_out,
        beta2_pow_out,
        master_param_outs,
    ];
    adam(
        tensors,
        master_param,
        multi_precision,
        outs,
        amsgrad.then_some(moment2_max_out),
    )
}

/// `AdamwInferMeta` before Paddle added `moment2_max` and `amsgrad` (19 arguments, 6 outputs).
#[infer_meta(name = "AdamwInferMeta")]
pub fn adamw_before_amsgrad_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _skip_update: Option<&TensorMeta>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _lr_ratio: f64,
    _coeff: f64,
    _with_decay: bool,
    _lazy_mode: bool,
    _min_row_size_to_use_multithread: i64,
    multi_precision: bool,
    _use_global_beta_pow: bool,
    param_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    beta1_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    let tensors = [param, learning_rate, moment1, moment2, beta1_pow, beta2_pow];
    let outs = [
        param_out,
        moment1_out,
        moment2_out,
        beta1_pow_out,
        beta2_pow_out,
        master_param_outs,
    ];
    adam(tensors, master_param, multi_precision, outs, None)
}

/// `AdadeltaInferMeta(param, grad, avg_squared_grad, avg_squared_update, learning_rate,
/// master_param, rho, epsilon, multi_precision)`.
#[infer_meta]
pub fn adadelta_infer_meta(
    param: &TensorMeta,
    grad: &TensorMeta,
    avg_squared_grad: &TensorMeta,
    avg_squared_update: &TensorMeta,
    learning_rate: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _rho: f64,
    _epsilon: f64,
    multi_precision: bool,
    param_out: Output<'_>,
    avg_squared_grad_out: Output<'_>,
    avg_squared_update_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    need_one_element(learning_rate, "learning_rate")?;
    need_param_dims(
        param,
        &[
            (Some(grad), "grad"),
            (Some(avg_squared_grad), "avg_squared_grad"),
            (Some(avg_squared_update), "avg_squared_update"),
            (master_param, "master_param"),
        ],
    )?;
    param_out.set(dims_dtype_of(param))?;
    avg_squared_grad_out.set_new(avg_squared_grad.dtype, &param.dims)?;
    avg_squared_update_out.set_new(avg_squared_update.dtype, &param.dims)?;
    if multi_precision && master_param.is_some() {
        set_master(master_param_outs, param);
    }
    Ok(())
}

/// `AdagradInferMeta(param, grad, moment, learning_rate, master_param, epsilon,
/// multi_precision)`.
#[infer_meta]
pub fn adagrad_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    moment: &TensorMeta,
    learning_rate: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _epsilon: f64,
    multi_precision: bool,
    param_out: Output<'_>,
    moment_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    need_one_element(learning_rate, "learning_rate")?;
    need_param_dims(
        param,
        &[(Some(moment), "moment"), (master_param, "master_param")],
    )?;
    param_out.set(dims_dtype_of(param))?;
    moment_out.set_new(moment.dtype, &param.dims)?;
    if multi_precision && master_param.is_some() {
        set_master(master_param_out, param);
    }
    Ok(())
}

/// `AdamaxInferMeta(param, grad, learning_rate, moment, inf_norm, beta1_pow, master_param,
/// beta1, beta2, epsilon, multi_precision)`.
#[infer_meta]
pub fn adamax_infer_meta(
    param: &TensorMeta,
    grad: &TensorMeta,
    learning_rate: &TensorMeta,
    moment: &TensorMeta,
    inf_norm: &TensorMeta,
    beta1_pow: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _beta1: f64,
    _beta2: f64,
    _epsilon: f64,
    multi_precision: bool,
    param_out: Output<'_>,
    moment_out: Output<'_>,
    inf_norm_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    need_learning_rate(learning_rate)?;
    need_one_element(beta1_pow, "beta1_pow")?;
    need_param_dims(
        param,
        &[
            (Some(grad), "grad"),
            (Some(moment), "moment"),
            (Some(inf_norm), "inf_norm"),
            (master_param, "master_param"),
        ],
    )?;
    param_out.set(dims_dtype_of(param))?;
    moment_out.set_new(moment.dtype, &param.dims)?;
    inf_norm_out.set_new(inf_norm.dtype, &param.dims)?;
    if multi_precision && master_param.is_some() {
        set_master(master_param_outs, param);
    }
    Ok(())
}

/// `ASGDInferMeta(param, grad, learning_rate, d, y, n, master_param, multi_precision)`.
#[infer_meta(name = "ASGDInferMeta")]
pub fn asgd_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    _learning_rate: &TensorMeta,
    d: &TensorMeta,
    y: &TensorMeta,
    _n: &TensorMeta,
    master_param: Option<&TensorMeta>,
    multi_precision: bool,
    param_out: Output<'_>,
    d_out: Output<'_>,
    y_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    param_out.set(dims_dtype_of(param))?;
    d_out.set(dims_dtype_of(d))?;
    y_out.set(dims_dtype_of(y))?;
    if let (true, Some(m)) = (multi_precision, master_param) {
        set_master(master_param_out, m);
    }
    Ok(())
}

/// `RpropInferMeta(param, grad, prev, learning_rate, master_param, learning_rate_range, etas,
/// multi_precision)`.
#[infer_meta]
pub fn rprop_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    prev: &TensorMeta,
    learning_rate: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _learning_rate_range: &TensorMeta,
    _etas: &TensorMeta,
    multi_precision: bool,
    param_out: Output<'_>,
    prev_out: Output<'_>,
    learning_rate_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    param_out.set(dims_dtype_of(param))?;
    prev_out.set(dims_dtype_of(prev))?;
    learning_rate_out.set(dims_dtype_of(learning_rate))?;
    if let (true, Some(m)) = (multi_precision, master_param) {
        set_master(master_param_out, m);
    }
    Ok(())
}

/// `DecayedAdagradInferMeta(param, grad, moment, learning_rate, decay, epsilon)`.
#[infer_meta]
pub fn decayed_adagrad_infer_meta(
    param: &TensorMeta,
    grad: &TensorMeta,
    moment: &TensorMeta,
    learning_rate: &TensorMeta,
    _decay: f64,
    _epsilon: f64,
    param_out: Output<'_>,
    moment_out: Output<'_>,
) -> R {
    need_learning_rate(learning_rate)?;
    need_param_dims(param, &[(Some(grad), "grad"), (Some(moment), "moment")])?;
    param_out.set(dims_dtype_of(param))?;
    moment_out.set(dims_dtype_of(param))
}

/// `FtrlInferMeta(param, squared_accumulator, linear_accumulator, grad, learning_rate, l1, l2,
/// lr_power)`.
#[infer_meta]
pub fn ftrl_infer_meta(
    param: &TensorMeta,
    _squared_accumulator: &TensorMeta,
    _linear_accumulator: &TensorMeta,
    grad: &TensorMeta,
    learning_rate: &TensorMeta,
    _l1: f64,
    _l2: f64,
    _lr_power: f64,
    param_out: Output<'_>,
    squared_accum_out: Output<'_>,
    linear_accum_out: Output<'_>,
) -> R {
    need_same_dims(param, grad, "param", "grad")?;
    need_learning_rate(learning_rate)?;
    for out in [param_out, squared_accum_out, linear_accum_out] {
        out.set(dims_dtype_of(param))?;
    }
    Ok(())
}

/// `LambInferMeta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
/// master_param, skip_update, weight_decay, beta1, beta2, epsilon, always_adapt,
/// multi_precision)`: `param_out` gets dims only (float32 dtype, as in Paddle).
#[infer_meta]
pub fn lamb_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _skip_update: Option<&TensorMeta>,
    _weight_decay: f64,
    _beta1: f64,
    _beta2: f64,
    _epsilon: f64,
    _always_adapt: bool,
    multi_precision: bool,
    param_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    beta1_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    need_learning_rate(learning_rate)?;
    need_moments_and_pows(param, moment1, moment2, master_param, beta1_pow, beta2_pow)?;
    param_out.set(TensorMeta::new(DataType::Float32, &param.dims))?;
    moment1_out.set_new(moment1.dtype, &param.dims)?;
    moment2_out.set_new(moment2.dtype, &param.dims)?;
    beta1_pow_out.set_if_present(dims_dtype_of(beta1_pow));
    beta2_pow_out.set_if_present(dims_dtype_of(beta2_pow));
    if multi_precision && master_param.is_some() {
        set_master(master_param_outs, param);
    }
    Ok(())
}

/// The rules NAdam and RAdam share: `param`, `learning_rate`, three state tensors (their
/// outputs are like them), two moments (outputs of `param`'s dims) and, with
/// `multi_precision`, the master param. `outs` are `param_out`, the three state outputs,
/// `moment1_out`, `moment2_out` and `master_param_outs`.
fn param_states_moments(
    param: &TensorMeta,
    learning_rate: &TensorMeta,
    states: [&TensorMeta; 3],
    moments: [&TensorMeta; 2],
    master_param: Option<&TensorMeta>,
    multi_precision: bool,
    outs: [Output<'_>; 7],
) -> R {
    let [moment1, moment2] = moments;
    need_param_dims(
        param,
        &[(Some(moment1), "moment1"), (Some(moment2), "moment2")],
    )?;
    need_one_element(learning_rate, "learning_rate")?;
    need_param_dims(param, &[(master_param, "master_param")])?;
    let [param_out, s1, s2, s3, moment1_out, moment2_out, master_out] = outs;
    param_out.set(dims_dtype_of(param))?;
    for (out, state) in [s1, s2, s3].into_iter().zip(states) {
        out.set(dims_dtype_of(state))?;
    }
    moment1_out.set_new(moment1.dtype, &param.dims)?;
    moment2_out.set_new(moment2.dtype, &param.dims)?;
    if multi_precision && master_param.is_some() {
        set_master(master_out, param);
    }
    Ok(())
}

/// `NAdamInferMeta(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product,
/// moment1, moment2, master_param, beta1, beta2, epsilon, momentum_decay, multi_precision)`.
#[infer_meta(name = "NAdamInferMeta")]
pub fn nadam_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    momentum_decay_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    mu_product: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _beta1: f64,
    _beta2: f64,
    _epsilon: f64,
    _momentum_decay: f64,
    multi_precision: bool,
    param_out: Output<'_>,
    momentum_decay_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    mu_product_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    param_states_moments(
        param,
        learning_rate,
        [momentum_decay_pow, beta2_pow, mu_product],
        [moment1, moment2],
        master_param,
        multi_precision,
        [
            param_out,
            momentum_decay_pow_out,
            beta2_pow_out,
            mu_product_out,
            moment1_out,
            moment2_out,
            master_param_outs,
        ],
    )
}

/// `RAdamInferMeta(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2,
/// master_param, beta1, beta2, epsilon, multi_precision)`.
#[infer_meta(name = "RAdamInferMeta")]
pub fn radam_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    learning_rate: &TensorMeta,
    beta1_pow: &TensorMeta,
    beta2_pow: &TensorMeta,
    rho: &TensorMeta,
    moment1: &TensorMeta,
    moment2: &TensorMeta,
    master_param: Option<&TensorMeta>,
    _beta1: f64,
    _beta2: f64,
    _epsilon: f64,
    multi_precision: bool,
    param_out: Output<'_>,
    beta1_pow_out: Output<'_>,
    beta2_pow_out: Output<'_>,
    rho_out: Output<'_>,
    moment1_out: Output<'_>,
    moment2_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    param_states_moments(
        param,
        learning_rate,
        [beta1_pow, beta2_pow, rho],
        [moment1, moment2],
        master_param,
        multi_precision,
        [
            param_out,
            beta1_pow_out,
            beta2_pow_out,
            rho_out,
            moment1_out,
            moment2_out,
            master_param_outs,
        ],
    )
}

/// `RmspropInferMeta(param, mean_square, grad, moment, learning_rate, mean_grad, master_param,
/// epsilon, decay, momentum, centered, multi_precision)`.
#[infer_meta]
pub fn rmsprop_infer_meta(
    param: &TensorMeta,
    mean_square: &TensorMeta,
    _grad: &TensorMeta,
    moment: &TensorMeta,
    learning_rate: &TensorMeta,
    mean_grad: Option<&TensorMeta>,
    master_param: Option<&TensorMeta>,
    _epsilon: f64,
    _decay: f64,
    _momentum: f64,
    centered: bool,
    multi_precision: bool,
    param_out: Output<'_>,
    moment_out: Output<'_>,
    mean_square_out: Output<'_>,
    mean_grad_out: Output<'_>,
    master_param_outs: Output<'_>,
) -> R {
    need_param_dims(
        param,
        &[(Some(moment), "moment"), (Some(mean_square), "mean_square")],
    )?;
    need_one_element(learning_rate, "learning_rate")?;
    need_param_dims(param, &[(master_param, "master_param")])?;
    param_out.set(dims_dtype_of(param))?;
    moment_out.set_new(moment.dtype, &param.dims)?;
    mean_square_out.set_new(mean_square.dtype, &param.dims)?;
    if centered {
        let mg = mean_grad.ok_or_else(|| err("centered rmsprop needs mean_grad"))?;
        mean_grad_out.set_new(mg.dtype, &param.dims)?;
    }
    if multi_precision && master_param.is_some() {
        set_master(master_param_outs, param);
    }
    Ok(())
}

/// `AverageAccumulatesInferMeta(param, in_sum_1, in_sum_2, in_sum_3, in_num_accumulates,
/// in_old_num_accumulates, in_num_updates, average_window, max_average_window,
/// min_average_window)`: the sums keep their inputs' dims and dtypes, the counters get `[1]`.
#[infer_meta]
pub fn average_accumulates_infer_meta(
    _param: &TensorMeta,
    in_sum_1: &TensorMeta,
    in_sum_2: &TensorMeta,
    in_sum_3: &TensorMeta,
    in_num_accumulates: &TensorMeta,
    in_old_num_accumulates: &TensorMeta,
    in_num_updates: &TensorMeta,
    _average_window: f64,
    _max_average_window: i64,
    _min_average_window: i64,
    out_sum_1: Output<'_>,
    out_sum_2: Output<'_>,
    out_sum_3: Output<'_>,
    out_num_accumulates: Output<'_>,
    out_old_num_accumulates: Output<'_>,
    out_num_updates: Output<'_>,
) -> R {
    for (out, sum) in [
        (out_sum_1, in_sum_1),
        (out_sum_2, in_sum_2),
        (out_sum_3, in_sum_3),
    ] {
        out.set(dims_dtype_of(sum))?;
    }
    for (out, counter) in [
        (out_num_accumulates, in_num_accumulates),
        (out_old_num_accumulates, in_old_num_accumulates),
        (out_num_updates, in_num_updates),
    ] {
        out.set(TensorMeta::new(counter.dtype, &[1]))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Layers
// ---------------------------------------------------------------------------------------------

/// `BilinearInferMeta(x, y, weight, bias)`: `[batch, weight[0]]`.
#[infer_meta]
pub fn bilinear_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    out: Output<'_>,
) -> R {
    let w = weight;
    need_rank(x, 2, "x")?;
    need_rank(y, 2, "y")?;
    need_rank(w, 3, "weight")?;
    need_same_batch_when_known(x, y, "x", "y")?;
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
    out.set(with_dtype_lod_of(x, &[x.dims[0], w.dims[0]]))
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
pub fn deformable_conv_infer_meta(
    x: &TensorMeta,
    _offset: &TensorMeta,
    filter: &TensorMeta,
    _mask: Option<&TensorMeta>,
    strides: &[i64],
    paddings: &[i64],
    dilations: &[i64],
    deformable_groups: i64,
    groups: i64,
    im2col_step: i64,
    out: Output<'_>,
) -> R {
    let (dg, im2col) = (deformable_groups, im2col_step);
    let (xd, fdm) = (&x.dims, &filter.dims);
    need_rank(x, 4, "x")?;
    need_rank(filter, 4, "filter")?;
    ensure_meta!(
        strides.len() == 2,
        "strides {} must have 2 values for a 4-D input",
        fmt_dims(strides)
    );
    ensure_meta!(
        paddings.len() == strides.len(),
        "paddings {} and strides {} must have the same length",
        fmt_dims(paddings),
        fmt_dims(strides)
    );
    ensure_meta!(
        dilations.len() >= 2,
        "dilations {} must have 2 values",
        fmt_dims(dilations)
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
    let mut d = vec![xd[0], fdm[0]];
    for i in 0..2 {
        if xd[i + 2] <= 0 || fdm[i + 2] <= 0 {
            d.push(-1);
        } else {
            d.push(conv_output_size(
                xd[i + 2],
                fdm[i + 2],
                dilations[i],
                paddings[i],
                strides[i],
            )?);
        }
    }
    ensure_meta!(
        rem(d[1], dg, "deformable_groups")? == 0,
        "the number of filters {} must be divisible by deformable_groups {dg}",
        d[1]
    );
    out.set_new(x.dtype, &d)
}

/// `InterpolateInferMeta(x, out_size, size_tensor, scale_tensor, data_format, out_d, out_h,
/// out_w, scale, interp_method, align_corners, align_mode)` at compile time: spatial sizes from
/// `size_tensor`'s attributes, from `scale` (rounded down, -1 when unknown) or from
/// `out_d/out_h/out_w`; a `scale_tensor` gives -1.
#[infer_meta]
pub fn interpolate_infer_meta(
    x: &TensorMeta,
    _out_size: Option<&TensorMeta>,
    size_tensor: Option<&[TensorMeta]>,
    scale_tensor: Option<&TensorMeta>,
    data_format: &str,
    out_d: i64,
    out_h: i64,
    out_w: i64,
    scale: &[f64],
    interp_method: &str,
    _align_corners: bool,
    _align_mode: i64,
    output: Output<'_>,
) -> R {
    let xd = &x.dims;
    let n = xd.len();
    let sp = interp_spatial_rank(xd, interp_method)?;
    let nchw = layout_is_nchw(data_format)?;
    for (i, &d) in xd.iter().enumerate().skip(2) {
        ensure_meta!(d != 0, "dimension {i} of x {} must not be 0", fmt_dims(xd));
    }
    let attrs = [out_d, out_h, out_w];
    let attr_sizes = &attrs[3 - sp..];
    let sizes: Vec<i64> = if let Some(st) = size_tensor.filter(|s| !s.is_empty()) {
        ensure_meta!(
            st.len() == sp,
            "size_tensor must hold {sp} tensors for a {n}-D input, got {}",
            st.len()
        );
        attr_sizes.to_vec()
    } else if let Some(s) = scale_tensor {
        need_interp_scale_tensor(s, sp)?;
        vec![-1; sp]
    } else if !scale.is_empty() {
        let spatial = if nchw { &xd[2..] } else { &xd[1..n - 1] };
        scaled_sizes(spatial, scale, n)?
    } else {
        attr_sizes.to_vec()
    };
    output.set_new(x.dtype, &interp_out_dims(xd, &sizes, nchw))
}

/// The number of spatial axes of an interpolation input `xd` (3-D to 5-D), after checking
/// that `method` is one Paddle allows for it.
fn interp_spatial_rank(xd: &[i64], method: &str) -> Res<usize> {
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
        allowed.contains(&method),
        "interp_method {method:?} is not allowed for a {n}-D input; use one of {allowed:?}"
    );
    Ok(sp)
}

/// Checks a `scale_tensor`: 0-D or 1-D, holding one scale or (past 1-D interpolation) one per
/// spatial axis.
fn need_interp_scale_tensor(s: &TensorMeta, sp: usize) -> R {
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
    Ok(())
}

/// The output sizes of the `spatial` extents scaled by `scale` (in float32, rounded down as
/// Paddle does; -1 where that is not positive) for an `n`-D input.
fn scaled_sizes(spatial: &[i64], scale: &[f64], n: usize) -> Res<Vec<i64>> {
    let sp = spatial.len();
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
    Ok(v)
}

/// `x`'s batch and channel extents around the new spatial `sizes`, in `x`'s layout.
fn interp_out_dims(xd: &[i64], sizes: &[i64], nchw: bool) -> Vec<i64> {
    let mut d = vec![xd[0]];
    if nchw {
        d.push(xd[1]);
        d.extend_from_slice(sizes);
    } else {
        d.extend_from_slice(sizes);
        d.push(xd[xd.len() - 1]);
    }
    d
}

/// `PsroiPoolInferMeta(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
/// spatial_scale)`: `[num_rois, output_channels, pooled_height, pooled_width]`.
#[infer_meta]
pub fn psroi_pool_infer_meta(
    x: &TensorMeta,
    boxes: &TensorMeta,
    boxes_num: Option<&TensorMeta>,
    pooled_height: i64,
    pooled_width: i64,
    output_channels: i64,
    spatial_scale: f64,
    out: Output<'_>,
) -> R {
    let (ph, pw, oc, ss) = (pooled_height, pooled_width, output_channels, spatial_scale);
    need_rank(x, 4, "x (NCHW)")?;
    need_rank(boxes, 2, "boxes")?;
    ensure_meta!(
        boxes.dims[1] == 4,
        "boxes must have shape [num_rois, 4], got {}",
        fmt_dims(&boxes.dims)
    );
    if let Some(r) = boxes_num {
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
    out.set_new(x.dtype, &[boxes.dims[0], oc, ph, pw])
}

/// `SigmoidCrossEntropyWithLogitsInferMeta(x, label, pos_weight, normalize, ignore_index)`:
/// `out` like `x`; the shapes must match when fully known.
#[infer_meta]
pub fn sigmoid_cross_entropy_with_logits_infer_meta(
    x: &TensorMeta,
    label: &TensorMeta,
    pos_weight: Option<&TensorMeta>,
    _normalize: bool,
    _ignore_index: i64,
    out: Output<'_>,
) -> R {
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
    out.set(dims_dtype_lod_of(x))
}

/// `YoloLossInferMeta(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
/// ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y)`.
#[infer_meta]
pub fn yolo_loss_infer_meta(
    x: &TensorMeta,
    gt_box: &TensorMeta,
    gt_label: &TensorMeta,
    gt_score: Option<&TensorMeta>,
    anchors: &[i64],
    anchor_mask: &[i64],
    class_num: i64,
    _ignore_thresh: f64,
    _downsample_ratio: i64,
    _use_label_smooth: bool,
    _scale_x_y: f64,
    loss: Output<'_>,
    objectness_mask: Output<'_>,
    gt_match_mask: Output<'_>,
) -> R {
    let anchor_num = (anchors.len() / 2) as i64;
    let mask_num = anchor_mask.len() as i64;
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
        fmt_dims(anchors)
    );
    for &m in anchor_mask {
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
    loss.set_new(x.dtype, &[xd[0]])?;
    objectness_mask.set_new(x.dtype, &[xd[0], mask_num, xd[2], xd[3]])?;
    gt_match_mask.set_new(x.dtype, &[gt_box.dims[0], gt_box.dims[1]])
}

/// `YoloBoxPostInferMeta(boxes0, boxes1, boxes2, image_shape, image_scale, anchors0, anchors1,
/// anchors2, class_num, conf_thresh, downsample_ratio0, downsample_ratio1, downsample_ratio2,
/// clip_bbox, scale_x_y, nms_threshold)`: float32 `[1, 6]` and int32 `[batch]`.
#[infer_meta]
pub fn yolo_box_post_infer_meta(
    _boxes0: &TensorMeta,
    _boxes1: &TensorMeta,
    _boxes2: &TensorMeta,
    image_shape: &TensorMeta,
    _image_scale: &TensorMeta,
    _anchors0: &[i64],
    _anchors1: &[i64],
    _anchors2: &[i64],
    _class_num: i64,
    _conf_thresh: f64,
    _downsample_ratio0: i64,
    _downsample_ratio1: i64,
    _downsample_ratio2: i64,
    _clip_bbox: bool,
    _scale_x_y: f64,
    _nms_threshold: f64,
    out: Output<'_>,
    nms_rois_num: Output<'_>,
) -> R {
    let batch = dim_at(&image_shape.dims, 0, "image_shape")?;
    out.set(TensorMeta::new(DataType::Float32, &[1, 6]))?;
    nms_rois_num.set(TensorMeta::new(DataType::Int32, &[batch]))
}

/// `WarpctcInferMeta(logits, label, logits_length, labels_length, blank, norm_by_times)`.
#[infer_meta]
pub fn warpctc_infer_meta(
    logits: &TensorMeta,
    _label: &TensorMeta,
    logits_length: Option<&TensorMeta>,
    labels_length: Option<&TensorMeta>,
    blank: i64,
    _norm_by_times: bool,
    loss: Output<'_>,
    warpctcgrad: Output<'_>,
) -> R {
    let d = &logits.dims;
    ensure_meta!(product(d) != 0, "logits {} must not be empty", fmt_dims(d));
    let (max_len, num_seq, width) = if logits_length.is_some() && labels_length.is_some() {
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
    loss.set_new(logits.dtype, &[num_seq, 1])?;
    warpctcgrad.set_new(logits.dtype, &[max_len, num_seq, width])
}

/// `WarprnntInferMeta(input, label, input_lengths, label_lengths, blank, fastemit_lambda)`.
#[infer_meta]
pub fn warprnnt_infer_meta(
    input: &TensorMeta,
    _label: &TensorMeta,
    _input_lengths: &TensorMeta,
    _label_lengths: &TensorMeta,
    blank: i64,
    _fastemit_lambda: f64,
    loss: Output<'_>,
    warpctcgrad: Output<'_>,
) -> R {
    let d3 = dim_at(&input.dims, 3, "input")?;
    ensure_meta!(
        blank >= 0 && blank < d3,
        "blank {blank} must lie in [0, {d3})"
    );
    loss.set_new(input.dtype, &[input.dims[0]])?;
    warpctcgrad.set(dims_dtype_of(input))
}

/// `EditDistanceInferMeta(hyps, refs, hypslength, refslength, normalized)`: `sequencenum`
/// float32 `[1]`, `out` float32 with `refs`' dims.
#[infer_meta]
pub fn edit_distance_infer_meta(
    hyps: &TensorMeta,
    refs: &TensorMeta,
    hypslength: Option<&TensorMeta>,
    refslength: Option<&TensorMeta>,
    _normalized: bool,
    sequencenum: Output<'_>,
    out: Output<'_>,
) -> R {
    let (h, r) = (&hyps.dims, &refs.dims);
    if let (Some(hl), Some(rl)) = (hypslength, refslength) {
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
    sequencenum.set(TensorMeta::new(DataType::Float32, &[1]))?;
    out.set(TensorMeta::new(DataType::Float32, r))
}

/// `CrfDecodingInferMeta(emission, transition, label, length)`.
#[infer_meta]
pub fn crf_decoding_infer_meta(
    emission: &TensorMeta,
    transition: &TensorMeta,
    label: Option<&TensorMeta>,
    length: Option<&TensorMeta>,
    viterbi_path: Output<'_>,
) -> R {
    let (e, t) = (emission, transition);
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
    viterbi_path.set(MetaBuilder::new().lod(e).dims(&d).dtype(e.dtype).build())
}

/// `ChunkEvalInferMeta(inference, label, seq_length, num_chunk_types, chunk_scheme,
/// excluded_chunk_types)`: float32 precision/recall/f1 and int64 counts, all `[1]`.
#[infer_meta]
pub fn chunk_eval_infer_meta(
    inference: &TensorMeta,
    label: &TensorMeta,
    seq_length: Option<&TensorMeta>,
    _num_chunk_types: i64,
    _chunk_scheme: &str,
    _excluded_chunk_types: &[i64],
    precision: Output<'_>,
    recall: Output<'_>,
    f1_score: Output<'_>,
    num_infer_chunks: Output<'_>,
    num_label_chunks: Output<'_>,
    num_correct_chunks: Output<'_>,
) -> R {
    need_same_dims(inference, label, "inference", "label")?;
    if let Some(s) = seq_length {
        let d = &inference.dims;
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
    for out in [precision, recall, f1_score] {
        out.set(TensorMeta::new(DataType::Float32, &[1]))?;
    }
    for out in [num_infer_chunks, num_label_chunks, num_correct_chunks] {
        out.set(TensorMeta::new(DataType::Int64, &[1]))?;
    }
    Ok(())
}

/// `DetectionMapInferMeta(detect_res, label, has_state, pos_count, true_pos, false_pos,
/// class_num, background_label, overlap_threshold, evaluate_difficult, ap_type)`: only `m_ap`
/// gets dims `[1]` (the accumulators are left as Paddle leaves them).
#[infer_meta]
pub fn detection_map_infer_meta(
    detect_res: &TensorMeta,
    label: &TensorMeta,
    _has_state: Option<&TensorMeta>,
    pos_count: Option<&TensorMeta>,
    true_pos: Option<&TensorMeta>,
    false_pos: Option<&TensorMeta>,
    _class_num: i64,
    _background_label: i64,
    _overlap_threshold: f64,
    _evaluate_difficult: bool,
    _ap_type: &str,
    _accum_pos_count: Output<'_>,
    _accum_true_pos: Output<'_>,
    _accum_false_pos: Output<'_>,
    m_ap: Output<'_>,
) -> R {
    let det = detect_res;
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
    m_ap.set(TensorMeta::new(DataType::Float32, &[1]))
}

/// The rule of `AucInferMeta`: int64 `auc` 0-D and int64 statistics, `[(1 + slide_steps) ×
/// (num_thresholds + 1) + 1]` (or `[1, num_thresholds + 1]` with `slide_steps` 0).
fn auc_shapes(
    x: &TensorMeta,
    label: &TensorMeta,
    num_thresholds: i64,
    slide_steps: i64,
    outs: [Output<'_>; 3],
) -> R {
    let (nt, slide) = (num_thresholds, slide_steps);
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
    let stat: Vec<i64> = if slide != 0 {
        vec![add(mul(add(1, slide), buckets), 1)]
    } else {
        vec![1, buckets]
    };
    let [auc, stat_pos_out, stat_neg_out] = outs;
    auc.set(TensorMeta::new(DataType::Int64, &[]))?;
    stat_pos_out.set(TensorMeta::new(DataType::Int64, &stat))?;
    stat_neg_out.set(TensorMeta::new(DataType::Int64, &stat))
}

/// `AucInferMeta(x, label, stat_pos, stat_neg, ins_tag_weight, curve, num_thresholds,
/// slide_steps)`.
#[infer_meta]
pub fn auc_infer_meta(
    x: &TensorMeta,
    label: &TensorMeta,
    _stat_pos: &TensorMeta,
    _stat_neg: &TensorMeta,
    _ins_tag_weight: Option<&TensorMeta>,
    _curve: &str,
    num_thresholds: i64,
    slide_steps: i64,
    auc: Output<'_>,
    stat_pos_out: Output<'_>,
    stat_neg_out: Output<'_>,
) -> R {
    let outs = [auc, stat_pos_out, stat_neg_out];
    auc_shapes(x, label, num_thresholds, slide_steps, outs)
}

/// `AucInferMeta(input, label, stat_pos, stat_neg, curve, num_thresholds, slide_steps)`:
/// Paddle's signature before `ins_tag_weight` was added (7 arguments), the same rule.
#[infer_meta(name = "AucInferMeta")]
pub fn auc_before_ins_tag_weight_infer_meta(
    x: &TensorMeta,
    label: &TensorMeta,
    _stat_pos: &TensorMeta,
    _stat_neg: &TensorMeta,
    _curve: &str,
    num_thresholds: i64,
    slide_steps: i64,
    auc: Output<'_>,
    stat_pos_out: Output<'_>,
    stat_neg_out: Output<'_>,
) -> R {
    let outs = [auc, stat_pos_out, stat_neg_out];
    auc_shapes(x, label, num_thresholds, slide_steps, outs)
}

/// `BeamSearchInferMeta(pre_ids, pre_scores, ids, scores, level, beam_size, end_id,
/// is_accumulated)`.
#[infer_meta]
pub fn beam_search_infer_meta(
    pre_ids: &TensorMeta,
    pre_scores: &TensorMeta,
    _ids: Option<&TensorMeta>,
    _scores: &TensorMeta,
    _level: i64,
    _beam_size: i64,
    _end_id: i64,
    _is_accumulated: bool,
    selected_ids: Output<'_>,
    selected_scores: Output<'_>,
    parent_idx: Output<'_>,
) -> R {
    let d0 = dim_at(&pre_ids.dims, 0, "pre_ids")?;
    selected_ids.set(dims_dtype_of(pre_ids))?;
    selected_scores.set(dims_dtype_of(pre_scores))?;
    parent_idx.set_if_present(with_dtype_of(pre_ids, &[d0]));
    Ok(())
}

/// `FakeChannelWiseDequantizeMaxAbsInferMeta(x, scales, quant_bits, quant_axis,
/// x_num_col_dims)`: `out` like `x`.
#[infer_meta]
pub fn fake_channel_wise_dequantize_max_abs_infer_meta(
    x: &TensorMeta,
    _scales: &[TensorMeta],
    _quant_bits: &[i64],
    quant_axis: i64,
    x_num_col_dims: i64,
    out: Output<'_>,
) -> R {
    let (axis, cols) = (quant_axis, x_num_col_dims);
    ensure_meta!(
        axis == 0 || axis == 1,
        "quant_axis must be 0 or 1, got {axis}"
    );
    ensure_meta!(
        cols != 0,
        "x_num_col_dims must be larger than 0, got {cols}"
    );
    out.set(dims_dtype_lod_of(x))
}

/// `FakeQuantOrWithDequantMovingAverageAbsMaxInferMeta(x, in_scale, in_accum, in_state,
/// moving_rate, bit_length, is_test, round_type)`.
#[infer_meta]
pub fn fake_quant_or_with_dequant_moving_average_abs_max_infer_meta(
    x: &TensorMeta,
    _in_scale: &TensorMeta,
    _in_accum: Option<&TensorMeta>,
    _in_state: Option<&TensorMeta>,
    _moving_rate: f64,
    bit_length: i64,
    _is_test: bool,
    _round_type: i64,
    out: Output<'_>,
    out_scale: Output<'_>,
    out_state: Output<'_>,
    out_accum: Output<'_>,
) -> R {
    need_bit_length(bit_length)?;
    out.set(MetaBuilder::new().dims(&x.dims).lod(x).build())?;
    out_scale.set(TensorMeta::new(DataType::Float32, &[1]))?;
    out_state.set_if_present(TensorMeta::new(DataType::Float32, &[1]));
    out_accum.set_if_present(TensorMeta::new(DataType::Float32, &[1]));
    Ok(())
}

/// `GenerateProposalsV2InferMeta(scores, bbox_deltas, im_shape, anchors, variances,
/// pre_nms_top_n, post_nms_top_n, nms_thresh, min_size, eta, pixel_offset)`: `[-1, 4]` rois,
/// `[-1, 1]` probabilities and `[batch]` counts.
#[infer_meta]
pub fn generate_proposals_v2_infer_meta(
    scores: &TensorMeta,
    _bbox_deltas: &TensorMeta,
    _im_shape: &TensorMeta,
    _anchors: &TensorMeta,
    _variances: &TensorMeta,
    _pre_nms_top_n: i64,
    _post_nms_top_n: i64,
    _nms_thresh: f64,
    _min_size: f64,
    _eta: f64,
    _pixel_offset: bool,
    rpn_rois: Output<'_>,
    rpn_roi_probs: Output<'_>,
    rpn_rois_num: Output<'_>,
) -> R {
    rpn_rois.set(TensorMeta::new(DataType::Float32, &[-1, 4]))?;
    rpn_roi_probs.set(TensorMeta::new(DataType::Float32, &[-1, 1]))?;
    let b = dim_at(&scores.dims, 0, "scores")?;
    rpn_rois_num.set_if_present(TensorMeta::new(DataType::Float32, &[b]));
    Ok(())
}

/// Checks that each graph index tensor is 1-D or `[N, 1]`.
fn need_graph_indices(indices: &[(&TensorMeta, &str)]) -> R {
    for &(t, name) in indices {
        let d = &t.dims;
        if d.len() == 2 {
            ensure_meta!(
                d[1] == 1,
                "{name} {} must have last dim 1 when it is 2-D",
                fmt_dims(d)
            );
        } else {
            ensure_meta!(d.len() == 1, "{name} {} must be 1-D or [N, 1]", fmt_dims(d));
        }
    }
    Ok(())
}

/// With `return_eids`, checks `eids` (needed, 1-D or `[N, 1]`) and sets `out_eids` to `row`'s
/// dtype `[-1]`.
fn sampled_eids(
    return_eids: bool,
    eids: Option<&TensorMeta>,
    row: &TensorMeta,
    out_eids: Output<'_>,
) -> R {
    if return_eids {
        let e = eids.ok_or_else(|| err("return_eids needs eids"))?;
        need_graph_indices(&[(e, "eids")])?;
        out_eids.set_new(row.dtype, &[-1])?;
    }
    Ok(())
}

/// The sampled neighbors (`row`'s dtype `[-1]`) and their int32 counts `[-1]`.
fn set_sampled_neighbors(row: &TensorMeta, out: Output<'_>, out_count: Output<'_>) -> R {
    out.set_new(row.dtype, &[-1])?;
    out_count.set(TensorMeta::new(DataType::Int32, &[-1]))
}

/// `GraphKhopSamplerInferMeta(row, colptr, x, eids, sample_sizes, return_eids)`.
#[infer_meta]
pub fn graph_khop_sampler_infer_meta(
    row: &TensorMeta,
    col_ptr: &TensorMeta,
    x: &TensorMeta,
    eids: Option<&TensorMeta>,
    sample_sizes: &[i64],
    return_eids: bool,
    out_src: Output<'_>,
    out_dst: Output<'_>,
    sample_index: Output<'_>,
    reindex_x: Output<'_>,
    out_eids: Output<'_>,
) -> R {
    need_graph_indices(&[(row, "row"), (col_ptr, "col_ptr"), (x, "x")])?;
    ensure_meta!(!sample_sizes.is_empty(), "sample_sizes must not be empty");
    sampled_eids(return_eids, eids, row, out_eids)?;
    out_src.set_new(row.dtype, &[-1, 1])?;
    out_dst.set_new(row.dtype, &[-1, 1])?;
    sample_index.set(TensorMeta::new(DataType::Int32, &[-1]))?;
    reindex_x.set(dims_dtype_of(x))
}

/// `GraphSampleNeighborsInferMeta(row, colptr, x, eids, perm_buffer, sample_size, return_eids,
/// flag_perm_buffer)`.
#[infer_meta]
pub fn graph_sample_neighbors_infer_meta(
    row: &TensorMeta,
    col_ptr: &TensorMeta,
    x: &TensorMeta,
    eids: Option<&TensorMeta>,
    perm_buffer: Option<&TensorMeta>,
    _sample_size: i64,
    return_eids: bool,
    flag_perm_buffer: bool,
    out: Output<'_>,
    out_count: Output<'_>,
    out_eids: Output<'_>,
) -> R {
    need_graph_indices(&[(row, "row"), (col_ptr, "col_ptr"), (x, "x")])?;
    sampled_eids(return_eids, eids, row, out_eids)?;
    if flag_perm_buffer {
        let p = perm_buffer.ok_or_else(|| err("flag_perm_buffer needs perm_buffer"))?;
        need_graph_indices(&[(p, "perm_buffer")])?;
    }
    set_sampled_neighbors(row, out, out_count)
}

/// `WeightedSampleNeighborsInferMeta(row, colptr, edge_weight, input_nodes, eids, sample_size,
/// return_eids)`.
#[infer_meta]
pub fn weighted_sample_neighbors_infer_meta(
    row: &TensorMeta,
    col_ptr: &TensorMeta,
    edge_weight: &TensorMeta,
    input_nodes: &TensorMeta,
    eids: Option<&TensorMeta>,
    _sample_size: i64,
    return_eids: bool,
    out: Output<'_>,
    out_count: Output<'_>,
    out_eids: Output<'_>,
) -> R {
    need_graph_indices(&[
        (row, "row"),
        (col_ptr, "colptr"),
        (edge_weight, "edge_weight"),
        (input_nodes, "input_nodes"),
    ])?;
    sampled_eids(return_eids, eids, row, out_eids)?;
    set_sampled_neighbors(row, out, out_count)
}

/// `GraphReindexInferMeta(x, neighbors, count, hashtable_value, hashtable_index)`.
#[infer_meta]
pub fn graph_reindex_infer_meta(
    x: &TensorMeta,
    neighbors: &TensorMeta,
    count: &TensorMeta,
    hashtable_value: Option<&TensorMeta>,
    hashtable_index: Option<&TensorMeta>,
    reindex_src: Output<'_>,
    reindex_dst: Output<'_>,
    out_nodes: Output<'_>,
) -> R {
    need_graph_indices(&[(x, "X"), (neighbors, "Neighbors"), (count, "Count")])?;
    if let (Some(v), Some(i)) = (hashtable_value, hashtable_index) {
        need_graph_indices(&[(v, "HashTable_Value"), (i, "HashTable_Index")])?;
    }
    reindex_src.set_new(neighbors.dtype, &[-1])?;
    reindex_dst.set_new(neighbors.dtype, &[-1])?;
    out_nodes.set_new(x.dtype, &[-1])
}

/// Checks the message-passing indices: each 1-D or `[N, 1]`, of one length where both are
/// non-empty.
fn need_send_indices(src: &TensorMeta, dst: &TensorMeta) -> R {
    need_graph_indices(&[(src, "src_index"), (dst, "dst_index")])?;
    if src.dims[0] != 0 && dst.dims[0] != 0 {
        ensure_meta!(
            src.dims[0] == dst.dims[0],
            "src_index {} and dst_index {} must have the same shape",
            fmt_dims(&src.dims),
            fmt_dims(&dst.dims)
        );
    }
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
pub fn send_ue_recv_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    src_index: &TensorMeta,
    dst_index: &TensorMeta,
    _message_op: &str,
    reduce_op: &str,
    _out_size: IntArrayArg,
    out: Output<'_>,
    dst_count: Output<'_>,
) -> R {
    need_send_indices(src_index, dst_index)?;
    let y0 = dim_at(&y.dims, 0, "y")?;
    ensure_meta!(
        y0 == src_index.dims[0],
        "y {} must have as many rows as src_index {}",
        fmt_dims(&y.dims),
        fmt_dims(&src_index.dims)
    );
    if reduce_op == "MEAN" {
        dst_count.set_if_present(TensorMeta::new(DataType::Int32, &[-1]));
    }
    let mut d = vec![-1];
    d.extend(broadcast_tail(&x.dims, &y.dims)?);
    out.set_new(x.dtype, &d)
}

/// `SendUVInferMeta(x, y, src_index, dst_index, message_op)`:
/// `[src_index[0]] + broadcast(x[1:], y[1:])`.
#[infer_meta(name = "SendUVInferMeta")]
pub fn send_uv_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    src_index: &TensorMeta,
    dst_index: &TensorMeta,
    _message_op: &str,
    out: Output<'_>,
) -> R {
    need_send_indices(src_index, dst_index)?;
    let mut d = vec![src_index.dims[0]];
    d.extend(broadcast_tail(&x.dims, &y.dims)?);
    out.set_new(x.dtype, &d)
}

/// `HSigmoidLossInferMeta(x, label, w, bias, path, code, num_classes, is_sparse)`: `out`
/// `[batch, 1]`.
#[infer_meta(name = "HSigmoidLossInferMeta")]
pub fn hsigmoid_loss_infer_meta(
    x: &TensorMeta,
    label: &TensorMeta,
    _w: &TensorMeta,
    _bias: Option<&TensorMeta>,
    _path: Option<&TensorMeta>,
    _code: Option<&TensorMeta>,
    _num_classes: i64,
    _is_sparse: bool,
    out: Output<'_>,
) -> R {
    let a = dim_at(&x.dims, 0, "x")?;
    let b = dim_at(&label.dims, 0, "label")?;
    ensure_meta!(
        a == b,
        "x {} and label {} must share dim 0",
        fmt_dims(&x.dims),
        fmt_dims(&label.dims)
    );
    out.set(with_dtype_lod_of(x, &[a, 1]))
}

/// `SparseAttentionInferMeta(q, k, v, offset, columns, key_padding_mask, attn_mask)`.
#[infer_meta]
pub fn sparse_attention_infer_meta(
    q: &TensorMeta,
    k: &TensorMeta,
    v: &TensorMeta,
    _offset: &TensorMeta,
    columns: &TensorMeta,
    _key_padding_mask: Option<&TensorMeta>,
    _attn_mask: Option<&TensorMeta>,
    out: Output<'_>,
    sparse_dot_sdd: Output<'_>,
    softmax: Output<'_>,
) -> R {
    need_rank(q, 4, "q")?;
    need_rank(k, 4, "k")?;
    need_rank(v, 4, "v")?;
    let nnz = dim_at(&columns.dims, 2, "columns")?;
    let qd = &q.dims;
    out.set(with_dtype_lod_of(q, &[qd[0], qd[1], qd[2], qd[3]]))?;
    sparse_dot_sdd.set(TensorMeta::new(DataType::Float32, &[qd[0], qd[1], nnz]))?;
    softmax.set(TensorMeta::new(DataType::Float32, &[qd[0], qd[1], nnz]))
}

/// `MemoryEfficientAttentionInferMeta(query, key, value, bias, cu_seqlens_q, cu_seqlens_k,
/// causal_diagonal, seqlen_k, max_seqlen_q, max_seqlen_k, causal, dropout_p, scale, is_test)`:
/// `[b, sq, h, dv]`, float32 `logsumexp` `[h, b]`, int64 `seed_and_offset` `[2]`.
#[infer_meta]
pub fn memory_efficient_attention_infer_meta(
    query: &TensorMeta,
    key: &TensorMeta,
    value: &TensorMeta,
    _bias: Option<&TensorMeta>,
    _cu_seqlens_q: Option<&TensorMeta>,
    _cu_seqlens_k: Option<&TensorMeta>,
    _causal_diagonal: Option<&TensorMeta>,
    _seqlen_k: Option<&TensorMeta>,
    _max_seqlen_q: Option<Scalar>,
    _max_seqlen_k: Option<Scalar>,
    _causal: bool,
    _dropout_p: f64,
    _scale: f64,
    _is_test: bool,
    output: Output<'_>,
    logsumexp: Output<'_>,
    seed_and_offset: Output<'_>,
) -> R {
    need_rank(query, 4, "query")?;
    need_rank(key, 4, "key")?;
    need_rank(value, 4, "value")?;
    let (qd, kd, vd) = (&query.dims, &key.dims, &value.dims);
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
    let meta = MetaBuilder::new()
        .dims(&[qd[0], qd[1], qd[2], vd[3]])
        .lod(query)
        .dtype(query.dtype)
        .layout(query.layout);
    output.set(meta.build())?;
    logsumexp.set(TensorMeta::new(DataType::Float32, &[qd[2], qd[0]]))?;
    seed_and_offset.set(TensorMeta::new(DataType::Int64, &[2]))
}

/// `TopPSamplingInferMeta(x, ps, threshold, topp_seed, seed, k, mode)`.
#[infer_meta]
pub fn top_p_sampling_infer_meta(
    x: &TensorMeta,
    _ps: &TensorMeta,
    _threshold: Option<&TensorMeta>,
    _topp_seed: Option<&TensorMeta>,
    _seed: i64,
    k: i64,
    mode: &str,
    out: Output<'_>,
    ids: Output<'_>,
    topk_scores: Output<'_>,
    topk_ids: Output<'_>,
) -> R {
    let bsz = dim_at(&x.dims, 0, "x")?;
    ensure_meta!(
        mode == "truncated" || mode == "non-truncated",
        "mode must be 'truncated' or 'non-truncated', got {mode:?}"
    );
    out.set_new(x.dtype, &[bsz, 1])?;
    ids.set(TensorMeta::new(DataType::Int64, &[bsz, 1]))?;
    if k > 0 {
        topk_scores.set_if_present(with_dtype_of(x, &[bsz, k]));
        topk_ids.set_if_present(TensorMeta::new(DataType::Int64, &[bsz, k]));
    }
    Ok(())
}

/// `x`'s dims with the last one replaced by `n`, in `x`'s dtype (a linear layer's output).
fn linear_out(x: &TensorMeta, n: i64) -> TensorMeta {
    let mut d = x.dims.to_vec();
    let last = d.len() - 1;
    d[last] = n;
    with_dtype_of(x, &d)
}

/// `LLMInt8LinearInferMeta(x, weight, bias, weight_scale, threshold)`.
#[infer_meta(name = "LLMInt8LinearInferMeta")]
pub fn llm_int8_linear_infer_meta(
    x: &TensorMeta,
    weight: &TensorMeta,
    _bias: Option<&TensorMeta>,
    weight_scale: &TensorMeta,
    _threshold: f64,
    out: Output<'_>,
) -> R {
    let w = weight;
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
    let s0 = dim_at(&weight_scale.dims, 0, "weight_scale")?;
    ensure_meta!(
        s0 == w.dims[0],
        "weight_scale dim 0 {s0} must equal weight dim 0 {}",
        w.dims[0]
    );
    out.set(linear_out(x, w.dims[0]))
}

/// `WeightOnlyLinearInferMeta(x, weight, bias, weight_scale, weight_dtype, arch, group_size)`.
#[infer_meta]
pub fn weight_only_linear_infer_meta(
    x: &TensorMeta,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    weight_scale: &TensorMeta,
    weight_dtype: &str,
    _arch: i64,
    group_size: i64,
    out: Output<'_>,
) -> R {
    let (w, ws, gs) = (weight, weight_scale, group_size);
    ensure_meta!(
        gs == -1 || gs == 64 || gs == 128,
        "group_size must be -1, 64 or 128, got {gs}"
    );
    let n = dim_at(&ws.dims, if gs == -1 { 0 } else { 1 }, "weight_scale")?;
    ensure_meta!(
        weight_dtype == "int8" || weight_dtype == "int4",
        "weight_dtype must be 'int8' or 'int4', got {weight_dtype:?}"
    );
    need_rank(w, 2, "weight")?;
    need_rank_ge(x, 1, "x")?;
    for i in 0..2 {
        if w.dims[i] >= 0 {
            ensure_meta!(
                w.dims[i] % 16 == 0,
                "weight dim {i} {} must be divisible by 16",
                w.dims[i]
            );
        }
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
    out.set(linear_out(x, n))
}

/// `FullWithTensorInferMeta(shape, dtype)`: dims from `shape` (`-1`s when it comes from a
/// tensor), dtype `dtype`.
#[infer_meta]
pub fn full_with_tensor_infer_meta(shape: IntArray<'_>, dtype: DataType, out: Output<'_>) -> R {
    out.set(TensorMeta::new(dtype, shape.values()))
}

/// `LogspaceInferMeta(start, stop, num, base, dtype)`: `[-1]` of `dtype`.
#[infer_meta]
pub fn logspace_infer_meta(
    start: &TensorMeta,
    stop: &TensorMeta,
    num: &TensorMeta,
    base: &TensorMeta,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    for (t, n) in [
        (start, "start"),
        (stop, "stop"),
        (num, "num"),
        (base, "base"),
    ] {
        need_one_element(t, n)?;
    }
    out.set(TensorMeta::new(dtype, &[-1]))
}

// ---------------------------------------------------------------------------------------------
// Recurrent nets
// ---------------------------------------------------------------------------------------------

/// `LSTMInferMeta(input, h0, c0, weight, bias, use_peepholes, is_reverse, is_test,
/// gate_activation, cell_activation, candidate_activation)`.
#[infer_meta(name = "LSTMInferMeta")]
pub fn lstm_infer_meta(
    input: &TensorMeta,
    h0: Option<&TensorMeta>,
    c0: Option<&TensorMeta>,
    weight: &TensorMeta,
    bias: &TensorMeta,
    use_peepholes: bool,
    _is_reverse: bool,
    is_test: bool,
    _gate_activation: &str,
    _cell_activation: &str,
    _candidate_activation: &str,
    hidden: Output<'_>,
    cell: Output<'_>,
    batch_gate: Output<'_>,
    batch_cell_pre_act: Output<'_>,
) -> R {
    let (w, b) = (weight, bias);
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
    let k = if use_peepholes { 7 } else { 4 };
    ensure_meta!(
        b.dims[1] == mul(k, frame),
        "bias dim 1 must be {k} × {frame}, got {}",
        b.dims[1]
    );
    let d = [input.dims[0], frame];
    hidden.set(with_dtype_lod_of(input, &d))?;
    cell.set(with_dtype_lod_of(input, &d))?;
    if !is_test {
        batch_gate.set_if_present(TensorMeta::new(DataType::Float32, &input.dims));
        batch_cell_pre_act.set_if_present(TensorMeta::new(DataType::Float32, &d));
    }
    Ok(())
}

/// Checks `sequence_length` (if given) against the batch size, dim 1 of `x`.
fn need_sequence_length(x: &TensorMeta, sequence_length: Option<&TensorMeta>) -> R {
    if let Some(s) = sequence_length {
        let s0 = dim_at(&s.dims, 0, "sequence_length")?;
        ensure_meta!(
            x.dims[1] == s0,
            "sequence_length {s0} must equal the batch size {}",
            x.dims[1]
        );
    }
    Ok(())
}

/// `x`'s dims with the feature dim (2) the hidden size, doubled when bidirectional.
fn rnn_out(x: &TensorMeta, is_bidirec: bool, hidden_size: i64) -> TensorMeta {
    let mut d = x.dims.to_vec();
    d[2] = if is_bidirec {
        mul(hidden_size, 2)
    } else {
        hidden_size
    };
    with_dtype_of(x, &d)
}

/// `CudnnLSTMInferMeta(x, init_h, init_c, w, weight_list, sequence_length, dropout_prob,
/// is_bidirec, hidden_size, num_layers, is_test, seed)`.
#[infer_meta(name = "CudnnLSTMInferMeta")]
pub fn cudnn_lstm_infer_meta(
    x: &TensorMeta,
    init_h: &TensorMeta,
    init_c: &TensorMeta,
    _w: Option<&TensorMeta>,
    _weight_list: Option<&[TensorMeta]>,
    sequence_length: Option<&TensorMeta>,
    _dropout_prob: f64,
    is_bidirec: bool,
    hidden_size: i64,
    _num_layers: i64,
    _is_test: bool,
    _seed: i64,
    out: Output<'_>,
    last_h: Output<'_>,
    last_c: Output<'_>,
    reserve: Output<'_>,
    state_out: Output<'_>,
) -> R {
    let (h, c) = (init_h, init_c);
    need_rank(x, 3, "x")?;
    need_rank(h, 3, "init_h")?;
    need_sequence_length(x, sequence_length)?;
    ensure_meta!(
        x.dims[1] == h.dims[1],
        "x {} and init_h {} must share dim 1 (batch)",
        fmt_dims(&x.dims),
        fmt_dims(&h.dims)
    );
    need_same_dims(c, h, "init_c", "init_h")?;
    out.set(rnn_out(x, is_bidirec, hidden_size))?;
    last_h.set_new(x.dtype, &c.dims)?;
    last_c.set_new(x.dtype, &h.dims)?;
    reserve.set(TensorMeta::new(DataType::UInt8, &[]))?;
    state_out.set(TensorMeta::new(DataType::UInt8, &[]))
}

/// `RnnInferMeta(x, pre_state, weight_list, sequence_length, dropout_prob, is_bidirec,
/// input_size, hidden_size, num_layers, mode, seed, is_test)`.
#[infer_meta]
pub fn rnn_infer_meta(
    x: &TensorMeta,
    pre_state: &[TensorMeta],
    _weight_list: &[TensorMeta],
    sequence_length: Option<&TensorMeta>,
    _dropout_prob: f64,
    is_bidirec: bool,
    _input_size: i64,
    hidden_size: i64,
    _num_layers: i64,
    mode: &str,
    _seed: i64,
    _is_test: bool,
    out: Output<'_>,
    _dropout_state: Output<'_>,
    state: OutputList<'_>,
) -> R {
    need_rank(x, 3, "x")?;
    need_sequence_length(x, sequence_length)?;
    let p0 = first(pre_state, "pre_state")?;
    need_rank(p0, 3, "pre_state[0]")?;
    for (i, p) in pre_state.iter().enumerate() {
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
        pre_state.len() == want,
        "{mode} needs {want} pre_state tensors, got {}",
        pre_state.len()
    );
    out.set(rnn_out(x, is_bidirec, hidden_size))?;
    state.set(
        pre_state
            .iter()
            .map(|p| with_dtype_of(x, &p.dims))
            .collect(),
    )
}

/// Checks a GRU `bias` (if given) is `[1, 3 × frame]`.
fn need_gru_bias(bias: Option<&TensorMeta>, frame: i64) -> R {
    if let Some(b) = bias {
        let (b0, b1) = (dim_at(&b.dims, 0, "bias")?, dim_at(&b.dims, 1, "bias")?);
        ensure_meta!(
            b0 == 1 && b1 == mul(frame, 3),
            "bias must be [1, 3 × {frame}], got {}",
            fmt_dims(&b.dims)
        );
    }
    Ok(())
}

/// `GruInferMeta(input, h0, weight, bias, activation, gate_activation, is_reverse, origin_mode,
/// is_test)`.
#[infer_meta]
pub fn gru_infer_meta(
    input: &TensorMeta,
    h0: Option<&TensorMeta>,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    _activation: &str,
    _gate_activation: &str,
    _is_reverse: bool,
    _origin_mode: bool,
    is_test: bool,
    batch_gate: Output<'_>,
    batch_reset_hidden_prev: Output<'_>,
    batch_hidden: Output<'_>,
    hidden: Output<'_>,
) -> R {
    let w = weight;
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
    need_gru_bias(bias, frame)?;
    if !is_test {
        batch_gate.set(dims_dtype_of(input))?;
        batch_reset_hidden_prev.set_new(input.dtype, &[in0, frame])?;
        batch_hidden.set_new(input.dtype, &[in0, frame])?;
    }
    hidden.set(with_dtype_lod_of(input, &[in0, frame]))
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
    need_gru_bias(bias, frame)?;
    Ok(frame)
}

/// `GruUnitInferMeta(input, hidden_prev, weight, bias, activation, gate_activation,
/// origin_mode)`.
#[infer_meta]
pub fn gru_unit_infer_meta(
    input: &TensorMeta,
    hidden_prev: &TensorMeta,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    _activation: i64,
    _gate_activation: i64,
    _origin_mode: bool,
    gate: Output<'_>,
    reset_hidden_prev: Output<'_>,
    hidden: Output<'_>,
) -> R {
    let batch = dim_at(&input.dims, 0, "input")?;
    let frame = gru_unit_frame(input, hidden_prev, weight, bias)?;
    gate.set_new(input.dtype, &[batch, mul(frame, 3)])?;
    reset_hidden_prev.set_new(input.dtype, &[batch, frame])?;
    hidden.set_new(input.dtype, &[batch, frame])
}

/// `AttentionLstmInferMeta(x, c0, h0, attention_weight, attention_bias, attention_scalar,
/// attention_scalar_bias, lstm_weight, lstm_bias, gate_activation, cell_activation,
/// candidate_activation)`.
#[infer_meta]
pub fn attention_lstm_infer_meta(
    x: &TensorMeta,
    c0: &TensorMeta,
    h0: Option<&TensorMeta>,
    attention_weight: &TensorMeta,
    attention_bias: Option<&TensorMeta>,
    attention_scalar: Option<&TensorMeta>,
    attention_scalar_bias: Option<&TensorMeta>,
    lstm_weight: &TensorMeta,
    lstm_bias: &TensorMeta,
    _gate_activation: &str,
    _cell_activation: &str,
    _candidate_activation: &str,
    hidden: Output<'_>,
    cell: Output<'_>,
    attentioned_x: Output<'_>,
    _attention_fc_out: Output<'_>,
    lstm_x: Output<'_>,
    lstm_out: Output<'_>,
) -> R {
    let (aw, w, b) = (attention_weight, lstm_weight, lstm_bias);
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
    for (t, n) in [
        (attention_bias, "attention_bias"),
        (attention_scalar, "attention_scalar"),
        (attention_scalar_bias, "attention_scalar_bias"),
    ] {
        if let Some(t) = t {
            need_rank(t, 2, n)?;
            ensure_meta!(
                t.dims[0] == 1 && t.dims[1] == 1,
                "{n} must be [1, 1], got {}",
                fmt_dims(&t.dims)
            );
        }
    }
    let out = [x.dims[0], d];
    hidden.set(with_dtype_lod_of(x, &out))?;
    cell.set(with_dtype_lod_of(x, &out))?;
    attentioned_x.set(TensorMeta::new(DataType::Float32, &[x.dims[0], 1]))?;
    lstm_x.set(TensorMeta::new(DataType::Float32, &[1, m]))?;
    lstm_out.set(TensorMeta::new(DataType::Float32, &[1, mul(4, d)]))
}

/// `PyramidHashInferMeta(x, w, white_list, black_list, num_emb, space_len, pyramid_layer,
/// rand_len, drop_out_percent, is_training, use_filter, white_list_len, black_list_len, seed, lr,
/// distribute_update_vars)` at compile time: `out` `[-1, num_emb]`, `x_temp_out` with `x`'s
/// dims.
#[infer_meta]
pub fn pyramid_hash_infer_meta(
    x: &TensorMeta,
    w: &TensorMeta,
    white_list: &TensorMeta,
    black_list: &TensorMeta,
    num_emb: i64,
    space_len: i64,
    _pyramid_layer: i64,
    rand_len: i64,
    _drop_out_percent: f64,
    _is_training: i64,
    _use_filter: bool,
    white_list_len: i64,
    black_list_len: i64,
    _seed: i64,
    _lr: f64,
    _distribute_update_vars: &str,
    out: Output<'_>,
    _drop_pos: Output<'_>,
    x_temp_out: Output<'_>,
) -> R {
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
    for (t, n, len) in [
        (white_list, "white_list", white_list_len),
        (black_list, "black_list", black_list_len),
    ] {
        if len > 0 {
            need_rank(t, 2, n)?;
            ensure_meta!(
                t.dims[0] == len && t.dims[1] == 1,
                "{n} must be [{len}, 1], got {}",
                fmt_dims(&t.dims)
            );
        }
    }
    out.set(MetaBuilder::new().dims(&[-1, num_emb]).lod(x).build())?;
    x_temp_out.set(TensorMeta::new(DataType::Float32, &x.dims))
}

/// `MergedAdamInferMeta(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
/// master_param, beta1, beta2, epsilon, multi_precision, use_global_beta_pow)`: Paddle's body
/// is empty, so every output stays unset (`paddle-ref/ops/README.md`, quirk 3).
#[infer_meta]
pub fn merged_adam_infer_meta(
    _param: &[TensorMeta],
    _grad: &[TensorMeta],
    _learning_rate: &[TensorMeta],
    _moment1: &[TensorMeta],
    _moment2: &[TensorMeta],
    _beta1_pow: &[TensorMeta],
    _beta2_pow: &[TensorMeta],
    _master_param: Option<&[TensorMeta]>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _multi_precision: bool,
    _use_global_beta_pow: bool,
) -> R {
    Ok(())
}

/// `MergedMomentumInferMeta(param, grad, velocity, learning_rate, master_param, mu,
/// use_nesterov, regularization_method, regularization_coeff, multi_precision, rescale_grad)`:
/// Paddle's body is empty, so every output stays unset (`paddle-ref/ops/README.md`, quirk 3).
#[infer_meta]
pub fn merged_momentum_infer_meta(
    _param: &[TensorMeta],
    _grad: &[TensorMeta],
    _velocity: &[TensorMeta],
    _learning_rate: &[TensorMeta],
    _master_param: Option<&[TensorMeta]>,
    _mu: f64,
    _use_nesterov: bool,
    _regularization_method: &[std::borrow::Cow<'_, str>],
    _regularization_coeff: &[f64],
    _multi_precision: bool,
    _rescale_grad: f64,
) -> R {
    Ok(())
}

/// `DgcInferMeta(u, v, grad, param, current_step, nranks)`: Paddle's body is empty; every
/// output stays unset.
#[infer_meta]
pub fn dgc_infer_meta(
    _u: &TensorMeta,
    _v: &TensorMeta,
    _grad: &TensorMeta,
    _param: Option<&TensorMeta>,
    _current_step: &TensorMeta,
    _nranks: &TensorMeta,
) -> R {
    Ok(())
}

/// `UnchangedVectorInferMeta(x)`: `out[i]` shares `x[i]`'s metadata.
#[infer_meta]
pub fn unchanged_vector_infer_meta(x: &[TensorMeta], out: OutputList<'_>) -> R {
    out.set(x.iter().map(share_meta).collect())
}

/// `MergedAdamInferMeta(param, grad, learning_rate, moment1, moment2, moment2_max, beta1_pow,
/// beta2_pow, master_param, beta1, beta2, epsilon, multi_precision, use_global_beta_pow,
/// amsgrad)` (the signature with `amsgrad`, Paddle 3.1 on): the body is empty too.
#[infer_meta(name = "MergedAdamInferMeta")]
pub fn merged_adam_amsgrad_infer_meta(
    _param: &[TensorMeta],
    _grad: &[TensorMeta],
    _learning_rate: &[TensorMeta],
    _moment1: &[TensorMeta],
    _moment2: &[TensorMeta],
    _moment2_max: Option<&[TensorMeta]>,
    _beta1_pow: &[TensorMeta],
    _beta2_pow: &[TensorMeta],
    _master_param: Option<&[TensorMeta]>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _multi_precision: bool,
    _use_global_beta_pow: bool,
    _amsgrad: bool,
) -> R {
    Ok(())
}

/// `LarsMomentumInferMeta(param, velocity, learning_rate, grad, master_param,
/// lars_weight_decay, mu, lars_coeff, epsilon, multi_precision, rescale_grad)`: as many grads,
/// velocities and weight decays as params, each learning rate one element, each grad and
/// velocity of its param's dims; `param_out[i]` is `param[i]`'s dims and dtype, `velocity_out`
/// and `master_param_out` (when `master_param` is given) are in the master precision.
#[infer_meta]
pub fn lars_momentum_infer_meta(
    param: &[TensorMeta],
    velocity: &[TensorMeta],
    learning_rate: &[TensorMeta],
    grad: &[TensorMeta],
    master_param: Option<&[TensorMeta]>,
    lars_weight_decay: &[f64],
    _mu: f64,
    _lars_coeff: f64,
    _epsilon: f64,
    _multi_precision: bool,
    _rescale_grad: f64,
    param_out: OutputList<'_>,
    velocity_out: OutputList<'_>,
    master_param_out: OutputList<'_>,
) -> R {
    let n = param.len();
    for (len, what) in [
        (grad.len(), "grad"),
        (velocity.len(), "velocity"),
        (lars_weight_decay.len(), "lars_weight_decay"),
    ] {
        ensure_meta!(
            len == n,
            "{what} holds {len} values but param holds {n}: they must match"
        );
    }
    for (i, lr) in learning_rate.iter().enumerate() {
        need_one_element(lr, &format!("learning_rate[{i}]"))?;
    }
    for (i, p) in param.iter().enumerate() {
        need_same_dims(p, &grad[i], &format!("param[{i}]"), &format!("grad[{i}]"))?;
        need_same_dims(
            p,
            &velocity[i],
            &format!("param[{i}]"),
            &format!("velocity[{i}]"),
        )?;
    }
    param_out.set(param.iter().map(dims_dtype_of).collect())?;
    let master = |p: &TensorMeta| TensorMeta::new(mp_dtype(p.dtype), &p.dims);
    velocity_out.set(param.iter().map(master).collect())?;
    if master_param.is_some() {
        master_param_out.set_if_present(param.iter().map(master).collect());
    }
    Ok(())
}

/// `NceInferMeta(input, label, weight, bias, sample_weight, custom_dist_probs,
/// custom_dist_alias, custom_dist_alias_probs, num_total_classes, custom_neg_classes,
/// num_neg_samples, sampler, seed, is_sparse, remote_prefetch, is_test)`: float32 `cost`
/// `[N, 1]`; out of test mode, `sample_logits` and `sample_labels` are
/// `[N, num_neg_samples + num_true]` (`num_true` = `label[1]` of a 2-D label, else 1; dims
/// only).
#[infer_meta]
pub fn nce_infer_meta(
    input: &TensorMeta,
    label: &TensorMeta,
    weight: &TensorMeta,
    bias: Option<&TensorMeta>,
    _sample_weight: Option<&TensorMeta>,
    _custom_dist_probs: Option<&TensorMeta>,
    _custom_dist_alias: Option<&TensorMeta>,
    _custom_dist_alias_probs: Option<&TensorMeta>,
    num_total_classes: i64,
    custom_neg_classes: &[i64],
    num_neg_samples: i64,
    _sampler: i64,
    _seed: i64,
    _is_sparse: bool,
    _remote_prefetch: bool,
    is_test: bool,
    cost: Output<'_>,
    sample_logits: Output<'_>,
    sample_labels: Output<'_>,
) -> R {
    let n = dim_at(&input.dims, 0, "input")?;
    let l0 = dim_at(&label.dims, 0, "label")?;
    ensure_meta!(
        !(n > 0 && l0 > 0 && n != l0),
        "input {} and label {} must share their first dimension",
        fmt_dims(&input.dims),
        fmt_dims(&label.dims)
    );
    let num_true = if label.rank() == 2 { label.dims[1] } else { 1 };
    let classes = dim_at(&weight.dims, 0, "weight")?;
    if let Some(b) = bias {
        let b0 = dim_at(&b.dims, 0, "bias")?;
        ensure_meta!(
            classes == b0,
            "weight {} and bias {} must share their first dimension",
            fmt_dims(&weight.dims),
            fmt_dims(&b.dims)
        );
    }
    ensure_meta!(
        num_total_classes == classes,
        "num_total_classes ({num_total_classes}) must equal weight's first dimension {}",
        fmt_dims(&weight.dims)
    );
    if !custom_neg_classes.is_empty() {
        ensure_meta!(
            custom_neg_classes.len() as i64 == num_neg_samples,
            "custom_neg_classes holds {} classes but num_neg_samples is {num_neg_samples}",
            custom_neg_classes.len()
        );
    }
    cost.set(TensorMeta::new(DataType::Float32, &[n, 1]))?;
    if !is_test {
        let k = if num_true == -1 {
            -1
        } else {
            add(num_neg_samples, num_true)
        };
        sample_logits.set_if_present(super::common::dims_only(&[n, k]));
        sample_labels.set_if_present(super::common::dims_only(&[n, k]));
    }
    Ok(())
}

/// `QuantizeLinearInferMeta(x, scale, zero_point, in_accum, in_state, quant_axis, bit_length,
/// round_type, is_test, only_observer)`: `quant_axis` is 0, 1 or -1, `bit_length` in 1..=16,
/// `round_type` 0 or 1; `y` gets `x`'s dims and LoD, `out_scale` `scale`'s dims (`quant_axis`
/// -1) or `[x[quant_axis]]`, `out_accum` / `out_state` the dims of `in_accum` / `in_state`
/// (dims only, as Paddle sets them).
#[infer_meta]
pub fn quantize_linear_infer_meta(
    x: &TensorMeta,
    scale: Option<&TensorMeta>,
    _zero_point: &TensorMeta,
    in_accum: Option<&TensorMeta>,
    in_state: Option<&TensorMeta>,
    quant_axis: i64,
    bit_length: i64,
    round_type: i64,
    _is_test: bool,
    _only_observer: bool,
    y: Output<'_>,
    out_state: Output<'_>,
    out_accum: Output<'_>,
    out_scale: Output<'_>,
) -> R {
    ensure_meta!(
        matches!(quant_axis, -1..=1),
        "quant_axis should be 0, 1 or -1, but received {quant_axis}"
    );
    ensure_meta!(
        (1..=16).contains(&bit_length),
        "bit_length should be between 1 and 16, but received {bit_length}"
    );
    ensure_meta!(
        matches!(round_type, 0 | 1),
        "round_type should be 0 or 1, but received {round_type}"
    );
    y.set(MetaBuilder::new().dims(&x.dims).lod(x).build())?;
    if out_scale.is_present() {
        let d = if quant_axis < 0 {
            let s = scale.ok_or_else(|| err("scale is absent but out_scale needs its dims"))?;
            s.dims.to_vec()
        } else {
            vec![dim_at(&x.dims, quant_axis as usize, "x")?]
        };
        out_scale.set(super::common::dims_only(&d))?;
    }
    if let Some(a) = in_accum {
        out_accum.set_if_present(super::common::dims_only(&a.dims));
    }
    if let Some(s) = in_state {
        out_state.set_if_present(super::common::dims_only(&s.dims));
    }
    Ok(())
}

/// `SparseMomentumInferMeta(param, grad, velocity, index, learning_rate)`: `learning_rate`
/// holds one element, `velocity` has `param`'s dims; the outputs get `param`'s dims only
/// (Paddle sets no dtype).
#[infer_meta]
pub fn sparse_momentum_infer_meta(
    param: &TensorMeta,
    _grad: &TensorMeta,
    velocity: &TensorMeta,
    _index: &TensorMeta,
    learning_rate: &TensorMeta,
    param_out: Output<'_>,
    velocity_out: Output<'_>,
    master_param_out: Output<'_>,
) -> R {
    need_one_element(learning_rate, "learning_rate")?;
    need_same_dims(param, velocity, "param", "velocity")?;
    param_out.set(super::common::dims_only(&param.dims))?;
    velocity_out.set(super::common::dims_only(&param.dims))?;
    master_param_out.set_if_present(super::common::dims_only(&param.dims));
    Ok(())
}

/// `FusedAdamInferMeta(params, grads, learning_rate, moments1, moments2, moments2_max,
/// beta1_pows, beta2_pows, master_params, skip_update, beta1, beta2, epsilon, chunk_size,
/// weight_decay, use_adamw, multi_precision, use_global_beta_pow, amsgrad)`: each output list
/// takes, element by element, the dims and dtype of its input list (`moments2_max_out` with
/// `amsgrad`, `master_params_out` when `master_params` is given).
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn fused_adam_infer_meta(
    params: &[TensorMeta],
    _grads: &[TensorMeta],
    _learning_rate: &TensorMeta,
    moments1: &[TensorMeta],
    moments2: &[TensorMeta],
    moments2_max: Option<&[TensorMeta]>,
    beta1_pows: &[TensorMeta],
    beta2_pows: &[TensorMeta],
    master_params: Option<&[TensorMeta]>,
    _skip_update: Option<&TensorMeta>,
    _beta1: Option<Scalar>,
    _beta2: Option<Scalar>,
    _epsilon: Option<Scalar>,
    _chunk_size: i64,
    _weight_decay: f64,
    _use_adamw: bool,
    _multi_precision: bool,
    _use_global_beta_pow: bool,
    amsgrad: bool,
    params_out: OutputList<'_>,
    moments1_out: OutputList<'_>,
    moments2_out: OutputList<'_>,
    moments2_max_out: OutputList<'_>,
    beta1_pows_out: OutputList<'_>,
    beta2_pows_out: OutputList<'_>,
    master_params_out: OutputList<'_>,
) -> R {
    let n = params.len();
    // Paddle indexes every list by the params' positions.
    let take = |list: &[TensorMeta], what: &str| -> Res<Vec<TensorMeta>> {
        ensure_meta!(
            list.len() >= n,
            "{what} holds {} tensors but params holds {n}",
            list.len()
        );
        Ok(list[..n].iter().map(dims_dtype_of).collect())
    };
    params_out.set(take(params, "params")?)?;
    moments1_out.set(take(moments1, "moments1")?)?;
    moments2_out.set(take(moments2, "moments2")?)?;
    if amsgrad {
        let m = moments2_max.ok_or_else(|| err("amsgrad needs moments2_max"))?;
        moments2_max_out.set_if_present(take(m, "moments2_max")?);
    }
    beta1_pows_out.set(take(beta1_pows, "beta1_pows")?)?;
    beta2_pows_out.set(take(beta2_pows, "beta2_pows")?)?;
    if let Some(m) = master_params {
        master_params_out.set_if_present(take(m, "master_params")?);
    }
    Ok(())
}

/// Checks `t`'s dtype against a `compute_dtype` of `bf16` / `fp16` / `fp32` (Paddle's
/// `FBADtypeCheck`; other values check nothing).
fn need_compute_dtype(t: &TensorMeta, name: &str, compute_dtype: &str) -> R {
    let want = match compute_dtype {
        "bf16" => DataType::BFloat16,
        "fp16" => DataType::Float16,
        "fp32" => DataType::Float32,
        _ => return Ok(()),
    };
    ensure_meta!(
        t.dtype == want,
        "{name} is {:?} but must match compute_dtype {compute_dtype}",
        t.dtype
    );
    Ok(())
}

/// `MaskedMultiheadAttentionInferMeta(x, cache_kv, bias, src_mask, cum_offsets,
/// sequence_lengths, rotary_tensor, beam_cache_offset, qkv_out_scale, out_shift, out_smooth,
/// seq_len, rotary_emb_dims, use_neox_rotary_style, compute_dtype, out_scale,
/// quant_round_type, quant_max_bound, quant_min_bound)`: `cache_kv` is
/// `[2, batch, kv_heads, max_seq, head_dim]` and `x` `[batch, (heads + 2 kv_heads) head_dim]`
/// with `heads` a multiple of `kv_heads`; `out` is `[batch, heads × head_dim]`, int8 with
/// `out_scale > 0`, else `x`'s dtype (or `compute_dtype`'s for an int32 `x`);
/// `cache_kv_out` and `beam_cache_offset_out` echo their inputs' dims and dtypes.
#[infer_meta]
#[allow(clippy::too_many_arguments)]
pub fn masked_multihead_attention_infer_meta(
    x: &TensorMeta,
    cache_kv: &TensorMeta,
    bias: Option<&TensorMeta>,
    _src_mask: Option<&TensorMeta>,
    _cum_offsets: Option<&TensorMeta>,
    _sequence_lengths: Option<&TensorMeta>,
    rotary_tensor: Option<&TensorMeta>,
    beam_cache_offset: Option<&TensorMeta>,
    _qkv_out_scale: Option<&TensorMeta>,
    _out_shift: Option<&TensorMeta>,
    _out_smooth: Option<&TensorMeta>,
    _seq_len: i64,
    _rotary_emb_dims: i64,
    _use_neox_rotary_style: bool,
    compute_dtype: &str,
    out_scale: f64,
    _quant_round_type: i64,
    _quant_max_bound: f64,
    _quant_min_bound: f64,
    out: Output<'_>,
    cache_kv_out: Output<'_>,
    beam_cache_offset_out: Output<'_>,
) -> R {
    let (heads, head_dim) = mmha_heads(x, cache_kv)?;
    if let Some(r) = rotary_tensor {
        ensure_meta!(
            r.dtype == DataType::Float32,
            "rotary_tensor must be float32, got {:?}",
            r.dtype
        );
    }
    let dtype = if x.dtype == DataType::Int32 {
        mmha_int32_out_dtype(bias, compute_dtype, out_scale)?
    } else {
        mmha_float_out_dtype(x, bias, compute_dtype, out_scale)?
    };
    out.set(TensorMeta::new(
        dtype,
        &[x.dims[0], heads.wrapping_mul(head_dim)],
    ))?;
    cache_kv_out.set(dims_dtype_of(cache_kv))?;
    if let Some(b) = beam_cache_offset {
        beam_cache_offset_out.set_if_present(dims_dtype_of(b));
    }
    Ok(())
}

/// The query `(heads, head_dim)` of masked multi-head attention: `cache_kv`
/// `[2, batch, kv_heads, max_seq, head_dim]` gives the head size and `x`'s last dim,
/// `(heads + 2 kv_heads) head_dim`, the query heads, a multiple of `kv_heads`.
fn mmha_heads(x: &TensorMeta, cache_kv: &TensorMeta) -> Res<(i64, i64)> {
    need_rank(cache_kv, 5, "cache_kv")?;
    need_rank_ge(x, 1, "x")?;
    let c = &cache_kv.dims;
    let (kv_heads, head_dim) = (c[2], c[4]);
    let last = x.dims[x.rank() - 1];
    let heads = div(last, head_dim, "the head size (cache_kv dim 4)")?
        .wrapping_sub(kv_heads.wrapping_mul(2));
    ensure_meta!(
        kv_heads != 0 && heads % kv_heads == 0,
        "the num_head of query ({heads}) must be divisible by the num_head of key ({kv_heads})"
    );
    ensure_meta!(
        c[0] == 2,
        "the first dim of cache_kv {} must be 2",
        fmt_dims(c)
    );
    Ok((heads, head_dim))
}

/// `out`'s dtype for a quantized (int32) `x`: int8 with `out_scale > 0`, else the type
/// `compute_dtype` names, which must be given (and `bias` must have it).
fn mmha_int32_out_dtype(
    bias: Option<&TensorMeta>,
    compute_dtype: &str,
    out_scale: f64,
) -> Res<DataType> {
    ensure_meta!(
        compute_dtype != "default",
        "with an int32 x, compute_dtype must be set"
    );
    if let Some(b) = bias {
        need_compute_dtype(b, "bias", compute_dtype)?;
    }
    if out_scale > 0.0 {
        return Ok(DataType::Int8);
    }
    match compute_dtype {
        "bf16" => Ok(DataType::BFloat16),
        "fp16" => Ok(DataType::Float16),
        "fp32" => Ok(DataType::Float32),
        other => Err(err(format!(
            "with an int32 x, compute_dtype must be bf16, fp16 or fp32, got {other:?}"
        ))),
    }
}

/// `out`'s dtype for a floating `x`: int8 with `out_scale > 0`, else `x`'s; `bias` must match
/// `x` (or both `compute_dtype`, when one is given).
fn mmha_float_out_dtype(
    x: &TensorMeta,
    bias: Option<&TensorMeta>,
    compute_dtype: &str,
    out_scale: f64,
) -> Res<DataType> {
    match (bias, compute_dtype) {
        (Some(b), "default") => ensure_meta!(
            x.dtype == b.dtype,
            "x ({:?}) and bias ({:?}) must have the same dtype",
            x.dtype,
            b.dtype
        ),
        (Some(b), cd) => {
            need_compute_dtype(b, "bias", cd)?;
            need_compute_dtype(x, "x", cd)?;
        }
        (None, cd) => need_compute_dtype(x, "x", cd)?,
    }
    Ok(if out_scale > 0.0 {
        DataType::Int8
    } else {
        x.dtype
    })
}
