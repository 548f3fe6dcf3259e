//! Error types of the runtime.

use std::fmt;

/// An invalid IR mutation (erasing a used op, a stale handle, an unregistered op name, ...).
///
/// ```
/// use pir_runtime::{builtin, Builder, IrContext, IrError, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
/// let op = prog.defining_op(x).unwrap();
/// let err = prog.set_operand(op, 0, None).unwrap_err();
/// assert_eq!(err.to_string(),
///     "builtin.parameter (op 0 of block 0): operand index 0 is out of range (the op has 0)");
/// prog.erase_op(op).unwrap();
/// assert!(matches!(prog.erase_op(op), Err(IrError::Erased(_)))); // a stale handle
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IrError {
    /// Erasing an op whose results are still used.
    #[error("cannot erase {op}: its result {index} still has {uses} use(s), the first by {user}")]
    ResultInUse {
        /// The op being erased (`pd_op.relu` and its position).
        op: String,
        /// Result index.
        index: usize,
        /// How many uses remain.
        uses: usize,
        /// The first user.
        user: String,
    },
    /// The op name is not registered in the context.
    #[error("op `{0}` is not registered in this context (is its dialect registered?)")]
    UnknownOp(String),
    /// An operand, result or region index out of range.
    #[error("{op}: {what} index {index} is out of range (the op has {count})")]
    IndexOutOfRange {
        /// The op.
        op: String,
        /// `operand`, `result` or `region`.
        what: &'static str,
        /// The index asked for.
        index: usize,
        /// How many there are.
        count: usize,
    },
    /// A handle to something that was erased.
    #[error("{0} was erased")]
    Erased(String),
    /// An op is already in a block.
    #[error("{0} is already in a block; detach it first")]
    AlreadyInBlock(String),
    /// An op is not in a block.
    #[error("{0} is not in a block")]
    NotInBlock(String),
    /// An insertion point inside the op being inserted.
    #[error("cannot insert {0} relative to itself")]
    SelfInsert(String),
    /// An invalid request (e.g. `builtin.split` of a non-vector value).
    #[error("{0}")]
    Invalid(String),
    /// Two dialects register the same op name with different definitions.
    #[error("op `{0}` is already registered with a different definition")]
    DuplicateOp(String),
    /// An op registered under a dialect whose name is not its prefix.
    #[error("op `{op}` cannot be registered in dialect `{dialect}`: its name must start with `{dialect}.`")]
    WrongDialect {
        /// Op name.
        op: String,
        /// Dialect name.
        dialect: String,
    },
}

/// One verification failure: the op, where it is, and what is wrong.
///
/// ```
/// use pir_runtime::{builtin, verify_op, Builder, IrContext, Program, VerifyError, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// let op = b.create_with(&builtin::PARAMETER_DEF, &[], ctx.empty_dict(), &[Some(t)], 0).unwrap();
/// let err: VerifyError = verify_op(&prog, op).unwrap_err();
/// assert_eq!((err.op.as_str(), err.location.as_str()), ("builtin.parameter", "op 0 of block 0"));
/// assert_eq!(err.to_string(), "builtin.parameter (op 0 of block 0): \
///     attribute `parameter_name` is missing (expected pir::StrAttribute)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{op} ({location}): {message}")]
pub struct VerifyError {
    /// The op's name.
    pub op: String,
    /// Where it is: `op 3 of block 0` (nested blocks add ` in region R of op N ...`).
    pub location: String,
    /// What is wrong: the operand, result or attribute by name and index, expected vs found.
    pub message: String,
}

/// Every verification failure of a program.
///
/// ```
/// use pir_runtime::{builtin, verify, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// b.create_with(&builtin::PARAMETER_DEF, &[], ctx.empty_dict(), &[Some(t)], 0).unwrap();
/// b.create_with(&builtin::SHADOW_OUTPUT_DEF, &[None], ctx.empty_dict(), &[], 0).unwrap();
/// let errs = verify(&prog).unwrap_err();
/// assert_eq!(errs.0.len(), 2);
/// assert_eq!(errs.to_string(), "2 verification errors\n  \
///     builtin.parameter (op 0 of block 0): attribute `parameter_name` is missing (expected pir::StrAttribute)\n  \
///     builtin.shadow_output (op 1 of block 0): operand 0 is null");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(f, "{n} verification error{}", if n == 1 { "" } else { "s" })?;
        for e in &self.0 {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

/// Why building an op failed.
///
/// ```
/// use pir_runtime::{builtin, op_support, BuildError, Builder, IrContext, IrError, Program};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// // Typed builds need a generated op's schema; builtin ops have none.
/// let err = op_support::build_with_attributes(&mut b, &builtin::COMBINE_DEF, &[], ctx.empty_dict())
///     .unwrap_err();
/// assert!(matches!(err, BuildError::Invalid { .. }));
/// assert_eq!(err.to_string(), "builtin.combine: the op has no schema \
///     (it was not generated by #[pir_op] or define_ops_from_yaml!)");
/// // IR errors convert into build errors and keep their message:
/// let ir: BuildError = IrError::UnknownOp("pd_op.relu".into()).into();
/// assert!(ir.to_string().starts_with("op `pd_op.relu` is not registered"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Wrong arguments (operand count, attribute kind, missing attribute, ...).
    #[error("{op}: {message}")]
    Invalid {
        /// The op.
        op: String,
        /// What is wrong.
        message: String,
    },
    /// The op's infer-meta function exists in Paddle but not here yet.
    #[error("{op}: infer-meta function `{func}` is not implemented; build it with explicit result types instead")]
    InferMetaMissing {
        /// The op.
        op: String,
        /// The function's name.
        func: String,
    },
    /// The op has no way to infer result types.
    #[error(
        "{op}: the op has no InferMeta/InferShape interface; build it with explicit result types"
    )]
    NoInference {
        /// The op.
        op: String,
    },
    /// The infer-meta function rejected the inputs.
    #[error("{op} ({func}): {message}")]
    InferMeta {
        /// The op.
        op: String,
        /// The function.
        func: String,
        /// Its message.
        message: String,
    },
    /// An IR error while inserting.
    #[error(transparent)]
    Ir(#[from] IrError),
}
