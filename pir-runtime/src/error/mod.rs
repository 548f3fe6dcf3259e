//! Error types of the runtime: [`IrError`] (an invalid IR mutation), [`VerifyError`] (what the
//! verifier found, with a [`VerifyErrorKind`] to match on), [`BuildError`] (why building an op
//! failed, with a [`BuildErrorKind`]).
//!
//! Errors carry what a pass or a tool matches on (the op's [`OpId`](crate::OpId), operand and
//! attribute indices and names, expected and found kinds, type handles) and print the message
//! from it. They hold no reference to the program or the context: types are kept with their
//! printed form ([`PrintedType`]), and nothing is formatted unless verification or a build
//! actually fails.
//!
//! ```
//! use pir_runtime::{builtin, verify, Builder, IrContext, Program, Slot, VerifyErrorKind};
//! use pir_runtime::phi::DataType;
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
//! let v = builtin::combine(&mut b, &[x]).unwrap();
//! let wrong = ctx.dense_tensor_type(DataType::Int64, &[2]);
//! let idx = ctx.i32_attr(0);
//! let slice = b.create_by_name("builtin.slice", &[Some(v)], &[("index", idx)], &[Some(wrong)]).unwrap();
//! let err = &verify(&prog).unwrap_err().0[0];
//! assert_eq!(err.op, slice);
//! match &*err.kind {
//!     VerifyErrorKind::ElementType { value: Slot::Result(0), found, .. } => assert_eq!(found.ty, Some(wrong)),
//!     other => panic!("{other}"),
//! }
//! ```

mod build;
mod verify;

use std::fmt;

use crate::context::IrContext;
use crate::types::{Type, TypeDisplay};

pub use build::{BuildError, BuildErrorKind, InferOutputError};
pub use verify::{VerifyError, VerifyErrorKind, VerifyErrors};

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
    /// A handle (op, value, block, region) of another program, or a type or attribute of
    /// another context, given to a program: it is never bound to whatever this program holds
    /// at the same index.
    #[error("{0}")]
    Foreign(String),
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

/// A type named in an error: its handle (to match on, in the program's context) and how it
/// prints, so that the error prints without the context. `ty: None` is a null type.
///
/// ```
/// use pir_runtime::{IrContext, PrintedType, phi::DataType};
/// let ctx = IrContext::new();
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let p = PrintedType::new(&ctx, Some(t));
/// assert_eq!((p.ty, p.to_string()), (Some(t), "tensor<2xf32>".to_string()));
/// assert_eq!(PrintedType::new(&ctx, None).text, "<<NULL TYPE>>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PrintedType {
    /// The type's handle; `None` for a null type.
    pub ty: Option<Type>,
    /// The type as the printer writes it (`tensor<2xf32>`, `<<NULL TYPE>>`).
    pub text: String,
}

impl PrintedType {
    /// `ty` and its printed form.
    ///
    /// ```
    /// use pir_runtime::{IrContext, PrintedType, phi::DataType};
    /// let ctx = IrContext::new();
    /// let v = ctx.vector_type(&[ctx.scalar_type(DataType::Int64)]);
    /// assert_eq!(PrintedType::new(&ctx, Some(v)).text, "vec[i64]");
    /// ```
    #[cold]
    pub fn new(ctx: &IrContext, ty: Option<Type>) -> PrintedType {
        PrintedType {
            ty,
            text: TypeDisplay { ctx, ty }.to_string(),
        }
    }
}

impl fmt::Display for PrintedType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// An operand or a result of an op, by index.
///
/// ```
/// use pir_runtime::Slot;
/// assert_eq!(Slot::Operand(1).to_string(), "operand 1");
/// assert_eq!(Slot::Result(0).to_string(), "result 0");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Operand `i`.
    Operand(usize),
    /// Result `i`.
    Result(usize),
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Operand(i) => write!(f, "operand {i}"),
            Slot::Result(i) => write!(f, "result {i}"),
        }
    }
}
