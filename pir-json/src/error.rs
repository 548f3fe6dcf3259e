//! Errors of reading a JSON program, located by a JSON path and, inside an operation, the op's
//! position and name.
//!
//! ```
//! let ctx = pir_runtime::IrContext::new();
//! let err = pir_json::read_program(&ctx, r##"{"base_code":{"magic":"pir","version":4}}"##).unwrap_err();
//! assert_eq!(err.to_string(), r##"at $: missing key "program" (expected the program object)"##);
//! ```

use std::fmt;

use pir_runtime::IrError;

/// The operation an error happened in.
///
/// ```
/// let ctx = pir_runtime::IrContext::new(); // no pd_op dialect: `1.relu` is unknown
/// let json = r##"{"base_code":{"magic":"pir","version":4},"program":{"regions":[{"#":"region_0",
///   "blocks":[{"#":"block_0","args":[],"ops":[{"#":"1.relu","I":[],"O":[],"A":[]}]}]}]}}"##;
/// let err = pir_json::read_program(&ctx, json).unwrap_err();
/// let op = err.location().unwrap().op.clone().unwrap();
/// assert_eq!((op.index, op.name.as_str()), (0, "1.relu"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpLocation {
    /// Position of the op in its block (0-based).
    pub index: usize,
    /// The op's `"#"` as written (`1.conv2d`, `p`).
    pub name: String,
}

/// Where in the document an error happened.
///
/// ```
/// use pir_json::error::{Location, OpLocation};
/// let at = Location {
///     path: "$.program.regions[0].blocks[0].ops[3].O[0].TT".into(),
///     op: Some(OpLocation { index: 3, name: "1.relu".into() }),
/// };
/// assert_eq!(at.to_string(), r##"op 3 ("1.relu") at $.program.regions[0].blocks[0].ops[3].O[0].TT"##);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// The JSON path from the document root: `$.program.regions[0].blocks[0].ops[3].A[1].AT`.
    pub path: String,
    /// The innermost operation being read, if any.
    pub op: Option<OpLocation>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(op) = &self.op {
            write!(f, "op {} ({:?}) ", op.index, op.name)?;
        }
        write!(f, "at {}", self.path)
    }
}

/// Why a JSON program could not be read.
///
/// Every variant but [`JsonError::Syntax`] and [`JsonError::UnsupportedVersion`] carries a
/// [`Location`]; the messages say what was expected and what was found.
///
/// ```
/// use pir_json::JsonError;
/// let ctx = pir_runtime::IrContext::new();
/// let err = pir_json::read_program(&ctx, r##"{"base_code":"##).unwrap_err();
/// assert!(matches!(err, JsonError::Syntax { line: 1, .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is not JSON (or is truncated, or nests deeper than 128 levels).
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A value of the wrong shape.
    #[error("{location}: expected {expected}, found {found}")]
    Unexpected {
        /// Where.
        location: Location,
        /// What the format requires there.
        expected: String,
        /// What the document holds (abbreviated).
        found: String,
    },
    /// A required key is absent.
    #[error("{location}: missing key {key:?} (expected {expected})")]
    MissingKey {
        /// The object missing the key.
        location: Location,
        /// The key.
        key: String,
        /// What the key should hold.
        expected: String,
    },
    /// The op's dialect id is not one of Paddle's (`0` builtin, `1` pd_op, `2` cf, `3`
    /// custom_op, `4` pd_dist) nor the name of a dialect registered in the context.
    #[error("{location}: unknown dialect `{dialect}` in {tag:?} (expected 0 builtin, 1 pd_op, 2 cf, 3 custom_op, 4 pd_dist, or a registered dialect's name)")]
    UnknownDialect {
        /// Where.
        location: Location,
        /// The dialect id or name.
        dialect: String,
        /// The whole tag.
        tag: String,
    },
    /// The op is not registered in the context.
    #[error("{location}: unknown op `{name}` (not registered in the context; is its dialect registered, and does the dialect have it?)")]
    UnknownOp {
        /// Where.
        location: Location,
        /// The full op name (`pd_op.conv2d`).
        name: String,
    },
    /// A type or attribute tag that Paddle 3.3.1 does not write.
    #[error("{location}: unknown {kind} tag {tag:?}")]
    UnknownTag {
        /// Where.
        location: Location,
        /// `type` or `attribute`.
        kind: &'static str,
        /// The tag (`0.t_f33`).
        tag: String,
    },
    /// An operand names a value id that no earlier result or block argument defines.
    #[error("{location}: value %{id} is not defined by an earlier op result or block argument")]
    UndefinedValue {
        /// Where.
        location: Location,
        /// The value id.
        id: i64,
    },
    /// A value id defined twice, or a definition using the reserved id 0.
    #[error("{location}: value id {id} {reason}")]
    BadValueId {
        /// Where.
        location: Location,
        /// The value id.
        id: i64,
        /// `is defined twice`, `is reserved for null values`.
        reason: &'static str,
    },
    /// Valid Paddle content that pir-rs's IR cannot hold (sparse and distributed types,
    /// keyword block arguments, custom-device places, null attributes, ...).
    #[error("{location}: {what} is not supported by pir-rs")]
    Unsupported {
        /// Where.
        location: Location,
        /// What.
        what: String,
    },
    /// A serialization version newer than the one this crate reads.
    #[error("unsupported PIR serialization version {found}: pir-json reads versions up to {supported} (Paddle 3.3.1)")]
    UnsupportedVersion {
        /// The file's `base_code.version`.
        found: u64,
        /// The newest version read.
        supported: u64,
    },
    /// The runtime refused to create the op.
    #[error("{location}: {source}")]
    Ir {
        /// Where.
        location: Location,
        /// The runtime's error.
        #[source]
        source: IrError,
    },
}

impl JsonError {
    /// The location of the error, if it has one.
    ///
    /// ```
    /// let ctx = pir_runtime::IrContext::new();
    /// let err = pir_json::read_program(&ctx, "[]").unwrap_err();
    /// assert_eq!(err.location().unwrap().path, "$");
    /// ```
    pub fn location(&self) -> Option<&Location> {
        match self {
            JsonError::Syntax { .. } | JsonError::UnsupportedVersion { .. } => None,
            JsonError::Unexpected { location, .. }
            | JsonError::MissingKey { location, .. }
            | JsonError::UnknownDialect { location, .. }
            | JsonError::UnknownOp { location, .. }
            | JsonError::UnknownTag { location, .. }
            | JsonError::UndefinedValue { location, .. }
            | JsonError::BadValueId { location, .. }
            | JsonError::Unsupported { location, .. }
            | JsonError::Ir { location, .. } => Some(location),
        }
    }

    fn location_mut(&mut self) -> Option<&mut Location> {
        match self {
            JsonError::Syntax { .. } | JsonError::UnsupportedVersion { .. } => None,
            JsonError::Unexpected { location, .. }
            | JsonError::MissingKey { location, .. }
            | JsonError::UnknownDialect { location, .. }
            | JsonError::UnknownOp { location, .. }
            | JsonError::UnknownTag { location, .. }
            | JsonError::UndefinedValue { location, .. }
            | JsonError::BadValueId { location, .. }
            | JsonError::Unsupported { location, .. }
            | JsonError::Ir { location, .. } => Some(location),
        }
    }

    /// Records the op the error happened in, unless an inner op was recorded already.
    pub(crate) fn in_op(mut self, index: usize, name: &str) -> JsonError {
        if let Some(loc) = self.location_mut() {
            if loc.op.is_none() {
                loc.op = Some(OpLocation {
                    index,
                    name: name.to_string(),
                });
            }
        }
        self
    }

    pub(crate) fn from_serde(e: &serde_json::Error) -> JsonError {
        // serde_json's message ends with " at line L column C"; keep only the reason.
        let full = e.to_string();
        let message = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        JsonError::Syntax {
            line: e.line(),
            column: e.column(),
            message,
        }
    }
}
