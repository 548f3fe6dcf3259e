//! Errors of the yaml front end: every one names `file:line`, the op (when known) and what was
//! expected.

use std::fmt;

/// What kind of problem a [`SpecError`] reports (for tools that group or filter errors).
///
/// ```
/// use pir_spec::yaml::{load_op_set, SpecErrorKind, YamlSource};
/// let text = "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  colour : red\n";
/// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
/// assert_eq!(errs.errors()[0].kind, SpecErrorKind::UnknownKey);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpecErrorKind {
    /// The text is not valid yaml, or not the expected shape (a list of maps, ...).
    Syntax,
    /// A key Paddle's generator does not accept.
    UnknownKey,
    /// A required key is missing.
    MissingKey,
    /// A key's value is malformed (wrong shape or grammar).
    BadValue,
    /// `args` / `output` / `forward` that do not parse.
    BadSignature,
    /// A type that is not in Paddle's type tables.
    UnknownType,
    /// A default value that does not fit its type.
    BadDefault,
    /// A name (in `optional`, `inplace`, `kernel.param`, ...) that does not exist.
    UnknownName,
    /// Something defined twice.
    Duplicate,
    /// Argument order rules (tensors before attributes, defaults trailing).
    ArgumentOrder,
    /// A forward op and its backward op disagree.
    ForwardBackward,
    /// A malformed op_compat.yaml entry.
    Compat,
}

/// One problem found while loading Paddle-schema yaml.
///
/// Its message always starts with `file:line:` and, when the problem is inside an op entry,
/// `op `name`:`, followed by what is wrong and what was expected.
///
/// ```
/// use pir_spec::yaml::{load_op_set, YamlSource};
/// let text = "- op : f\n  args : (Tensor x, int axis = \"last\")\n  output : Tensor(out)\n";
/// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
/// let msg = errs.errors()[0].to_string();
/// assert!(msg.starts_with("ops.yaml:2: op `f`:"), "{msg}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {}{message}", op_prefix(.op.as_deref()))]
pub struct SpecError {
    /// The file label given in [`YamlSource::path`](crate::yaml::YamlSource::path).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The op (`conv2d`, or the `op :` text of a compat entry), when the problem is in one.
    pub op: Option<String>,
    /// What kind of problem it is.
    pub kind: SpecErrorKind,
    /// What is wrong and what was expected.
    pub message: String,
}

fn op_prefix(op: Option<&str>) -> String {
    match op {
        Some(op) => format!("op `{op}`: "),
        None => String::new(),
    }
}

/// All the errors found by one [`load_op_set`](crate::yaml::load_op_set) call, in file order.
///
/// ```
/// use pir_spec::yaml::{load_op_set, YamlSource};
/// let text = "- op : f\n  args : (Tensor x, foo y)\n  output : Tensor(out)\n\
///             - op : g\n  args : (Tensor x)\n  output : Tensor(out)\n  colour : red\n";
/// let errs = load_op_set("pd_op", &[YamlSource { path: "a.yaml", text }], None).unwrap_err();
/// assert_eq!(errs.len(), 2);
/// assert!(errs.to_string().contains("a.yaml:2: op `f`"));
/// assert!(errs.to_string().contains("a.yaml:7: op `g`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecErrors(Vec<SpecError>);

impl SpecErrors {
    /// Wraps a list of errors (sorted by file order by the loader).
    ///
    /// ```
    /// use pir_spec::yaml::{SpecError, SpecErrorKind, SpecErrors};
    /// let e = SpecError { file: "a.yaml".into(), line: 3, op: None, kind: SpecErrorKind::Syntax, message: "bad".into() };
    /// assert_eq!(SpecErrors::new(vec![e]).to_string(), "a.yaml:3: bad");
    /// ```
    pub fn new(errors: Vec<SpecError>) -> SpecErrors {
        SpecErrors(errors)
    }

    /// The errors.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let text = "- op : f\n  args : (Tensor x, foo y)\n  output : Tensor(out)\n  colour : red\n";
    /// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
    /// assert_eq!(errs.errors()[0].line, 2);
    /// ```
    pub fn errors(&self) -> &[SpecError] {
        &self.0
    }

    /// How many errors there are.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let text = "- op : f\n  args : (Tensor x, foo y)\n  output : Tensor(out)\n  colour : red\n";
    /// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
    /// assert_eq!(errs.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none (never true for an `Err` returned by the loader).
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let text = "- op : f\n  args : (Tensor x, foo y)\n  output : Tensor(out)\n  colour : red\n";
    /// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
    /// assert!(!errs.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Iterates over the errors.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let text = "- op : f\n  args : (Tensor x, foo y)\n  output : Tensor(out)\n  colour : red\n";
    /// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
    /// assert!(errs.iter().all(|e| e.op.as_deref() == Some("f")));
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, SpecError> {
        self.0.iter()
    }

    /// The errors, by value.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let text = "- op : f\n  args : (Tensor x, foo y)\n  output : Tensor(out)\n  colour : red\n";
    /// let errs = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap_err();
    /// let v = errs.into_vec();
    /// assert_eq!(v[1].line, 4);
    /// ```
    pub fn into_vec(self) -> Vec<SpecError> {
        self.0
    }
}

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecErrors {}

impl IntoIterator for SpecErrors {
    type Item = SpecError;
    type IntoIter = std::vec::IntoIter<SpecError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a SpecErrors {
    type Item = &'a SpecError;
    type IntoIter = std::slice::Iter<'a, SpecError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Collects errors for one file; cheap to pass around.
#[derive(Debug)]
pub(crate) struct Diag {
    pub(crate) errors: Vec<SpecError>,
}

impl Diag {
    pub(crate) fn new() -> Diag {
        Diag { errors: Vec::new() }
    }

    pub(crate) fn push(
        &mut self,
        file: &str,
        line: u32,
        op: Option<&str>,
        kind: SpecErrorKind,
        message: impl Into<String>,
    ) {
        self.errors.push(SpecError {
            file: file.to_string(),
            line,
            op: op.map(str::to_string),
            kind,
            message: message.into(),
        });
    }
}
