//! The tensor-array ops (`manual_op.h`): create, read, write, pop, slice, convert and copy
//! `pd_op.tensor_array<...>` values.
//!
//! ```
//! use op_defs::pd_op::{self, ArrayLengthOp, ArrayReadOp, ArrayWrite_Op, CreateArrayOp};
//! use op_defs::pd_op::CreateArrayOpAttrs;
//! use pir_runtime::{builtin, phi::DataType, Builder, IrContext, Program};
//!
//! let ctx = IrContext::new();
//! pd_op::register(&ctx).unwrap();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[2, 3])).unwrap();
//! let arr = CreateArrayOp::build(&mut b, CreateArrayOpAttrs::new(DataType::Float32)).unwrap();
//! let arr = arr.out(b.program());
//! let w = ArrayWrite_Op::build(&mut b, arr, x, 0).unwrap().out(b.program()); // i: an int64 `full`
//! let len = ArrayLengthOp::build(&mut b, w).unwrap().out(b.program());
//! let read = ArrayReadOp::build(&mut b, w, 0).unwrap().out(b.program());
//! let show = |v| prog.value_type(v).unwrap().display(&ctx).to_string();
//! assert_eq!(show(w), "pd_op.tensor_array<f32>");
//! assert_eq!(show(len), "tensor<1xi64>");
//! assert_eq!(show(read), "tensor<-1x-1xf32>");
//! ```

use pir_macros::pir_op;

/// `create_array(dtype)`: a new, empty tensor array of element type `dtype` (dims `[0]`).
#[pir_op(
    name = "pd_op.create_array",
    infer_meta(func = "CreateArrayInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "create_array", data_type(dtype))
)]
pub struct CreateArrayOp {
    /// The element type.
    #[attr]
    dtype: DataType,
    /// The array.
    #[output]
    out: DenseTensorArray,
}

/// `create_array_like(input, val)`: an array shaped like `input`, its tensors filled with `val`.
#[pir_op(
    name = "pd_op.create_array_like",
    infer_meta(
        func = "CreateArrayLikeInferMeta",
        param(input),
        registry = crate::infer_meta::REGISTRY
    ),
    kernel(func = "create_array_like")
)]
pub struct CreateArrayLikeOp {
    /// The model array.
    #[input]
    input: DenseTensorArray,
    /// The fill value.
    #[attr(default = 0.0)]
    val: f32,
    /// The new array.
    #[output]
    out: DenseTensorArray,
}

/// `array_length(x)`: the number of tensors in `x`, an `int64` tensor of shape `[1]`.
#[pir_op(
    name = "pd_op.array_length",
    infer_meta(func = "ArrayLengthInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "array_length")
)]
pub struct ArrayLengthOp {
    /// The array.
    #[input]
    x: DenseTensorArray,
    /// Its length.
    #[output]
    out: DenseTensor,
}

/// `array_read(array, i)`: the tensor at index `i`.
#[pir_op(
    name = "pd_op.array_read",
    interfaces(Vjp),
    infer_meta(func = "ArrayReadInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "array_read", data_type(array))
)]
pub struct ArrayReadOp {
    /// The array.
    #[input]
    array: DenseTensorArray,
    /// The index (an `int64` `full` when built from a number).
    #[attr(mutable, data_type = "int64_t")]
    i: Scalar,
    /// The tensor read.
    #[output]
    out: DenseTensor,
}

/// `array_write_(array, x, i)`: writes `x` at index `i`, in place; the result carries `x`'s dims.
#[allow(non_camel_case_types)] // Paddle's class name.
#[pir_op(
    name = "pd_op.array_write_",
    interfaces(Vjp),
    infer_meta(
        func = "ArrayWriteInferMeta",
        param(array, x),
        registry = crate::infer_meta::REGISTRY
    ),
    kernel(func = "array_write", data_type(array), backend(array))
)]
pub struct ArrayWrite_Op {
    /// The array, updated in place.
    #[input]
    array: DenseTensorArray,
    /// The tensor written.
    #[input(grad)]
    x: DenseTensor,
    /// The index.
    #[attr(mutable, data_type = "int64_t")]
    i: Scalar,
    /// The array after the write.
    #[output(inplace = array)]
    out: DenseTensorArray,
}

/// `array_pop(array, index)`: removes the tensor at `index` (in place) and returns it.
#[pir_op(
    name = "pd_op.array_pop",
    infer_meta(func = "ArrayPopInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "array_pop", data_type(array), backend(array)),
    unsuffixed_inplace
)]
pub struct ArrayPopOp {
    /// The array.
    #[input]
    array: DenseTensorArray,
    /// The index removed.
    #[attr]
    index: i32,
    /// The array without it, in place of `array`.
    #[output(inplace = array)]
    array_out: DenseTensorArray,
    /// The tensor removed.
    #[output]
    out: DenseTensor,
}

/// `array_to_tensor(x, axis, use_stack)`: the array's tensors stacked or concatenated along
/// `axis`, and each tensor's extent along it (`out_index`).
#[pir_op(
    name = "pd_op.array_to_tensor",
    interfaces(Vjp),
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta(func = "ArrayToTensorInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "array_to_tensor", data_type(x))
)]
pub struct ArrayToTensorOp {
    /// The array.
    #[input(grad)]
    x: DenseTensorArray,
    /// The axis.
    #[attr(default = 1)]
    axis: i32,
    /// Stack (new axis) rather than concatenate.
    #[attr(default = false)]
    use_stack: bool,
    /// The joined tensor.
    #[output]
    out: DenseTensor,
    /// The extent each tensor contributed.
    #[output]
    out_index: DenseTensor,
}

/// `tensor_to_array(x, out_grad, axis, use_stack)`: the gradient of `array_to_tensor`, split
/// back into an array shaped like `x`.
#[pir_op(
    name = "pd_op.tensor_to_array",
    infer_meta(func = "TensorToArrayInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "tensor_to_array", data_type(x))
)]
pub struct TensorToArrayOp {
    /// The forward array.
    #[input(grad)]
    x: DenseTensorArray,
    /// The gradient of the joined tensor.
    #[input(grad)]
    out_grad: DenseTensor,
    /// The axis.
    #[attr(default = 1)]
    axis: i32,
    /// Whether the forward op stacked.
    #[attr(default = false)]
    use_stack: bool,
    /// The gradient array.
    #[output]
    out: DenseTensorArray,
}

/// `slice_array(input, starts, ends)`: the tensors `[starts, ends)` as a new array.
#[pir_op(
    name = "pd_op.slice_array",
    infer_meta(func = "SliceArrayInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "slice_array")
)]
pub struct SliceArrayOp {
    /// The array.
    #[input]
    input: DenseTensorArray,
    /// The first index.
    #[attr(mutable)]
    starts: IntArray,
    /// One past the last index.
    #[attr(mutable)]
    ends: IntArray,
    /// The sliced array.
    #[output]
    out: DenseTensorArray,
}

/// `slice_array_dense(input, starts)`: the tensors from `starts` on, concatenated into one.
#[pir_op(
    name = "pd_op.slice_array_dense",
    infer_meta(func = "SliceArrayDenseInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "slice_array_dense", data_type(input), backend(input))
)]
pub struct SliceArrayDenseOp {
    /// The array.
    #[input]
    input: DenseTensorArray,
    /// The first index.
    #[attr(mutable)]
    starts: IntArray,
    /// The tensor.
    #[output]
    out: DenseTensor,
}

/// `assign_array(x)`: a copy of the array.
#[pir_op(
    name = "pd_op.assign_array",
    infer_meta(func = "UnchangedArrayInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "assign_array")
)]
pub struct AssignArrayOp {
    /// The array.
    #[input(grad)]
    x: DenseTensorArray,
    /// The copy.
    #[output]
    out: DenseTensorArray,
}

/// `assign_array_(x)`: the array copied in place.
#[allow(non_camel_case_types)] // Paddle's class name.
#[pir_op(
    name = "pd_op.assign_array_",
    infer_meta(func = "UnchangedArrayInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "assign_array")
)]
pub struct AssignArray_Op {
    /// The array.
    #[input]
    x: DenseTensorArray,
    /// The copy, in place of `x`.
    #[output(inplace = x)]
    out: DenseTensorArray,
}

/// `add_n_array(inputs)`: the element-wise sum of arrays.
#[pir_op(
    name = "pd_op.add_n_array",
    infer_meta(func = "AddNTensorArrayInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "add_n_array")
)]
pub struct AddNArrayOp {
    /// The arrays.
    #[input(grad)]
    inputs: Vec<DenseTensorArray>,
    /// Their sum.
    #[output]
    out: DenseTensorArray,
}
