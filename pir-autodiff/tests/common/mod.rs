//! Shared helpers: the reference data and a context with Paddle's full `pd_op` dialect.

#![allow(dead_code)]

use std::path::PathBuf;

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
/// lacks.
pub use pir_paddle_corpus::context;

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
