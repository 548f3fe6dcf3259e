//! The `pd_op` dialect generated from Paddle's own yaml: every generator file present in
//! `$PIR_PADDLE_YAML` (`pir_spec::yaml::folder::GENERATOR_FILES`: ops, backward, fused,
//! inconsistent/static and update, sparse) and its op_compat.yaml, read the way the `pir` CLI
//! reads the folder.
//!
//! Result types of typed builds come from the project's infer-meta functions
//! (`op_defs::infer_meta::REGISTRY`). Without `PIR_PADDLE_YAML` at build time the crate is empty
//! and its tests print a notice.
//!
//! The classes are generated in four crates (`pir-paddle-corpus-part1` to `part4`, each
//! `define_ops_from_yaml!` with `part = "K/4"`), which cargo compiles in parallel; this crate
//! re-exports them and defines `PdOpDialect` (`part = "dialect"`).

#[cfg(pir_paddle_yaml)]
#[allow(missing_docs)]
mod generated {
    pub use pir_paddle_corpus_part1::*;
    pub use pir_paddle_corpus_part2::*;
    pub use pir_paddle_corpus_part3::*;
    pub use pir_paddle_corpus_part4::*;
    pir_macros::define_ops_from_yaml! {
        dialect = "pd_op",
        folder = "${PIR_PADDLE_YAML}",
        infer_meta = op_defs::infer_meta::REGISTRY,
        part = "dialect",
    }
}

#[cfg(pir_paddle_yaml)]
pub use generated::*;

/// Whether the dialect was generated (PIR_PADDLE_YAML was set at build time).
pub const GENERATED: bool = cfg!(pir_paddle_yaml);

/// A new context with the dialect generated from Paddle's yaml (when it was built), completed
/// by the project's own `pd_op` ops it lacks (`ops-yaml/` and the hand-written ones) and the
/// control-flow ops: what the tests against Paddle's reference outputs read programs into.
///
/// The generated classes come first, so an op both define is checked as Paddle's yaml has it.
///
/// ```
/// let ctx = pir_paddle_corpus::context();
/// assert!(ctx.op_def("pd_op.relu").is_some());
/// assert!(ctx.op_def("pd_op.if").is_some());
/// ```
pub fn context() -> std::sync::Arc<pir_runtime::IrContext> {
    use pir_runtime::Dialect;
    let ctx = pir_runtime::IrContext::new();
    #[cfg(pir_paddle_yaml)]
    ctx.register_ops("pd_op", PdOpDialect::op_defs())
        .expect("the corpus dialect registers in a fresh context");
    for def in op_defs::pd_op::PdOpDialect::op_defs() {
        if ctx.op_def(def.name).is_none() {
            ctx.register_ops("pd_op", &[def])
                .expect("an op the corpus lacks registers");
        }
    }
    op_defs::control_flow::register(&ctx).expect("the control-flow ops register");
    ctx
}
