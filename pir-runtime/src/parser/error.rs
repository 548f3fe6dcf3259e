//! Parse errors: where (line and column), in which op, and what was expected versus found.

use std::fmt;

use crate::error::IrError;

/// A parse error: the position (1-based line and column, columns counted in characters), the
/// op being read when it happened, and what is wrong.
///
/// ```
/// use pir_runtime::{parser, IrContext};
/// let ctx = IrContext::new();
/// let text = "{\n    (%0) = \"builtin.nope\" () {} : () -> \n}\n";
/// let err = parser::parse_program(&ctx, text).unwrap_err();
/// assert_eq!((err.line, err.column), (2, 13));
/// assert_eq!(err.to_string(),
///     "2:13: op `builtin.nope`: unknown op `builtin.nope` (is its dialect registered?)");
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The op being read (its name as written, or where its line starts if the name was not
    /// read yet); `None` outside ops.
    pub op: Option<String>,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.line, self.column)?;
        if let Some(op) = &self.op {
            write!(f, "op {op}: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

/// What went wrong while parsing.
///
/// ```
/// use pir_runtime::parser::{ParseErrorKind, parse_program};
/// let ctx = pir_runtime::IrContext::new();
/// let err = parse_program(&ctx, "{\n    () = \"builtin.shadow_output\" (%7) {output_name:\"y\"} : (tensor<f32>) -> \n}").unwrap_err();
/// assert_eq!(err.kind, ParseErrorKind::UndefinedValue { name: "%7".into() });
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParseErrorKind {
    /// A token other than the one the grammar needs here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar needs.
        expected: String,
        /// What is there.
        found: String,
    },
    /// The op name is not registered in the context.
    #[error("unknown op `{name}` (is its dialect registered?)")]
    UnknownOp {
        /// The name as written.
        name: String,
    },
    /// An operand names a value no earlier op result or block argument in scope defines.
    #[error("value `{name}` is not defined by an earlier op result or block argument in scope")]
    UndefinedValue {
        /// `%name`.
        name: String,
    },
    /// A result or block argument reuses a name already in scope.
    #[error("value `{name}` is already defined (at {first_line}:{first_column})")]
    RedefinedValue {
        /// `%name`.
        name: String,
        /// Line of the first definition.
        first_line: usize,
        /// Column of the first definition.
        first_column: usize,
    },
    /// The number of operands differs from the op's inputs.
    #[error("expected {expected} operand(s) ({inputs}), found {found}")]
    OperandCount {
        /// How many inputs the op's definition has.
        expected: usize,
        /// Their names.
        inputs: String,
        /// How many operands were written.
        found: usize,
    },
    /// The number of results differs from the op's outputs.
    #[error("expected {expected} result(s) ({outputs}), found {found}")]
    ResultCount {
        /// How many outputs the op's definition has.
        expected: usize,
        /// Their names.
        outputs: String,
        /// How many results were written.
        found: usize,
    },
    /// The operand-type list has another length than the operand list.
    #[error("{operands} operand(s) but {types} operand type(s)")]
    OperandTypeCount {
        /// Operands written.
        operands: usize,
        /// Types written.
        types: usize,
    },
    /// The result-type list has another length than the result list.
    #[error("{results} result(s) but {types} result type(s)")]
    ResultTypeCount {
        /// Results written.
        results: usize,
        /// Types written.
        types: usize,
    },
    /// An operand's written type differs from its value's type.
    #[error(
        "operand {index} (`{value}`) has type {actual}, but the op's type list says {written}"
    )]
    OperandTypeMismatch {
        /// Operand index.
        index: usize,
        /// `%name` or `<<NULL VALUE>>`.
        value: String,
        /// The value's type.
        actual: String,
        /// The type written in the op's operand-type list.
        written: String,
    },
    /// A type name nothing registered knows (`tensor2<...>`, `foo`).
    #[error("unknown type `{name}`")]
    UnknownType {
        /// The name as written.
        name: String,
    },
    /// An element type suffix that is not a data type (`tensor<2xf33>`).
    #[error("unknown element type `{name}` (expected f32, i64, b, bf16, ...)")]
    UnknownDataType {
        /// The suffix as written.
        name: String,
    },
    /// An attribute value of a syntax no attribute kind has (`axis:@`).
    #[error("attribute `{name}`: expected {expected}, found {found}")]
    BadAttribute {
        /// The attribute's name.
        name: String,
        /// What was expected.
        expected: String,
        /// What is there.
        found: String,
    },
    /// The same attribute name twice in one dictionary.
    #[error("attribute `{name}` is given twice")]
    DuplicateAttribute {
        /// The name.
        name: String,
    },
    /// A number that does not fit its type.
    #[error("`{text}` does not fit in {what}")]
    OutOfRange {
        /// The number as written.
        text: String,
        /// The type it had to fit.
        what: &'static str,
    },
    /// A `"` without its closing quote.
    #[error("unterminated string (no closing `\"`)")]
    UnterminatedString,
    /// A `{` without its closing `}`.
    #[error("`{{` opened here is never closed")]
    UnclosedBrace,
    /// Types or attributes nested deeper than the parser allows.
    #[error("nested deeper than {limit} levels")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// A block-argument list (`^%arg_0 {...}, ...`) anywhere but at the start of a block.
    #[error("block arguments (`^...`) must come first in a block")]
    MisplacedBlockArgs,
    /// Text after the program's closing `}`.
    #[error("unexpected {found} after the end of the program")]
    TrailingInput {
        /// What follows.
        found: String,
    },
    /// A registered [`OpHook`](super::OpHook) rejected the op.
    #[error("{message}")]
    Rejected {
        /// The hook's message.
        message: String,
    },
    /// Creating the op failed (an IR invariant the text breaks).
    #[error(transparent)]
    Ir(#[from] IrError),
}

impl ParseError {
    /// An error of `kind` at byte `pos` of `text`.
    ///
    /// ```
    /// use pir_runtime::parser::{ParseError, ParseErrorKind};
    /// let e = ParseError::at("ab\ncd", 4, ParseErrorKind::UnterminatedString);
    /// assert_eq!((e.line, e.column), (2, 2));
    /// ```
    pub fn at(text: &str, pos: usize, kind: ParseErrorKind) -> ParseError {
        let (line, column) = line_column(text, pos);
        ParseError {
            line,
            column,
            op: None,
            kind,
        }
    }

    /// The same error, reported inside op `op` unless an op is already named.
    pub(crate) fn in_op(mut self, op: impl FnOnce() -> String) -> ParseError {
        if self.op.is_none() {
            self.op = Some(op());
        }
        self
    }

    /// The message without the position (`op ...: what`), for callers that print the position
    /// their own way (`file:line:column: message`).
    ///
    /// ```
    /// use pir_runtime::parser::{ParseError, ParseErrorKind};
    /// let e = ParseError::at("x", 0, ParseErrorKind::UnterminatedString);
    /// assert_eq!(e.message(), "unterminated string (no closing `\"`)");
    /// ```
    pub fn message(&self) -> String {
        match &self.op {
            Some(op) => format!("op {op}: {}", self.kind),
            None => self.kind.to_string(),
        }
    }
}

/// The 1-based line and column (in characters) of byte `pos`.
pub(crate) fn line_column(text: &str, pos: usize) -> (usize, usize) {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &text[..pos];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..pos].chars().count() + 1;
    (line, column)
}
