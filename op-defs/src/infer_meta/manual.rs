//! Infer-meta functions of the ops Paddle writes by hand (`manual_op.cc`): the tensor-array
//! family, `fused_gemm_epilogue(_grad)` and `shape_broadcast`, after Paddle 3.3.1's
//! `paddle/phi/infermeta/{unary,binary,multiary,nullary,fusion}.cc`.
//!
//! Where the hand-written op's `InferMeta` does more than the phi function it names, the Rust
//! function does that too, so that a build gives the type Paddle's build gives: `create_array`'s
//! result has dims `[0]` and `array_write_`'s the written tensor's dims. A tensor array's
//! metadata is its element type, element dims and layout; what phi leaves unset stays at the
//! defaults (float32, no dims), as elsewhere in this registry.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, IntArrayArg, Output, Scalar, TensorMeta};
use pir_runtime::phi::DataType;

use super::common::{fmt_dims, MetaBuilder};

type R = Result<(), InferMetaError>;

/// An array's element type and layout, nothing else (what phi's array functions copy).
fn dtype_layout_of(x: &TensorMeta) -> TensorMeta {
    MetaBuilder::new().dtype(x.dtype).layout(x.layout).build()
}

/// `CreateArrayInferMeta(dtype)`: an empty array of `dtype`; `CreateArrayOp::InferMeta` gives
/// it dims `[0]`.
#[infer_meta]
pub fn create_array_infer_meta(dtype: DataType, out: Output<'_>) -> R {
    out.set(MetaBuilder::new().dtype(dtype).dims(&[0]).build())
}

/// `CreateArrayLikeInferMeta(input)`: `input`'s element type and layout.
#[infer_meta]
pub fn create_array_like_infer_meta(input: &TensorMeta, out: Output<'_>) -> R {
    out.set(dtype_layout_of(input))
}

/// `ArrayLengthInferMeta(x)`: an `int64` tensor of shape `[1]`.
#[infer_meta]
pub fn array_length_infer_meta(_x: &TensorMeta, out: Output<'_>) -> R {
    out.set(MetaBuilder::new().dtype(DataType::Int64).dims(&[1]).build())
}

/// `ArrayReadInferMeta(array, i)` at compile time: the element's extents are unknown, `-1` in
/// each of the array's element dims (one `-1` when the array's rank is at most 1); the array's
/// element type and layout.
#[infer_meta]
pub fn array_read_infer_meta(array: &TensorMeta, _i: Option<Scalar>, out: Output<'_>) -> R {
    let rank = array.rank();
    let dims = if rank > 1 { vec![-1; rank] } else { vec![-1] };
    out.set(
        MetaBuilder::new()
            .dtype(array.dtype)
            .layout(array.layout)
            .dims(&dims)
            .build(),
    )
}

/// `ArrayWriteInferMeta(array, x)`: the array's element type (`x`'s when the array has none
/// yet; they must agree otherwise) and layout; `ArrayWrite_Op::InferMeta` gives the result
/// `x`'s dims.
#[infer_meta]
pub fn array_write_infer_meta(array: &TensorMeta, x: &TensorMeta, out: Output<'_>) -> R {
    let mut dtype = array.dtype;
    if x.dtype != DataType::Undefined {
        if array.dtype == DataType::Undefined {
            dtype = x.dtype;
        } else {
            ensure_meta!(
                array.dtype == x.dtype,
                "the dtype {} of x must be the array's element type {}",
                x.dtype.name(),
                array.dtype.name()
            );
        }
    }
    out.set(
        MetaBuilder::new()
            .dtype(dtype)
            .layout(array.layout)
            .dims(&x.dims)
            .build(),
    )
}

/// `ArrayToTensorInferMeta(x, axis, use_stack)` at compile time: the elements stacked (a new
/// `-1` dim at `axis`) or concatenated (dim `axis` becomes `-1`); `out_index` an `int32` tensor
/// `[-1]`. An array whose element dims are `[0]` (never written) leaves both outputs unset.
#[infer_meta]
pub fn array_to_tensor_infer_meta(
    x: &TensorMeta,
    axis: i32,
    use_stack: bool,
    out: Output<'_>,
    out_index: Output<'_>,
) -> R {
    if x.dims[..] == [0] {
        out.set(MetaBuilder::new().build())?;
        return out_index.set(MetaBuilder::new().build());
    }
    let mut dims = x.dims.to_vec();
    // Stacking inserts a dim (axis ≤ rank); concatenating replaces one (axis < rank).
    let fits = usize::try_from(axis).is_ok_and(|a| a < dims.len() + usize::from(use_stack));
    ensure_meta!(
        fits,
        "axis {axis} is out of range for array elements of dims {}",
        fmt_dims(&x.dims)
    );
    let axis = axis as usize;
    if use_stack {
        dims.insert(axis, -1);
    } else {
        dims[axis] = -1;
    }
    out.set(MetaBuilder::new().dtype(x.dtype).dims(&dims).build())?;
    out_index.set(
        MetaBuilder::new()
            .dtype(DataType::Int32)
            .dims(&[-1])
            .build(),
    )
}

/// `TensorToArrayInferMeta(x, out_grad, axis, use_stack)`: `x`'s element type and layout.
#[infer_meta]
pub fn tensor_to_array_infer_meta(
    x: &TensorMeta,
    _out_grad: &TensorMeta,
    _axis: i32,
    _use_stack: bool,
    x_grad: Output<'_>,
) -> R {
    x_grad.set(dtype_layout_of(x))
}

/// `SliceArrayInferMeta(input, starts, ends)`: `input`'s element type and dims (the bounds may
/// come from any tensor; they are not read at compile time).
#[infer_meta]
pub fn slice_array_infer_meta(
    input: &TensorMeta,
    _starts: IntArrayArg,
    _ends: IntArrayArg,
    out: Output<'_>,
) -> R {
    out.set(
        MetaBuilder::new()
            .dtype(input.dtype)
            .dims(&input.dims)
            .build(),
    )
}

/// `SliceArrayDenseInferMeta(input, starts)`: a tensor of `input`'s element type and dims.
#[infer_meta]
pub fn slice_array_dense_infer_meta(
    input: &TensorMeta,
    _starts: IntArrayArg,
    out: Output<'_>,
) -> R {
    out.set(
        MetaBuilder::new()
            .dtype(input.dtype)
            .dims(&input.dims)
            .build(),
    )
}

/// `ArrayPopInferMeta(array, index)`: `array_out` keeps the array's element type and layout;
/// `out` gets its element type (its dims are not known at compile time).
#[infer_meta]
pub fn array_pop_infer_meta(
    array: &TensorMeta,
    _index: i32,
    array_out: Output<'_>,
    out: Output<'_>,
) -> R {
    array_out.set(dtype_layout_of(array))?;
    out.set(MetaBuilder::new().dtype(array.dtype).build())
}

/// `UnchangedArrayInferMeta(x)`: `x`'s element type and layout.
#[infer_meta]
pub fn unchanged_array_infer_meta(x: &TensorMeta, out: Output<'_>) -> R {
    out.set(dtype_layout_of(x))
}

/// `AddNTensorArrayInferMeta(x)` on arrays: the first array's element type and layout.
#[infer_meta]
pub fn add_n_tensor_array_infer_meta(x: &[TensorMeta], out: Output<'_>) -> R {
    let Some(first) = x.first() else {
        return Err(InferMetaError::new("`inputs` must hold at least one array"));
    };
    out.set(dtype_layout_of(first))
}

/// `ShapeBroadcastInferMeta(x, y)`: `x` and `y` are 1-D shape tensors; the broadcast shape has
/// the longer one's length and `x`'s element type.
#[infer_meta]
pub fn shape_broadcast_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        x.rank() == 1 && y.rank() == 1,
        "x and y must be 1-D shape tensors, got dims {} and {}",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    let n = x.dims[0].max(y.dims[0]);
    out.set(MetaBuilder::new().dtype(x.dtype).dims(&[n]).build())
}

/// `K` and `N` of `x × y` with the transposes applied.
fn gemm_k_n(x: &TensorMeta, y: &TensorMeta, trans_x: bool, trans_y: bool) -> (i64, i64, i64) {
    let r = x.rank();
    let k_from_x = if trans_x {
        x.dims[r - 2]
    } else {
        x.dims[r - 1]
    };
    let (k_from_y, n) = if trans_y {
        (y.dims[1], y.dims[0])
    } else {
        (y.dims[0], y.dims[1])
    };
    (k_from_x, k_from_y, n)
}

/// `FusedGemmEpilogueInferMeta(x, y, bias, trans_x, trans_y, activation)`: `x` (rank ≥ 2)
/// times `y` (rank 2) plus `bias` (`[N]`). `reserve_space` is produced only when `activation`
/// is not `"none"` (`FusedGemmEpilogueOp::InferMeta` passes no slot then), and `N` must then be a
/// multiple of 128 (`relu`) or 8.
#[infer_meta]
pub fn fused_gemm_epilogue_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    bias: &TensorMeta,
    trans_x: bool,
    trans_y: bool,
    activation: &str,
    out: Output<'_>,
    reserve_space: Output<'_>,
) -> R {
    ensure_meta!(y.rank() == 2, "y must be 2-D, got {}", fmt_dims(&y.dims));
    ensure_meta!(
        x.rank() >= 2,
        "x must have rank ≥ 2, got {}",
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        bias.rank() == 1,
        "bias must be 1-D, got {}",
        fmt_dims(&bias.dims)
    );
    let (k_from_x, k_from_y, n) = gemm_k_n(x, y, trans_x, trans_y);
    ensure_meta!(
        bias.dims[0] == n,
        "bias {} must have y's last extent {n}",
        fmt_dims(&bias.dims)
    );
    ensure_meta!(
        k_from_x == -1 || k_from_x == k_from_y,
        "x's contracted extent {k_from_x} must equal y's {k_from_y}"
    );
    let r = x.rank();
    let mut dims = x.dims[..r - 2].to_vec();
    dims.push(if trans_x {
        x.dims[r - 1]
    } else {
        x.dims[r - 2]
    });
    dims.push(n);
    let meta = MetaBuilder::new().dtype(x.dtype).dims(&dims).build();
    if activation != "none" {
        let multiple = if activation == "relu" { 128 } else { 8 };
        ensure_meta!(
            n % multiple == 0,
            "with activation \"{activation}\" the output extent N = {n} must be a multiple of \
             {multiple}"
        );
        reserve_space.set(meta.clone())?;
    }
    out.set(meta)
}

/// `FusedGemmEpilogueGradInferMeta(x, y, reserve_space, out_grad, trans_x, trans_y,
/// activation_grad)`: the gradients of `x`, `y` and the bias (`[N]`, `y`'s element type).
#[infer_meta]
#[allow(clippy::too_many_arguments)] // Paddle's signature.
pub fn fused_gemm_epilogue_grad_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    reserve_space: Option<&TensorMeta>,
    out_grad: &TensorMeta,
    trans_x: bool,
    trans_y: bool,
    activation_grad: &str,
    x_grad: Output<'_>,
    y_grad: Output<'_>,
    bias_grad: Output<'_>,
) -> R {
    let (xd, dd) = (&x.dims, &out_grad.dims);
    ensure_meta!(
        dd.len() >= 2,
        "out_grad must have rank ≥ 2, got {}",
        fmt_dims(dd)
    );
    ensure_meta!(y.rank() == 2, "y must be 2-D, got {}", fmt_dims(&y.dims));
    ensure_meta!(xd.len() >= 2, "x must have rank ≥ 2, got {}", fmt_dims(xd));
    ensure_meta!(
        dd.len() == xd.len(),
        "out_grad {} and x {} must have the same rank",
        fmt_dims(dd),
        fmt_dims(xd)
    );
    let n = if trans_y { y.dims[0] } else { y.dims[1] };
    ensure_meta!(
        dd[dd.len() - 1] == n,
        "out_grad's last extent {} must equal y's output extent {n}",
        dd[dd.len() - 1]
    );
    for i in 0..xd.len() - 2 {
        ensure_meta!(
            dd[i] <= 0 || xd[i] <= 0 || dd[i] == xd[i],
            "out_grad {} and x {} differ in dim {i}",
            fmt_dims(dd),
            fmt_dims(xd)
        );
    }
    let r = xd.len();
    let k_dout = dd[r - 2];
    let k_x = if trans_x { xd[r - 1] } else { xd[r - 2] };
    ensure_meta!(
        k_dout < 0 || k_x < 0 || k_dout == k_x,
        "out_grad's extent {k_dout} must equal x's {k_x}"
    );
    ensure_meta!(
        activation_grad == "none" || reserve_space.is_some(),
        "reserve_space is required when activation_grad is \"{activation_grad}\""
    );
    x_grad.set_if_present(MetaBuilder::new().dtype(x.dtype).dims(xd).build());
    y_grad.set_if_present(MetaBuilder::new().dtype(y.dtype).dims(&y.dims).build());
    bias_grad.set_if_present(MetaBuilder::new().dtype(y.dtype).dims(&[n]).build());
    Ok(())
}
