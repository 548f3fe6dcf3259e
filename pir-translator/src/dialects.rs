//! [`TargetDialects`]: what legacy ops translate into — the IR context, whose registered
//! dialects define the target ops, and the op_compat names of those ops.

use std::sync::Arc;

use pir_runtime::{IrContext, OpDef};

use crate::op_compat::OpCompatInfo;

/// The IR context whose registered dialects are the translation targets, and their op_compat
/// names. Handlers see it through [`OpContext::dialects`](crate::OpContext::dialects).
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// op_defs::pd_op::register(&ctx).unwrap();
/// let dialects = pir_translator::TargetDialects::new(ctx);
/// assert!(dialects.op_def("pd_op.relu").is_some());
/// assert_eq!(dialects.compat().op_name("reduce_mean"), "mean");
/// ```
#[derive(Debug)]
pub struct TargetDialects {
    ctx: Arc<IrContext>,
    compat: OpCompatInfo,
}

impl TargetDialects {
    /// The dialects registered in `ctx` (register them first: their op_compat names are read
    /// now).
    pub fn new(ctx: Arc<IrContext>) -> Self {
        let compat = OpCompatInfo::from_context(&ctx);
        TargetDialects { ctx, compat }
    }

    /// The context programs are created in.
    pub fn ctx(&self) -> &Arc<IrContext> {
        &self.ctx
    }

    /// The op_compat names.
    pub fn compat(&self) -> &OpCompatInfo {
        &self.compat
    }

    /// The op_compat names, mutably (to add names of ops registered after construction).
    pub fn compat_mut(&mut self) -> &mut OpCompatInfo {
        &mut self.compat
    }

    /// The registered op `name` (`pd_op.relu`).
    pub fn op_def(&self, name: &str) -> Option<&'static OpDef> {
        self.ctx.op_def(name)
    }
}
