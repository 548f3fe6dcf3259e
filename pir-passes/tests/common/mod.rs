//! What the pair tests share: the reference folder and a context with the full `pd_op` dialect.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use pir_runtime::{Dialect, IrContext};

/// `$PIR_PADDLE_REF`, or `None` with a notice (the tests then pass without checking).
pub fn paddle_ref() -> Option<PathBuf> {
    let p = std::env::var_os("PIR_PADDLE_REF").map(PathBuf::from);
    if p.is_none() {
        eprintln!("notice: PIR_PADDLE_REF is not set; Paddle's pass pairs are not checked");
    }
    if !cfg!(pir_paddle_yaml) {
        eprintln!("notice: built without PIR_PADDLE_YAML; the full pd_op dialect is missing, pairs are not checked");
        return None;
    }
    p
}

/// The dialect generated from Paddle's yaml, completed by the project's own `pd_op` ops.
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

/// The text of `programs/passes/<name>`.
pub fn pair_file(root: &std::path::Path, name: &str) -> String {
    let p = root.join("programs/passes").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
