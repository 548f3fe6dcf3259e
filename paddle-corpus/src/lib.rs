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
