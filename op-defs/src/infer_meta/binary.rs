//! Infer-meta functions of two input tensors, after Paddle's `paddle/phi/infermeta/binary.cc`.
//!
//! Convolutions run the compile-time branch (unknown spatial extents give `-1`); the channel
//! checks Paddle performs when the generated `Build` calls them with the default (runtime)
//! config are kept where both extents are known.

use pir_macros::infer_meta;
use pir_runtime::ensure_meta;
use pir_runtime::meta::{InferMetaError, IntArray, Output, Scalar, TensorMeta};
use pir_runtime::phi::{DataLayout, DataType};

use super::common::Ints;
use super::common::{
    add, axis_in, batch_broadcast, broadcast, channel_last, dims_dtype_lod_of, dims_dtype_of, err,
    fmt_dims, mul, need_rank, need_rank_ge, need_same_batch_when_known, need_same_shape_when_known,
    product, remove_axis, share_meta, share_meta_with_dims, sub, update_padding,
    with_dtype_layout_of, with_dtype_lod_of, with_dtype_of, MetaBuilder, Res,
};
use super::common::{dim_at, dims_only};

type R = Result<(), InferMetaError>;

// ---------------------------------------------------------------------------------------------
// Elementwise and comparisons
// ---------------------------------------------------------------------------------------------

/// Paddle's `PromoteTypes` for elementwise ops: only complex promotion, else `x`'s dtype.
fn promote(x: DataType, y: DataType) -> DataType {
    let has = |t: DataType| x == t || y == t;
    if has(DataType::Complex128) {
        DataType::Complex128
    } else if has(DataType::Complex64) {
        if has(DataType::Float64) {
            DataType::Complex128
        } else {
            DataType::Complex64
        }
    } else {
        x
    }
}

pub(crate) fn elementwise(x: &TensorMeta, y: &TensorMeta, axis: i64) -> Res<TensorMeta> {
    let d = if x.dims == y.dims {
        x.dims.to_vec()
    } else {
        broadcast(&x.dims, &y.dims, axis)?
    };
    let layout = if x.layout == DataLayout::Nhwc || y.layout == DataLayout::Nhwc {
        DataLayout::Nhwc
    } else {
        x.layout
    };
    Ok(MetaBuilder::new()
        .dims(&d)
        .dtype(promote(x.dtype, y.dtype))
        .layout(layout)
        .lod(x)
        .build())
}

/// `ElementwiseInferMeta(x, y)`: the broadcast of `x` and `y` (trailing dims aligned; equal
/// extents, 1 or -1 combine), `x`'s dtype (complex promotion aside), NHWC if either is NHWC.
#[infer_meta]
pub fn elementwise_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    check_promotion(x, y)?;
    out.set(elementwise(x, y, -1)?)
}

/// Paddle's static-graph API refuses a tensor-tensor binary op of different dtypes unless both
/// are floating-point or one is complex (`phi::NeedTypePromotion`, run for add, subtract,
/// multiply, divide and the other ops of `ElementwiseInferMeta` before the op is built); with a
/// 0-D operand it promotes instead.
fn check_promotion(x: &TensorMeta, y: &TensorMeta) -> R {
    let float = |t: DataType| {
        matches!(
            t,
            DataType::Float16 | DataType::BFloat16 | DataType::Float32 | DataType::Float64
        )
    };
    let (a, b) = (x.dtype, y.dtype);
    ensure_meta!(
        a == b
            || x.rank() == 0
            || y.rank() == 0
            || (float(a) && float(b))
            || a.is_complex()
            || b.is_complex(),
        "(InvalidType) Type promotion only support calculations between floating-point numbers \
         and between complex and real numbers. But got different data type x: {a}, y: {b}."
    );
    Ok(())
}

/// `BitwiseShiftInferMeta(x, y, is_arithmetic)`: like `ElementwiseInferMeta`.
#[infer_meta]
pub fn bitwise_shift_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    _is_arithmetic: bool,
    out: Output<'_>,
) -> R {
    elementwise_infer_meta(x, y, out)
}

/// `LogicalBinaryInferMeta(x, y)`: the elementwise broadcast with dtype bool.
#[infer_meta]
pub fn logical_binary_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    let mut meta = elementwise(x, y, -1)?;
    meta.dtype = DataType::Bool;
    out.set(meta)
}

/// `CompareInferMeta(x, y)`: `x`'s metadata when the dims agree, else their broadcast; dtype
/// bool.
#[infer_meta]
pub fn compare_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    let meta = if x.dims == y.dims {
        MetaBuilder::like(x)
    } else {
        let axis = (x.rank() as i64 - y.rank() as i64).abs();
        let d = broadcast_abs_axis(&x.dims, &y.dims, axis)?;
        MetaBuilder::new().dims(&d).lod(x)
    };
    out.set(meta.dtype(DataType::Bool).build())
}

/// `GetBroadcastDimsArrays` called with `axis = |rank(x) - rank(y)|` (compare, complex,
/// matrix_rank_tol): the same trailing alignment as elementwise ops.
fn broadcast_abs_axis(x: &[i64], y: &[i64], _axis: i64) -> Res<Vec<i64>> {
    broadcast(x, y, -1)
}

fn same_input_dims(x: &TensorMeta, y: &TensorMeta) -> R {
    ensure_meta!(
        x.rank() == y.rank(),
        "input {} and other {} must have the same rank",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    for (i, (&a, &b)) in x.dims.iter().zip(&y.dims).enumerate() {
        if a >= 0 && b >= 0 {
            ensure_meta!(
                a == b,
                "dim {i} of input {} and other {} differ: {a} vs {b}",
                fmt_dims(&x.dims),
                fmt_dims(&y.dims)
            );
        }
    }
    Ok(())
}

/// `ValueCompareInferMeta(x, y)`: bool with `x`'s dims; `x` and `y` must have the same dims
/// where known.
#[infer_meta]
pub fn value_compare_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    same_input_dims(x, y)?;
    out.set(TensorMeta::new(DataType::Bool, &x.dims))
}

/// `AllValueCompareInferMeta(x, y)`: a 0-D bool; `x` and `y` must have the same dims where
/// known.
#[infer_meta]
pub fn all_value_compare_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    same_input_dims(x, y)?;
    out.set(TensorMeta::new(DataType::Bool, &[]))
}

/// `CompareAllInferMeta(x, y)`: a 0-D tensor (dtype unset: float32) with `x`'s LoD; `y` may not
/// have more dims than `x`.
#[infer_meta]
pub fn compare_all_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        x.rank() >= y.rank(),
        "y {} must not have more dims than x {}",
        fmt_dims(&y.dims),
        fmt_dims(&x.dims)
    );
    out.set(MetaBuilder::new().lod(x).build())
}

/// `Atan2InferMeta(x, y)`: `x`'s metadata (float64 for integer inputs); same ranks, `x`'s
/// first dim not larger than `y`'s.
#[infer_meta]
pub fn atan2_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        x.rank() == y.rank(),
        "x {} and y {} must have the same rank",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    if x.rank() > 0 {
        ensure_meta!(
            x.dims[0] <= y.dims[0],
            "dim 0 of x {} must not exceed dim 0 of y {}",
            fmt_dims(&x.dims),
            fmt_dims(&y.dims)
        );
    }
    let ints_in = [x.dtype, y.dtype]
        .iter()
        .any(|t| matches!(t, DataType::Int32 | DataType::Int64));
    let t = if ints_in { DataType::Float64 } else { x.dtype };
    out.set(MetaBuilder::like(x).dtype(t).build())
}

/// `ComplexInferMeta(x, y)` (`real`, `imag`): the broadcast of the two, complex dtype.
#[infer_meta]
pub fn complex_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    let d = if x.dims == y.dims {
        x.dims.to_vec()
    } else {
        broadcast(&x.dims, &y.dims, -1)?
    };
    out.set(TensorMeta::new(x.dtype.to_complex(), &d))
}

// ---------------------------------------------------------------------------------------------
// Convolutions
// ---------------------------------------------------------------------------------------------

/// The attributes of a convolution (borrowed from the call).
struct ConvArgs<'a> {
    strides: &'a [i64],
    paddings: &'a [i64],
    algorithm: &'a str,
    dilations: &'a [i64],
    groups: i64,
    data_format: &'a str,
}

/// The convolution of `input` by `filter` (2-D or 3-D, any data format).
fn conv(input: &TensorMeta, filter: &TensorMeta, a: ConvArgs<'_>, out: Output<'_>) -> R {
    let (ind, fil) = (&input.dims, &filter.dims);
    for &d in a.dilations {
        ensure_meta!(
            d > 0,
            "dilations {} must be positive",
            fmt_dims(a.dilations)
        );
    }
    let cl = channel_last(a.data_format);
    let rank = ind.len();
    ensure_meta!(
        rank == 4 || rank == 5,
        "conv input must be 4-D or 5-D, got rank {rank} {}",
        fmt_dims(ind)
    );
    ensure_meta!(
        ind[0] != 0 && ind[1] != 0,
        "conv input {} must not have a 0 batch or channel dim",
        fmt_dims(ind)
    );
    ensure_meta!(
        fil.len() == rank,
        "conv input {} and filter {} must have the same rank",
        fmt_dims(ind),
        fmt_dims(fil)
    );
    for &s in a.strides {
        ensure_meta!(s > 0, "strides {} must be positive", fmt_dims(a.strides));
    }
    ensure_meta!(
        a.strides.len() + 2 == rank,
        "strides {} must have {} values for a {rank}-D input {}",
        fmt_dims(a.strides),
        rank - 2,
        fmt_dims(ind)
    );
    let in_c = if cl { ind[rank - 1] } else { ind[1] };
    let f_c = fil[1];
    let groups = a.groups;
    if in_c > 0 && f_c > 0 {
        ensure_meta!(
            in_c == mul(f_c, groups),
            "input channels {in_c} do not match filter's {f_c} × groups {groups} (input {}, \
             filter {}, data_format {}); check data_format",
            fmt_dims(ind),
            fmt_dims(fil),
            a.data_format
        );
    }
    if fil[0] > 0 {
        ensure_meta!(
            groups != 0 && fil[0] % groups == 0,
            "the filter's output channels {} must be divisible by groups {groups}",
            fil[0]
        );
    }
    let data: &[i64] = if cl { &ind[1..rank - 1] } else { &ind[2..] };
    let ksize = &fil[2..];
    let (pads, same_algo) = update_padding(a.paddings, data, a.strides, ksize, a.algorithm)?;
    // Paddle's conv API refuses negative paddings (`_update_padding_nd`).
    ensure_meta!(
        pads.iter().all(|&p| p >= 0),
        "Invalid padding, all value should be larger than or equal to 0, but received: {}",
        fmt_dims(a.paddings)
    );
    // The SAME algorithm uses dilations of 1.
    let dil = |i: usize| if same_algo { 1 } else { a.dilations[i] };
    ensure_meta!(
        same_algo || a.dilations.len() >= data.len(),
        "dilations {} must have one value per spatial dim of {}",
        fmt_dims(a.dilations),
        fmt_dims(ind)
    );
    // At most 5 dims (the rank is 4 or 5): filled on the stack.
    let mut d = [0i64; 5];
    let mut n = 0;
    let mut push = |v: i64| {
        d[n] = v;
        n += 1;
    };
    push(ind[0]);
    if !cl {
        push(fil[0]);
    }
    for i in 0..data.len() {
        if data[i] <= 0 || fil[i + 2] <= 0 {
            push(-1);
        } else {
            // ConvInferMeta keeps the dilated kernel extent in an `int`: past it, its result is
            // an overflow artefact, not a size.
            let dk = dil(i)
                .checked_mul(ksize[i] - 1)
                .and_then(|e| e.checked_add(1))
                .filter(|&e| i32::try_from(e).is_ok());
            let Some(dk) = dk else {
                return Err(err(format!(
                    "the dilated kernel extent dilation {} × (kernel {} - 1) + 1 overflows the \
                     32-bit int in which ConvInferMeta computes it",
                    dil(i),
                    ksize[i]
                )));
            };
            let num = sub(add(add(data[i], pads[2 * i]), pads[2 * i + 1]), dk);
            push(num.wrapping_div(a.strides[i]).wrapping_add(1));
        }
    }
    if cl {
        push(fil[0]);
    }
    out.set_new(input.dtype, &d[..n])
}

/// `ConvInferMeta(input, filter, strides, paddings, padding_algorithm, dilations, groups,
/// data_format)`: 2-D/3-D convolution output `[N, C_out, H', W']` (NCHW) or `[N, H', W', C_out]`
/// (NHWC); unknown spatial extents stay -1.
#[infer_meta]
pub fn conv_infer_meta(
    input: &TensorMeta,
    filter: &TensorMeta,
    strides: &[i64],
    paddings: &[i64],
    padding_algorithm: &str,
    dilations: &[i64],
    groups: i64,
    data_format: &str,
    out: Output<'_>,
) -> R {
    let a = ConvArgs {
        strides,
        paddings,
        algorithm: padding_algorithm,
        dilations,
        groups,
        data_format,
    };
    conv(input, filter, a, out)
}

/// `Conv3DInferMeta(input, filter, strides, paddings, padding_algorithm, groups, dilations,
/// data_format)`: `ConvInferMeta` with `groups` before `dilations`. Also
/// `DepthwiseConvInferMeta`.
#[infer_meta(name = "Conv3DInferMeta", also = ["DepthwiseConvInferMeta"])]
pub fn conv3d_infer_meta(
    input: &TensorMeta,
    filter: &TensorMeta,
    strides: &[i64],
    paddings: &[i64],
    padding_algorithm: &str,
    groups: i64,
    dilations: &[i64],
    data_format: &str,
    out: Output<'_>,
) -> R {
    let a = ConvArgs {
        strides,
        paddings,
        algorithm: padding_algorithm,
        dilations,
        groups,
        data_format,
    };
    conv(input, filter, a, out)
}

/// The transposed convolution of `x` by `filter`; `output_size` and `output_padding` may be
/// empty.
fn conv_transpose(
    x: &TensorMeta,
    filter: &TensorMeta,
    a: ConvArgs<'_>,
    output_padding: &[i64],
    output_size: &[i64],
    out: Output<'_>,
) -> R {
    let (xd, fil) = (&x.dims, &filter.dims);
    let (strides, data_format) = (a.strides, a.data_format);
    let nhwc = data_format == "NHWC";
    let rank = xd.len();
    ensure_meta!(
        rank == 4 || rank == 5,
        "conv_transpose input must be 4-D or 5-D, got rank {rank} {}",
        fmt_dims(xd)
    );
    ensure_meta!(
        fil.len() == rank,
        "conv_transpose input {} and filter {} must have the same rank",
        fmt_dims(xd),
        fmt_dims(fil)
    );
    for &s in strides {
        ensure_meta!(s > 0, "strides {} must be positive", fmt_dims(strides));
    }
    ensure_meta!(
        strides.len() + 2 == rank,
        "strides {} must have {} values for a {rank}-D input",
        fmt_dims(strides),
        rank - 2
    );
    if !output_size.is_empty() {
        ensure_meta!(
            output_size.len() == strides.len(),
            "output_size {} and strides {} must have the same length",
            fmt_dims(output_size),
            fmt_dims(strides)
        );
    }
    if !output_padding.is_empty() {
        ensure_meta!(
            output_padding.len() == strides.len(),
            "output_padding {} and strides {} must have the same length",
            fmt_dims(output_padding),
            fmt_dims(strides)
        );
    }
    let c = if nhwc { xd[rank - 1] } else { xd[1] };
    ensure_meta!(
        c == fil[0],
        "input channels {c} must equal the filter's first dim {} (input {}, filter {}, \
         data_format {data_format}); check data_format",
        fil[0],
        fmt_dims(xd),
        fmt_dims(fil)
    );
    let data = Ints::from_slice(if nhwc { &xd[1..rank - 1] } else { &xd[2..] });
    let ksize = Ints::from_slice(&fil[2..]);
    let (pads, same_algo) = update_padding(a.paddings, &data, strides, &ksize, a.algorithm)?;
    let dil = if same_algo {
        Ints::from_elem(1, data.len())
    } else {
        Ints::from_slice(a.dilations)
    };
    ensure_meta!(
        dil.len() >= data.len(),
        "dilations {} must have one value per spatial dim",
        fmt_dims(a.dilations)
    );
    let c_out = mul(fil[1], a.groups);
    let mut d = vec![xd[0]];
    if !nhwc {
        d.push(c_out);
    }
    for i in 0..strides.len() {
        let extent = add(mul(dil[i], fil[i + 2] - 1), 1);
        let infer = if data[i] > 0 {
            add(
                sub(
                    sub(mul(data[i] - 1, strides[i]), pads[2 * i]),
                    pads[2 * i + 1],
                ),
                extent,
            )
        } else {
            -1
        };
        if !output_size.is_empty() {
            d.push(output_size[i]);
        } else if !output_padding.is_empty() {
            d.push(add(infer, output_padding[i]));
        } else {
            d.push(infer);
        }
    }
    if nhwc {
        d.push(c_out);
    }
    out.set_new(x.dtype, &d)
}

/// `ConvTransposeInferMeta(x, filter, strides, paddings, output_padding, output_size,
/// padding_algorithm, groups, dilations, data_format)`: transposed convolution output.
#[infer_meta]
pub fn conv_transpose_infer_meta(
    x: &TensorMeta,
    filter: &TensorMeta,
    strides: &[i64],
    paddings: &[i64],
    output_padding: &[i64],
    output_size: &[i64],
    padding_algorithm: &str,
    groups: i64,
    dilations: &[i64],
    data_format: &str,
    out: Output<'_>,
) -> R {
    let a = ConvArgs {
        strides,
        paddings,
        algorithm: padding_algorithm,
        dilations,
        groups,
        data_format,
    };
    conv_transpose(x, filter, a, output_padding, output_size, out)
}

/// `Conv2dTransposeInferMeta(x, filter, strides, paddings, output_padding, output_size,
/// padding_algorithm, groups, dilations, data_format)`: like `ConvTransposeInferMeta` with an
/// `IntArray` output size (unknown sizes give -1).
#[infer_meta]
pub fn conv2d_transpose_infer_meta(
    x: &TensorMeta,
    filter: &TensorMeta,
    strides: &[i64],
    paddings: &[i64],
    output_padding: &[i64],
    output_size: IntArray<'_>,
    padding_algorithm: &str,
    groups: i64,
    dilations: &[i64],
    data_format: &str,
    out: Output<'_>,
) -> R {
    conv_transpose_infer_meta(
        x,
        filter,
        strides,
        paddings,
        output_padding,
        output_size.values(),
        padding_algorithm,
        groups,
        dilations,
        data_format,
        out,
    )
}

// ---------------------------------------------------------------------------------------------
// Matrix products
// ---------------------------------------------------------------------------------------------

/// `MatmulInferMeta(x, y, trans_x, trans_y)`: batched matrix product; 1-D operands are
/// promoted and their unit dim dropped; batch dims take the larger extent. Like Paddle, the
/// inner dims are not compared here (the kernel checks them).
#[infer_meta]
pub fn matmul_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    trans_x: bool,
    trans_y: bool,
    out: Output<'_>,
) -> R {
    ensure_meta!(x.rank() > 0, "matmul x must not be 0-D");
    ensure_meta!(y.rank() > 0, "matmul y must not be 0-D");
    let mut dx = x.dims.to_vec();
    let mut dy = y.dims.to_vec();
    let xb = dx.len() == 1;
    let yb = dy.len() == 1;
    if xb {
        dx.insert(0, 1);
    }
    if yb {
        dy.push(1);
    }
    let (nx, ny) = (dx.len(), dy.len());
    let m = if trans_x { dx[nx - 1] } else { dx[nx - 2] };
    let n = if trans_y { dy[ny - 2] } else { dy[ny - 1] };
    let mut d: Vec<i64> = if nx > ny {
        dx[..nx - 2].to_vec()
    } else if nx < ny {
        dy[..ny - 2].to_vec()
    } else {
        (0..nx - 2).map(|i| dx[i].max(dy[i])).collect()
    };
    if !xb {
        d.push(m);
    }
    if !yb {
        d.push(n);
    }
    let t = match x.dtype {
        DataType::Int8 => DataType::Int32,
        DataType::Float8E4M3FN | DataType::Float8E5M2 => DataType::Float16,
        other => other,
    };
    out.set(MetaBuilder::like(x).dims(&d).dtype(t).build())
}

/// `MatmulWithFlattenInferMeta(x, y, x_num_col_dims, y_num_col_dims)`: both operands are
/// flattened to matrices at their `num_col_dims`; the product keeps x's leading and y's
/// trailing dims.
#[infer_meta]
pub fn matmul_with_flatten_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    x_num_col_dims: i64,
    y_num_col_dims: i64,
    out: Output<'_>,
) -> R {
    let (xn, yn) = (x_num_col_dims, y_num_col_dims);
    ensure_meta!(
        product(&y.dims) != 0,
        "y {} has no elements (is the parameter initialised?)",
        fmt_dims(&y.dims)
    );
    ensure_meta!(
        xn >= 0 && (x.rank() as i64) > xn,
        "x {} must have more than x_num_col_dims = {xn} dims",
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        yn >= 0 && (y.rank() as i64) > yn,
        "y {} must have more than y_num_col_dims = {yn} dims",
        fmt_dims(&y.dims)
    );
    let (xn, yn) = (xn as usize, yn as usize);
    let xw = product(&x.dims[xn..]);
    let yh = product(&y.dims[..yn]);
    ensure_meta!(
        xw == yh,
        "x {} flattened at {xn} has width {xw}, but y {} flattened at {yn} has height {yh}",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    let mut d = x.dims[..xn].to_vec();
    d.extend_from_slice(&y.dims[yn..]);
    let t = if x.dtype == DataType::Int8 {
        DataType::Int32
    } else {
        x.dtype
    };
    out.set(MetaBuilder::new().dims(&d).dtype(t).lod(x).build())
}

/// `BmmInferMeta(x, y)`: `[B, M, K] × [B, K, N] → [B, M, N]` (unknown extents are lenient).
#[infer_meta]
pub fn bmm_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    need_rank(x, 3, "bmm x")?;
    need_rank(y, 3, "bmm y")?;
    let pick = |a: i64, b: i64, what: &str| -> Res<i64> {
        if a == -1 {
            Ok(b)
        } else if b == -1 || a == b {
            Ok(a)
        } else {
            Err(err(format!(
                "{what}: {a} vs {b} (x {}, y {})",
                fmt_dims(&x.dims),
                fmt_dims(&y.dims)
            )))
        }
    };
    pick(
        x.dims[2],
        y.dims[1],
        "the width of x must equal the height of y",
    )?;
    let b = pick(
        x.dims[0],
        y.dims[0],
        "x and y must have the same batch size",
    )?;
    out.set(share_meta_with_dims(x, &[b, x.dims[1], y.dims[2]]))
}

/// `MvInferMeta(x, vec)`: `[M, N] × [N] → [M]`.
#[infer_meta]
pub fn mv_infer_meta(x: &TensorMeta, vec: &TensorMeta, out: Output<'_>) -> R {
    need_rank(x, 2, "x")?;
    need_rank(vec, 1, "vec")?;
    ensure_meta!(
        x.dims[1] == vec.dims[0],
        "dim 1 of x {} must equal the length of vec {}",
        fmt_dims(&x.dims),
        fmt_dims(&vec.dims)
    );
    out.set(share_meta_with_dims(x, &[x.dims[0]]))
}

/// `DotInferMeta(x, y)`: the dot product over the last dim of equal-shaped 1-D or 2-D inputs.
#[infer_meta]
pub fn dot_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        x.rank() == 1 || x.rank() == 2,
        "dot inputs must be 1-D or 2-D, got x {}",
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        x.dims == y.dims,
        "dot inputs must have the same shape, got x {} and y {}",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    out.set(with_dtype_layout_of(x, &x.dims[..x.rank() - 1]))
}

/// `KronInferMeta(x, y)`: the Kronecker product (right-aligned extents multiplied).
#[infer_meta]
pub fn kron_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    let (rx, ry) = (x.rank(), y.rank());
    let r = rx.max(ry);
    let d: Vec<i64> = (0..r)
        .map(|i| {
            let a = if i < r - rx { 1 } else { x.dims[i - (r - rx)] };
            let b = if i < r - ry { 1 } else { y.dims[i - (r - ry)] };
            if a == -1 || b == -1 {
                -1
            } else {
                mul(a, b)
            }
        })
        .collect();
    out.set_new(x.dtype, &d)
}

fn matrix_batch_checks(x: &TensorMeta, y: &TensorMeta) -> R {
    need_rank_ge(x, 2, "x")?;
    need_rank_ge(y, 2, "y")?;
    Ok(())
}

/// `CholeskySolveInferMeta(x, y, upper)`: `x` broadcast over the batch dims of square `y`.
#[infer_meta]
pub fn cholesky_solve_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    _upper: bool,
    out: Output<'_>,
) -> R {
    matrix_batch_checks(x, y)?;
    let (xr, yr) = (x.rank(), y.rank());
    ensure_meta!(
        y.dims[yr - 1] == y.dims[yr - 2],
        "y {} must hold square matrices",
        fmt_dims(&y.dims)
    );
    ensure_meta!(
        x.dims[xr - 2] == y.dims[yr - 2],
        "dim -2 of x {} must equal dim -2 of y {}",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    let mut d = batch_broadcast(&x.dims[..xr - 2], &y.dims[..yr - 2])?;
    d.extend_from_slice(&x.dims[xr - 2..]);
    out.set(share_meta_with_dims(x, &d))
}

/// `TriangularSolveInferMeta(x, y, upper, transpose, unitriangular)`: `y` broadcast over the
/// batch dims of square `x`.
#[infer_meta]
pub fn triangular_solve_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    _upper: bool,
    _transpose: bool,
    _unitriangular: bool,
    out: Output<'_>,
) -> R {
    matrix_batch_checks(x, y)?;
    let (xr, yr) = (x.rank(), y.rank());
    ensure_meta!(
        x.dims[xr - 2] == x.dims[xr - 1],
        "x {} must hold square matrices",
        fmt_dims(&x.dims)
    );
    let mut d = batch_broadcast(&x.dims[..xr - 2], &y.dims[..yr - 2])?;
    d.extend_from_slice(&y.dims[yr - 2..]);
    out.set(share_meta_with_dims(y, &d))
}

/// `SolveInferMeta(x, y)`: the solution of square `x` against `y` (a vector or matrices).
#[infer_meta]
pub fn solve_infer_meta(x: &TensorMeta, y: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        x.rank() > 1,
        "x {} must have at least 2 dims",
        fmt_dims(&x.dims)
    );
    need_rank_ge(y, 1, "y")?;
    let xr = x.rank();
    ensure_meta!(
        x.dims[xr - 2] == x.dims[xr - 1],
        "x {} must hold square matrices",
        fmt_dims(&x.dims)
    );
    let mut dy = y.dims.to_vec();
    let yb = dy.len() == 1;
    if yb {
        dy.push(1);
    }
    let m = x.dims[xr - 2];
    let n = dy[dy.len() - 1];
    let mut d: Vec<i64> = if xr >= dy.len() {
        x.dims[..xr - 2].to_vec()
    } else {
        dy[..dy.len() - 2].to_vec()
    };
    d.push(m);
    if !yb {
        d.push(n);
    }
    out.set(share_meta_with_dims(x, &d))
}

/// `LstsqInferMeta(x, y, rcond, driver)`: least-squares `solution`, `residuals`, `rank` and
/// `singular_values`.
#[infer_meta]
pub fn lstsq_infer_meta(
    x: &TensorMeta,
    y: &TensorMeta,
    _rcond: Option<Scalar>,
    _driver: &str,
    solution: Output<'_>,
    residuals: Output<'_>,
    rank: Output<'_>,
    singular_values: Output<'_>,
) -> R {
    matrix_batch_checks(x, y)?;
    let r = x.rank();
    ensure_meta!(
        r == y.rank(),
        "x {} and y {} must have the same rank",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    let (m, n, nrhs) = (x.dims[r - 2], x.dims[r - 1], y.dims[r - 1]);
    let mut batch = Vec::new();
    for i in 0..r - 2 {
        ensure_meta!(
            x.dims[i] == y.dims[i],
            "x {} and y {} must have the same batch dims",
            fmt_dims(&x.dims),
            fmt_dims(&y.dims)
        );
        batch.push(x.dims[i]);
    }
    ensure_meta!(
        m == y.dims[r - 2],
        "x {} and y {} must have the same number of rows",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    let with_batch = |tail: &[i64]| [&batch[..], tail].concat();
    let residual_dims = if m > n { with_batch(&[nrhs]) } else { vec![0] };
    solution.set_new(y.dtype, &with_batch(&[n, nrhs]))?;
    residuals.set_if_present(with_dtype_of(y, &residual_dims));
    rank.set_if_present(MetaBuilder::new().dims(&batch).build());
    singular_values.set_if_present(with_dtype_of(y, &with_batch(&[m.min(n)])));
    Ok(())
}

/// `MatrixRankTolInferMeta(x, atol_tensor, use_default_tol, hermitian)`: the batch dims of `x`
/// broadcast with the tolerance's dims (dtype unset: float32).
#[infer_meta]
pub fn matrix_rank_tol_infer_meta(
    x: &TensorMeta,
    atol_tensor: &TensorMeta,
    _use_default_tol: bool,
    hermitian: bool,
    out: Output<'_>,
) -> R {
    need_rank_ge(x, 2, "x")?;
    let r = x.rank();
    if hermitian {
        ensure_meta!(
            x.dims[r - 2] == x.dims[r - 1],
            "with hermitian = true, x {} must hold square matrices",
            fmt_dims(&x.dims)
        );
    }
    let batch = &x.dims[..r - 2];
    let d = if batch == &atol_tensor.dims[..] {
        batch.to_vec()
    } else {
        broadcast_abs_axis(batch, &atol_tensor.dims, 0)?
    };
    out.set(MetaBuilder::new().dims(&d).lod(x).build())
}

// ---------------------------------------------------------------------------------------------
// Indexing
// ---------------------------------------------------------------------------------------------

/// `GatherInferMeta(x, index, axis)`: gathers `index` (0-D, 1-D or `[N, 1]`) along `axis`; a 0-D
/// index removes the axis.
#[infer_meta]
pub fn gather_infer_meta(
    x: &TensorMeta,
    index: &TensorMeta,
    axis: Option<Scalar>,
    out: Output<'_>,
) -> R {
    let axis = axis.map(Scalar::to_i64);
    let id = &index.dims;
    if id.len() == 2 {
        ensure_meta!(
            id[1] == 1,
            "a 2-D gather index must have shape [N, 1], got {}",
            fmt_dims(id)
        );
    } else {
        ensure_meta!(
            id.len() <= 1,
            "the gather index must be 0-D, 1-D or [N, 1], got rank {} {}",
            id.len(),
            fmt_dims(id)
        );
    }
    let xd = &x.dims;
    let from_tensor = axis.is_none();
    let a = axis_in(axis.unwrap_or(-1), xd.len(), "gather axis")?;
    let d: Vec<i64> = if id.is_empty() {
        if xd.len() == 1 {
            vec![]
        } else if from_tensor || a == 0 {
            xd[1..].to_vec()
        } else {
            remove_axis(xd, a)
        }
    } else if from_tensor || a == 0 {
        let mut d = xd.to_vec();
        d[0] = id[0];
        d
    } else {
        let mut d = xd.to_vec();
        d[a] = id[0];
        d
    };
    out.set(with_dtype_lod_of(x, &d))
}

/// `GatherNdInferMeta(x, index)`: `index.shape[:-1] + x.shape[index.shape[-1]:]`.
#[infer_meta]
pub fn gather_nd_infer_meta(x: &TensorMeta, index: &TensorMeta, out: Output<'_>) -> R {
    need_rank_ge(index, 1, "index")?;
    let ir = index.rank();
    let last = index.dims[ir - 1];
    ensure_meta!(
        last >= 0,
        "the last dim of index {} must be known (it counts the indexed dims)",
        fmt_dims(&index.dims)
    );
    ensure_meta!(
        last as usize <= x.rank(),
        "the last dim of index {} must not exceed the rank of x {}",
        fmt_dims(&index.dims),
        fmt_dims(&x.dims)
    );
    let mut d = index.dims[..ir - 1].to_vec();
    d.extend_from_slice(&x.dims[last as usize..]);
    out.set(with_dtype_lod_of(x, &d))
}

/// `IndexSelectInferMeta(x, index, dim)`: `dim` resized to the length of the 1-D index.
#[infer_meta]
pub fn index_select_infer_meta(x: &TensorMeta, index: &TensorMeta, dim: i64, out: Output<'_>) -> R {
    let a = axis_in(dim, x.rank(), "axis")?;
    let id = &index.dims;
    ensure_meta!(
        id.len() == 1 || (id.len() == 2 && id[1] == 1),
        "index must be 1-D (or [N, 1]), got {}",
        fmt_dims(id)
    );
    if x.dims[a] != 0 {
        ensure_meta!(id[0] != 0, "index must not be empty");
    }
    let mut d = x.dims.to_vec();
    d[a] = id[0];
    out.set(share_meta_with_dims(x, &d))
}

/// `IndexSelectStridedInferMeta(x, index, dim)`: `x` without `dim`.
#[infer_meta]
pub fn index_select_strided_infer_meta(
    x: &TensorMeta,
    _index: i64,
    dim: i64,
    out: Output<'_>,
) -> R {
    let a = axis_in(dim, x.rank(), "axis")?;
    out.set(share_meta_with_dims(x, &remove_axis(&x.dims, a)))
}

/// `IndexSampleInferMeta(x, index)`: `index`'s dims (both 2-D), `x`'s dtype.
#[infer_meta]
pub fn index_sample_infer_meta(x: &TensorMeta, index: &TensorMeta, out: Output<'_>) -> R {
    need_rank(x, 2, "x")?;
    need_rank(index, 2, "index")?;
    out.set(
        MetaBuilder::new()
            .dtype(x.dtype)
            .dims(&index.dims)
            .lod(index)
            .build(),
    )
}

/// `TakeAlongAxisInferMeta(arr, indices, axis)`: `indices`' dims, `arr`'s dtype.
#[infer_meta]
pub fn take_along_axis_infer_meta(
    arr: &TensorMeta,
    indices: &TensorMeta,
    _axis: i64,
    out: Output<'_>,
) -> R {
    need_rank_ge(arr, 1, "arr")?;
    need_rank_ge(indices, 1, "indices")?;
    out.set_new(arr.dtype, &indices.dims)
}

/// `MaskedSelectInferMeta(x, mask)`: a 1-D `[-1]` of `x`'s dtype.
#[infer_meta]
pub fn masked_select_infer_meta(x: &TensorMeta, _mask: &TensorMeta, out: Output<'_>) -> R {
    out.set_new(x.dtype, &[-1])
}

/// `RepeatInterleaveWithTensorIndexInferMeta(x, repeats, dim)`: `dim` becomes unknown.
#[infer_meta]
pub fn repeat_interleave_with_tensor_index_infer_meta(
    x: &TensorMeta,
    repeats: &TensorMeta,
    dim: i64,
    out: Output<'_>,
) -> R {
    let a = axis_in(dim, x.rank(), "axis")?;
    let rd = &repeats.dims;
    ensure_meta!(
        rd.len() == 1 || (rd.len() == 2 && rd[1] == 1),
        "repeats must be 1-D, got {}",
        fmt_dims(rd)
    );
    let mut d = x.dims.to_vec();
    if x.rank() == 1 && x.dims[0] == 0 {
        d[0] = 0;
    } else {
        ensure_meta!(rd[0] != 0, "repeats must not be empty");
        d[a] = -1;
    }
    out.set(with_dtype_lod_of(x, &d))
}

/// `SearchsortedInferMeta(sorted_sequence, values, out_int32, right)`: `values`' dims, int32 or
/// int64.
#[infer_meta]
pub fn searchsorted_infer_meta(
    sorted_sequence: &TensorMeta,
    values: &TensorMeta,
    out_int32: bool,
    _right: bool,
    out: Output<'_>,
) -> R {
    let (s, v) = (sorted_sequence, values);
    need_rank_ge(s, 1, "sorted_sequence")?;
    if s.rank() != 1 {
        let ok = s.rank() == v.rank() && s.dims[..s.rank() - 1] == v.dims[..v.rank() - 1];
        ensure_meta!(
            ok,
            "sorted_sequence {} must be 1-D or share all but its last dim with values {}",
            fmt_dims(&s.dims),
            fmt_dims(&v.dims)
        );
    }
    let t = if out_int32 {
        DataType::Int32
    } else {
        DataType::Int64
    };
    out.set(TensorMeta::new(t, &v.dims))
}

/// `x.dims + [weight.dims[1]]` in the table's dtype with `x`'s LoD (the table is 2-D).
fn embedding_meta(x: &TensorMeta, weight: &TensorMeta) -> TensorMeta {
    let mut d = x.dims.to_vec();
    d.push(weight.dims[1]);
    MetaBuilder::new()
        .dims(&d)
        .dtype(weight.dtype)
        .lod(x)
        .build()
}

/// `EmbeddingInferMeta(x, weight, padding_idx)`: `x.dims + [weight.dims[1]]` of the 2-D
/// table's dtype.
#[infer_meta]
pub fn embedding_infer_meta(
    x: &TensorMeta,
    weight: &TensorMeta,
    _padding_idx: i64,
    out: Output<'_>,
) -> R {
    need_rank(weight, 2, "the lookup table (weight)")?;
    out.set(embedding_meta(x, weight))
}

/// `CEmbeddingInferMeta(weight, x, start_index)`: like `EmbeddingInferMeta` with the table
/// first; the table must have known extents and `start_index ≥ 0`.
#[infer_meta]
pub fn c_embedding_infer_meta(
    weight: &TensorMeta,
    x: &TensorMeta,
    start_index: i64,
    out: Output<'_>,
) -> R {
    need_rank(weight, 2, "the embedding table (weight)")?;
    ensure_meta!(
        weight.dims[0] > 0 && weight.dims[1] > 0 && start_index >= 0,
        "the table {} must have known extents and start_index {start_index} must be ≥ 0",
        fmt_dims(&weight.dims)
    );
    out.set(embedding_meta(x, weight))
}

/// `LookupTableDequantInferMeta(w, ids, padding_idx)`: `ids[:-1] + [(w.dims[1] − 2)·4]`.
#[infer_meta]
pub fn lookup_table_dequant_infer_meta(
    w: &TensorMeta,
    ids: &TensorMeta,
    _padding_idx: i64,
    out: Output<'_>,
) -> R {
    need_rank(w, 2, "w")?;
    need_rank_ge(ids, 1, "ids")?;
    let ir = ids.rank();
    ensure_meta!(
        ids.dims[ir - 1] == 1,
        "the last dim of ids {} must be 1",
        fmt_dims(&ids.dims)
    );
    ensure_meta!(
        w.dims[1] >= 2,
        "dim 1 of w {} must be ≥ 2",
        fmt_dims(&w.dims)
    );
    let mut d = ids.dims[..ir - 1].to_vec();
    d.push(mul(w.dims[1] - 2, 4));
    out.set(MetaBuilder::new().dims(&d).lod(ids).dtype(w.dtype).build())
}

// ---------------------------------------------------------------------------------------------
// Losses
// ---------------------------------------------------------------------------------------------

/// The outputs of a softmax with cross entropy over axis `a`: `softmax` like `logits` (dims,
/// dtype, LoD), `loss` with `a` reduced to 1 (when the op has it).
fn softmax_and_loss(logits: &TensorMeta, a: usize, softmax: Output<'_>, loss: Output<'_>) -> R {
    softmax.set(dims_dtype_lod_of(logits))?;
    let mut d = logits.dims.to_vec();
    d[a] = 1;
    loss.set_if_present(with_dtype_lod_of(logits, &d));
    Ok(())
}

/// `CrossEntropyWithSoftmaxInferMeta(logits, label, soft_label, use_softmax,
/// numeric_stable_mode, ignore_index, axis)`: `softmax` like `logits`, `loss` with `axis`
/// reduced to 1.
#[infer_meta]
pub fn cross_entropy_with_softmax_infer_meta(
    logits: &TensorMeta,
    label: &TensorMeta,
    soft_label: bool,
    _use_softmax: bool,
    numeric_stable_mode: bool,
    _ignore_index: i64,
    axis: i64,
    softmax: Output<'_>,
    loss: Output<'_>,
) -> R {
    let a = check_softmax_ce(logits, label, soft_label, axis)?;
    if a != logits.rank() - 1 {
        ensure_meta!(
            numeric_stable_mode,
            "axis must be the last dim unless numeric_stable_mode is on, got {axis}"
        );
    }
    softmax_and_loss(logits, a, softmax, loss)
}

pub(crate) fn check_softmax_ce(
    logits: &TensorMeta,
    label: &TensorMeta,
    soft: bool,
    axis: i64,
) -> Res<usize> {
    let r = logits.rank();
    let a = axis_in(axis, r, "axis")?;
    ensure_meta!(
        label.rank() == r,
        "label {} must have the rank of logits {}",
        fmt_dims(&label.dims),
        fmt_dims(&logits.dims)
    );
    for i in 0..r {
        if i != a {
            let (p, q) = (logits.dims[i], label.dims[i]);
            ensure_meta!(
                !(p > 0 && q > 0 && p != q),
                "logits {} and label {} must agree on every dim except axis {a}",
                fmt_dims(&logits.dims),
                fmt_dims(&label.dims)
            );
        }
    }
    if soft {
        let (p, q) = (logits.dims[a], label.dims[a]);
        ensure_meta!(
            !(p > 0 && q > 0 && p != q),
            "with soft_label, logits {} and label {} must agree on axis {a}",
            fmt_dims(&logits.dims),
            fmt_dims(&label.dims)
        );
    } else if label.dims[a] > 0 {
        ensure_meta!(
            label.dims[a] == 1,
            "with hard labels, label {} must have extent 1 on axis {a}",
            fmt_dims(&label.dims)
        );
    }
    Ok(a)
}

/// `DropoutInferMeta(x, seed_tensor, p, is_test, mode, seed, fix_seed)`: `out` like `x`, a uint8
/// `mask` of `x`'s dims.
#[infer_meta]
pub fn dropout_infer_meta(
    x: &TensorMeta,
    _seed_tensor: Option<&TensorMeta>,
    _p: Option<Scalar>,
    _is_test: bool,
    _mode: &str,
    _seed: i64,
    _fix_seed: bool,
    out: Output<'_>,
    mask: Output<'_>,
) -> R {
    out.set(dims_dtype_lod_of(x))?;
    mask.set_if_present(TensorMeta::new(DataType::UInt8, &x.dims));
    Ok(())
}

/// `BCELossInferMeta(input, label)`: like `input`; the shapes must match when known.
#[infer_meta(name = "BCELossInferMeta")]
pub fn bce_loss_infer_meta(input: &TensorMeta, label: &TensorMeta, out: Output<'_>) -> R {
    need_same_shape_when_known(input, label, "input", "label")?;
    out.set(dims_dtype_lod_of(input))
}

/// `HuberLossInferMeta(input, label, delta)`: `out` and `residual` with `label`'s dims.
#[infer_meta]
pub fn huber_loss_infer_meta(
    input: &TensorMeta,
    label: &TensorMeta,
    _delta: f64,
    out: Output<'_>,
    residual: Output<'_>,
) -> R {
    need_same_shape_when_known(input, label, "input", "label")?;
    out.set(with_dtype_lod_of(input, &label.dims))?;
    residual.set_if_present(with_dtype_of(input, &label.dims));
    Ok(())
}

/// `HingeLossInferMeta(logits, labels)`: `[N, 1]` from equal `[N, 1]` inputs.
#[infer_meta]
pub fn hinge_loss_infer_meta(logits: &TensorMeta, labels: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        logits.dims == labels.dims,
        "logits {} and labels {} must have the same shape",
        fmt_dims(&logits.dims),
        fmt_dims(&labels.dims)
    );
    need_rank(logits, 2, "logits")?;
    ensure_meta!(
        logits.dims[1] == 1,
        "logits {} must be [N, 1]",
        fmt_dims(&logits.dims)
    );
    out.set(with_dtype_lod_of(logits, &[logits.dims[0], 1]))
}

/// `LogLossInferMeta(input, label, epsilon)`: `[N, 1]` from equal 2-D inputs.
#[infer_meta]
pub fn log_loss_infer_meta(
    input: &TensorMeta,
    label: &TensorMeta,
    _epsilon: f64,
    out: Output<'_>,
) -> R {
    if product(&input.dims) > 0 && product(&label.dims) > 0 {
        ensure_meta!(
            input.dims == label.dims,
            "predicted {} and labels {} must have the same shape",
            fmt_dims(&input.dims),
            fmt_dims(&label.dims)
        );
    }
    need_rank(input, 2, "predicted")?;
    out.set(with_dtype_lod_of(input, &[input.dims[0], 1]))
}

/// `KLDivInferMeta(x, label, reduction, log_target)`: `x`'s dims for `none`, else 0-D.
#[infer_meta(name = "KLDivInferMeta")]
pub fn kl_div_infer_meta(
    x: &TensorMeta,
    label: &TensorMeta,
    reduction: &str,
    _log_target: bool,
    out: Output<'_>,
) -> R {
    ensure_meta!(
        x.rank() == label.rank(),
        "x {} and label {} must have the same rank",
        fmt_dims(&x.dims),
        fmt_dims(&label.dims)
    );
    for (i, (&a, &b)) in x.dims.iter().zip(&label.dims).enumerate() {
        ensure_meta!(
            !(a > 0 && b > 0 && a != b),
            "x {} and label {} differ at dim {i}",
            fmt_dims(&x.dims),
            fmt_dims(&label.dims)
        );
    }
    ensure_meta!(
        matches!(reduction, "mean" | "sum" | "batchmean" | "none"),
        "reduction must be 'none', 'batchmean', 'sum' or 'mean', got '{reduction}'"
    );
    let d: &[i64] = if reduction == "none" { &x.dims } else { &[] };
    out.set_new(x.dtype, d)
}

/// `MarginCrossEntropyInferMeta(logits, label, return_softmax, ring_id, rank, nranks, margin1,
/// margin2, margin3, scale)`: `softmax` like `logits`, `loss` with the last dim reduced to 1.
#[infer_meta]
pub fn margin_cross_entropy_infer_meta(
    logits: &TensorMeta,
    label: &TensorMeta,
    _return_softmax: bool,
    _ring_id: i64,
    _rank: i64,
    _nranks: i64,
    _margin1: f64,
    _margin2: f64,
    _margin3: f64,
    _scale: f64,
    softmax: Output<'_>,
    loss: Output<'_>,
) -> R {
    need_rank_ge(logits, 1, "logits")?;
    let r = logits.rank();
    let a = r - 1;
    for i in 0..r {
        if i != a {
            let (p, q) = (logits.dims[i], label.dims.get(i).copied().unwrap_or(-1));
            ensure_meta!(
                !(p > 0 && q > 0 && p != q),
                "logits {} and label {} must agree except on the last dim",
                fmt_dims(&logits.dims),
                fmt_dims(&label.dims)
            );
        }
    }
    if label.rank() > 1 {
        ensure_meta!(
            label.dims.get(a) == Some(&1),
            "the last dim of label {} must be 1",
            fmt_dims(&label.dims)
        );
    }
    softmax_and_loss(logits, a, softmax, loss)
}

// ---------------------------------------------------------------------------------------------
// Misc
// ---------------------------------------------------------------------------------------------

/// `BincountInferMeta(x, weights, minlength)`: `[-1]`, of `weights`' dtype or int64.
#[infer_meta]
pub fn bincount_infer_meta(
    x: &TensorMeta,
    weights: Option<&TensorMeta>,
    _minlength: Option<Scalar>,
    out: Output<'_>,
) -> R {
    need_rank(x, 1, "x")?;
    if let Some(w) = weights {
        need_rank(w, 1, "weights")?;
        ensure_meta!(
            w.dims[0] == x.dims[0],
            "weights {} must have the length of x {}",
            fmt_dims(&w.dims),
            fmt_dims(&x.dims)
        );
    }
    let t = weights.map_or(DataType::Int64, |w| w.dtype);
    out.set(MetaBuilder::new().dims(&[-1]).dtype(t).lod(x).build())
}

/// `BinomialInferMeta(count, prob)`: int64 with `count`'s dims (shapes equal when known).
#[infer_meta]
pub fn binomial_infer_meta(count: &TensorMeta, prob: &TensorMeta, out: Output<'_>) -> R {
    if product(&count.dims) > 0 && product(&prob.dims) > 0 {
        ensure_meta!(
            count.dims == prob.dims,
            "count {} and prob {} must have the same shape",
            fmt_dims(&count.dims),
            fmt_dims(&prob.dims)
        );
    }
    out.set(TensorMeta::new(DataType::Int64, &count.dims))
}

/// `BoxClipInferMeta(input, im_info)`: like `input`.
#[infer_meta]
pub fn box_clip_infer_meta(input: &TensorMeta, _im_info: &TensorMeta, out: Output<'_>) -> R {
    out.set(dims_dtype_lod_of(input))
}

/// `CrossInferMeta(x, y, axis)`: like `x`; equal shapes whose `axis` (9 = first of size 3) has
/// extent 3.
#[infer_meta]
pub fn cross_infer_meta(x: &TensorMeta, y: &TensorMeta, axis: i64, out: Output<'_>) -> R {
    ensure_meta!(
        x.dims == y.dims,
        "x {} and y {} must have the same shape",
        fmt_dims(&x.dims),
        fmt_dims(&y.dims)
    );
    if axis != 9 {
        let a = axis_in(axis, x.rank(), "axis")?;
        ensure_meta!(
            x.dims[a] == 3 && y.dims[a] == 3,
            "dim {a} of x {} and y {} must be 3",
            fmt_dims(&x.dims),
            fmt_dims(&y.dims)
        );
    }
    out.set(share_meta(x))
}

/// `CvmInferMeta(x, cvm, use_cvm)`: `[N, D]`, or `[N, D − 2]` without cvm.
#[infer_meta]
pub fn cvm_infer_meta(x: &TensorMeta, _cvm: &TensorMeta, use_cvm: bool, out: Output<'_>) -> R {
    need_rank(x, 2, "x")?;
    let w = if use_cvm {
        x.dims[1]
    } else {
        sub(x.dims[1], 2)
    };
    out.set(with_dtype_lod_of(x, &[x.dims[0], w]))
}

/// `DequantizeAbsMaxInferMeta(x, scale, max_range)`: like `x`. Also
/// `FakeDequantizeMaxAbsInferMeta`.
#[infer_meta(also = ["FakeDequantizeMaxAbsInferMeta"])]
pub fn dequantize_abs_max_infer_meta(
    x: &TensorMeta,
    _scale: &TensorMeta,
    _max_range: f64,
    out: Output<'_>,
) -> R {
    out.set(dims_dtype_lod_of(x))
}

/// `DequantizeLogInferMeta(x, dict)`: like `x`.
#[infer_meta]
pub fn dequantize_log_infer_meta(x: &TensorMeta, _dict: &TensorMeta, out: Output<'_>) -> R {
    out.set(dims_dtype_lod_of(x))
}

/// `DistInferMeta(x, y, p)`: a 0-D distance; neither input may be empty.
#[infer_meta]
pub fn dist_infer_meta(x: &TensorMeta, y: &TensorMeta, _p: f64, out: Output<'_>) -> R {
    ensure_meta!(product(&x.dims) != 0, "x {} is empty", fmt_dims(&x.dims));
    ensure_meta!(product(&y.dims) != 0, "y {} is empty", fmt_dims(&y.dims));
    out.set_new(x.dtype, &[])
}

/// `ExpandAsInferMeta(x, y, target_shape)`: `target_shape` (rank ≥ rank(x), ≤ 8) of `x`'s dtype.
#[infer_meta]
pub fn expand_as_infer_meta(
    x: &TensorMeta,
    _y: Option<&TensorMeta>,
    target_shape: &[i64],
    out: Output<'_>,
) -> R {
    let t = target_shape;
    ensure_meta!(
        t.len() >= x.rank(),
        "target_shape {} must have at least as many dims as x {}",
        fmt_dims(t),
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        t.len() <= 8,
        "target_shape {} has more than 8 dims",
        fmt_dims(t)
    );
    out.set_new(x.dtype, t)
}

/// `FillDiagonalTensorInferMeta(x, y, offset, dim1, dim2)`: like `x`.
#[infer_meta]
pub fn fill_diagonal_tensor_infer_meta(
    x: &TensorMeta,
    _y: &TensorMeta,
    _offset: i64,
    _dim1: i64,
    _dim2: i64,
    out: Output<'_>,
) -> R {
    out.set(dims_dtype_of(x))
}

/// `GatherTreeMeta(ids, parents)`: like `ids`, which must match `parents`.
#[infer_meta]
pub fn gather_tree_meta(ids: &TensorMeta, parents: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        ids.dims == parents.dims,
        "parents {} must have the shape of ids {}",
        fmt_dims(&parents.dims),
        fmt_dims(&ids.dims)
    );
    out.set(dims_dtype_of(ids))
}

/// `GridSampleBaseInferMeta(x, grid)`: `[N, C] + grid.dims[1..-1]`.
#[infer_meta]
pub fn grid_sample_base_infer_meta(x: &TensorMeta, grid: &TensorMeta, out: Output<'_>) -> R {
    ensure_meta!(
        (4..=5).contains(&x.rank()),
        "x must be 4-D or 5-D, got {}",
        fmt_dims(&x.dims)
    );
    ensure_meta!(
        (4..=5).contains(&grid.rank()),
        "grid must be 4-D or 5-D, got {}",
        fmt_dims(&grid.dims)
    );
    let gd = &grid.dims;
    let d: Vec<i64> = if gd.len() == 4 {
        ensure_meta!(
            gd[3] <= 0 || gd[3] == 2,
            "the last dim of a 4-D grid {} must be 2",
            fmt_dims(gd)
        );
        vec![x.dims[0], x.dims[1], gd[1], gd[2]]
    } else {
        ensure_meta!(
            gd[4] <= 0 || gd[4] == 3,
            "the last dim of a 5-D grid {} must be 3",
            fmt_dims(gd)
        );
        vec![x.dims[0], x.dims[1], gd[1], gd[2], gd[3]]
    };
    out.set(with_dtype_lod_of(x, &d))
}

/// `HistogramInferMeta(input, weight, bins, min, max, density)`: `[bins]`, float32 with
/// density or weights, else int64.
#[infer_meta]
pub fn histogram_infer_meta(
    input: &TensorMeta,
    weight: Option<&TensorMeta>,
    bins: i64,
    min: f64,
    max: f64,
    density: bool,
    out: Output<'_>,
) -> R {
    ensure_meta!(bins >= 1, "bins must be ≥ 1, got {bins}");
    ensure_meta!(max >= min, "max {max} must be ≥ min {min}");
    if let Some(w) = weight {
        ensure_meta!(
            w.dims == input.dims,
            "weight {} must have the shape of input {}",
            fmt_dims(&w.dims),
            fmt_dims(&input.dims)
        );
    }
    let t = if density || weight.is_some() {
        DataType::Float32
    } else {
        DataType::Int64
    };
    out.set(MetaBuilder::new().dims(&[bins]).lod(input).dtype(t).build())
}

/// `LimitByCapacityInferMeta(expert_count, capacity, n_worker)`: like `expert_count`.
#[infer_meta]
pub fn limit_by_capacity_infer_meta(
    expert_count: &TensorMeta,
    _capacity: &TensorMeta,
    _n_worker: i64,
    out: Output<'_>,
) -> R {
    out.set(dims_dtype_lod_of(expert_count))
}

/// `PruneGateByCapacityInferMeta(gate_idx, expert_count, n_expert, n_worker)`: like `gate_idx`;
/// `expert_count` holds `n_expert · n_worker` elements.
#[infer_meta]
pub fn prune_gate_by_capacity_infer_meta(
    gate_idx: &TensorMeta,
    expert_count: &TensorMeta,
    n_expert: i64,
    n_worker: i64,
    new_gate_idx: Output<'_>,
) -> R {
    let n = product(&expert_count.dims);
    ensure_meta!(
        n == mul(n_expert, n_worker),
        "expert_count {} holds {n} elements, expected n_expert {n_expert} × n_worker {n_worker}",
        fmt_dims(&expert_count.dims)
    );
    new_gate_idx.set(dims_dtype_of(gate_idx))
}

/// `PReluInferMeta(x, alpha, data_format, mode)`: like `x`; `alpha` holds 1 element (`all`),
/// one per channel (`channel`) or one per element (`element`).
#[infer_meta]
pub fn p_relu_infer_meta(
    x: &TensorMeta,
    alpha: &TensorMeta,
    data_format: &str,
    mode: &str,
    out: Output<'_>,
) -> R {
    let fmt = data_format;
    let na = product(&alpha.dims);
    match mode {
        "all" => ensure_meta!(
            na == 1,
            "mode 'all' needs a single alpha, got {}",
            fmt_dims(&alpha.dims)
        ),
        "channel" => {
            need_rank_ge(x, 2, "x")?;
            ensure_meta!(
                fmt == "NCHW" || fmt == "NHWC",
                "data_format must be NCHW or NHWC, got '{fmt}'"
            );
            let c = if fmt == "NCHW" {
                x.dims[1]
            } else {
                x.dims[x.rank() - 1]
            };
            ensure_meta!(
                na == c,
                "mode 'channel' needs one alpha per channel ({c}), got {}",
                fmt_dims(&alpha.dims)
            );
        }
        "element" => {
            need_rank_ge(x, 1, "x")?;
            ensure_meta!(
                alpha.rank() == x.rank(),
                "mode 'element' needs alpha {} of the rank of x {}",
                fmt_dims(&alpha.dims),
                fmt_dims(&x.dims)
            );
            let xp = product(&x.dims[1..]);
            let ap = product(&alpha.dims[1..]);
            ensure_meta!(
                xp == ap,
                "mode 'element' needs alpha {} to cover x {}",
                fmt_dims(&alpha.dims),
                fmt_dims(&x.dims)
            );
        }
        other => {
            return Err(err(format!(
                "prelu mode must be 'all', 'channel' or 'element', got '{other}'"
            )))
        }
    }
    out.set(share_meta(x))
}

/// `SegmentPoolInferMeta(x, segment_ids, pooltype)`: dim 0 unknown; `MEAN` also gives
/// `summed_ids` `[-1, 1]`.
#[infer_meta]
pub fn segment_pool_infer_meta(
    x: &TensorMeta,
    _segment_ids: &TensorMeta,
    pooltype: &str,
    out: Output<'_>,
    summed_ids: Output<'_>,
) -> R {
    need_rank_ge(x, 1, "x")?;
    let mut d = x.dims.to_vec();
    d[0] = -1;
    out.set(with_dtype_layout_of(x, &d))?;
    if pooltype == "MEAN" {
        summed_ids.set_if_present(with_dtype_layout_of(x, &[-1, 1]));
    }
    Ok(())
}

/// `SoftmaxMaskFuseInferMeta(x, mask)`: like the 4-D `x`.
#[infer_meta]
pub fn softmax_mask_fuse_infer_meta(x: &TensorMeta, mask: &TensorMeta, out: Output<'_>) -> R {
    need_rank(x, 4, "x")?;
    need_rank(mask, 4, "mask")?;
    out.set(share_meta(x))
}

/// `StftInferMeta(x, window, n_fft, hop_length, normalized, onesided)`: complex
/// `[N, n_fft/2 + 1 | n_fft, n_frames]`.
#[infer_meta]
pub fn stft_infer_meta(
    x: &TensorMeta,
    window: &TensorMeta,
    n_fft: i64,
    hop_length: i64,
    _normalized: bool,
    onesided: bool,
    out: Output<'_>,
) -> R {
    let hop = hop_length;
    need_rank(x, 2, "x ([N, T])")?;
    ensure_meta!(hop > 0, "hop_length must be positive, got {hop}");
    need_rank_ge(window, 1, "window")?;
    ensure_meta!(
        window.dims[0] == n_fft,
        "window {} must have length n_fft = {n_fft}",
        fmt_dims(&window.dims)
    );
    let seq = x.dims[1];
    ensure_meta!(
        n_fft <= seq,
        "n_fft {n_fft} exceeds the sequence length {seq}"
    );
    let frames = add(1, sub(seq, n_fft).wrapping_div(hop));
    let f = if onesided { n_fft / 2 + 1 } else { n_fft };
    out.set(TensorMeta::new(
        x.dtype.to_complex(),
        &[x.dims[0], f, frames],
    ))
}

/// `SwiGLUInferMeta(x, y)`: like `x` when `y` is given (same shape), else `x` with its last dim
/// halved.
#[infer_meta(name = "SwiGLUInferMeta")]
pub fn swi_glu_infer_meta(x: &TensorMeta, y: Option<&TensorMeta>, out: Output<'_>) -> R {
    match y {
        Some(y) => {
            ensure_meta!(
                x.dims == y.dims,
                "x {} and y {} must have the same shape",
                fmt_dims(&x.dims),
                fmt_dims(&y.dims)
            );
            out.set(share_meta(x))
        }
        None => {
            need_rank_ge(x, 1, "x")?;
            let mut d = x.dims.to_vec();
            let l = d.len() - 1;
            ensure_meta!(
                d[l] % 2 == 0,
                "the last dim of x {} must be even",
                fmt_dims(&x.dims)
            );
            d[l] /= 2;
            out.set(share_meta_with_dims(x, &d))
        }
    }
}

/// `[N, C] + output_size` for a `rank`-D `x` pooled with `ksize` (unknown spatial extents stay
/// -1).
fn unpool(
    x: &TensorMeta,
    indices: &TensorMeta,
    ksize: &[i64],
    rank: usize,
    output_size: &[i64],
    out: Output<'_>,
) -> R {
    need_rank(x, rank, "x")?;
    ensure_meta!(
        x.dims == indices.dims,
        "indices {} must have the shape of x {}",
        fmt_dims(&indices.dims),
        fmt_dims(&x.dims)
    );
    let mut d = vec![x.dims[0], x.dims[1]];
    for i in 0..ksize.len() {
        let e = x.dims.get(i + 2).copied().unwrap_or(-1);
        if e <= 0 {
            d.push(-1);
        } else {
            let v = output_size.get(i).copied().ok_or_else(|| {
                err(format!(
                    "output_size {} must have one value per kernel dim {}",
                    fmt_dims(output_size),
                    fmt_dims(ksize)
                ))
            })?;
            d.push(v);
        }
    }
    out.set_new(x.dtype, &d)
}

/// `UnpoolInferMeta(x, indices, ksize, strides, paddings, output_size, data_format)`:
/// `[N, C] + output_size` for a 4-D `x`.
#[infer_meta]
pub fn unpool_infer_meta(
    x: &TensorMeta,
    indices: &TensorMeta,
    ksize: &[i64],
    _strides: &[i64],
    _paddings: &[i64],
    output_size: IntArray<'_>,
    _data_format: &str,
    out: Output<'_>,
) -> R {
    unpool(x, indices, ksize, 4, output_size.values(), out)
}

/// `Unpool3dInferMeta(x, indices, ksize, strides, paddings, output_size, data_format)`:
/// `[N, C] + output_size` for a 5-D `x`.
#[infer_meta]
pub fn unpool3d_infer_meta(
    x: &TensorMeta,
    indices: &TensorMeta,
    ksize: &[i64],
    _strides: &[i64],
    _paddings: &[i64],
    output_size: &[i64],
    _data_format: &str,
    out: Output<'_>,
) -> R {
    unpool(x, indices, ksize, 5, output_size, out)
}

/// `YoloBoxHeadInferMeta(x, anchors, class_num)`: like `x` (dims and dtype).
#[infer_meta]
pub fn yolo_box_head_infer_meta(
    x: &TensorMeta,
    _anchors: &[i64],
    _class_num: i64,
    out: Output<'_>,
) -> R {
    out.set(dims_dtype_of(x))
}

/// `YoloBoxInferMeta(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
/// scale_x_y, iou_aware, iou_aware_factor)`: `boxes [N, B, 4]` and `scores [N, B, classes]`.
#[infer_meta]
pub fn yolo_box_infer_meta(
    x: &TensorMeta,
    img_size: &TensorMeta,
    anchors: &[i64],
    class_num: i64,
    _conf_thresh: f64,
    _downsample_ratio: i64,
    _clip_bbox: bool,
    _scale_x_y: f64,
    iou_aware: bool,
    iou_aware_factor: f64,
    boxes: Output<'_>,
    scores: Output<'_>,
) -> R {
    let img = img_size;
    need_rank(x, 4, "x")?;
    let an = (anchors.len() / 2) as i64;
    let per = if iou_aware { 6 } else { 5 };
    ensure_meta!(
        x.dims[1] == mul(an, add(per, class_num)),
        "dim 1 of x {} must equal anchors ({an}) × ({per} + class_num {class_num})",
        fmt_dims(&x.dims)
    );
    if iou_aware {
        ensure_meta!(
            (0.0..=1.0).contains(&iou_aware_factor),
            "iou_aware_factor must lie in [0, 1], got {iou_aware_factor}"
        );
    }
    need_rank(img, 2, "img_size")?;
    need_same_batch_when_known(img, x, "img_size", "x")?;
    ensure_meta!(
        img.dims[1] == 2,
        "img_size {} must be [N, 2]",
        fmt_dims(&img.dims)
    );
    ensure_meta!(!anchors.is_empty(), "anchors must not be empty");
    ensure_meta!(
        anchors.len() % 2 == 0,
        "anchors {} must hold pairs",
        fmt_dims(anchors)
    );
    ensure_meta!(class_num > 0, "class_num must be positive, got {class_num}");
    let n_boxes = if x.dims[2] > 0 && x.dims[3] > 0 {
        mul(mul(x.dims[2], x.dims[3]), an)
    } else {
        -1
    };
    boxes.set_new(x.dtype, &[x.dims[0], n_boxes, 4])?;
    scores.set_if_present(
        MetaBuilder::new()
            .dims(&[x.dims[0], n_boxes, class_num])
            .build(),
    );
    Ok(())
}

/// `ShuffleBatchInferMeta(x, seed, startup_seed)`: `out` like `x`, `shuffle_idx` `[-1]`,
/// `seed_out` like `seed`.
#[infer_meta]
pub fn shuffle_batch_infer_meta(
    x: &TensorMeta,
    seed: &TensorMeta,
    _startup_seed: i64,
    out: Output<'_>,
    shuffle_idx: Output<'_>,
    seed_out: Output<'_>,
) -> R {
    out.set(dims_dtype_lod_of(x))?;
    shuffle_idx.set_if_present(MetaBuilder::new().dims(&[-1]).build());
    seed_out.set_if_present(dims_dtype_lod_of(seed));
    Ok(())
}

/// `ReduceAsInferMeta(x, target)`: `target`'s dims, `x`'s dtype (int64 for bool/int32).
#[infer_meta]
pub fn reduce_as_infer_meta(x: &TensorMeta, target: &TensorMeta, out: Output<'_>) -> R {
    let dt = if matches!(x.dtype, DataType::Bool | DataType::Int32) {
        DataType::Int64
    } else {
        x.dtype
    };
    out.set(
        MetaBuilder::new()
            .dtype(dt)
            .dims(&target.dims)
            .layout(x.layout)
            .build(),
    )
}

/// `ApplyPerChannelScaleInferMeta(x, scales)`: like the 2-D `x`, one scale per column.
#[infer_meta]
pub fn apply_per_channel_scale_infer_meta(
    x: &TensorMeta,
    scales: &TensorMeta,
    out: Output<'_>,
) -> R {
    need_rank(x, 2, "x")?;
    need_rank(scales, 1, "scales")?;
    ensure_meta!(
        x.dims[1] == scales.dims[0],
        "dim 1 of x {} must equal the length of scales {}",
        fmt_dims(&x.dims),
        fmt_dims(&scales.dims)
    );
    out.set(with_dtype_layout_of(x, &x.dims))
}

/// `TdmChildInferMeta(x, tree_info, child_nums, dtype)`: `child` and `leaf_mask`
/// `x.dims + [child_nums]` of `x`'s dtype.
#[infer_meta]
pub fn tdm_child_infer_meta(
    x: &TensorMeta,
    tree_info: &TensorMeta,
    child_nums: i64,
    _dtype: DataType,
    child: Output<'_>,
    leaf_mask: Output<'_>,
) -> R {
    let n = child_nums;
    ensure_meta!(n > 0, "child_nums must be positive, got {n}");
    need_rank(tree_info, 2, "tree_info")?;
    let mut d = x.dims.to_vec();
    d.push(n);
    let meta = with_dtype_lod_of(x, &d);
    child.set(meta.clone())?;
    leaf_mask.set_if_present(meta);
    Ok(())
}

/// `PriorBoxInferMeta(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
/// step_w, step_h, offset, min_max_aspect_ratios_order)`: `out` and `var`
/// `[H, W, num_priors, 4]`.
#[infer_meta]
pub fn prior_box_infer_meta(
    input: &TensorMeta,
    image: &TensorMeta,
    min_sizes: &[f64],
    max_sizes: &[f64],
    aspect_ratios: &[f64],
    _variances: &[f64],
    flip: bool,
    _clip: bool,
    _step_w: f64,
    _step_h: f64,
    _offset: f64,
    _min_max_aspect_ratios_order: bool,
    out: Output<'_>,
    var: Output<'_>,
) -> R {
    need_rank(image, 4, "image (NCHW)")?;
    need_rank(input, 4, "input (NCHW)")?;
    let mut expanded: Vec<f64> = vec![1.0];
    for &r in aspect_ratios {
        if !expanded.iter().any(|&e| (r - e).abs() < 1e-6) {
            expanded.push(r);
            if flip {
                expanded.push(1.0 / r);
            }
        }
    }
    let mut priors = (expanded.len() * min_sizes.len()) as i64;
    if !max_sizes.is_empty() {
        ensure_meta!(
            max_sizes.len() == min_sizes.len(),
            "min_sizes and max_sizes must have the same length ({} vs {})",
            min_sizes.len(),
            max_sizes.len()
        );
        priors += max_sizes.len() as i64;
        for (i, (mx, mn)) in max_sizes.iter().zip(min_sizes).enumerate() {
            ensure_meta!(
                mx > mn,
                "max_sizes[{i}] = {mx} must exceed min_sizes[{i}] = {mn}"
            );
        }
    }
    let meta = with_dtype_of(input, &[input.dims[2], input.dims[3], priors, 4]);
    out.set(meta.clone())?;
    var.set_if_present(meta);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Ports for the whole of Paddle's yaml (issue 11 §4)
// ---------------------------------------------------------------------------------------------

/// `CorrelationInferMeta(input1, input2, pad_size, kernel_size, max_displacement, stride1,
/// stride2, corr_type_multiply)`: `[N, (2⌊d/s2⌋+1)², ⌈(H+2p-2b)/s1⌉, ⌈(W+2p-2b)/s1⌉]` with
/// `b = (kernel_size-1)/2 + max_displacement` (Paddle's `CorrelationOutputSize`).
#[infer_meta]
pub fn correlation_infer_meta(
    input1: &TensorMeta,
    input2: &TensorMeta,
    pad_size: i32,
    kernel_size: i32,
    max_displacement: i32,
    stride1: i32,
    stride2: i32,
    _corr_type_multiply: i32,
    out: Output<'_>,
) -> R {
    need_rank(input1, 4, "input1")?;
    need_rank(input2, 4, "input2")?;
    ensure_meta!(
        stride1 != 0 && stride2 != 0,
        "stride1 {stride1} and stride2 {stride2} must not be 0"
    );
    // Widened: Paddle's `int` arithmetic cannot overflow here.
    let (pad, md, s1, s2) = (
        i64::from(pad_size),
        i64::from(max_displacement),
        i64::from(stride1),
        i64::from(stride2),
    );
    let border = (i64::from(kernel_size) - 1) / 2 + md;
    let side = (md / s2) * 2 + 1;
    // Paddle computes in float and rounds up (`std::ceil`).
    let extent = |d: i64| ((d + 2 * pad - 2 * border) as f64 / s1 as f64).ceil() as i64;
    let d = [
        input1.dims[0],
        side.wrapping_mul(side),
        extent(input1.dims[2]),
        extent(input1.dims[3]),
    ];
    out.set_new(input1.dtype, &d)
}

/// `CtcAlignInferMeta(input, input_length, blank, merge_repeated, padding_value)`: `output`
/// has `input`'s dims and dtype; `output_length` is `[N, 1]` (dtype left float32, as Paddle
/// leaves it) when `input_length` is given.
#[infer_meta]
pub fn ctc_align_infer_meta(
    input: &TensorMeta,
    input_length: Option<&TensorMeta>,
    _blank: i64,
    _merge_repeated: bool,
    _padding_value: i64,
    output: Output<'_>,
    output_length: Output<'_>,
) -> R {
    output.set(dims_dtype_of(input))?;
    if input_length.is_some() {
        let n = dim_at(&input.dims, 0, "input")?;
        output_length.set_if_present(dims_only(&[n, 1]));
    }
    Ok(())
}

/// `DistributeFpnProposalsInferMeta(fpn_rois, rois_num, min_level, max_level, refer_level,
/// refer_scale, pixel_offset)`: one `[-1, 4]` roi tensor (LoD of `fpn_rois`) and one int32
/// `[-1]` count per level, and an int32 `[-1, 1]` `restore_index`.
#[infer_meta]
pub fn distribute_fpn_proposals_infer_meta(
    fpn_rois: &TensorMeta,
    _rois_num: Option<&TensorMeta>,
    min_level: i32,
    max_level: i32,
    _refer_level: i32,
    _refer_scale: i32,
    _pixel_offset: bool,
    multi_fpn_rois: pir_runtime::meta::OutputList<'_>,
    multi_level_rois_num: pir_runtime::meta::OutputList<'_>,
    restore_index: Output<'_>,
) -> R {
    ensure_meta!(
        max_level >= min_level,
        "max_level must not be lower than min_level, but max_level = {max_level}, min_level = \
         {min_level}"
    );
    let levels = i64::from(max_level) - i64::from(min_level) + 1;
    let n = super::common::output_count(levels, "max_level - min_level + 1")?;
    let roi = MetaBuilder::new()
        .dims(&[-1, 4])
        .dtype(fpn_rois.dtype)
        .lod(fpn_rois)
        .build();
    multi_fpn_rois.set(vec![roi; n])?;
    multi_level_rois_num.set_if_present(vec![TensorMeta::new(DataType::Int32, &[-1]); n]);
    restore_index.set(TensorMeta::new(DataType::Int32, &[-1, 1]))
}

/// `Im2sequenceInferMeta(x, y, kernels, strides, paddings, out_stride)`: `[N, C × kh × kw]`.
#[infer_meta]
pub fn im2sequence_infer_meta(
    x: &TensorMeta,
    _y: Option<&TensorMeta>,
    kernels: &[i64],
    _strides: &[i64],
    _paddings: &[i64],
    _out_stride: &[i64],
    out: Output<'_>,
) -> R {
    need_rank(x, 4, "x")?;
    ensure_meta!(
        kernels.len() >= 2,
        "kernels {} must hold the kernel height and width",
        fmt_dims(kernels)
    );
    let c = mul(mul(x.dims[1], kernels[0]), kernels[1]);
    out.set_new(x.dtype, &[x.dims[0], c])
}

/// `IndexAddInferMeta(x, index, add_value, axis)`: `out` is `x` (dims, dtype, layout, LoD);
/// `index` is a non-empty 1-D int32/int64 tensor; `add_value` has `x`'s rank and its extents
/// off `axis`.
#[infer_meta]
pub fn index_add_infer_meta(
    x: &TensorMeta,
    index: &TensorMeta,
    add_value: &TensorMeta,
    axis: i64,
    out: Output<'_>,
) -> R {
    let a = axis_in(axis, x.rank(), "axis")?;
    ensure_meta!(
        index.rank() == 1,
        "index {} must be a 1-D tensor",
        fmt_dims(&index.dims)
    );
    ensure_meta!(index.dims[0] != 0, "the length of index can't be 0");
    ensure_meta!(
        add_value.rank() == x.rank(),
        "add_value {} must have the same rank as x {}",
        fmt_dims(&add_value.dims),
        fmt_dims(&x.dims)
    );
    for i in (0..x.rank()).filter(|&i| i != a) {
        ensure_meta!(
            x.dims[i] == add_value.dims[i],
            "add_value {} does not broadcast: its dim {i} must equal x's {} off axis {a}",
            fmt_dims(&add_value.dims),
            fmt_dims(&x.dims)
        );
    }
    ensure_meta!(
        matches!(index.dtype, DataType::Int32 | DataType::Int64),
        "index holds {:?}, but it must be int32 or int64",
        index.dtype
    );
    out.set(share_meta(x))
}

/// `LodResetInferMeta(x, y, target_lod, append)`: `x`'s dims and dtype; without `y`,
/// `target_lod` must not be empty.
///
/// Paddle's check reads `if (y.initialized()) PADDLE_ENFORCE_GT(target_lod.size(), 0)` while
/// its message speaks of a missing `y`; the message is taken as the rule.
#[infer_meta]
pub fn lod_reset_infer_meta(
    x: &TensorMeta,
    y: Option<&TensorMeta>,
    target_lod: &[i64],
    append: bool,
    out: Output<'_>,
) -> R {
    if y.is_some() {
        ensure_meta!(
            !target_lod.is_empty(),
            "target_lod is empty: without y, the output's LoD comes from target_lod"
        );
    }
    out.set(
        MetaBuilder::new()
            .dims(&x.dims)
            .dtype(x.dtype)
            .lod_if(append, x)
            .build(),
    )
}

/// `LookupTableInferMeta(w, ids)`: `ids` without its last dim (which must be 1), then
/// `w[1]`; `w`'s dtype, `ids`' LoD.
#[infer_meta]
pub fn lookup_table_infer_meta(w: &TensorMeta, ids: &TensorMeta, out: Output<'_>) -> R {
    need_rank(w, 2, "w (the lookup table)")?;
    need_rank_ge(ids, 1, "ids")?;
    let last = ids.dims[ids.rank() - 1];
    ensure_meta!(
        last == 1,
        "the last dimension of ids {} must be 1",
        fmt_dims(&ids.dims)
    );
    let mut d = ids.dims[..ids.rank() - 1].to_vec();
    d.push(w.dims[1]);
    out.set(MetaBuilder::new().dims(&d).dtype(w.dtype).lod(ids).build())
}

/// `LUUnpackInferMeta(x, pivots, unpack_ludata, unpack_pivots)`: for `x` of `m × n` matrices,
/// `l` is `m × min(m, n)`, `u` is `min(m, n) × n` and `pmat` is `m × m`, in `x`'s dtype.
///
/// Paddle 3.3.1 names `m` the rows (`paddle-ref/ops/programs/lu_unpack.txt`: `-1x4x3` gives
/// `pmat` `-1x4x4`, `l` `-1x4x3`, `u` `-1x3x3`).
#[infer_meta(name = "LUUnpackInferMeta")]
pub fn lu_unpack_infer_meta(
    x: &TensorMeta,
    _pivots: &TensorMeta,
    unpack_ludata: bool,
    unpack_pivots: bool,
    pmat: Output<'_>,
    l: Output<'_>,
    u: Output<'_>,
) -> R {
    need_rank_ge(x, 2, "x")?;
    let r = x.rank();
    let (m, n) = (x.dims[r - 2], x.dims[r - 1]);
    let k = m.min(n);
    if unpack_ludata {
        let (mut ld, mut ud) = (x.dims.to_vec(), x.dims.to_vec());
        if m >= n {
            ud[r - 2] = k;
        } else {
            ld[r - 1] = k;
        }
        u.set_new(x.dtype, &ud)?;
        l.set_new(x.dtype, &ld)?;
    }
    if unpack_pivots {
        let mut pd = x.dims.to_vec();
        pd[r - 1] = m;
        pmat.set_new(x.dtype, &pd)?;
    }
    Ok(())
}

/// `MatrixNMSInferMeta(bboxes, scores, score_threshold, nms_top_k, keep_top_k, post_threshold,
/// use_gaussian, gaussian_sigma, background_label, normalized)`: `out` `[-1, box_size + 2]`,
/// int32 `index` `[-1, 1]`, int32 `roisnum` `[N]`.
#[infer_meta(name = "MatrixNMSInferMeta")]
pub fn matrix_nms_infer_meta(
    bboxes: &TensorMeta,
    scores: &TensorMeta,
    _score_threshold: f64,
    _nms_top_k: i64,
    _keep_top_k: i64,
    _post_threshold: f64,
    _use_gaussian: bool,
    _gaussian_sigma: f64,
    _background_label: i64,
    _normalized: bool,
    out: Output<'_>,
    index: Output<'_>,
    roisnum: Output<'_>,
) -> R {
    let box_size = dim_at(&bboxes.dims, 2, "bboxes")?;
    out.set_new(bboxes.dtype, &[-1, add(box_size, 2)])?;
    index.set(TensorMeta::new(DataType::Int32, &[-1, 1]))?;
    let n = dim_at(&scores.dims, 0, "scores")?;
    roisnum.set_if_present(TensorMeta::new(DataType::Int32, &[n]));
    Ok(())
}

/// `BeamSearchDecodeInferMeta(ids, scores, beam_size, end_id)`: Paddle's body is empty (the
/// sentences' shapes are known only when the kernel runs); both outputs stay unset.
#[infer_meta]
pub fn beam_search_decode_infer_meta(
    _ids: &TensorMeta,
    _scores: &TensorMeta,
    _beam_size: i64,
    _end_id: i64,
) -> R {
    Ok(())
}

/// `RowConvInferMeta(x, filter)`: `filter` is 2-D; `out` has `x`'s dims, dtype and LoD.
#[infer_meta]
pub fn row_conv_infer_meta(x: &TensorMeta, filter: &TensorMeta, out: Output<'_>) -> R {
    need_rank(filter, 2, "filter")?;
    out.set(dims_dtype_lod_of(x))
}

/// The shape rule of `WeightDequantizeInferMeta`: `x` is a 2-D quantized weight `[k', n]`
/// (`k' = k` for int8, `k / 2` for int4); per-channel `scale` is `[k]`, group-wise `scale` is
/// `[ceil(n / group_size), k]`; `out` is `[n, k]`.
fn weight_dequantize_dims(
    x: &TensorMeta,
    scale: &TensorMeta,
    algo: &str,
    group_size: i64,
) -> Res<[i64; 2]> {
    need_rank(x, 2, "x")?;
    ensure_meta!(
        matches!(group_size, -1 | 64 | 128),
        "group_size must be -1, 64 or 128, got {group_size}"
    );
    let k = match algo {
        "weight_only_int8" => x.dims[0],
        "weight_only_int4" => mul(x.dims[0], 2),
        _ => {
            return Err(err(format!(
                "algo {algo:?} is not supported: only weight_only_int8 and weight_only_int4"
            )))
        }
    };
    if group_size == -1 {
        need_rank(scale, 1, "scale (per-channel)")?;
        ensure_meta!(
            scale.dims[0] == k,
            "scale {} must hold one value per channel ({k})",
            fmt_dims(&scale.dims)
        );
    } else {
        need_rank(scale, 2, "scale (group-wise)")?;
        let groups = add(x.dims[1], group_size - 1) / group_size;
        ensure_meta!(
            scale.dims[0] == groups,
            "scale dim 0 ({}) must be (x[1] + group_size - 1) / group_size = {groups}",
            scale.dims[0]
        );
        ensure_meta!(
            scale.dims[1] == k,
            "scale dim 1 ({}) must be the real channel size {k}",
            scale.dims[1]
        );
    }
    Ok([x.dims[1], k])
}

/// `WeightDequantizeInferMeta(x, scale, algo, out_dtype, group_size)` (Paddle 3.x): `out` is
/// `[n, k]` of `out_dtype` (see `weight_dequantize_dims`).
#[infer_meta]
pub fn weight_dequantize_infer_meta(
    x: &TensorMeta,
    scale: &TensorMeta,
    algo: &str,
    out_dtype: DataType,
    group_size: i64,
    out: Output<'_>,
) -> R {
    let d = weight_dequantize_dims(x, scale, algo, group_size)?;
    out.set(TensorMeta::new(out_dtype, &d))
}

/// `WeightDequantizeInferMeta(x, scale, algo, group_size)` (the signature without
/// `out_dtype`): `out` is `[n, k]` of `scale`'s dtype.
#[infer_meta(name = "WeightDequantizeInferMeta")]
pub fn weight_dequantize_no_dtype_infer_meta(
    x: &TensorMeta,
    scale: &TensorMeta,
    algo: &str,
    group_size: i64,
    out: Output<'_>,
) -> R {
    let d = weight_dequantize_dims(x, scale, algo, group_size)?;
    out.set(TensorMeta::new(scale.dtype, &d))
}

/// `SequenceExpandInferMeta(x, y, ref_level)`: `x` has at least 2 dimensions; at build time
/// `out` is `x` with dim 0 unknown (`-1`: the expansion follows `y`'s LoD), `x`'s dtype.
/// (Paddle's body is not in the reference store; the rule is the legacy `sequence_expand`
/// op's compile-time branch.)
#[infer_meta]
pub fn sequence_expand_infer_meta(
    x: &TensorMeta,
    _y: &TensorMeta,
    _ref_level: i64,
    out: Output<'_>,
) -> R {
    need_rank_ge(x, 2, "x")?;
    let mut d = x.dims.to_vec();
    d[0] = -1;
    out.set_new(x.dtype, &d)
}
