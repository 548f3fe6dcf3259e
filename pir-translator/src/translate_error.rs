//! [`TranslateError`]: why a legacy program could not be translated, located in the legacy
//! program (block, op index and type, attribute).

use pir_legacy::{DecodeError, Location};

use crate::unknown_ops::UnknownOpReport;

fn names(list: &[String]) -> String {
    list.iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a translation failed. Every variant that concerns one op carries its [`Location`]
/// (``block 0, op 3 (`relu`)``, narrowed to the attribute where one is at fault).
///
/// ```
/// use pir_translator::{Location, TranslateError};
/// let e = TranslateError::UnknownOp {
///     at: Box::new(Location::program().block(0).op(3, Some("foo"))),
///     op_type: "foo".into(),
///     missing: vec!["pd_op.foo".into()],
/// };
/// assert_eq!(
///     e.to_string(),
///     "block 0, op 3 (`foo`): cannot translate op type `foo`: no special handler is registered \
///      for it and no registered dialect defines `pd_op.foo`"
/// );
/// ```
#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    /// The `.pdmodel` bytes are not a valid program.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// No special handler is registered for the op type and the op its op_compat name maps to
    /// is not registered.
    #[error(
        "{at}: cannot translate op type `{op_type}`: no special handler is registered for it and \
         no registered dialect defines {}",
        names(missing)
    )]
    UnknownOp {
        /// Where.
        at: Box<Location>,
        /// The legacy op type.
        op_type: String,
        /// The ops looked for (`pd_op.foo`).
        missing: Vec<String>,
    },
    /// A special handler exists but the ops it translates to are not registered.
    #[error(
        "{at}: op `{op_type}` needs {}, which this dialect does not define",
        names(missing)
    )]
    MissingOps {
        /// Where.
        at: Box<Location>,
        /// The legacy op type.
        op_type: String,
        /// The ops the handler needs that are not registered.
        missing: Vec<String>,
    },
    /// Every op of the program that cannot be translated (the `report_unknown` option).
    #[error("{0}")]
    UnknownOps(UnknownOpReport),
    /// Something this translator does not handle (control flow, `@EMPTY@` vector elements,
    /// custom places, ...).
    #[error("{at}: {what} is not supported by this translator")]
    Unsupported {
        /// Where.
        at: Box<Location>,
        /// What.
        what: String,
    },
    /// An op reads a variable that no earlier op defines and that is not an external input.
    #[error(
        "{at}: {param} `{var}` is neither defined by an earlier op nor a parameter or external \
         input of the block"
    )]
    UndefinedVariable {
        /// Where.
        at: Box<Location>,
        /// How the op refers to it (``input `X` ``).
        param: String,
        /// The variable.
        var: String,
    },
    /// An op names a variable the block (and its parents) does not declare.
    #[error("{at}: variable `{var}` is not declared in the block or its parents")]
    UndeclaredVariable {
        /// Where.
        at: Box<Location>,
        /// The variable.
        var: String,
    },
    /// A variable cannot be used as the op needs it (no IR type, wrong kind, ...).
    #[error("{at}: variable `{var}`: {problem}")]
    Variable {
        /// Where.
        at: Box<Location>,
        /// The variable.
        var: String,
        /// What is wrong.
        problem: String,
    },
    /// A required input of the target op has no argument in the legacy op.
    #[error(
        "{at}: input `{input}` of `{op}` is required, but the legacy op gives no argument for \
         `{legacy}`"
    )]
    MissingInput {
        /// Where.
        at: Box<Location>,
        /// The target op (`pd_op.conv2d`).
        op: String,
        /// The input's PIR name.
        input: String,
        /// The legacy parameter looked at.
        legacy: String,
    },
    /// An input's arguments do not fit the target op's input.
    #[error("{at}: input `{input}` of `{op}` (legacy `{legacy}`): {problem}")]
    Input {
        /// Where.
        at: Box<Location>,
        /// The target op.
        op: String,
        /// The input's PIR name.
        input: String,
        /// The legacy parameter.
        legacy: String,
        /// What is wrong.
        problem: String,
    },
    /// A required output of the target op has no legacy parameter.
    #[error(
        "{at}: output `{output}` of `{op}` is not optional, but the legacy op has no `{legacy}` \
         output"
    )]
    MissingOutput {
        /// Where.
        at: Box<Location>,
        /// The target op.
        op: String,
        /// The output's PIR name.
        output: String,
        /// The legacy parameter looked for.
        legacy: String,
    },
    /// A legacy attribute is missing, of the wrong type, or cannot be translated.
    #[error("{at}: attribute `{name}` of `{op}` (legacy `{legacy}`): {problem}")]
    Attribute {
        /// Where (narrowed to the legacy attribute when the op has it).
        at: Box<Location>,
        /// The target op.
        op: String,
        /// The attribute's PIR name.
        name: String,
        /// The legacy attribute name.
        legacy: String,
        /// What is wrong.
        problem: String,
    },
    /// Building a helper op (with inferred result types) failed.
    #[error("{at}: {source}")]
    Build {
        /// Where.
        at: Box<Location>,
        /// The builder's error.
        source: pir_runtime::BuildError,
    },
    /// An IR mutation failed.
    #[error("{at}: {source}")]
    Ir {
        /// Where.
        at: Box<Location>,
        /// The IR error.
        source: pir_runtime::IrError,
    },
    /// The translated program does not verify: the legacy program describes what no Paddle
    /// program holds (a declared dim below -1 on a fed variable, a tensor whose size does not
    /// fit in an int64, an output variable without a tensor type, ...). Each problem names the
    /// PIR op, its place, and the legacy variables bound to the op's results.
    #[error(
        "the legacy program describes what Paddle never writes; the translated program does \
         not verify:\n{}",
        problems.join("\n")
    )]
    NotVerified {
        /// One line per verification error.
        problems: Vec<String>,
    },
    /// A handler-specific problem.
    #[error("{at}: {message}")]
    Invalid {
        /// Where.
        at: Box<Location>,
        /// What is wrong.
        message: String,
    },
}

impl TranslateError {
    /// The location of the problem, when it concerns one place of the program.
    pub fn location(&self) -> Option<&Location> {
        match self {
            TranslateError::Decode(_)
            | TranslateError::UnknownOps(_)
            | TranslateError::NotVerified { .. } => None,
            TranslateError::UnknownOp { at, .. }
            | TranslateError::MissingOps { at, .. }
            | TranslateError::Unsupported { at, .. }
            | TranslateError::UndefinedVariable { at, .. }
            | TranslateError::UndeclaredVariable { at, .. }
            | TranslateError::Variable { at, .. }
            | TranslateError::MissingInput { at, .. }
            | TranslateError::Input { at, .. }
            | TranslateError::MissingOutput { at, .. }
            | TranslateError::Attribute { at, .. }
            | TranslateError::Build { at, .. }
            | TranslateError::Ir { at, .. }
            | TranslateError::Invalid { at, .. } => Some(at),
        }
    }
}
