//! Why a backward pass could not be built.

use pir_runtime::{BuildError, IrError};
use pir_spec::vjp::VjpError;

/// Why `grad` / `append_backward` failed.
///
/// ```
/// use pir_autodiff::AutodiffError;
/// let e = AutodiffError::NoGradOp { op: "pd_op.foo (op 3 of block 0)".into() };
/// assert!(e.to_string().contains("has no grad op"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AutodiffError {
    /// Building a grad op failed (wrong arguments, infer-meta rejected them).
    #[error("while building the gradient of {op}: {source}")]
    Build {
        /// The forward op (`pd_op.relu (op 3 of block 0)`).
        op: String,
        /// What failed.
        #[source]
        source: BuildError,
    },
    /// The op's Vjp rule could not be derived from its schema.
    #[error("{op}: {source}")]
    Rule {
        /// The forward op.
        op: String,
        /// Why.
        #[source]
        source: VjpError,
    },
    /// A forward op on the path has operands but no Vjp (Paddle: "has no grad op").
    #[error("op {op} has no grad op (no VjpInterface)")]
    NoGradOp {
        /// The op.
        op: String,
    },
    /// An op the Vjp needs is not registered (`pd_op.full_like`, the grad op, ...).
    #[error("op `{0}` is not registered in the context")]
    MissingOp(String),
    /// A value given as an output or input is not defined by an op of the top-level block.
    #[error("{what} {value} is not the result of an op of the program's top-level block")]
    NotInBlock {
        /// `output` or `input`.
        what: &'static str,
        /// The value as printed (`%3`).
        value: String,
    },
    /// `grad_outputs` does not fit `outputs` (Paddle's `prepare_grad_outputs` checks).
    #[error("grad_outputs[{index}]: {message}")]
    GradOutput {
        /// The entry concerned.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// The forward ops form a cycle (inverse topological sort failed).
    #[error("the forward ops do not form a DAG; the inverse topological sort failed")]
    Cycle,
    /// A Vjp got values of the wrong shape (a vector where a tensor was expected, ...).
    #[error("{op}: {message}")]
    Invalid {
        /// The forward op.
        op: String,
        /// What is wrong.
        message: String,
    },
    /// An IR error while erasing or editing ops.
    #[error(transparent)]
    Ir(#[from] IrError),
}
