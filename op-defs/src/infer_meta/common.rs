//! Shared helpers of the infer-meta functions.
//!
//! Outputs are built the way Paddle's `IrMetaTensor` builds them: an output starts as a fresh
//! `IrTensor` (float32, rank 0, NCHW, no LoD, offset 0) and only what the phi function sets
//! changes (`set_dims`, `set_dtype`, `set_layout`, `share_lod`; `share_meta` copies dims, dtype,
//! layout and LoD but never the offset). [`MetaBuilder`] mirrors these setters; the functions
//! below name its common uses.
//!
//! Arithmetic on extents is wrapping and divisions are checked, so hostile dims produce errors or
//! odd extents, never a panic.

use pir_runtime::meta::{Dims, InferMetaError, TensorMeta};
use pir_runtime::phi::{DataLayout, DataType};

/// Result of a helper.
pub(crate) type Res<T = ()> = Result<T, InferMetaError>;

/// The largest number of tensors a `Tensor[]` output may get from a computed count.
pub(crate) const MAX_OUTPUTS: i64 = 1 << 16;

/// An error with a message.
pub(crate) fn err(msg: impl Into<String>) -> InferMetaError {
    InferMetaError::new(msg)
}

/// Formats dims as `[2, -1, 3]`.
pub(crate) fn fmt_dims(d: &[i64]) -> String {
    let parts: Vec<String> = d.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// An output under construction, starting as Paddle's fresh `IrTensor`.
#[derive(Clone, Debug)]
pub(crate) struct MetaBuilder(TensorMeta);

impl MetaBuilder {
    /// A fresh output: float32, rank 0, NCHW, no LoD.
    pub(crate) fn new() -> MetaBuilder {
        MetaBuilder(TensorMeta::new(DataType::Float32, &[]))
    }

    /// `share_meta(x)`: dims, dtype, layout and LoD of `x`.
    pub(crate) fn like(x: &TensorMeta) -> MetaBuilder {
        let mut m = x.clone();
        m.offset = 0;
        MetaBuilder(m)
    }

    /// `set_dims`.
    pub(crate) fn dims(mut self, d: &[i64]) -> MetaBuilder {
        self.0.dims = Dims::from_slice(d);
        self
    }

    /// `set_dtype`.
    pub(crate) fn dtype(mut self, t: DataType) -> MetaBuilder {
        self.0.dtype = t;
        self
    }

    /// `set_layout`.
    pub(crate) fn layout(mut self, l: DataLayout) -> MetaBuilder {
        self.0.layout = l;
        self
    }

    /// `share_lod(x)`.
    pub(crate) fn lod(mut self, x: &TensorMeta) -> MetaBuilder {
        self.0.lod = x.lod.clone();
        self
    }

    /// `share_lod(x)` when `cond` holds.
    pub(crate) fn lod_if(self, cond: bool, x: &TensorMeta) -> MetaBuilder {
        if cond {
            self.lod(x)
        } else {
            self
        }
    }

    /// The finished metadata.
    pub(crate) fn build(self) -> TensorMeta {
        self.0
    }
}

/// A fresh output of dims `d` with `x`'s dtype (`set_dims(d); set_dtype(x.dtype)`).
pub(crate) fn with_dtype_of(x: &TensorMeta, d: &[i64]) -> TensorMeta {
    TensorMeta::new(x.dtype, d)
}

/// A fresh output of dims `d` with `x`'s dtype and LoD
/// (`set_dims(d); set_dtype(x.dtype); share_lod(x)`).
pub(crate) fn with_dtype_lod_of(x: &TensorMeta, d: &[i64]) -> TensorMeta {
    MetaBuilder::new().dims(d).dtype(x.dtype).lod(x).build()
}

/// A fresh output with `x`'s dims and dtype (layout NCHW, no LoD).
pub(crate) fn dims_dtype_of(x: &TensorMeta) -> TensorMeta {
    with_dtype_of(x, &x.dims)
}

/// A fresh output with `x`'s dims, dtype and LoD (layout NCHW).
pub(crate) fn dims_dtype_lod_of(x: &TensorMeta) -> TensorMeta {
    with_dtype_lod_of(x, &x.dims)
}

/// Paddle's `out->share_meta(x)` as a value: `x`'s dims, dtype, layout and LoD, offset 0. (An
/// [`Output`](pir_runtime::meta::Output)'s `share(x)` shares `x` itself, offset included.)
pub(crate) fn share_meta(x: &TensorMeta) -> TensorMeta {
    MetaBuilder::like(x).build()
}

/// The precision Paddle keeps master weights and statistics in: float16/bfloat16 → float32.
pub(crate) fn mp_dtype(t: DataType) -> DataType {
    match t {
        DataType::Float16 | DataType::BFloat16 => DataType::Float32,
        other => other,
    }
}

/// `common::product`: the product of the extents, -1s included (wrapping).
pub(crate) fn product(d: &[i64]) -> i64 {
    d.iter().fold(1i64, |a, &b| a.wrapping_mul(b))
}

/// Whether any extent is unknown (negative).
pub(crate) fn has_unknown(d: &[i64]) -> bool {
    d.iter().any(|&v| v < 0)
}

/// Wrapping multiplication of extents.
pub(crate) fn mul(a: i64, b: i64) -> i64 {
    a.wrapping_mul(b)
}

/// Wrapping addition of extents.
pub(crate) fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Wrapping subtraction of extents.
pub(crate) fn sub(a: i64, b: i64) -> i64 {
    a.wrapping_sub(b)
}

/// C++ integer division (truncating) that errors on a zero divisor.
pub(crate) fn div(a: i64, b: i64, what: &str) -> Res<i64> {
    if b == 0 {
        return Err(err(format!("{what} must not be 0")));
    }
    Ok(a.wrapping_div(b))
}

/// C++ remainder that errors on a zero divisor.
pub(crate) fn rem(a: i64, b: i64, what: &str) -> Res<i64> {
    if b == 0 {
        return Err(err(format!("{what} must not be 0")));
    }
    Ok(a.wrapping_rem(b))
}

/// Normalises `axis` against `rank`: accepted in `[-rank, rank)`, returned in `[0, rank)`.
pub(crate) fn axis_in(axis: i64, rank: usize, what: &str) -> Res<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(err(format!(
            "{what} {axis} is out of range for a {rank}-D tensor: it must lie in [{}, {r})",
            -r
        )));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

/// Like [`axis_in`], but a 0-D tensor accepts 0 and -1 (normalised to 0).
pub(crate) fn axis_in_or_0d(axis: i64, rank: usize, what: &str) -> Res<usize> {
    if rank == 0 {
        if axis == 0 || axis == -1 {
            return Ok(0);
        }
        return Err(err(format!(
            "{what} {axis} is out of range for a 0-D tensor: only 0 or -1 is allowed"
        )));
    }
    axis_in(axis, rank, what)
}

/// The dims of `x` without axis `a`.
pub(crate) fn remove_axis(d: &[i64], a: usize) -> Vec<i64> {
    d.iter()
        .enumerate()
        .filter(|(i, _)| *i != a)
        .map(|(_, v)| *v)
        .collect()
}

/// Extent `i` of `d`, erroring instead of panicking when the rank is too small.
pub(crate) fn dim_at(d: &[i64], i: usize, what: &str) -> Res<i64> {
    d.get(i).copied().ok_or_else(|| {
        err(format!(
            "{what} needs dimension {i}, but it has rank {} ({})",
            d.len(),
            fmt_dims(d)
        ))
    })
}

/// Checks a rank.
pub(crate) fn need_rank(t: &TensorMeta, rank: usize, what: &str) -> Res {
    if t.rank() != rank {
        return Err(err(format!(
            "{what} must be {rank}-D, got rank {} {}",
            t.rank(),
            fmt_dims(&t.dims)
        )));
    }
    Ok(())
}

/// Checks a minimum rank.
pub(crate) fn need_rank_ge(t: &TensorMeta, rank: usize, what: &str) -> Res {
    if t.rank() < rank {
        return Err(err(format!(
            "{what} must have at least {rank} dimensions, got rank {} {}",
            t.rank(),
            fmt_dims(&t.dims)
        )));
    }
    Ok(())
}

/// Checks the number of values of integer-list attributes, each given as `(values, n, name)`.
pub(crate) fn need_lens(lists: &[(&[i64], usize, &str)]) -> Res {
    for &(values, n, name) in lists {
        if values.len() != n {
            return Err(err(format!(
                "{name} {} must have {n} values",
                fmt_dims(values)
            )));
        }
    }
    Ok(())
}

/// Checks that integer-list attributes, each given as `(values, name)`, hold positive values.
pub(crate) fn need_positive(lists: &[(&[i64], &str)]) -> Res {
    for &(values, name) in lists {
        if values.iter().any(|&v| v <= 0) {
            return Err(err(format!("{name} {} must be positive", fmt_dims(values))));
        }
    }
    Ok(())
}

/// An integer list held inline (no allocation for the short lists attributes are).
pub(crate) type Ints = smallvec::SmallVec<[i64; 8]>;

/// Whether `data_format` puts channels last (`NHWC`, `NDHWC`).
pub(crate) fn channel_last(data_format: &str) -> bool {
    data_format == "NHWC" || data_format == "NDHWC"
}

/// Checks a count of computed outputs before allocating them.
pub(crate) fn output_count(n: i64, what: &str) -> Res<usize> {
    if n < 0 {
        return Err(err(format!(
            "{what} is unknown (-1) at build time, so the number of outputs cannot be inferred"
        )));
    }
    if n > MAX_OUTPUTS {
        return Err(err(format!("{what} is {n}, too many outputs")));
    }
    Ok(n as usize)
}

/// Paddle's elementwise broadcast (`ElementwiseRawInferMeta` + `GetBroadcastDimsArrays`) of
/// differing dims `x` and `y`, `axis` as the op attribute (-1 aligns trailing dims).
///
/// A pair of extents is compatible when equal or when either is ≤ 1 (so -1 is lenient); the
/// output takes the larger when either exceeds 1 or both are 1, and -1 otherwise.
pub(crate) fn broadcast(x: &[i64], y: &[i64], axis: i64) -> Res<Vec<i64>> {
    let (xr, yr) = (x.len() as i64, y.len() as i64);
    let max_dim = xr.max(yr);
    if xr == yr && axis != -1 && axis != 0 {
        return Err(err(format!(
            "axis must be -1 or 0 when x {} and y {} have the same rank, got {axis}",
            fmt_dims(x),
            fmt_dims(y)
        )));
    }
    if axis < -max_dim || axis >= max_dim {
        return Err(err(format!(
            "broadcast axis {axis} is out of range [{}, {max_dim}) for x {} and y {}",
            -max_dim,
            fmt_dims(x),
            fmt_dims(y)
        )));
    }
    let axis = if axis < 0 {
        (xr - yr).abs() + axis + 1
    } else {
        axis
    };
    let m = max_dim as usize;
    let mut xa = vec![1i64; m];
    let mut ya = vec![1i64; m];
    let a = axis.max(0) as usize;
    if xr > yr {
        xa.copy_from_slice(x);
        if a + y.len() > m {
            return Err(err(format!(
                "y {} does not fit into x {} at broadcast axis {axis}",
                fmt_dims(y),
                fmt_dims(x)
            )));
        }
        ya[a..a + y.len()].copy_from_slice(y);
    } else {
        ya.copy_from_slice(y);
        if a + x.len() > m {
            return Err(err(format!(
                "x {} does not fit into y {} at broadcast axis {axis}",
                fmt_dims(x),
                fmt_dims(y)
            )));
        }
        xa[a..a + x.len()].copy_from_slice(x);
    }
    let mut out = Vec::with_capacity(m);
    for i in 0..m {
        let (p, q) = (xa[i], ya[i]);
        if !(p == q || p <= 1 || q <= 1) {
            return Err(err(format!(
                "cannot broadcast x {} with y {}: extents {p} and {q} differ at dimension {i} \
                 and neither is 1",
                fmt_dims(x),
                fmt_dims(y)
            )));
        }
        out.push(if p > 1 || q > 1 || (p == 1 && q == 1) {
            p.max(q)
        } else {
            -1
        });
    }
    Ok(out)
}

/// `funcs::MatrixGetBroadcastBatchPortion`: broadcast of the batch dims of two matrices.
pub(crate) fn batch_broadcast(x: &[i64], y: &[i64]) -> Res<Vec<i64>> {
    let n = x.len().max(y.len());
    let mut out = vec![0; n];
    for (k, slot) in out.iter_mut().enumerate() {
        let off = n - k - 1;
        let xs = if off < x.len() {
            x[x.len() - off - 1]
        } else {
            1
        };
        let ys = if off < y.len() {
            y[y.len() - off - 1]
        } else {
            1
        };
        if !(xs == ys || xs == 1 || ys == 1) {
            return Err(err(format!(
                "batch dims {} and {} do not broadcast: {xs} vs {ys} at dimension {k}",
                fmt_dims(x),
                fmt_dims(y)
            )));
        }
        *slot = if xs != 1 { xs } else { ys };
    }
    Ok(out)
}

/// `ReduceInferDim`: reduce `x` over `axis` (all axes when `reduce_all` or `axis` is empty or
/// covers every dim).
pub(crate) fn reduce_dims(
    x: &[i64],
    axis: &[i64],
    keep_dim: bool,
    reduce_all: bool,
) -> Res<Vec<i64>> {
    let rank = x.len();
    let mut marked = vec![false; rank.max(1)];
    for &a in axis {
        let idx = if rank == 0 {
            if a != 0 && a != -1 {
                return Err(err(format!(
                    "reduce axis {a} is invalid for a 0-D tensor: only 0, -1 or no axis is allowed"
                )));
            }
            0
        } else {
            axis_in(a, rank, "reduce axis")?
        };
        if marked[idx] {
            return Err(err(format!(
                "dimension {idx} appears more than once in the reduce axes {}",
                fmt_dims(axis)
            )));
        }
        marked[idx] = true;
    }
    let full = !axis.is_empty() && marked.iter().take(rank).all(|&m| m);
    let all = reduce_all || full || axis.is_empty();
    let mut out = Vec::new();
    for (i, &d) in x.iter().enumerate() {
        if all || marked[i] {
            if keep_dim {
                out.push(1);
            }
        } else {
            out.push(d);
        }
    }
    Ok(out)
}

/// `ReduceInferDimForIntArrayAxis`: the reduce result when the axes come from a tensor.
pub(crate) fn reduce_dims_unknown_axis(
    rank: usize,
    axis_len: usize,
    keep_dim: bool,
    reduce_all: bool,
) -> Vec<i64> {
    if reduce_all {
        if keep_dim {
            vec![1; rank]
        } else {
            vec![]
        }
    } else if keep_dim {
        vec![-1; rank]
    } else if axis_len > rank {
        vec![-1]
    } else {
        vec![-1; rank - axis_len]
    }
}

/// Expands `paddings` to two values per spatial dim and applies `padding_algorithm`
/// (`UpdatePaddingAndDilation` / `funcs::UpdatePadding`). Returns the paddings and whether the
/// algorithm was `SAME` (which resets dilations to 1).
pub(crate) fn update_padding(
    paddings: &[i64],
    data_dims: &[i64],
    strides: &[i64],
    ksize: &[i64],
    algorithm: &str,
) -> Res<(Ints, bool)> {
    let n = data_dims.len();
    let mut p: Ints = if paddings.len() == n {
        let mut p = Ints::new();
        for &v in paddings {
            p.push(v);
            p.push(v);
        }
        p
    } else if paddings.len() == 2 * n {
        Ints::from_slice(paddings)
    } else {
        return Err(err(format!(
            "paddings {} must have {n} or {} values (one or two per spatial dim of {})",
            fmt_dims(paddings),
            2 * n,
            fmt_dims(data_dims)
        )));
    };
    let dims_dtype_of = algorithm == "SAME";
    if dims_dtype_of {
        for i in 0..n {
            let s = dim_at(strides, i, "strides")?;
            let k = dim_at(ksize, i, "kernel size")?;
            let out_size = div(add(data_dims[i], s - 1), s, "stride")?;
            let pad_sum = add(sub(mul(out_size - 1, s), data_dims[i]), k).max(0);
            p[2 * i] = pad_sum / 2;
            p[2 * i + 1] = pad_sum - pad_sum / 2;
        }
    } else if algorithm == "VALID" {
        p.iter_mut().for_each(|v| *v = 0);
    }
    Ok((p, dims_dtype_of))
}

/// `funcs::PoolOutputSize`.
pub(crate) fn pool_output_size(
    input: i64,
    k: i64,
    p1: i64,
    p2: i64,
    stride: i64,
    ceil_mode: bool,
) -> Res<i64> {
    if stride == 0 {
        return Err(err("pooling stride must not be 0"));
    }
    let num = add(add(sub(input, k), p1), p2);
    let num = if ceil_mode {
        add(num, sub(stride, 1))
    } else {
        num
    };
    let out = num.wrapping_div(stride).wrapping_add(1);
    if out <= 0 {
        return Err(err(format!(
            "pooling output size {out} is not positive: input size {input}, kernel {k}, \
             paddings ({p1}, {p2}), stride {stride}"
        )));
    }
    Ok(out)
}

/// `common::StringToDataLayout(s) == DataLayout::kNCHW`, rejecting names Paddle does not know.
pub(crate) fn layout_is_nchw(s: &str) -> Res<bool> {
    match s {
        "NCHW" => Ok(true),
        "NHWC"
        | "NCDHW"
        | "NDHWC"
        | "ANYLAYOUT"
        | "Undefined(AnyLayout)"
        | "ONEDNN"
        | "MKLDNN"
        | "SPARSE_COO"
        | "SPARSE_CSR"
        | "STRIDED"
        | "PSTRING_UNION" => Ok(false),
        other => Err(err(format!(
            "unknown data layout {other:?}: expected NCHW, NHWC, NCDHW or NDHWC"
        ))),
    }
}

/// `funcs::ComputeAndCheckShape` at compile time: concatenates `inputs` along `axis` (`None`
/// checks every dim, as `stack` does). Unknown extents make the concatenated extent -1 and are
/// filled from other inputs elsewhere.
pub(crate) fn concat_dims(inputs: &[&[i64]], axis: Option<usize>) -> Res<Vec<i64>> {
    let first = match inputs.first() {
        Some(f) => *f,
        None => {
            return Err(err(
                "the input list is empty: at least one tensor is needed",
            ))
        }
    };
    let mut out = first.to_vec();
    for (i, d) in inputs.iter().enumerate().skip(1) {
        if d.len() != out.len() {
            return Err(err(format!(
                "input[{i}] {} has rank {} but input[0] {} has rank {}: all inputs need the \
                 same rank",
                fmt_dims(d),
                d.len(),
                fmt_dims(first),
                first.len()
            )));
        }
        for j in 0..out.len() {
            if Some(j) == axis {
                out[j] = if d[j] == -1 || out[j] == -1 {
                    -1
                } else {
                    add(out[j], d[j])
                };
            } else {
                if first[j] > 0 && d[j] > 0 && first[j] != d[j] {
                    return Err(err(format!(
                        "dimension {j} of input[0] {} and input[{i}] {} differ ({} vs {})",
                        fmt_dims(first),
                        fmt_dims(d),
                        first[j],
                        d[j]
                    )));
                }
                if out[j] == -1 && d[j] > 0 {
                    out[j] = d[j];
                }
            }
        }
    }
    Ok(out)
}

/// Exact equality of two dims (Paddle's `PADDLE_ENFORCE_EQ` on `DDim`s).
pub(crate) fn need_same_dims(a: &TensorMeta, b: &TensorMeta, what_a: &str, what_b: &str) -> Res {
    if a.dims != b.dims {
        return Err(err(format!(
            "{what_a} {} and {what_b} {} must have the same dims",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        )));
    }
    Ok(())
}

/// Checks a fake-quant `bit_length`: Paddle's quantizers take 1 to 16 bits.
pub(crate) fn need_bit_length(bits: i64) -> Res {
    if !(1..=16).contains(&bits) {
        return Err(err(format!("bit_length must be in [1, 16], got {bits}")));
    }
    Ok(())
}

/// Checks that `a` and `b` (both of rank ≥ 1) have the same batch size (dim 0) when both are
/// known.
pub(crate) fn need_same_batch_when_known(
    a: &TensorMeta,
    b: &TensorMeta,
    what_a: &str,
    what_b: &str,
) -> Res {
    let (na, nb) = (a.dims[0], b.dims[0]);
    if na > 0 && nb > 0 && na != nb {
        return Err(err(format!(
            "{what_a} {} and {what_b} {} must have the same batch size",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        )));
    }
    Ok(())
}

/// Checks that a learning-rate-like tensor holds exactly one element (`product(dims) == 1`).
pub(crate) fn need_one_element(t: &TensorMeta, what: &str) -> Res {
    let n = product(&t.dims);
    if n != 1 {
        return Err(err(format!(
            "{what} must hold exactly one element, got dims {} ({n} elements)",
            fmt_dims(&t.dims)
        )));
    }
    Ok(())
}

/// `if (out && x) out->share_meta(x)`: `out` shares `x`'s metadata when `x` is present and the
/// op has the output; otherwise nothing (the gradient of an absent optional input stays unset).
pub(crate) fn share_if_present(x: Option<&TensorMeta>, out: pir_runtime::meta::Output<'_>) -> Res {
    match x {
        Some(x) if out.is_present() => out.share(x),
        _ => Ok(()),
    }
}

/// [`share_if_present`] for each `(input, its gradient)` pair, in order (Paddle's
/// `General*GradInferMeta` family).
pub(crate) fn share_each<const N: usize>(
    pairs: [(Option<&TensorMeta>, pir_runtime::meta::Output<'_>); N],
) -> Res {
    pairs
        .into_iter()
        .try_for_each(|(x, out)| share_if_present(x, out))
}

/// A fresh output of dims `d` and nothing else (`set_dims(d)` alone, or `share_dims`: the
/// dtype stays float32, as Paddle leaves it).
pub(crate) fn dims_only(d: &[i64]) -> TensorMeta {
    MetaBuilder::new().dims(d).build()
}

/// A fresh output with `x`'s dims and LoD and dtype `t` (`set_dims(x.dims); share_lod(x);
/// set_dtype(t)`: a gradient shaped like the forward input, typed like the incoming gradient).
pub(crate) fn dims_lod_with_dtype(x: &TensorMeta, t: DataType) -> TensorMeta {
    MetaBuilder::new().dims(&x.dims).dtype(t).lod(x).build()
}

/// `share_meta(x)` then `set_dims(d)`: `x`'s dtype, layout and LoD with dims `d` (offset 0).
pub(crate) fn share_meta_with_dims(x: &TensorMeta, d: &[i64]) -> TensorMeta {
    MetaBuilder::like(x).dims(d).build()
}

/// A fresh output of dims `d` with `x`'s dtype and layout (no LoD)
/// (`set_dims(d); set_dtype(x.dtype); set_layout(x.layout)`).
pub(crate) fn with_dtype_layout_of(x: &TensorMeta, d: &[i64]) -> TensorMeta {
    MetaBuilder::new()
        .dims(d)
        .dtype(x.dtype)
        .layout(x.layout)
        .build()
}

/// Checks that `a` and `b` have the same rank, and the same dims when neither has an unknown
/// extent.
pub(crate) fn need_same_shape_when_known(
    a: &TensorMeta,
    b: &TensorMeta,
    what_a: &str,
    what_b: &str,
) -> Res {
    if a.rank() != b.rank() {
        return Err(err(format!(
            "{what_a} {} and {what_b} {} must have the same rank",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        )));
    }
    if !has_unknown(&a.dims) && !has_unknown(&b.dims) && a.dims != b.dims {
        return Err(err(format!(
            "{what_a} {} and {what_b} {} must have the same shape",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        )));
    }
    Ok(())
}
