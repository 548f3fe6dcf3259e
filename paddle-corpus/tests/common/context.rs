//! The context the corpus's program tests read into (`#[path]` from `control_flow.rs` and
//! `text_round_trip.rs`).

use std::sync::Arc;

use pir_runtime::{Dialect, IrContext};

/// The generated corpus dialect (if built), then the project's own ops it does not have, and
/// the control-flow ops.
pub fn context() -> Arc<IrContext> {
    let ctx = IrContext::new();
    #[cfg(pir_paddle_yaml)]
    ctx.register_ops("pd_op", pir_paddle_corpus::PdOpDialect::op_defs())
        .expect("the corpus dialect registers");
    for def in op_defs::pd_op::PdOpDialect::op_defs() {
        if ctx.op_def(def.name).is_none() {
            ctx.register_ops("pd_op", &[def])
                .expect("a missing op registers");
        }
    }
    op_defs::control_flow::register(&ctx).expect("the control-flow ops register");
    ctx
}
