//! The `pd_op` dialect: PaddlePaddle's operator dialect, generated at compile time from the
//! project's own op list in `ops-yaml/` (`ops.yaml`, `backward.yaml`, `op_compat.yaml`).
//!
//! Every yaml entry becomes one op type per class Paddle generates: the op itself, its in-place
//! twin (`relu_`, from `inplace`/`view`) and one class per extra kernel (`scale_sr`,
//! `sgd_dense_param_sparse_grad_`). Each type is a 4-byte `Copy` handle implementing
//! [`pir_runtime::Op`], with accessors named after its inputs and outputs, typed builders whose
//! result types come from the infer-meta functions of [`crate::infer_meta`], and Paddle's
//! GetOpInfo tuple (`get_op_info()`). [`PdOpDialect`] lists them all; [`register`] adds them
//! to an [`IrContext`].
//!
//! ```
//! use op_defs::pd_op::{self, ReluOp, Relu_Op};
//! use pir_runtime::interfaces::OpYamlInfo;
//! use pir_runtime::{IrContext, Op};
//!
//! let ctx = IrContext::new();
//! pd_op::register(&ctx).unwrap();
//! assert!(ctx.op_def("pd_op.batch_norm_").is_some());
//! let info = ReluOp::get_op_info();
//! assert_eq!(info.runtime_info.infer_meta_func, "UnchangedInferMeta");
//! assert_eq!(Relu_Op::get_op_info().runtime_info.inplace[0], ("out".into(), "x".into()));
//! assert!(ReluOp::DEF.has_interface::<OpYamlInfo>());
//! ```

use pir_runtime::{IrContext, IrError};

pir_macros::define_ops_from_yaml! {
    dialect = "pd_op",
    ops = ["../ops-yaml/ops.yaml", "../ops-yaml/backward.yaml"],
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta = crate::infer_meta::REGISTRY,
}

/// Registers the `pd_op` dialect, i.e. every op generated from `ops-yaml/` and the
/// hand-written control-flow ops ([`crate::control_flow`], with the `cf` dialect), in `ctx`.
///
/// Registering twice is a no-op.
///
/// # Errors
///
/// [`IrError`] if `ctx` already holds an op of the same name from another definition.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// op_defs::pd_op::register(&ctx).unwrap();
/// op_defs::pd_op::register(&ctx).unwrap();
/// assert!(ctx.op_def("pd_op.conv2d").is_some());
/// ```
pub fn register(ctx: &IrContext) -> Result<(), IrError> {
    ctx.register_dialect::<PdOpDialect>()?;
    crate::control_flow::register(ctx)
}
