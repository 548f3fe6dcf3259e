//! The `pd_op` dialect: PaddlePaddle's operator dialect, generated at compile time from the
//! project's own op list in `ops-yaml/` (`ops.yaml`, `backward.yaml`, `op_compat.yaml`), plus
//! the ops Paddle writes by hand ([`crate::manual`], re-exported here: `create_array`,
//! `array_write_`, `fetch`, `expand`, ...).
//!
//! Every yaml entry becomes one op type per class Paddle generates: the op itself, its in-place
//! twin (`relu_`, from `inplace`/`view`) and one class per extra kernel (`scale_sr`,
//! `sgd_dense_param_sparse_grad_`). Each type is an 8-byte `Copy` handle implementing
//! [`pir_runtime::Op`], with accessors named after its inputs and outputs, typed builders whose
//! result types come from the infer-meta functions of [`crate::infer_meta`], and Paddle's
//! GetOpInfo tuple (`get_op_info()`). [`PdOpYamlDialect`] lists the generated ones,
//! [`PdOpDialect`] them and the hand-written ones; [`register`] adds them all to an
//! [`IrContext`].
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

use std::sync::LazyLock;

use pir_runtime::{Dialect, IrContext, IrError, OpDef};

pub use crate::manual::*;

pir_macros::define_ops_from_yaml! {
    dialect = "pd_op",
    ops = ["../ops-yaml/ops.yaml", "../ops-yaml/backward.yaml"],
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta = crate::infer_meta::REGISTRY,
    dialect_type = PdOpYamlDialect,
}

/// The `pd_op` dialect: the ops generated from `ops-yaml/` ([`PdOpYamlDialect`]) and the ones
/// Paddle writes by hand ([`crate::manual::OPS`]).
///
/// ```
/// use op_defs::pd_op::{PdOpDialect, PdOpYamlDialect};
/// use pir_runtime::Dialect;
/// let n = PdOpYamlDialect::op_defs().len() + op_defs::manual::OPS.len();
/// assert_eq!(PdOpDialect::op_defs().len(), n);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PdOpDialect;

impl Dialect for PdOpDialect {
    const NAME: &'static str = "pd_op";

    fn op_defs() -> &'static [&'static OpDef] {
        // Both lists are static; joined once.
        static ALL: LazyLock<Vec<&'static OpDef>> = LazyLock::new(|| {
            let yaml = PdOpYamlDialect::op_defs().iter();
            yaml.chain(crate::manual::OPS).copied().collect()
        });
        &ALL
    }
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

/// A new context with the `pd_op` dialect registered ([`register`]): what a program built
/// from this crate's ops is created in.
///
/// ```
/// let ctx = op_defs::pd_op::context();
/// assert!(ctx.op_def("pd_op.relu").is_some());
/// assert!(ctx.op_def("pd_op.while").is_some());
/// ```
pub fn context() -> std::sync::Arc<IrContext> {
    let ctx = IrContext::new();
    // A fresh context holds no op yet, so no name can clash.
    register(&ctx).expect("the pd_op dialect registers in a fresh context");
    ctx
}
