//! Decoding errors: what was being read, where, and what was wrong.

use std::fmt;

/// Where in a program an error was found.
///
/// Displays as a path, e.g. ``block 0, op 3 (`batch_norm`), attribute 7 (`epsilon`)``.
///
/// ```
/// use pir_translator::Location;
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
/// let err = pir_translator::decode_program(&[0x0a, 0x05, 0x08]).unwrap_err();
/// assert!(err.to_string().contains("ProgramDesc"), "{err}");
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
        /// prost's description, including the field path inside `message`.
        #[source]
        source: prost::DecodeError,
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
    /// A tensor dimension is smaller than `-1` (the only negative value, meaning "unknown").
    #[error("{at}: tensor dimension {index} is {dim} (must be >= -1)")]
    InvalidDim {
        /// Where.
        at: Box<Location>,
        /// Position of the dimension.
        index: usize,
        /// Its value.
        dim: i64,
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
