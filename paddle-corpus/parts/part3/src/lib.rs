//! Part 3 of 4 of the `pd_op` dialect generated from Paddle's yaml in `$PIR_PADDLE_YAML`:
//! the classes `define_ops_from_yaml!`'s `part = "3/4"` selects. The dialect is split so that
//! cargo type-checks the parts in parallel; use it through `pir-paddle-corpus`, which
//! re-exports every part and defines `PdOpDialect`. Empty without `PIR_PADDLE_YAML`.

#[cfg(pir_paddle_yaml)]
#[allow(missing_docs)]
mod generated {
    pir_macros::define_ops_from_yaml! {
        dialect = "pd_op",
        folder = "${PIR_PADDLE_YAML}",
        infer_meta = op_defs::infer_meta::REGISTRY,
        part = "3/4",
    }
}

#[cfg(pir_paddle_yaml)]
pub use generated::*;
