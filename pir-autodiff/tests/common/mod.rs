//! Shared helpers: the reference data and a context with Paddle's full `pd_op` dialect.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use pir_runtime::{Dialect, IrContext};

/// `$PIR_PADDLE_REF`, or `None` with a notice (the test then passes without checking).
pub fn paddle_ref(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PIR_PADDLE_REF").map(PathBuf::from);
    if dir.is_none() || !cfg!(pir_paddle_yaml) {
        eprintln!(
            "notice: {test} skipped: set PIR_PADDLE_REF (Paddle's reference outputs) and build with \
             PIR_PADDLE_YAML (the full pd_op dialect) to run it"
        );
        return None;
    }
    dir
}

/// The dialect generated from Paddle's yaml, completed by the project's own `pd_op` ops it
/// lacks (`add`, `matmul`, ... from Paddle's static_ops.yaml).
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
    ctx
}

/// The first line where `a` and `b` differ, both sides shown.
pub fn first_diff(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  got:      {x}\n  expected: {y}", i + 1);
        }
    }
    format!(
        "line counts differ: got {}, expected {}",
        a.lines().count(),
        b.lines().count()
    )
}
