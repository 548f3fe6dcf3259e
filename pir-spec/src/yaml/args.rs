//! The C++-ish grammar of Paddle's `args`, `output` and `forward` strings.
//!
//! ```text
//! args    : (Tensor x, Tensor[] ys, int axis = -1, float eps = 1.0e-6f, int[] strides = {1, 1})
//! output  : Tensor(out), Tensor[](outs){x.size()}, Tensor
//! forward : conv2d (Tensor input, Tensor filter, ...) -> Tensor(out)
//! ```
//!
//! Types are those of Paddle's `type_mapping.py` plus the extra attribute spellings of
//! `op_gen.py`'s `attr_types_map` (`int32_t`, `long`, `size_t`). Defaults are checked against
//! their type: integer constant expressions (`(2 << 12) - 1`, `INT64_MAX`, `0L`), floating
//! literals (`1.0e-6f`, `.5f`, `1.0f/3`), `true`/`false`, string literals, `{...}` lists,
//! `DataType::INT64`, `DataLayout::NCHW` and places (`CPUPlace()`, `{}`).
//!
//! ```
//! use pir_spec::yaml::args::{parse_args, YamlType};
//! use pir_spec::DefaultValue;
//! let args = parse_args("(Tensor x, int[] strides={1, 1}, float eps = 1.0e-6f)").unwrap();
//! assert_eq!(args[1].ty, YamlType::IntList);
//! assert_eq!(args[1].default, Some(DefaultValue::IntList(vec![1, 1].into())));
//! assert_eq!(args[2].default, Some(DefaultValue::Float(1.0e-6)));
//! ```

use std::borrow::Cow;

use crate::phi::{DataLayout, DataType, Place};
use crate::schema::{AttrKind, DefaultValue, Str, TensorKind, ValueKind};
use crate::yaml::error::SpecErrorKind;

/// A type written in yaml `args`.
///
/// ```
/// use pir_spec::yaml::args::YamlType;
/// use pir_spec::AttrKind;
/// let t = YamlType::parse("Scalar(int64_t)").unwrap();
/// assert_eq!(t.attr_kind(), Some(AttrKind::Scalar));
/// assert_eq!(t.data_type(), "int64_t");
/// assert_eq!(YamlType::parse("Tensor[]"), Some(YamlType::TensorList));
/// assert_eq!(YamlType::parse("tensor"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum YamlType {
    /// `Tensor`.
    Tensor,
    /// `Tensor[]`.
    TensorList,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `int32_t`.
    Int32,
    /// `int64_t`.
    Int64,
    /// `long`.
    Long,
    /// `size_t`.
    SizeT,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `str`.
    Str,
    /// `bool[]`.
    BoolList,
    /// `int[]`.
    IntList,
    /// `int64_t[]`.
    Int64List,
    /// `float[]`.
    FloatList,
    /// `double[]`.
    DoubleList,
    /// `str[]`.
    StrList,
    /// `IntArray`.
    IntArray,
    /// `Scalar`.
    Scalar,
    /// `Scalar(bool)`.
    ScalarBool,
    /// `Scalar(int)`.
    ScalarInt,
    /// `Scalar(int64_t)`.
    ScalarInt64,
    /// `Scalar(float)`.
    ScalarFloat,
    /// `Scalar(double)`.
    ScalarDouble,
    /// `Scalar[]`.
    ScalarList,
    /// `DataType`.
    DataType,
    /// `DataLayout`.
    DataLayout,
    /// `Place`.
    Place,
}

impl YamlType {
    /// Every type, for messages and tables.
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// assert!(YamlType::ALL.iter().all(|t| YamlType::parse(t.spelling()) == Some(*t)));
    /// ```
    pub const ALL: [YamlType; 28] = [
        YamlType::Tensor,
        YamlType::TensorList,
        YamlType::Bool,
        YamlType::Int,
        YamlType::Int32,
        YamlType::Int64,
        YamlType::Long,
        YamlType::SizeT,
        YamlType::Float,
        YamlType::Double,
        YamlType::Str,
        YamlType::BoolList,
        YamlType::IntList,
        YamlType::Int64List,
        YamlType::FloatList,
        YamlType::DoubleList,
        YamlType::StrList,
        YamlType::IntArray,
        YamlType::Scalar,
        YamlType::ScalarBool,
        YamlType::ScalarInt,
        YamlType::ScalarInt64,
        YamlType::ScalarFloat,
        YamlType::ScalarDouble,
        YamlType::ScalarList,
        YamlType::DataType,
        YamlType::DataLayout,
        YamlType::Place,
    ];

    /// The yaml spelling (`int64_t[]`, `Scalar(int)`).
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// assert_eq!(YamlType::ScalarInt.spelling(), "Scalar(int)");
    /// ```
    pub const fn spelling(self) -> &'static str {
        match self {
            YamlType::Tensor => "Tensor",
            YamlType::TensorList => "Tensor[]",
            YamlType::Bool => "bool",
            YamlType::Int => "int",
            YamlType::Int32 => "int32_t",
            YamlType::Int64 => "int64_t",
            YamlType::Long => "long",
            YamlType::SizeT => "size_t",
            YamlType::Float => "float",
            YamlType::Double => "double",
            YamlType::Str => "str",
            YamlType::BoolList => "bool[]",
            YamlType::IntList => "int[]",
            YamlType::Int64List => "int64_t[]",
            YamlType::FloatList => "float[]",
            YamlType::DoubleList => "double[]",
            YamlType::StrList => "str[]",
            YamlType::IntArray => "IntArray",
            YamlType::Scalar => "Scalar",
            YamlType::ScalarBool => "Scalar(bool)",
            YamlType::ScalarInt => "Scalar(int)",
            YamlType::ScalarInt64 => "Scalar(int64_t)",
            YamlType::ScalarFloat => "Scalar(float)",
            YamlType::ScalarDouble => "Scalar(double)",
            YamlType::ScalarList => "Scalar[]",
            YamlType::DataType => "DataType",
            YamlType::DataLayout => "DataLayout",
            YamlType::Place => "Place",
        }
    }

    /// Parses a spelling (exact, as Paddle's tables are).
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// assert_eq!(YamlType::parse("int64_t[]"), Some(YamlType::Int64List));
    /// assert_eq!(YamlType::parse("Int"), None);
    /// ```
    pub fn parse(s: &str) -> Option<YamlType> {
        YamlType::ALL.into_iter().find(|t| t.spelling() == s)
    }

    /// Whether this is `Tensor` or `Tensor[]`.
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// assert!(YamlType::TensorList.is_tensor() && !YamlType::IntArray.is_tensor());
    /// ```
    pub const fn is_tensor(self) -> bool {
        matches!(self, YamlType::Tensor | YamlType::TensorList)
    }

    /// Whether this is one of the `Scalar` spellings (not `Scalar[]`).
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// assert!(YamlType::ScalarDouble.is_scalar() && !YamlType::ScalarList.is_scalar());
    /// ```
    pub const fn is_scalar(self) -> bool {
        matches!(
            self,
            YamlType::Scalar
                | YamlType::ScalarBool
                | YamlType::ScalarInt
                | YamlType::ScalarInt64
                | YamlType::ScalarFloat
                | YamlType::ScalarDouble
        )
    }

    /// The IR attribute kind (`None` for tensors). Every `Scalar(T)` is a `ScalarAttribute`, as
    /// in Paddle 3.3.1's `gen_utils.attr_types_map`.
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// use pir_spec::AttrKind;
    /// assert_eq!(YamlType::IntList.attr_kind(), Some(AttrKind::Int32Array));
    /// assert_eq!(YamlType::ScalarInt.attr_kind(), Some(AttrKind::Scalar));
    /// assert_eq!(YamlType::Tensor.attr_kind(), None);
    /// ```
    pub const fn attr_kind(self) -> Option<AttrKind> {
        Some(match self {
            YamlType::Tensor | YamlType::TensorList => return None,
            YamlType::Bool => AttrKind::Bool,
            YamlType::Int | YamlType::Int32 => AttrKind::Int32,
            YamlType::Int64 => AttrKind::Int64,
            YamlType::Long => AttrKind::Long,
            YamlType::SizeT => AttrKind::SizeT,
            YamlType::Float => AttrKind::Float,
            YamlType::Double => AttrKind::Double,
            YamlType::Str => AttrKind::Str,
            YamlType::BoolList => AttrKind::BoolArray,
            YamlType::IntList => AttrKind::Int32Array,
            YamlType::Int64List => AttrKind::Int64Array,
            YamlType::FloatList => AttrKind::FloatArray,
            YamlType::DoubleList => AttrKind::DoubleArray,
            YamlType::StrList => AttrKind::StrArray,
            YamlType::IntArray => AttrKind::IntArray,
            YamlType::Scalar
            | YamlType::ScalarBool
            | YamlType::ScalarInt
            | YamlType::ScalarInt64
            | YamlType::ScalarFloat
            | YamlType::ScalarDouble => AttrKind::Scalar,
            YamlType::ScalarList => AttrKind::ScalarArray,
            YamlType::DataType => AttrKind::DataType,
            YamlType::DataLayout => AttrKind::DataLayout,
            YamlType::Place => AttrKind::Place,
        })
    }

    /// GetOpInfo's `data_type` (Paddle's `opmaker_attr_types_map`, set by `parse_utils` for
    /// `Scalar*` and `IntArray` only); empty for every other type.
    ///
    /// ```
    /// use pir_spec::yaml::args::YamlType;
    /// assert_eq!(YamlType::IntArray.data_type(), "std::vector<int64_t>");
    /// assert_eq!(YamlType::Scalar.data_type(), "float");
    /// assert_eq!(YamlType::Int.data_type(), "");
    /// ```
    pub const fn data_type(self) -> &'static str {
        match self {
            YamlType::IntArray => "std::vector<int64_t>",
            YamlType::Scalar | YamlType::ScalarFloat => "float",
            YamlType::ScalarBool => "bool",
            YamlType::ScalarInt => "int",
            YamlType::ScalarInt64 => "int64_t",
            YamlType::ScalarDouble => "double",
            YamlType::ScalarList => "std::vector<Scalar>",
            _ => "",
        }
    }
}

/// One argument of `args` (or of a `forward` signature).
///
/// ```
/// use pir_spec::yaml::args::{parse_args, YamlType};
/// let a = &parse_args("(Tensor x, int axis = -1)").unwrap()[1];
/// assert_eq!((a.name.as_str(), a.ty, a.default_text.as_deref()), ("axis", YamlType::Int, Some("-1")));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: YamlType,
    /// The checked default value.
    pub default: Option<DefaultValue>,
    /// The default as written.
    pub default_text: Option<String>,
}

/// One result in an `output` string.
///
/// ```
/// use pir_spec::yaml::args::parse_outputs;
/// let o = &parse_outputs("Tensor").unwrap()[0];
/// assert_eq!((o.name.as_str(), o.named), ("out", false));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Its name (`out` when not written).
    pub name: String,
    /// Whether the name was written (`Tensor(out)`) rather than defaulted (`Tensor`).
    pub named: bool,
    /// `Tensor`, `Tensor[]` or `SelectedRows`.
    pub kind: ValueKind,
    /// The written type (`Tensor[]`).
    pub spelling: String,
    /// `{x.size()}` without braces.
    pub size_expr: Option<String>,
}

/// A backward op's `forward :` signature.
///
/// ```
/// use pir_spec::yaml::args::parse_signature;
/// let s = parse_signature("relu (Tensor x) -> Tensor(out)").unwrap();
/// assert_eq!((s.name.as_str(), s.args.len(), s.outputs.len()), ("relu", 1, 1));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// The forward op's name.
    pub name: String,
    /// Its arguments.
    pub args: Vec<Arg>,
    /// Its results.
    pub outputs: Vec<Output>,
}

/// A grammar problem, without position (the caller adds `file:line` and the op).
///
/// ```
/// use pir_spec::yaml::args::parse_args;
/// use pir_spec::yaml::SpecErrorKind;
/// let e = &parse_args("(Tensor x, vector<int> y)").unwrap_err()[0];
/// assert_eq!(e.kind, SpecErrorKind::UnknownType);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// What kind of problem.
    pub kind: SpecErrorKind,
    /// What is wrong and what was expected.
    pub message: String,
}

impl ArgError {
    fn new(kind: SpecErrorKind, message: impl Into<String>) -> ArgError {
        ArgError {
            kind,
            message: message.into(),
        }
    }
}

/// A bounded stack of expected closing brackets (no allocation).
#[derive(Default)]
struct Nesting {
    stack: [u8; 32],
    len: usize,
}

impl Nesting {
    fn push(&mut self, close: char) -> Result<(), ArgError> {
        if self.len == self.stack.len() {
            return Err(ArgError::new(
                SpecErrorKind::BadSignature,
                "brackets nested more than 32 deep",
            ));
        }
        self.stack[self.len] = close as u8;
        self.len += 1;
        Ok(())
    }

    fn pop(&mut self) -> Option<char> {
        self.len = self.len.checked_sub(1)?;
        Some(self.stack[self.len] as char)
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Splits at top-level `sep` characters, outside `()`, `{}`, `[]`, `<>` and string literals.
/// Scans bytes: every delimiter is ASCII, so the cuts fall on character boundaries.
fn split_top(s: &str, sep: u8) -> Result<Vec<&str>, ArgError> {
    let mut parts = Vec::new();
    let mut depth = Nesting::default();
    let mut start = 0;
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in s.bytes().enumerate() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'(' => depth.push(')')?,
            b'{' => depth.push('}')?,
            b'[' => depth.push(']')?,
            b')' | b'}' | b']' if depth.pop() != Some(c as char) => {
                return Err(ArgError::new(
                    SpecErrorKind::BadSignature,
                    format!("unbalanced `{}` in `{s}`", c as char),
                ));
            }
            _ if c == sep && depth.is_empty() => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if in_str {
        return Err(ArgError::new(
            SpecErrorKind::BadSignature,
            format!("unterminated string literal in `{s}`"),
        ));
    }
    if let Some(close) = depth.pop() {
        return Err(ArgError::new(
            SpecErrorKind::BadSignature,
            format!("missing `{close}` in `{s}`"),
        ));
    }
    parts.push(&s[start..]);
    Ok(parts)
}

/// Splits a comma-separated list at top level, trimming items; an empty string is no items.
pub(crate) fn split_list(s: &str) -> Result<Vec<&str>, ArgError> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    Ok(split_top(s, b',')?.into_iter().map(str::trim).collect())
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses `(Tensor x, int axis = -1, ...)`, checking Paddle's rules: tensors before
/// attributes, defaulted attributes trailing, unique names, known types, defaults that fit.
///
/// ```
/// use pir_spec::yaml::args::parse_args;
/// let errs = parse_args("(int axis, Tensor x)").unwrap_err();
/// assert!(errs[0].message.contains("before the attributes"));
/// let errs = parse_args("(Tensor x, int a = 1, int b)").unwrap_err();
/// assert!(errs[0].message.contains("default"));
/// assert!(parse_args("()").unwrap().is_empty());
/// ```
pub fn parse_args(text: &str) -> Result<Vec<Arg>, Vec<ArgError>> {
    let t = text.trim();
    let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
        return Err(vec![ArgError::new(
            SpecErrorKind::BadSignature,
            format!("expected `(Type name, ...)` in parentheses, found `{t}`"),
        )]);
    };
    let items = split_list(inner).map_err(|e| vec![e])?;
    let mut args: Vec<Arg> = Vec::new();
    let mut errors = Vec::new();
    let mut seen_attr: Option<String> = None;
    let mut seen_default: Option<String> = None;
    for item in items {
        let arg = match parse_arg(item) {
            Ok(a) => a,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if args.iter().any(|a| a.name == arg.name) {
            errors.push(ArgError::new(
                SpecErrorKind::Duplicate,
                format!("argument `{}` is declared twice", arg.name),
            ));
            continue;
        }
        if arg.ty.is_tensor() {
            if let Some(attr) = &seen_attr {
                errors.push(ArgError::new(
                    SpecErrorKind::ArgumentOrder,
                    format!(
                        "tensor input `{}` comes after attribute `{attr}`; all tensor inputs \
                         must come before the attributes",
                        arg.name
                    ),
                ));
            }
            if arg.default_text.is_some() {
                errors.push(ArgError::new(
                    SpecErrorKind::BadDefault,
                    format!(
                        "tensor input `{}` has a default value; only attributes may have one",
                        arg.name
                    ),
                ));
            }
        } else {
            seen_attr.get_or_insert_with(|| arg.name.clone());
            match (&seen_default, &arg.default_text) {
                (Some(prev), None) => errors.push(ArgError::new(
                    SpecErrorKind::ArgumentOrder,
                    format!(
                        "attribute `{}` has no default value but follows `{prev}`, which has \
                         one; attributes with defaults must come last",
                        arg.name
                    ),
                )),
                (None, Some(_)) => seen_default = Some(arg.name.clone()),
                _ => {}
            }
        }
        args.push(arg);
    }
    if errors.is_empty() {
        Ok(args)
    } else {
        Err(errors)
    }
}

fn parse_arg(item: &str) -> Result<Arg, ArgError> {
    if item.is_empty() {
        return Err(ArgError::new(
            SpecErrorKind::BadSignature,
            "empty argument (stray `,`); expected `Type name`",
        ));
    }
    let (decl, default_text) = match split_top(item, b'=')?.as_slice() {
        [decl] => (decl.trim(), None),
        [decl, default] => (decl.trim(), Some(default.trim())),
        _ => {
            return Err(ArgError::new(
                SpecErrorKind::BadSignature,
                format!("more than one `=` in argument `{item}`"),
            ))
        }
    };
    let mut words = decl.split_whitespace();
    let (Some(ty_text), Some(name), None) = (words.next(), words.next(), words.next()) else {
        return Err(ArgError::new(
            SpecErrorKind::BadSignature,
            format!(
                "cannot parse argument `{item}`; expected `Type name` or `Type name = default`"
            ),
        ));
    };
    if !is_ident(name) {
        return Err(ArgError::new(
            SpecErrorKind::BadSignature,
            format!("`{name}` in `{item}` is not a valid argument name"),
        ));
    }
    let Some(ty) = YamlType::parse(ty_text) else {
        return Err(ArgError::new(
            SpecErrorKind::UnknownType,
            format!(
                "unknown type `{ty_text}` for argument `{name}`; expected one of {}",
                YamlType::ALL.map(YamlType::spelling).join(", ")
            ),
        ));
    };
    let default = match default_text {
        None => None,
        Some("") => {
            return Err(ArgError::new(
                SpecErrorKind::BadDefault,
                format!("argument `{name}` has `=` but no default value"),
            ))
        }
        // Reported by `parse_args` ("only attributes may have one").
        Some(_) if ty.is_tensor() => None,
        Some(text) => Some(parse_default(ty, text).map_err(|msg| {
            ArgError::new(
                SpecErrorKind::BadDefault,
                format!(
                    "default `{text}` of `{} {name}` does not fit its type: {msg}",
                    ty.spelling()
                ),
            )
        })?),
    };
    Ok(Arg {
        name: name.to_string(),
        ty,
        default,
        default_text: default_text.map(str::to_string),
    })
}

/// Parses `Tensor(out), Tensor[](outs){n}, Tensor` (names default to `out`).
///
/// ```
/// use pir_spec::yaml::args::parse_outputs;
/// let outs = parse_outputs("Tensor(out), Tensor[](xs){x.size()}").unwrap();
/// assert_eq!(outs[1].size_expr.as_deref(), Some("x.size()"));
/// assert_eq!(parse_outputs("Tensor").unwrap()[0].name, "out");
/// ```
pub fn parse_outputs(text: &str) -> Result<Vec<Output>, Vec<ArgError>> {
    let items = split_list(text).map_err(|e| vec![e])?;
    if items.is_empty() {
        return Err(vec![ArgError::new(
            SpecErrorKind::BadSignature,
            "no outputs; expected `Tensor(name), ...`",
        )]);
    }
    let mut outs: Vec<Output> = Vec::new();
    let mut errors = Vec::new();
    for item in items {
        match parse_output(item) {
            Ok(out) => {
                if let Some(prev) = outs.iter().find(|o| o.name == out.name) {
                    let msg = if !out.named || !prev.named {
                        format!(
                            "two outputs are both called `{}` (an unnamed `Tensor` is called \
                             `out`); give each output a name, as in `Tensor(name)`",
                            out.name
                        )
                    } else {
                        format!("output `{}` is declared twice", out.name)
                    };
                    errors.push(ArgError::new(SpecErrorKind::Duplicate, msg));
                } else {
                    outs.push(out);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(outs)
    } else {
        Err(errors)
    }
}

fn parse_output(item: &str) -> Result<Output, ArgError> {
    let bad = |why: &str| {
        ArgError::new(
            SpecErrorKind::BadSignature,
            format!(
                "cannot parse output `{item}`: {why}; expected `Tensor(name)`, `Tensor[](name){{size}}` or `Tensor`"
            ),
        )
    };
    let ty_end = item
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '[' || c == ']'))
        .unwrap_or(item.len());
    let spelling = &item[..ty_end];
    let mut rest = item[ty_end..].trim_start();
    let kind = match spelling {
        "Tensor" => ValueKind::Tensor(TensorKind::Dense),
        "Tensor[]" => ValueKind::Vector(TensorKind::Dense),
        "SelectedRows" => ValueKind::Tensor(TensorKind::SelectedRows),
        "" => return Err(bad("missing type")),
        other => {
            return Err(ArgError::new(
                SpecErrorKind::UnknownType,
                format!(
                    "unknown output type `{other}` in `{item}`; expected Tensor, Tensor[] or SelectedRows"
                ),
            ))
        }
    };
    let mut name = None;
    if let Some(r) = rest.strip_prefix('(') {
        let Some(close) = r.find(')') else {
            return Err(bad("missing `)`"));
        };
        let n = r[..close].trim();
        if !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@')
            || n.is_empty()
        {
            return Err(bad("invalid output name"));
        }
        name = Some(n.to_string());
        rest = r[close + 1..].trim_start();
    }
    let mut size_expr = None;
    if let Some(r) = rest.strip_prefix('{') {
        let Some(close) = r.rfind('}') else {
            return Err(bad("missing `}`"));
        };
        let e = r[..close].trim();
        if e.is_empty() {
            return Err(bad("empty size expression"));
        }
        if !matches!(kind, ValueKind::Vector(_)) {
            return Err(ArgError::new(
                SpecErrorKind::BadSignature,
                format!(
                    "output `{}` has a size expression `{{{e}}}` but is not a `Tensor[]`",
                    name.as_deref().unwrap_or("out")
                ),
            ));
        }
        size_expr = Some(e.to_string());
        rest = r[close + 1..].trim_start();
    }
    if !rest.is_empty() {
        return Err(bad(&format!("unexpected `{rest}`")));
    }
    Ok(Output {
        named: name.is_some(),
        name: name.unwrap_or_else(|| "out".to_string()),
        kind,
        spelling: spelling.to_string(),
        size_expr,
    })
}

/// Parses a backward op's `forward : name (args) -> outputs`.
///
/// ```
/// use pir_spec::yaml::args::parse_signature;
/// let sig = parse_signature("full_like (Tensor x, Place place = {}) -> Tensor(out)").unwrap();
/// assert_eq!(sig.name, "full_like");
/// assert_eq!(sig.args.len(), 2);
/// ```
pub fn parse_signature(text: &str) -> Result<Signature, Vec<ArgError>> {
    let t = text.trim();
    let bad = || {
        vec![ArgError::new(
            SpecErrorKind::BadSignature,
            format!("cannot parse forward signature `{t}`; expected `name (args) -> outputs`"),
        )]
    };
    let Some(open) = t.find('(') else {
        return Err(bad());
    };
    let name = t[..open].trim();
    if !is_ident(name) {
        return Err(bad());
    }
    // Find the matching `)` of the argument list.
    let mut depth = 0usize;
    let mut close = None;
    let mut in_str = false;
    for (i, c) in t[open..].char_indices() {
        match c {
            '"' => in_str = !in_str,
            '(' if !in_str => depth += 1,
            ')' if !in_str => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return Err(bad());
    };
    let Some(outputs) = t[close + 1..].trim_start().strip_prefix("->") else {
        return Err(bad());
    };
    let args = parse_args(&t[open..=close]);
    let outs = parse_outputs(outputs);
    match (args, outs) {
        (Ok(args), Ok(outputs)) => Ok(Signature {
            name: name.to_string(),
            args,
            outputs,
        }),
        (a, o) => {
            let mut errs = a.err().unwrap_or_default();
            errs.extend(o.err().unwrap_or_default());
            Err(errs)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------

/// A number from a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// Parses and checks a default value for `ty`.
///
/// ```
/// use pir_spec::yaml::args::{parse_default, YamlType};
/// use pir_spec::DefaultValue;
/// assert_eq!(parse_default(YamlType::Int, "(2 << 12) - 1"), Ok(DefaultValue::Int(8191)));
/// assert_eq!(parse_default(YamlType::Int64, "INT64_MAX"), Ok(DefaultValue::Int(i64::MAX)));
/// assert_eq!(parse_default(YamlType::Int, "1.5"), Ok(DefaultValue::Int(1))); // as C++ converts
/// assert!(parse_default(YamlType::IntList, "{1.5}").is_err()); // brace lists do not narrow
/// assert!(parse_default(YamlType::Int, "3000000000").is_err());
/// ```
pub fn parse_default(ty: YamlType, text: &str) -> Result<DefaultValue, String> {
    let text = text.trim();
    if text == "{}" {
        // `T x = {}` value-initialises: zero, false, "", an empty list, the first enumerator.
        if let Some(zero) = value_initialised(ty) {
            return Ok(zero);
        }
    }
    match ty {
        YamlType::Tensor | YamlType::TensorList => {
            Err("tensor inputs cannot have defaults".to_string())
        }
        YamlType::Bool => parse_bool(text).map(DefaultValue::Bool),
        YamlType::Int | YamlType::Int32 => int_conv(text, i32::MIN as i128, i32::MAX as i128),
        YamlType::Int64 | YamlType::Long => int_conv(text, i64::MIN as i128, i64::MAX as i128),
        YamlType::SizeT => int_conv(text, 0, i64::MAX as i128),
        YamlType::Float => float_in(text, true),
        YamlType::Double => float_in(text, false),
        YamlType::Str => parse_string(text).map(|s| DefaultValue::Str(Cow::Owned(s))),
        YamlType::IntList => int_list(text, i32::MIN as i128, i32::MAX as i128),
        YamlType::Int64List | YamlType::IntArray => {
            int_list(text, i64::MIN as i128, i64::MAX as i128)
        }
        YamlType::FloatList | YamlType::DoubleList => float_list(text, ty == YamlType::FloatList),
        YamlType::BoolList => bool_list(text),
        YamlType::StrList => str_list(text),
        YamlType::Scalar => scalar_default(text),
        YamlType::ScalarBool => parse_bool(text).map(DefaultValue::Bool),
        YamlType::ScalarInt => int_conv(text, i32::MIN as i128, i32::MAX as i128),
        YamlType::ScalarInt64 => int_conv(text, i64::MIN as i128, i64::MAX as i128),
        YamlType::ScalarFloat => float_in(text, true),
        YamlType::ScalarDouble => float_in(text, false),
        YamlType::ScalarList => scalar_list(text),
        YamlType::DataType => data_type_default(text),
        YamlType::DataLayout => data_layout_default(text),
        YamlType::Place => Place::from_yaml(text)
            .map(DefaultValue::Place)
            .ok_or_else(|| {
                "expected a place: `{}`, `CPUPlace()`, `GPUPlace()`, `GPUPlace(id)`, ..."
                    .to_string()
            }),
    }
}

/// A `float[]` (`single`) or `double[]` default: a brace list of numbers.
fn float_list(text: &str, single: bool) -> Result<DefaultValue, String> {
    let items = list_items(text)?;
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        match float_in(it, single)? {
            DefaultValue::Float(f) => out.push(f),
            _ => return Err("expected a number".into()),
        }
    }
    Ok(DefaultValue::FloatList(out.into()))
}

/// A `bool[]` default: a brace list of `true`, `false`, `0` or `1`.
fn bool_list(text: &str) -> Result<DefaultValue, String> {
    let items = list_items(text)?;
    let v: Result<Vec<bool>, String> = items.into_iter().map(parse_bool_item).collect();
    Ok(DefaultValue::BoolList(v?.into()))
}

/// A `std::string[]` default: a brace list of string literals.
fn str_list(text: &str) -> Result<DefaultValue, String> {
    let items = list_items(text)?;
    let v: Result<Vec<Str>, String> = items
        .into_iter()
        .map(|s| parse_string(s).map(Cow::Owned))
        .collect();
    Ok(DefaultValue::StrList(v?.into()))
}

/// A `Scalar` default: a bool, a string (`phi::Scalar(std::string)`) or a number.
fn scalar_default(text: &str) -> Result<DefaultValue, String> {
    if matches!(text, "true" | "false") {
        return parse_bool(text).map(DefaultValue::Bool);
    }
    if text.starts_with('"') {
        // phi::Scalar(std::string): "inf", "-inf", "nan" or a number, as a double.
        return scalar_from_string(&parse_string(text)?);
    }
    match eval(text)? {
        Num::Int(i) => i64::try_from(i)
            .map(DefaultValue::Int)
            .map_err(|_| format!("{i} does not fit in 64 bits")),
        Num::Float(f) => Ok(DefaultValue::Float(f)),
    }
}

/// A `Scalar[]` default: all integers give an int list, else every item is a double.
fn scalar_list(text: &str) -> Result<DefaultValue, String> {
    let items = list_items(text)?;
    let mut nums = Vec::with_capacity(items.len());
    for it in items {
        nums.push(eval(it)?);
    }
    if nums.iter().all(|n| matches!(n, Num::Int(_))) {
        let ints: Result<Vec<i64>, String> = nums
            .iter()
            .map(|n| match n {
                Num::Int(i) => {
                    i64::try_from(*i).map_err(|_| format!("{i} does not fit in 64 bits"))
                }
                Num::Float(_) => Err("expected an integer".to_string()),
            })
            .collect();
        Ok(DefaultValue::IntList(ints?.into()))
    } else {
        Ok(DefaultValue::FloatList(
            nums.into_iter().map(Num::as_f64).collect::<Vec<_>>().into(),
        ))
    }
}

/// A `DataType` default. Paddle's parse_op_entry asserts the text contains `DataType` and
/// strips any namespace before it.
fn data_type_default(text: &str) -> Result<DefaultValue, String> {
    let Some(pos) = text.find("DataType") else {
        return Err("expected `DataType::NAME` such as `DataType::FLOAT32`".into());
    };
    DataType::from_yaml(&text[pos..])
        .map(DefaultValue::DataType)
        .ok_or_else(|| {
            format!(
                "unknown data type; expected `DataType::NAME` with NAME one of {}",
                DataType::ALL.map(DataType::cpp_name).join(", ")
            )
        })
}

/// A `DataLayout` default, any namespace before `DataLayout` stripped.
fn data_layout_default(text: &str) -> Result<DefaultValue, String> {
    let Some(pos) = text.find("DataLayout") else {
        return Err("expected `DataLayout::NAME` such as `DataLayout::NCHW`".into());
    };
    DataLayout::from_name(&text[pos..])
        .map(DefaultValue::DataLayout)
        .ok_or_else(|| "unknown layout; expected `DataLayout::NCHW`, `DataLayout::NHWC`, `DataLayout::ANY`, ...".into())
}

/// A `bool` default: `true`, `false`, or any number (C++ converts it, non-zero is `true`).
fn parse_bool(text: &str) -> Result<bool, String> {
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => match eval(other) {
            Ok(Num::Int(i)) => Ok(i != 0),
            Ok(Num::Float(f)) => Ok(f != 0.0),
            Err(e) => Err(format!(
                "expected `true`, `false` or a number, found `{other}` ({e})"
            )),
        },
    }
}

/// An element of a `bool[]` list (brace initialisation: `true`, `false`, `0` or `1`).
fn parse_bool_item(text: &str) -> Result<bool, String> {
    match eval(text.trim()) {
        Ok(Num::Int(0)) => Ok(false),
        Ok(Num::Int(1)) => Ok(true),
        _ => Err(format!(
            "expected `true`, `false`, `0` or `1` in a bool list, found `{}`",
            text.trim()
        )),
    }
}

/// The value `T x = {}` gives, for the types that have one.
fn value_initialised(ty: YamlType) -> Option<DefaultValue> {
    Some(match ty {
        YamlType::Bool | YamlType::ScalarBool => DefaultValue::Bool(false),
        YamlType::Int
        | YamlType::Int32
        | YamlType::Int64
        | YamlType::Long
        | YamlType::SizeT
        | YamlType::ScalarInt
        | YamlType::ScalarInt64
        | YamlType::Scalar => DefaultValue::Int(0),
        YamlType::Float | YamlType::Double | YamlType::ScalarFloat | YamlType::ScalarDouble => {
            DefaultValue::Float(0.0)
        }
        YamlType::Str => DefaultValue::Str(Cow::Borrowed("")),
        YamlType::DataType => DefaultValue::DataType(DataType::Undefined),
        YamlType::DataLayout => DefaultValue::DataLayout(DataLayout::Undefined),
        _ => return None,
    })
}

/// `phi::Scalar(std::string)`: `inf`, `-inf`, `nan` or a decimal number, held as a double.
fn scalar_from_string(s: &str) -> Result<DefaultValue, String> {
    let v = match s.trim() {
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" => f64::NAN,
        t => t.parse::<f64>().map_err(|_| {
            format!("a string Scalar default must be `inf`, `-inf`, `nan` or a number, found {s:?}")
        })?,
    };
    Ok(DefaultValue::Float(v))
}

fn parse_string(text: &str) -> Result<String, String> {
    let t = text.trim();
    let Some(inner) = t
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .filter(|_| t.len() >= 2)
    else {
        return Err(format!(
            "expected a string literal in double quotes, found `{t}`"
        ));
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                Some('"') => out.push('"'),
                Some(other) => return Err(format!("unknown escape `\\{other}` in string literal")),
                None => return Err("string literal ends with `\\`".into()),
            },
            '"' => return Err(format!("unescaped `\"` inside string literal `{t}`")),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn list_items(text: &str) -> Result<Vec<&str>, String> {
    let t = text.trim();
    let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) else {
        return Err(format!(
            "expected a list in braces such as `{{1, 2}}` or `{{}}`, found `{t}`"
        ));
    };
    let items = split_list(inner).map_err(|e| e.message)?;
    if items.iter().any(|s| s.is_empty()) {
        return Err(format!("empty element in list `{t}`"));
    }
    Ok(items)
}

/// An integer default written as any number: C++ converts a floating-point value by
/// truncating it (`int x = 1.5` is 1), in range of the type.
fn int_conv(text: &str, min: i128, max: i128) -> Result<DefaultValue, String> {
    match eval(text)? {
        Num::Float(f) if f.is_finite() && (min as f64..=max as f64).contains(&f.trunc()) => {
            Ok(DefaultValue::Int(f.trunc() as i64))
        }
        Num::Float(f) => Err(format!("{f} is out of range {min}..={max}")),
        Num::Int(_) => int_in(text, min, max),
    }
}

/// An integer default in range (list elements: brace initialisation does not narrow).
fn int_in(text: &str, min: i128, max: i128) -> Result<DefaultValue, String> {
    match eval(text)? {
        Num::Int(i) if (min..=max).contains(&i) => Ok(DefaultValue::Int(i as i64)),
        Num::Int(i) => Err(format!("{i} is out of range {min}..={max}")),
        Num::Float(f) => Err(format!(
            "expected an integer, found the floating-point value {f}"
        )),
    }
}

fn float_in(text: &str, single: bool) -> Result<DefaultValue, String> {
    let v = eval(text)?.as_f64();
    if !v.is_finite() {
        return Err(format!("{v} is not a finite number"));
    }
    if single && v.abs() > f32::MAX as f64 {
        return Err(format!("{v} does not fit in a 32-bit float"));
    }
    Ok(DefaultValue::Float(v))
}

fn int_list(text: &str, min: i128, max: i128) -> Result<DefaultValue, String> {
    let items = list_items(text)?;
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        match int_in(it, min, max)? {
            DefaultValue::Int(i) => out.push(i),
            _ => return Err("expected an integer".into()),
        }
    }
    Ok(DefaultValue::IntList(out.into()))
}

/// Evaluates a C++ constant expression: literals with suffixes, named limits, unary `+ - ~`,
/// binary `* / % + - << >> & | ^` and parentheses, with C's integer/floating promotion.
fn eval(text: &str) -> Result<Num, String> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Err("empty expression".into());
    }
    let mut p = ExprParser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let v = p.expr(0)?;
    if p.pos != p.tokens.len() {
        return Err(format!(
            "unexpected `{}` in `{text}`",
            p.tokens[p.pos].text()
        ));
    }
    Ok(v)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(Num),
    Op(&'static str),
    Open,
    Close,
}

impl Tok {
    fn text(&self) -> String {
        match self {
            Tok::Num(Num::Int(i)) => i.to_string(),
            Tok::Num(Num::Float(f)) => f.to_string(),
            Tok::Op(o) => (*o).to_string(),
            Tok::Open => "(".into(),
            Tok::Close => ")".into(),
        }
    }
}

fn named_constant(name: &str) -> Option<Num> {
    Some(match name {
        // C++ promotes `bool` to `int` in arithmetic and converts it to any number.
        "true" => Num::Int(1),
        "false" => Num::Int(0),
        "INT64_MAX" | "LLONG_MAX" | "LONG_MAX" => Num::Int(i64::MAX as i128),
        "INT64_MIN" | "LLONG_MIN" | "LONG_MIN" => Num::Int(i64::MIN as i128),
        "INT32_MAX" | "INT_MAX" => Num::Int(i32::MAX as i128),
        "INT32_MIN" | "INT_MIN" => Num::Int(i32::MIN as i128),
        "UINT32_MAX" | "UINT_MAX" => Num::Int(u32::MAX as i128),
        "FLT_MAX" => Num::Float(f32::MAX as f64),
        "FLT_MIN" => Num::Float(f32::MIN_POSITIVE as f64),
        "FLT_EPSILON" => Num::Float(f32::EPSILON as f64),
        "DBL_MAX" => Num::Float(f64::MAX),
        "DBL_MIN" => Num::Float(f64::MIN_POSITIVE),
        "DBL_EPSILON" => Num::Float(f64::EPSILON),
        _ => return None,
    })
}

/// The end of a run of digits of `radix` from `i`, with C++14 digit separators (`1'000`).
fn digits_end(b: &[u8], mut i: usize, radix: u32) -> usize {
    let is_digit = |c: u8| (c as char).is_digit(radix);
    while i < b.len() {
        if is_digit(b[i]) || (b[i] == b'\'' && i + 1 < b.len() && is_digit(b[i + 1])) {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// A C++ number literal at `start`: decimal, `0x` hex, `0b` binary, `0` octal, floating
/// (`1.`, `.5`, `1e-5`), with digit separators and the suffixes `u`/`l` (integers) or `f`
/// (floating). Returns the value and the position after it.
fn number(text: &str, start: usize) -> Result<(Num, usize), String> {
    let b = text.as_bytes();
    let radix_prefix = match (b[start], b.get(start + 1)) {
        (b'0', Some(b'x' | b'X')) => Some(16),
        (b'0', Some(b'b' | b'B')) => Some(2),
        _ => None,
    };
    let (body_start, end, is_float) = number_body(text, start, radix_prefix)?;
    let digits: String = text[body_start..end]
        .chars()
        .filter(|&c| c != '\'')
        .collect();
    let written = &text[start..end];
    let after = number_suffix(text, start, end, is_float)?;
    Ok((
        number_value(&digits, written, radix_prefix, is_float)?,
        after,
    ))
}

/// The digits of the number literal at `start`, after its radix prefix if it has one: where
/// they start and end, and whether they make a floating literal (a `.` or an exponent).
fn number_body(
    text: &str,
    start: usize,
    radix_prefix: Option<u32>,
) -> Result<(usize, usize, bool), String> {
    let b = text.as_bytes();
    if let Some(radix) = radix_prefix {
        let body_start = start + 2;
        let i = digits_end(b, body_start, radix);
        if i == body_start {
            return Err(format!("malformed number `{}`", &text[start..i]));
        }
        return Ok((body_start, i, false));
    }
    let mut is_float = false;
    let mut i = digits_end(b, start, 10);
    if i < b.len() && b[i] == b'.' {
        is_float = true;
        i = digits_end(b, i + 1, 10);
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            is_float = true;
            i = digits_end(b, j, 10);
        }
    }
    Ok((start, i, is_float))
}

/// Checks the suffix after the digits ending at `end` of the literal at `start` (`f`/`F` on
/// floats; `u`/`U`/`l`/`L` on integers) and returns the position after it.
fn number_suffix(text: &str, start: usize, end: usize, is_float: bool) -> Result<usize, String> {
    let b = text.as_bytes();
    let written = &text[start..end];
    let mut i = end;
    while i < b.len() && matches!(b[i], b'f' | b'F' | b'u' | b'U' | b'l' | b'L') {
        i += 1;
    }
    let suffix = &text[end..i];
    if i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        return Err(format!("malformed number `{}`", &text[start..=i]));
    }
    let float_suffix = suffix.eq_ignore_ascii_case("f");
    if float_suffix && !is_float {
        return Err(format!(
            "malformed number `{written}{suffix}`; write `{written}.0f`"
        ));
    }
    if !suffix.is_empty()
        && !float_suffix
        && (is_float || !suffix.chars().all(|c| matches!(c, 'u' | 'U' | 'l' | 'L')))
    {
        return Err(format!("malformed number `{written}{suffix}`"));
    }
    Ok(i)
}

/// The value of a literal's `digits` (separators removed; `written` as in the text) in the
/// radix of its prefix, else octal for an integer with a leading 0 (`010` is 8 in C++), else
/// decimal.
fn number_value(
    digits: &str,
    written: &str,
    radix_prefix: Option<u32>,
    is_float: bool,
) -> Result<Num, String> {
    let radix = match radix_prefix {
        Some(r) => r,
        None if !is_float && digits.len() > 1 && digits.starts_with('0') => 8,
        None => 10,
    };
    if is_float {
        return Ok(Num::Float(
            digits
                .parse::<f64>()
                .map_err(|_| format!("malformed number `{written}`"))?,
        ));
    }
    let body = if radix == 8 { &digits[1..] } else { digits };
    Ok(Num::Int(i128::from_str_radix(body, radix).map_err(
        |e| {
            if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) {
                format!("number `{written}` is too large")
            } else {
                format!("malformed number `{written}`")
            }
        },
    )?))
}

/// A C++ character literal at `start` (`'a'`, `'\\n'`, `'\\0'`): its code as an integer.
fn char_literal(text: &str, start: usize) -> Result<(Num, usize), String> {
    let rest = &text[start + 1..];
    let mut chars = rest.char_indices();
    let (code, len) = match chars.next() {
        Some((_, '\\')) => {
            let (_, e) = chars
                .next()
                .ok_or_else(|| "unterminated character literal".to_string())?;
            let code = match e {
                'n' => 10,
                't' => 9,
                'r' => 13,
                '0' => 0,
                '\\' | '\'' | '"' => e as u32,
                other => return Err(format!("unknown escape `\\{other}` in a character literal")),
            };
            (code, 1 + e.len_utf8())
        }
        Some((_, '\'')) | None => return Err("empty character literal".to_string()),
        Some((_, c)) => (c as u32, c.len_utf8()),
    };
    if !rest[len..].starts_with('\'') {
        return Err("a character literal holds one character; expected a closing `'`".into());
    }
    Ok((Num::Int(code as i128), start + 1 + len + 1))
}

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (num, next) = number(text, i)?;
            out.push(Tok::Num(num));
            i = next;
            continue;
        }
        if c == b'\'' {
            let (num, next) = char_literal(text, i)?;
            out.push(Tok::Num(num));
            i = next;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b':') {
                i += 1;
            }
            let word = &text[start..i];
            let bare = word.rsplit("::").next().unwrap_or(word);
            let Some(n) = named_constant(bare) else {
                return Err(format!("unknown name `{word}` in a constant expression"));
            };
            out.push(Tok::Num(n));
            continue;
        }
        let two = text.get(i..i + 2);
        let op: &'static str = match (c, two) {
            (_, Some("<<")) => "<<",
            (_, Some(">>")) => ">>",
            (b'+', _) => "+",
            (b'-', _) => "-",
            (b'*', _) => "*",
            (b'/', _) => "/",
            (b'%', _) => "%",
            (b'&', _) => "&",
            (b'|', _) => "|",
            (b'^', _) => "^",
            (b'~', _) => "~",
            (b'(', _) => {
                out.push(Tok::Open);
                i += 1;
                continue;
            }
            (b')', _) => {
                out.push(Tok::Close);
                i += 1;
                continue;
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(format!("unexpected `{ch}` in `{text}`"));
            }
        };
        i += op.len();
        out.push(Tok::Op(op));
    }
    Ok(out)
}

struct ExprParser {
    tokens: Vec<Tok>,
    pos: usize,
    depth: usize,
}

fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "|" => 1,
        "^" => 2,
        "&" => 3,
        "<<" | ">>" => 4,
        "+" | "-" => 5,
        "*" | "/" | "%" => 6,
        _ => return None,
    })
}

impl ExprParser {
    fn expr(&mut self, min_prec: u8) -> Result<Num, String> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Op(op)) = self.tokens.get(self.pos).cloned() {
            let Some(prec) = precedence(op) else { break };
            if prec < min_prec {
                break;
            }
            self.pos += 1;
            let rhs = self.expr(prec + 1)?;
            lhs = binary(op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Num, String> {
        self.depth += 1;
        if self.depth > 64 {
            return Err("expression nested too deeply".into());
        }
        let v = self.unary_inner();
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self) -> Result<Num, String> {
        match self.tokens.get(self.pos).cloned() {
            Some(Tok::Op("-")) => {
                self.pos += 1;
                match self.unary()? {
                    Num::Int(i) => i
                        .checked_neg()
                        .map(Num::Int)
                        .ok_or_else(|| "overflow in `-`".to_string()),
                    Num::Float(f) => Ok(Num::Float(-f)),
                }
            }
            Some(Tok::Op("+")) => {
                self.pos += 1;
                self.unary()
            }
            Some(Tok::Op("~")) => {
                self.pos += 1;
                match self.unary()? {
                    Num::Int(i) => Ok(Num::Int(!i)),
                    Num::Float(_) => Err("`~` needs an integer".into()),
                }
            }
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Tok::Open) => {
                self.pos += 1;
                let v = self.expr(0)?;
                if self.tokens.get(self.pos) != Some(&Tok::Close) {
                    return Err("missing `)`".into());
                }
                self.pos += 1;
                Ok(v)
            }
            Some(t) => Err(format!("unexpected `{}`", t.text())),
            None => Err("expression ends early".into()),
        }
    }
}

fn binary(op: &str, a: Num, b: Num) -> Result<Num, String> {
    let overflow = || format!("overflow in `{op}`");
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => {
            let v = match op {
                "+" => x.checked_add(y),
                "-" => x.checked_sub(y),
                "*" => x.checked_mul(y),
                "/" | "%" if y == 0 => return Err("division by zero".into()),
                "/" => x.checked_div(y),
                "%" => x.checked_rem(y),
                "<<" | ">>" if !(0..128).contains(&y) => return Err(overflow()),
                "<<" => x.checked_mul(1i128 << y),
                ">>" => Some(x >> y),
                "&" => Some(x & y),
                "|" => Some(x | y),
                "^" => Some(x ^ y),
                _ => None,
            };
            v.map(Num::Int).ok_or_else(overflow)
        }
        (a, b) => {
            let (x, y) = (a.as_f64(), b.as_f64());
            Ok(Num::Float(match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" => x / y,
                _ => return Err(format!("`{op}` needs integers")),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(ty: YamlType, s: &str) -> Result<DefaultValue, String> {
        parse_default(ty, s)
    }

    #[test]
    fn every_corpus_default_spelling() {
        use DefaultValue as D;
        assert_eq!(d(YamlType::Int, "(2 << 12) - 1"), Ok(D::Int(8191)));
        assert_eq!(d(YamlType::Int64, "0L"), Ok(D::Int(0)));
        assert_eq!(d(YamlType::Int64, "10000L"), Ok(D::Int(10000)));
        assert_eq!(d(YamlType::Int64, "INT64_MAX"), Ok(D::Int(i64::MAX)));
        assert_eq!(d(YamlType::Float, "1.0e-6f"), Ok(D::Float(1.0e-6)));
        assert_eq!(d(YamlType::Float, ".5f"), Ok(D::Float(0.5)));
        assert_eq!(d(YamlType::Float, "0."), Ok(D::Float(0.0)));
        assert_eq!(d(YamlType::Float, "-1"), Ok(D::Float(-1.0)));
        assert_eq!(d(YamlType::Float, "1.0f/8"), Ok(D::Float(0.125)));
        assert_eq!(d(YamlType::Double, "1e-8"), Ok(D::Float(1e-8)));
        assert_eq!(d(YamlType::Scalar, "false"), Ok(D::Bool(false)));
        assert_eq!(d(YamlType::Scalar, "-1"), Ok(D::Int(-1)));
        assert_eq!(d(YamlType::Scalar, "0.999f"), Ok(D::Float(0.999)));
        assert_eq!(d(YamlType::ScalarDouble, "0"), Ok(D::Float(0.0)));
        assert_eq!(
            d(YamlType::IntList, "{0,0,0}"),
            Ok(D::IntList(vec![0, 0, 0].into()))
        );
        assert_eq!(
            d(YamlType::IntArray, "{}"),
            Ok(D::IntList(Vec::new().into()))
        );
        assert_eq!(
            d(YamlType::Str, "\"NCHW\""),
            Ok(D::Str(Cow::Borrowed("NCHW")))
        );
        assert_eq!(d(YamlType::Str, "\"\""), Ok(D::Str(Cow::Borrowed(""))));
        assert_eq!(
            d(YamlType::StrList, "{}"),
            Ok(D::StrList(Vec::new().into()))
        );
        assert_eq!(
            d(YamlType::DataType, "DataType::INT64"),
            Ok(D::DataType(DataType::Int64))
        );
        assert_eq!(
            d(YamlType::DataType, "phi::DataType::FLOAT16"),
            Ok(D::DataType(DataType::Float16))
        );
        assert_eq!(d(YamlType::Place, "CPUPlace()"), Ok(D::Place(Place::cpu())));
        assert_eq!(d(YamlType::Place, "{}"), Ok(D::Place(Place::default())));
        assert_eq!(
            d(YamlType::DataLayout, "DataLayout::NCHW"),
            Ok(D::DataLayout(DataLayout::Nchw))
        );
    }

    #[test]
    fn cpp_literals_of_every_kind() {
        use DefaultValue as D;
        // C++ converts between bool, integers and floating point in a default argument.
        assert_eq!(d(YamlType::Int, "true"), Ok(D::Int(1)));
        assert_eq!(d(YamlType::Int, "1.9"), Ok(D::Int(1)));
        assert_eq!(d(YamlType::Int, "-1.9f"), Ok(D::Int(-1)));
        assert_eq!(d(YamlType::Float, "true"), Ok(D::Float(1.0)));
        assert_eq!(d(YamlType::Bool, "1"), Ok(D::Bool(true)));
        assert_eq!(d(YamlType::Bool, "0.0"), Ok(D::Bool(false)));
        assert_eq!(d(YamlType::ScalarInt, "2.5"), Ok(D::Int(2)));
        // Integer literals: hex, binary, octal, separators, suffixes, characters.
        assert_eq!(d(YamlType::Int, "0x10"), Ok(D::Int(16)));
        assert_eq!(d(YamlType::Int, "0XfF"), Ok(D::Int(255)));
        assert_eq!(d(YamlType::Int, "0b101"), Ok(D::Int(5)));
        assert_eq!(d(YamlType::Int, "010"), Ok(D::Int(8)));
        assert_eq!(d(YamlType::Int64, "1'000'000LL"), Ok(D::Int(1_000_000)));
        assert_eq!(d(YamlType::Int64, "-1L"), Ok(D::Int(-1)));
        assert_eq!(d(YamlType::Int64, "42ull"), Ok(D::Int(42)));
        assert_eq!(d(YamlType::Int, "'a'"), Ok(D::Int(97)));
        assert_eq!(d(YamlType::Int, "'\\n'"), Ok(D::Int(10)));
        // Floating literals.
        assert_eq!(d(YamlType::Float, "1e-5"), Ok(D::Float(1e-5)));
        assert_eq!(d(YamlType::Float, "1.f"), Ok(D::Float(1.0)));
        assert_eq!(d(YamlType::Double, "2.5E+3"), Ok(D::Float(2500.0)));
        // Scalar: quoted (phi::Scalar(std::string)), bool, numbers.
        assert_eq!(d(YamlType::Scalar, "\"1.5\""), Ok(D::Float(1.5)));
        assert_eq!(
            d(YamlType::Scalar, "\"-inf\""),
            Ok(D::Float(f64::NEG_INFINITY))
        );
        assert!(matches!(d(YamlType::Scalar, "\"nan\""), Ok(D::Float(f)) if f.is_nan()));
        assert_eq!(d(YamlType::Scalar, "true"), Ok(D::Bool(true)));
        // `{}` value-initialises.
        assert_eq!(d(YamlType::Int, "{}"), Ok(D::Int(0)));
        assert_eq!(d(YamlType::Float, "{}"), Ok(D::Float(0.0)));
        assert_eq!(d(YamlType::Bool, "{}"), Ok(D::Bool(false)));
        assert_eq!(d(YamlType::Str, "{}"), Ok(D::Str(Cow::Borrowed(""))));
        assert_eq!(d(YamlType::Scalar, "{}"), Ok(D::Int(0)));
        assert_eq!(
            d(YamlType::DataType, "{}"),
            Ok(D::DataType(DataType::Undefined))
        );
        assert_eq!(
            d(YamlType::DataType, "DataType::UNDEFINED"),
            Ok(D::DataType(DataType::Undefined))
        );
        assert_eq!(
            d(YamlType::BoolList, "{true, 0, 1}"),
            Ok(D::BoolList(vec![true, false, true].into()))
        );
        assert_eq!(
            d(YamlType::FloatList, "{1, 2.5f}"),
            Ok(D::FloatList(vec![1.0, 2.5].into()))
        );
        assert_eq!(
            d(YamlType::Str, "\"float32\""),
            Ok(D::Str(Cow::Borrowed("float32")))
        );
    }

    #[test]
    fn defaults_that_do_not_fit() {
        assert!(d(YamlType::Int, "1e10").unwrap_err().contains("range"));
        assert!(d(YamlType::IntList, "{1.5}")
            .unwrap_err()
            .contains("integer"));
        assert!(d(YamlType::BoolList, "{2}")
            .unwrap_err()
            .contains("bool list"));
        assert!(d(YamlType::Int, "'ab'")
            .unwrap_err()
            .contains("one character"));
        assert!(d(YamlType::Int, "09").unwrap_err().contains("malformed"));
        assert!(d(YamlType::Int, "0x").unwrap_err().contains("malformed"));
        assert!(d(YamlType::Scalar, "\"fast\"").unwrap_err().contains("inf"));
        assert!(d(YamlType::Int, "3000000000")
            .unwrap_err()
            .contains("range"));
        assert!(d(YamlType::SizeT, "-1").unwrap_err().contains("range"));
        assert!(d(YamlType::Bool, "maybe").unwrap_err().contains("true"));
        assert!(d(YamlType::Str, "NCHW").unwrap_err().contains("quotes"));
        assert!(d(YamlType::Float, "1e40").unwrap_err().contains("32-bit"));
        assert!(d(YamlType::IntList, "1, 2").unwrap_err().contains("braces"));
        assert!(d(YamlType::DataType, "\"float32\"").is_err());
        assert!(d(YamlType::DataType, "DataType::NOPE").is_err());
        assert!(d(YamlType::Place, "Moon()").is_err());
        assert!(d(YamlType::Int, "FOO")
            .unwrap_err()
            .contains("unknown name"));
        assert!(d(YamlType::Int, "1 +").is_err());
        assert!(d(YamlType::Int, "1f").is_err());
        assert!(d(YamlType::Int, "1 / 0").unwrap_err().contains("zero"));
        assert!(d(YamlType::Int64, "1 << 200").is_err());
        assert!(d(YamlType::Int, &"-".repeat(100_000)).is_err());
        assert!(d(YamlType::Int64, "-(1 << 127)").is_err());
        assert!(d(YamlType::Int, &format!("{}1", "(".repeat(100_000))).is_err());
    }

    #[test]
    fn args_grammar() {
        let a = parse_args(
            "(Tensor x, Tensor[] y, Scalar(int64_t) axis, str fmt = \"a,b\", int[] k = {1, 2})",
        )
        .unwrap();
        assert_eq!(a.len(), 5);
        assert_eq!(a[1].ty, YamlType::TensorList);
        assert_eq!(a[3].default, Some(DefaultValue::Str("a,b".into())));
        assert_eq!(a[4].default_text.as_deref(), Some("{1, 2}"));
        let e = parse_args("(Tensor x, Foo y)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::UnknownType);
        let e = parse_args("Tensor x").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadSignature);
        let e = parse_args("(Tensor x, Tensor x)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::Duplicate);
        let e = parse_args("(Tensor x, int)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadSignature);
        let e = parse_args("(Tensor x, int a = 1 = 2)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadSignature);
        let e = parse_args("(Tensor x, int a = )").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadDefault);
        let e = parse_args("(Tensor x,, int a)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadSignature);
        let e = parse_args("(Tensor x, int[] a = {1, 2)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadSignature);
    }

    #[test]
    fn outputs_grammar() {
        let o = parse_outputs("Tensor (out), SelectedRows(sr), Tensor[](v){n}").unwrap();
        assert_eq!(o[0].name, "out");
        assert_eq!(o[1].kind, ValueKind::Tensor(TensorKind::SelectedRows));
        assert_eq!(o[2].size_expr.as_deref(), Some("n"));
        let e = parse_outputs("Tensor, Tensor").unwrap_err();
        assert!(e[0].message.contains("give each output a name"));
        let e = parse_outputs("Tensor(a){n}").unwrap_err();
        assert!(e[0].message.contains("not a `Tensor[]`"));
        let e = parse_outputs("Matrix(a)").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::UnknownType);
        let e = parse_outputs("Tensor(a) junk").unwrap_err();
        assert_eq!(e[0].kind, SpecErrorKind::BadSignature);
    }

    #[test]
    fn random_text_never_panics() {
        let alphabet: Vec<char> = "Tensor[]int64_tScalar(){},=-><<>>0123456789.eEfLx \"'*/%+~^|&:_"
            .chars()
            .collect();
        let mut seed: u64 = 42;
        for len in 0..2000usize {
            let mut t = String::new();
            for _ in 0..(len % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            let _ = parse_args(&format!("({t})"));
            let _ = parse_outputs(&t);
            let _ = parse_signature(&format!("f ({t}) -> {t}"));
            for ty in YamlType::ALL {
                let _ = parse_default(ty, &t);
            }
        }
    }

    #[test]
    fn signatures() {
        let s = parse_signature(
            "full (IntArray shape, Scalar value, Place place=CPUPlace()) -> Tensor(out)",
        )
        .unwrap();
        assert_eq!(s.args[2].default, Some(DefaultValue::Place(Place::cpu())));
        assert!(parse_signature("full -> Tensor").is_err());
        assert!(parse_signature("full (Tensor x) Tensor").is_err());
    }
}
