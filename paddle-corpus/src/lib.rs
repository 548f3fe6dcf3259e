//! The `pd_op` dialect generated from Paddle's own yaml (`$PIR_PADDLE_YAML/{ops,backward,op_compat}.yaml`).
//!
//! Result types of typed builds come from the project's infer-meta functions
//! (`op_defs::infer_meta::REGISTRY`). Without `PIR_PADDLE_YAML` at build time the crate is empty
//! and its tests print a notice.

#[cfg(pir_paddle_yaml)]
#[allow(missing_docs)]
mod generated {
    pir_macros::define_ops_from_yaml! {
        dialect = "pd_op",
        ops = ["${PIR_PADDLE_YAML}/ops.yaml", "${PIR_PADDLE_YAML}/backward.yaml"],
        compat = "${PIR_PADDLE_YAML}/op_compat.yaml",
        infer_meta = op_defs::infer_meta::REGISTRY,
    }
}

#[cfg(pir_paddle_yaml)]
pub use generated::*;

/// Whether the dialect was generated (PIR_PADDLE_YAML was set at build time).
pub const GENERATED: bool = cfg!(pir_paddle_yaml);
