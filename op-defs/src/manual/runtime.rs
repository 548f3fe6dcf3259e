//! Hand-written ops of program I/O and run time (`manual_op.h`, `control_flow_op.h`): `fetch`,
//! `assert` and `memcpy_d2h_multi_io`.
//!
//! ```
//! use op_defs::pd_op::{self, AssertOp, AssertOpAttrs, FetchOp, FetchOpAttrs};
//! use pir_runtime::{builtin, phi::DataType, Builder, IrContext, Program};
//!
//! let ctx = IrContext::new();
//! pd_op::register(&ctx).unwrap();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
//! let f = FetchOp::build(&mut b, x, FetchOpAttrs::new("x", 0)).unwrap();
//! assert_eq!(b.program().value_type(f.out(b.program())), b.program().value_type(x));
//! let c = builtin::parameter(&mut b, "c", ctx.dense_tensor_type(DataType::Bool, &[1])).unwrap();
//! let data = builtin::combine(&mut b, &[x]).unwrap();
//! AssertOp::build(&mut b, c, data, AssertOpAttrs::default()).unwrap();
//! pir_runtime::verify(&prog).unwrap();
//! ```

use pir_macros::pir_op;
use pir_runtime::meta::{InferMetaCtx, InferMetaError};
use pir_runtime::types::TypeData;
use pir_runtime::{phi::DataType, OpRef};

/// `fetch(x)`: hands `x` to the caller under `name`, in column `col`.
#[pir_op(
    name = "pd_op.fetch",
    compat = "../ops-yaml/op_compat.yaml",
    traits(SideEffect, ImmutableLayout, ForwardOnly),
    interfaces(InferSymbolicShape),
    infer_meta(
        func = "UnchangedInferMeta",
        param(x),
        registry = crate::infer_meta::REGISTRY
    ),
    kernel(func = "fetch", param(x))
)]
pub struct FetchOp {
    /// The value fetched.
    #[input]
    x: DenseTensor,
    /// The fetch target's name.
    #[attr]
    name: String,
    /// Its column in the fetch list.
    #[attr]
    col: i32,
    /// The fetched value.
    #[output]
    out: DenseTensor,
}

/// `assert(cond, data)`: stops the program when `cond` is false, printing up to `summarize`
/// elements of each tensor of `data`. No results, no infer-meta.
#[pir_op(
    name = "pd_op.assert",
    compat = "../ops-yaml/op_compat.yaml",
    traits(SideEffect),
    kernel(func = "assert", data_type(cond)),
    verify = check_assert
)]
pub struct AssertOp {
    /// The condition, a `bool` tensor.
    #[input]
    cond: DenseTensor,
    /// The tensors printed when it fails.
    #[input]
    data: Vec<DenseTensor>,
    /// How many elements of each to print (`-1`: all).
    #[attr(default = 20)]
    summarize: i64,
}

/// `AssertOp::VerifySig`, beyond the signature: `cond` is a `bool` tensor.
fn check_assert(op: OpRef<'_>) -> Result<(), String> {
    let ctx = op.ctx();
    match op
        .operand_types()
        .next()
        .flatten()
        .map(|t| ctx.type_data(t))
    {
        Some(TypeData::DenseTensor(t)) if t.dtype != DataType::Bool => Err(format!(
            "`cond` must be a bool tensor, found element type {}",
            t.dtype.name()
        )),
        _ => Ok(()),
    }
}

/// `memcpy_d2h_multi_io(x, dst_place_type)`: copies an array's tensors from the device to
/// `dst_place_type`. GetOpInfo names `UnchangedInferMeta`; Paddle's build runs
/// `UnchangedArrayInferMeta` (and labels the result a dense tensor, which its own verifier
/// rejects: the result here is the array the verifier asks for).
#[pir_op(
    name = "pd_op.memcpy_d2h_multi_io",
    infer_meta(with = memcpy_d2h_multi_io_build, func = "UnchangedInferMeta", param(x)),
    kernel(func = "memcpy_d2h_multi_io")
)]
pub struct MemcpyD2hMultiIoOp {
    /// The array.
    #[input]
    x: DenseTensorArray,
    /// The destination place type.
    #[attr]
    dst_place_type: i32,
    /// The copy.
    #[output]
    out: DenseTensorArray,
}

/// `MemcpyD2hMultiIoOp::InferMeta`: `UnchangedArrayInferMeta`.
fn memcpy_d2h_multi_io_build(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
    (crate::infer_meta::manual::__UNCHANGED_ARRAY_INFER_META.func)(ctx)
}
