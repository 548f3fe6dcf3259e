//! Errors of passes and of the pass manager.

use pir_runtime::{BuildError, IrError};

/// What went wrong while adding or running a pass.
///
/// ```
/// use pir_passes::{PassError, PassManager};
/// let mut pm = PassManager::new(2);
/// let err = pm.add_pass("no_such_pass", Default::default()).unwrap_err();
/// assert!(matches!(err, PassError::UnknownPass(_)));
/// assert_eq!(err.to_string(), "pass `no_such_pass` has not been registered (`pir opt --list` lists the passes)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PassError {
    /// No pass of this name is registered.
    #[error("pass `{0}` has not been registered (`pir opt --list` lists the passes)")]
    UnknownPass(String),
    /// An attribute the pass does not take, or of the wrong kind.
    #[error("pass `{pass}`: attribute `{attr}`: {problem}")]
    Attribute {
        /// The pass.
        pass: String,
        /// The attribute.
        attr: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The pass met an op it cannot handle.
    #[error("pass `{pass}`: {op}: {message}")]
    Op {
        /// The pass.
        pass: &'static str,
        /// The op and where it is (`pd_op.conv2d (op 8 of block 0)`).
        op: String,
        /// What is wrong.
        message: String,
    },
    /// An IR operation failed.
    #[error("pass `{pass}`: {source}")]
    Ir {
        /// The pass.
        pass: &'static str,
        /// The IR error.
        #[source]
        source: IrError,
    },
    /// Building a new op failed.
    #[error("pass `{pass}`: {source}")]
    Build {
        /// The pass.
        pass: &'static str,
        /// The build error.
        #[source]
        source: BuildError,
    },
}

impl PassError {
    /// An [`PassError::Op`] for `op` of `prog`.
    pub fn op(
        pass: &'static str,
        prog: &pir_runtime::Program,
        op: pir_runtime::OpId,
        message: impl Into<String>,
    ) -> PassError {
        PassError::Op {
            pass,
            op: prog.describe(op),
            message: message.into(),
        }
    }
}
