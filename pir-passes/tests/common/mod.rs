//! What the pair tests share: the reference folder and a context with the full `pd_op` dialect.

#![allow(dead_code)]

use std::path::PathBuf;

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
pub use pir_paddle_corpus::context;

/// The text of `programs/passes/<name>`.
pub fn pair_file(root: &std::path::Path, name: &str) -> String {
    let p = root.join("programs/passes").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
