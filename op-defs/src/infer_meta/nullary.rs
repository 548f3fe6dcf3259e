//! Infer-meta functions without tensor inputs (creation ops), after Paddle's
//! `paddle/phi/infermeta/nullary.cc`. Outputs are fresh tensors (`TensorMeta::new`: layout NCHW,
//! no LoD), which is also the layout the functions that set one set.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, IntArray, IntArrayArg, Output, Scalar, TensorMeta};
use pir_runtime::phi::DataType;

use super::common::{add, fmt_dims, mul, sub};

type R = Result<(), InferMetaError>;

/// `CreateInferMeta(shape, dtype)` (`full`, `empty`, `ones`, `zeros`): dims `shape`, dtype
/// `dtype`, layout NCHW. Known shape values must be non-negative; a shape from a tensor gives
/// `-1`s.
#[infer_meta]
pub fn create_infer_meta(shape: IntArray<'_>, dtype: DataType, out: Output<'_>) -> R {
    if !shape.from_tensor() {
        for (i, &v) in shape.values().iter().enumerate() {
            ensure_meta!(
                v >= 0,
                "every value of shape must be non-negative, but shape[{i}] = {v} in {}",
                fmt_dims(shape.values())
            );
        }
    }
    out.set(TensorMeta::new(dtype, shape.values()))
}

/// `CreateVecShapeInferMeta(value, dtype)` (`full_int_array`): a 1-D tensor of `len(value)`
/// elements.
#[infer_meta]
pub fn create_vec_shape_infer_meta(value: IntArrayArg, dtype: DataType, out: Output<'_>) -> R {
    let n = value
        .len
        .ok_or_else(|| InferMetaError::new("the number of values is unknown"))?;
    out.set(TensorMeta::new(dtype, &[n as i64]))
}

/// `DataInferMeta(name, shape, dtype)`: dims `shape`, dtype `dtype`.
#[infer_meta]
pub fn data_infer_meta(_name: &str, shape: IntArray<'_>, dtype: DataType, out: Output<'_>) -> R {
    out.set(TensorMeta::new(dtype, shape.values()))
}

/// `GaussianInferMeta(shape, mean, std, seed, dtype)`: dims `shape`, dtype `dtype`, NCHW.
#[infer_meta]
pub fn gaussian_infer_meta(
    shape: IntArray<'_>,
    _mean: f64,
    _std: f64,
    _seed: i64,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    out.set(TensorMeta::new(dtype, shape.values()))
}

/// `UniformRandomInferMeta(shape, dtype)`: dims `shape`, dtype `dtype`, NCHW.
#[infer_meta]
pub fn uniform_random_infer_meta(shape: IntArray<'_>, dtype: DataType, out: Output<'_>) -> R {
    out.set(TensorMeta::new(dtype, shape.values()))
}

/// `TruncatedGaussianRandomInferMeta(shape, mean, std, seed, a, b, dtype)`.
#[infer_meta]
pub fn truncated_gaussian_random_infer_meta(
    shape: &[i64],
    _mean: f64,
    _std: f64,
    _seed: i64,
    _a: f64,
    _b: f64,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    out.set(TensorMeta::new(dtype, shape))
}

/// `AssignValueInferMeta(shape, dtype)`: dims `shape`, dtype `dtype`.
#[infer_meta]
pub fn assign_value_infer_meta(shape: &[i64], dtype: DataType, out: Output<'_>) -> R {
    out.set(TensorMeta::new(dtype, shape))
}

/// `RandintInferMeta(low, high, shape, dtype)`: `low < high` is required.
#[infer_meta]
pub fn randint_infer_meta(
    low: i64,
    high: i64,
    shape: IntArray<'_>,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        low < high,
        "randint needs low < high, got low = {low}, high = {high}"
    );
    out.set(TensorMeta::new(dtype, shape.values()))
}

/// `RandpermInferMeta(n, dtype)`: `[n]`.
#[infer_meta]
pub fn randperm_infer_meta(n: i64, dtype: DataType, out: Output<'_>) -> R {
    out.set(TensorMeta::new(dtype, &[n]))
}

/// `EyeInferMeta(num_rows, num_columns, dtype)`: `[rows, columns]`, -1 for values from tensors;
/// `num_columns == -1` copies the rows.
#[infer_meta]
pub fn eye_infer_meta(
    num_rows: Option<Scalar>,
    num_columns: Option<Scalar>,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    let rows = num_rows.map_or(-1, Scalar::to_i64);
    let cols = match num_columns.map(Scalar::to_i64) {
        None => -1,
        Some(-1) => rows,
        Some(c) => c,
    };
    out.set(TensorMeta::new(dtype, &[rows, cols]))
}

/// The number of elements of the lower triangle of a `rows × cols` matrix below diagonal
/// `offset` (Paddle's trapezoid formula).
fn tril_size(rows: i64, cols: i64, offset: i64) -> i64 {
    let n_first = if offset > 0 {
        cols.min(add(1, offset))
    } else {
        i64::from(rows.wrapping_add(offset) > 0)
    };
    let n_last = 0i64.max(cols.min(rows.wrapping_add(offset)));
    let n_rows = 0i64.max(rows.min(rows.wrapping_add(offset)));
    let n_trap = sub(n_last, n_first) + 1;
    let mut size = mul(n_first.wrapping_add(n_last), n_trap) >> 1;
    let diff = sub(n_rows, n_trap);
    if diff > 0 {
        size = size.wrapping_add(mul(diff, cols));
    }
    size
}

/// `TrilIndicesInferMeta(rows, cols, offset, dtype)`: `[2, number of lower-triangle entries]`.
#[infer_meta]
pub fn tril_indices_infer_meta(
    rows: i64,
    cols: i64,
    offset: i64,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    let n = tril_size(rows, cols, offset);
    out.set(TensorMeta::new(dtype, &[2, n]))
}

/// `TriuIndicesInferMeta(row, col, offset, dtype)`: `[2, number of upper-triangle entries]`.
#[infer_meta]
pub fn triu_indices_infer_meta(
    row: i64,
    col: i64,
    offset: i64,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    let n = sub(mul(row, col), tril_size(row, col, sub(offset, 1)));
    out.set(TensorMeta::new(dtype, &[2, n]))
}

/// `ReadFileInferMeta(filename)`: uint8 `[-1]`.
#[infer_meta]
pub fn read_file_infer_meta(_filename: &str, out: Output<'_>) -> R {
    out.set(TensorMeta::new(DataType::UInt8, &[-1]))
}

/// `ArangeInferMeta(start, end, step, dtype)`: `[n]` of `dtype`, with
/// `n = ceil(|end - start| / |step|)` when the three scalars are known and `-1` when one comes
/// from a computed tensor; `step` must not be 0 and must point from `start` towards `end`
/// (Paddle's `funcs::GetSize`).
///
/// `paddle-ref/ops/programs/arange.txt`: `arange(0, 5)` gives `tensor<5xi64>`, `arange(3, 3)`
/// gives `tensor<0xi64>`, `data` operands give `tensor<-1xi64>`.
#[infer_meta]
pub fn arange_infer_meta(
    start: Option<Scalar>,
    end: Option<Scalar>,
    step: Option<Scalar>,
    dtype: DataType,
    out: Output<'_>,
) -> R {
    let n = match (start, end, step) {
        (Some(start), Some(end), Some(step)) => {
            let (a, b, s) = (start.to_f64(), end.to_f64(), step.to_f64());
            ensure_meta!(s != 0.0, "the step of arange must not be 0");
            ensure_meta!(
                (a <= b && s > 0.0) || (a >= b && s < 0.0),
                "the step {s} of arange must point from start {a} towards end {b}"
            );
            let n = ((b - a) / s).abs().ceil();
            ensure_meta!(
                n.is_finite() && n < i64::MAX as f64,
                "arange from {a} to {b} by {s} has too many elements"
            );
            n as i64
        }
        _ => -1,
    };
    out.set(TensorMeta::new(dtype, &[n]))
}

/// `RecvV2InferMeta(ring_id, dynamic_shape, peer, out_shape, dtype)`: `peer` and `ring_id`
/// non-negative, `out_shape` not empty; without `dynamic_shape` every extent is at least 1
/// and `out` takes `out_shape`; `out` takes `dtype` always (dims stay unset with
/// `dynamic_shape`, Paddle's rank-0 default).
#[infer_meta(name = "RecvV2InferMeta")]
pub fn recv_v2_infer_meta(
    ring_id: i64,
    dynamic_shape: bool,
    peer: i64,
    out_shape: &[i64],
    dtype: DataType,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        peer >= 0,
        "the peer ({peer}) for recv_v2 op must be non-negative"
    );
    ensure_meta!(
        ring_id >= 0,
        "the ring_id ({ring_id}) for recv_v2 op must be non-negative"
    );
    ensure_meta!(
        !out_shape.is_empty(),
        "the size of out_shape must be greater than 0"
    );
    if dynamic_shape {
        return out.set(TensorMeta::new(dtype, &[]));
    }
    for (i, &d) in out_shape.iter().enumerate() {
        ensure_meta!(
            d >= 1,
            "out_shape must be set explicitly, but its {i}th element is {d}, less than 1 (or \
             set dynamic_shape for both send_v2 and recv_v2)"
        );
    }
    out.set(TensorMeta::new(dtype, out_shape))
}

/// `CommInitAllInferMeta(devices, ring_id)`: the op has no output and nothing to check.
/// (Paddle's body is not in the reference store; the legacy `c_comm_init_all` op infers
/// nothing either.)
#[infer_meta]
pub fn comm_init_all_infer_meta(_devices: &[i64], _ring_id: i64) -> R {
    Ok(())
}

/// `SeedInferMeta(seed)`: an int32 `[1]`. (Paddle's body is not in the reference store; the
/// rule is the legacy `seed` op's: one int32 value.)
#[infer_meta]
pub fn seed_infer_meta(_seed: i64, out: Output<'_>) -> R {
    out.set(TensorMeta::new(DataType::Int32, &[1]))
}

/// `PartialRecvInferMeta(peer, dtype, out_shape, num, id)`: `peer ≥ 0`, `num ≥ 1`,
/// `0 ≤ id < num`, `out_shape` non-empty with every extent at least 1; `out` takes `out_shape`
/// and `dtype`. (Paddle's body is not in the reference store; the checks are those of
/// `PartialSendInferMeta` and `RecvV2InferMeta`, the legacy `partial_recv` op's.)
#[infer_meta]
pub fn partial_recv_infer_meta(
    peer: i64,
    dtype: DataType,
    out_shape: &[i64],
    num: i64,
    id: i64,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        peer >= 0,
        "the peer ({peer}) for partial_recv op must be non-negative"
    );
    ensure_meta!(num >= 1, "the num ({num}) for partial_recv op must be >= 1");
    ensure_meta!(
        (0..num).contains(&id),
        "the id ({id}) for partial_recv op must be >= 0 and < num ({num})"
    );
    ensure_meta!(
        !out_shape.is_empty(),
        "the size of out_shape must be greater than 0"
    );
    for (i, &d) in out_shape.iter().enumerate() {
        ensure_meta!(
            d >= 1,
            "out_shape must be set explicitly, but its {i}th element is {d}, less than 1"
        );
    }
    out.set(TensorMeta::new(dtype, out_shape))
}
