//! Decoding errors: what was being read, where, and what was wrong.

use std::fmt;

/// Where in a program an error was found.
///
/// Displays as a path, e.g. ``block 0, op 3 (`batch_norm`), attribute 7 (`epsilon`)``.
///
/// ```
/// use pir_legacy::Location;
/// let at = Location::program().block(0).op(3, Some("relu"));
/// assert_eq!(at.to_string(), "block 0, op 3 (`relu`)");
/// assert_eq!(Location::program().to_string(), "program");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Index of the block (position in `ProgramDesc.blocks`).
    pub block: Option<usize>,
    /// Position of the variable in its block, and its name when known.
    pub var: Option<(usize, Option<String>)>,
    /// Position of the op in its block, and its type when known.
    pub op: Option<(usize, Option<String>)>,
    /// Position of the attribute in its op or variable, and its name when known.
    pub attr: Option<(usize, Option<String>)>,
    /// A sub-part that is neither of the above (e.g. `op_version_map pair 2`).
    pub detail: Option<String>,
}

impl Location {
    /// The whole program (no block known).
    pub fn program() -> Self {
        Location::default()
    }

    /// This location narrowed to block `block`.
    pub fn block(mut self, block: usize) -> Self {
        self.block = Some(block);
        self
    }

    /// This location narrowed to variable `index` (named `name` when known).
    pub fn var(mut self, index: usize, name: Option<&str>) -> Self {
        self.var = Some((index, name.map(str::to_owned)));
        self
    }

    /// This location narrowed to op `index` (of type `op_type` when known).
    pub fn op(mut self, index: usize, op_type: Option<&str>) -> Self {
        self.op = Some((index, op_type.map(str::to_owned)));
        self
    }

    /// This location narrowed to attribute `index` (named `name` when known).
    pub fn attr(mut self, index: usize, name: Option<&str>) -> Self {
        self.attr = Some((index, name.map(str::to_owned)));
        self
    }

    /// This location narrowed to a free-form sub-part.
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(b) = self.block {
            parts.push(format!("block {b}"));
        }
        let named = |kind: &str, (i, name): &(usize, Option<String>)| match name {
            Some(n) => format!("{kind} {i} (`{n}`)"),
            None => format!("{kind} {i}"),
        };
        if let Some(v) = &self.var {
            parts.push(named("var", v));
        }
        if let Some(o) = &self.op {
            parts.push(named("op", o));
        }
        if let Some(a) = &self.attr {
            parts.push(named("attribute", a));
        }
        if let Some(d) = &self.detail {
            parts.push(d.clone());
        }
        if parts.is_empty() {
            f.write_str("program")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// Why a `.pdmodel` could not be decoded into a valid legacy program.
///
/// Every variant carries the [`Location`] of the problem. Decoding never panics: truncated,
/// corrupt or inconsistent input always ends up here.
///
/// ```
/// // A block field whose length runs past the end of the data.
/// let err = pir_legacy::LegacyProgram::decode(&[0x0a, 0x05, 0x08]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "program: malformed `ProgramDesc` protobuf data: `ProgramDesc.blocks` (field 1): \
///      the data ends inside a value"
/// );
/// ```
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The protobuf wire data of a message is malformed (truncated, bad varint, wrong wire
    /// type, invalid UTF-8 in a string, ...).
    #[error("{at}: malformed `{message}` protobuf data: {source}")]
    Protobuf {
        /// Where.
        at: Box<Location>,
        /// The message being decoded (`ProgramDesc`, `BlockDesc`, `VarDesc`, `OpDesc`, ...).
        message: &'static str,
        /// What is wrong, and in which (possibly nested) field.
        #[source]
        source: WireError,
    },
    /// A proto2 `required` field is absent.
    #[error("{at}: required field `{message}.{field}` is missing")]
    MissingField {
        /// Where.
        at: Box<Location>,
        /// The message that lacks the field.
        message: &'static str,
        /// The field name.
        field: &'static str,
    },
    /// An enum-typed field holds a value the schema does not define.
    #[error("{at}: `{field}` has unknown value {value}")]
    UnknownEnumValue {
        /// Where.
        at: Box<Location>,
        /// `Message.field` of the enum field.
        field: &'static str,
        /// The raw value found.
        value: i32,
    },
    /// The program has no blocks at all (not even the global block 0).
    #[error("program has no blocks (a ProgramDesc needs at least the global block 0)")]
    NoBlocks,
    /// A block's `idx` differs from its position in `ProgramDesc.blocks`.
    #[error("{at}: block at position {position} declares idx {idx}")]
    BlockIndexMismatch {
        /// Where.
        at: Box<Location>,
        /// Position in `ProgramDesc.blocks`.
        position: usize,
        /// The `idx` field found.
        idx: i32,
    },
    /// A block reference (parent, forward block, `BLOCK`/`BLOCKS` attribute) is out of range or
    /// otherwise invalid.
    #[error("{at}: {field} {index} does not name a block (program has {num_blocks} blocks)")]
    BlockRefOutOfRange {
        /// Where.
        at: Box<Location>,
        /// What refers to the block (`parent_idx`, `forward_block_idx`, `block_idx`, ...).
        field: &'static str,
        /// The index found.
        index: i64,
        /// Number of blocks in the program.
        num_blocks: usize,
    },
    /// Following `parent_idx` links from a block never reaches a root block.
    #[error("{at}: parent chain is cyclic")]
    CyclicParents {
        /// Where (the block whose chain loops).
        at: Box<Location>,
    },
    /// An attribute's declared `type` does not match the value field(s) actually set.
    #[error("{at}: attribute declared as {declared} {problem}")]
    AttrTypeMismatch {
        /// Where.
        at: Box<Location>,
        /// The declared `AttrType` name (`INT`, `FLOATS`, ...).
        declared: &'static str,
        /// What is wrong, e.g. ``has no `i` value`` or ``also sets `f` (a FLOAT field)``.
        problem: String,
    },
    /// A variable attribute uses a type `VarDesc.Attr` cannot hold (only INT, STRING, INTS).
    #[error("{at}: variable attribute type {declared} is not supported (only INT, STRING, INTS)")]
    UnsupportedVarAttrType {
        /// Where.
        at: Box<Location>,
        /// The declared `AttrType` name.
        declared: &'static str,
    },
    /// A `TensorDesc.data_type` holds a variable-kind code instead of an element data type.
    #[error("{at}: tensor data_type {found} is not an element data type")]
    NotADataType {
        /// Where.
        at: Box<Location>,
        /// The `VarType.Type` name found.
        found: &'static str,
    },
    /// A name occurs twice where Paddle keeps a map and never writes duplicates (variables of a
    /// block, input/output parameters of an op, attributes of a variable). Repeated op
    /// attributes are legal (see [`LegacyOp::attrs`](crate::LegacyOp::attrs)).
    #[error("{at}: duplicate {what} `{name}`")]
    Duplicate {
        /// Where.
        at: Box<Location>,
        /// What kind of name (`variable`, `attribute`, `input parameter`, ...).
        what: &'static str,
        /// The repeated name.
        name: String,
    },
}

impl DecodeError {
    /// The error with its location replaced by `at` (validation builds errors without knowing
    /// where they are; the decoder places them).
    pub(crate) fn located(mut self, at: Location) -> Self {
        match &mut self {
            DecodeError::NoBlocks => {}
            DecodeError::Protobuf { at: old, .. }
            | DecodeError::MissingField { at: old, .. }
            | DecodeError::UnknownEnumValue { at: old, .. }
            | DecodeError::BlockIndexMismatch { at: old, .. }
            | DecodeError::BlockRefOutOfRange { at: old, .. }
            | DecodeError::CyclicParents { at: old }
            | DecodeError::AttrTypeMismatch { at: old, .. }
            | DecodeError::UnsupportedVarAttrType { at: old, .. }
            | DecodeError::NotADataType { at: old, .. }
            | DecodeError::Duplicate { at: old, .. } => **old = at,
        }
        self
    }
}

/// What is wrong with protobuf wire data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireProblem {
    /// The data ends inside a key, a value or a length-delimited field.
    #[error("the data ends inside a value")]
    Truncated,
    /// A varint has more than ten bytes, or its tenth byte sets bits above bit 63.
    #[error("a varint is longer than 10 bytes or overflows 64 bits")]
    VarintOverflow,
    /// A field key does not fit in 32 bits.
    #[error("a field key does not fit in 32 bits")]
    InvalidKey,
    /// A field key names field number 0.
    #[error("a field key names field number 0")]
    FieldZero,
    /// A field key has wire type 6 or 7.
    #[error("wire type {0} does not exist")]
    UnknownWireType(u8),
    /// A known field has a wire type its kind cannot have.
    #[error("wire type {found}, but the field is read as wire type {expected}")]
    WrongWireType {
        /// The wire type of the key.
        found: u8,
        /// The wire type of the field's kind (0 varint, 1 fixed64, 2 length-delimited, 5
        /// fixed32).
        expected: u8,
    },
    /// A string field is not UTF-8.
    #[error("a string is not valid UTF-8")]
    InvalidUtf8,
    /// An end-group tag with no matching start-group tag.
    #[error("an end-group tag does not close an open group")]
    UnexpectedEndGroup,
    /// Messages and groups nest deeper than protobuf's recursion limit (100).
    #[error("messages and groups nest deeper than 100 levels")]
    TooDeep,
}

/// Malformed protobuf wire data: the problem and the field (of the innermost message) it is
/// in.
///
/// ```
/// let err = pir_legacy::LegacyProgram::decode(&[0x0a, 0x02, 0x08, 0x80]).unwrap_err();
/// let pir_legacy::DecodeError::Protobuf { source, .. } = err else { panic!("{err}") };
/// assert_eq!(source.message(), "BlockDesc");
/// assert_eq!(source.field(), Some((1, "idx")));
/// assert_eq!(source.problem(), pir_legacy::WireProblem::Truncated);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireError {
    message: &'static str,
    field: Option<(u32, &'static str)>,
    problem: WireProblem,
}

impl WireError {
    /// A problem not yet placed in a message.
    pub(crate) fn new(problem: WireProblem) -> Self {
        WireError {
            message: "",
            field: None,
            problem,
        }
    }

    /// Places the problem in `message`, in field `field` (named `name`, empty when the
    /// message does not define it), unless an inner message already placed it.
    pub(crate) fn in_message(
        mut self,
        message: &'static str,
        field: Option<(u32, &'static str)>,
    ) -> Self {
        if self.message.is_empty() {
            self.message = message;
            self.field = field;
        }
        self
    }

    /// The message (`OpDesc.Attr`) whose wire data is malformed.
    pub fn message(&self) -> &'static str {
        self.message
    }

    /// The field being read, by number and name (the name is empty for a field the message
    /// does not define); `None` for a problem in a field key.
    pub fn field(&self) -> Option<(u32, &'static str)> {
        self.field
    }

    /// What is wrong.
    pub fn problem(&self) -> WireProblem {
        self.problem
    }
}

impl From<WireProblem> for WireError {
    fn from(problem: WireProblem) -> Self {
        WireError::new(problem)
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            Some((number, "")) => write!(f, "`{}` field {number}: ", self.message)?,
            Some((number, name)) => write!(f, "`{}.{name}` (field {number}): ", self.message)?,
            None => write!(f, "`{}`: ", self.message)?,
        }
        write!(f, "{}", self.problem)
    }
}

impl std::error::Error for WireError {}
