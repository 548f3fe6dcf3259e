//! Typed infer-meta signatures: what each parameter of a function written with
//! `#[pir_macros::infer_meta]` takes, and whether an op's `infer_meta.param` list fits it.
//!
//! The same `const fn`s answer at compile time (generated ops check their yaml against the
//! registry in a `const` item, so a mismatch is a compile error) and at run time
//! ([`InferMetaRegistry::check_schema`](super::InferMetaRegistry::check_schema), for dialects
//! loaded from yaml while the program runs), so both report the same words.
//!
//! ```
//! use pir_runtime::meta::{ArgKind, Fit, InferMetaSignature, ParamKind, ParamSpec};
//! use pir_runtime::pir_spec::AttrKind;
//! // CastInferMeta(const MetaTensor& x, DataType dtype, MetaTensor* out)
//! static CAST: InferMetaSignature = InferMetaSignature {
//!     rust_name: "cast_infer_meta",
//!     params: &[
//!         ParamSpec { name: "x", kind: ParamKind::Tensor, rust_type: "&TensorMeta" },
//!         ParamSpec { name: "dtype", kind: ParamKind::DataType, rust_type: "DataType" },
//!     ],
//!     outputs: &[],
//!     location: "unary.rs:10",
//! };
//! let yaml = [("x", ArgKind::Tensor), ("dtype", ArgKind::Attr(AttrKind::DataType))];
//! assert_eq!(CAST.fit(&yaml), Fit::Fits);
//! assert_eq!(CAST.fit(&yaml[..1]), Fit::Count);
//! let swapped = [("dtype", ArgKind::Attr(AttrKind::DataType)), ("x", ArgKind::Tensor)];
//! assert_eq!(CAST.fit(&swapped), Fit::Kind(0));
//! ```

use std::cmp::Ordering;

use pir_spec::AttrKind;

use super::InferMetaFn;

/// What a parameter of an infer-meta function takes, after Paddle's C++ parameter types.
///
/// ```
/// use pir_runtime::meta::{ArgKind, ParamKind};
/// use pir_runtime::pir_spec::AttrKind;
/// assert!(ParamKind::Ints.accepts(ArgKind::Attr(AttrKind::IntArray))); // known values
/// assert!(!ParamKind::Tensor.accepts(ArgKind::Attr(AttrKind::Int32)));
/// assert_eq!(ParamKind::OptionalTensor.describe(), "an optional tensor");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// `const MetaTensor&` → `&TensorMeta`.
    Tensor,
    /// `const paddle::optional<MetaTensor>&` → `Option<&TensorMeta>`.
    OptionalTensor,
    /// `const std::vector<const MetaTensor*>&` → `&[TensorMeta]`.
    TensorList,
    /// An optional tensor vector → `Option<&[TensorMeta]>`.
    OptionalTensorList,
    /// `bool`.
    Bool,
    /// `int` / `int64_t` → `i32` / `i64`: an integer attribute or a known integer `Scalar`.
    Int,
    /// `float` / `double` → `f32` / `f64`: any number.
    Float,
    /// `const std::string&` → `&str` (a `DataLayout` attribute gives its name).
    Str,
    /// `const std::vector<int64_t>&` → `&[i64]`: `int[]`, `int64_t[]` or an `IntArray` of known
    /// values.
    Ints,
    /// `const std::vector<float>&` → `&[f64]`.
    Floats,
    /// `const std::vector<bool>&` → `&[bool]`.
    Bools,
    /// `const std::vector<std::string>&` → `&[Cow<'_, str>]`.
    Strs,
    /// `const IntArray&` → `IntArray<'_>` (Paddle's decoding) or `IntArrayArg` (raw).
    IntArray,
    /// `const Scalar&` → `Option<Scalar>` (`None` when it comes from a tensor).
    Scalar,
    /// `const std::vector<Scalar>&` → `&[Scalar]`.
    Scalars,
    /// `DataType`.
    DataType,
    /// `DataLayout` (a `str` attribute is accepted by name).
    DataLayout,
    /// `Place`.
    Place,
}

impl ParamKind {
    /// Whether an argument of `kind` can be passed to a parameter of this kind: the attribute
    /// kinds the runtime decoder accepts for it (an optional input may be passed to a required
    /// tensor parameter; the call then fails only when the input is absent).
    pub const fn accepts(self, kind: ArgKind) -> bool {
        use AttrKind as K;
        let attr = match kind {
            ArgKind::Tensor | ArgKind::OptionalTensor => {
                return matches!(self, ParamKind::Tensor | ParamKind::OptionalTensor)
            }
            ArgKind::TensorList | ArgKind::OptionalTensorList => {
                return matches!(self, ParamKind::TensorList | ParamKind::OptionalTensorList)
            }
            ArgKind::Attr(a) => a,
        };
        match self {
            ParamKind::Tensor
            | ParamKind::OptionalTensor
            | ParamKind::TensorList
            | ParamKind::OptionalTensorList => false,
            ParamKind::Bool => matches!(attr, K::Bool),
            ParamKind::Int => matches!(attr, K::Int32 | K::Int64 | K::Long | K::SizeT | K::Scalar),
            ParamKind::Float => matches!(
                attr,
                K::Float | K::Double | K::Int32 | K::Int64 | K::Long | K::SizeT | K::Scalar
            ),
            ParamKind::Str => matches!(attr, K::Str | K::DataLayout),
            ParamKind::Ints | ParamKind::IntArray => {
                matches!(attr, K::Int32Array | K::Int64Array | K::IntArray)
            }
            ParamKind::Floats => matches!(attr, K::FloatArray | K::DoubleArray),
            ParamKind::Bools => matches!(attr, K::BoolArray),
            ParamKind::Strs => matches!(attr, K::StrArray),
            ParamKind::Scalar => matches!(
                attr,
                K::Scalar
                    | K::Bool
                    | K::Int32
                    | K::Int64
                    | K::Long
                    | K::SizeT
                    | K::Float
                    | K::Double
            ),
            ParamKind::Scalars => matches!(attr, K::ScalarArray),
            ParamKind::DataType => matches!(attr, K::DataType),
            ParamKind::DataLayout => matches!(attr, K::DataLayout | K::Str),
            ParamKind::Place => matches!(attr, K::Place),
        }
    }

    /// What the parameter takes, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            ParamKind::Tensor => "a tensor",
            ParamKind::OptionalTensor => "an optional tensor",
            ParamKind::TensorList => "a tensor list",
            ParamKind::OptionalTensorList => "an optional tensor list",
            ParamKind::Bool => "a bool",
            ParamKind::Int => "an integer",
            ParamKind::Float => "a number",
            ParamKind::Str => "a str",
            ParamKind::Ints => "an integer list",
            ParamKind::Floats => "a float list",
            ParamKind::Bools => "a bool list",
            ParamKind::Strs => "a str list",
            ParamKind::IntArray => "an IntArray",
            ParamKind::Scalar => "a Scalar",
            ParamKind::Scalars => "a Scalar list",
            ParamKind::DataType => "a DataType",
            ParamKind::DataLayout => "a DataLayout",
            ParamKind::Place => "a Place",
        }
    }
}

/// What an op passes for one entry of its `infer_meta.param` list.
///
/// ```
/// use pir_runtime::meta::ArgKind;
/// use pir_runtime::pir_spec::AttrKind;
/// assert_eq!(ArgKind::OptionalTensor.yaml_type(), "Tensor?");
/// assert_eq!(ArgKind::Attr(AttrKind::Int64Array).yaml_type(), "int64_t[]");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A tensor input.
    Tensor,
    /// An optional tensor input.
    OptionalTensor,
    /// A `Tensor[]` input.
    TensorList,
    /// An optional `Tensor[]` input.
    OptionalTensorList,
    /// An attribute, or a mutable attribute (`IntArray` / `Scalar` fed by a value).
    Attr(AttrKind),
}

impl ArgKind {
    /// The yaml spelling (`Tensor`, `Tensor[]`, `int[]`, `IntArray`, ...; `?` when optional).
    pub const fn yaml_type(self) -> &'static str {
        use AttrKind as K;
        match self {
            ArgKind::Tensor => "Tensor",
            ArgKind::OptionalTensor => "Tensor?",
            ArgKind::TensorList => "Tensor[]",
            ArgKind::OptionalTensorList => "Tensor[]?",
            ArgKind::Attr(k) => match k {
                K::Bool => "bool",
                K::Int32 => "int",
                K::Int64 => "int64_t",
                K::Long => "long",
                K::SizeT => "size_t",
                K::Float => "float",
                K::Double => "double",
                K::Str => "str",
                K::BoolArray => "bool[]",
                K::Int32Array => "int[]",
                K::Int64Array => "int64_t[]",
                K::FloatArray => "float[]",
                K::DoubleArray => "double[]",
                K::StrArray => "str[]",
                K::IntArray => "IntArray",
                K::Scalar => "Scalar",
                K::ScalarArray => "Scalar[]",
                K::DataType => "DataType",
                K::DataLayout => "DataLayout",
                K::Place => "Place",
            },
        }
    }
}

/// One parameter of a typed infer-meta function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// Its name (Paddle's parameter name; a leading `_` of an unused Rust parameter dropped).
    pub name: &'static str,
    /// What it takes.
    pub kind: ParamKind,
    /// The Rust type as written (`&[i64]`), for messages.
    pub rust_type: &'static str,
}

/// Whether an output parameter is one tensor or a tensor list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputKind {
    /// `MetaTensor* out` → `Output<'_>`.
    Tensor,
    /// `std::vector<MetaTensor*> out` → `OutputList<'_>`.
    TensorList,
}

/// One output parameter of a typed infer-meta function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputSpec {
    /// Its name.
    pub name: &'static str,
    /// One tensor or a list.
    pub kind: OutputKind,
}

/// The parameters of one Rust infer-meta function written with `#[infer_meta]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InferMetaSignature {
    /// The Rust function's name (`conv_infer_meta`).
    pub rust_name: &'static str,
    /// Its parameters (the `infer_meta.param` arguments), in order.
    pub params: &'static [ParamSpec],
    /// Its output parameters, in the op's output order.
    pub outputs: &'static [OutputSpec],
    /// Where it is defined (`file:line`).
    pub location: &'static str,
}

/// How an op's arguments fit a signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fit {
    /// Every argument fits its parameter.
    Fits,
    /// The numbers of arguments and parameters differ.
    Count,
    /// Argument `i` does not fit parameter `i` (the first such).
    Kind(usize),
}

impl InferMetaSignature {
    /// How `args` (name and kind of each `infer_meta.param` entry) fit these parameters.
    pub const fn fit(&self, args: &[(&str, ArgKind)]) -> Fit {
        if args.len() != self.params.len() {
            return Fit::Count;
        }
        let mut i = 0;
        while i < args.len() {
            if !self.params[i].kind.accepts(args[i].1) {
                return Fit::Kind(i);
            }
            i += 1;
        }
        Fit::Fits
    }
}

/// One function of an [`InferMetaRegistry`](super::InferMetaRegistry): Paddle's name, the
/// uniform entry point builds call, and the typed signatures behind it (several when one Paddle
/// name has overloads of different arity; none for a function still written against
/// [`InferMetaCtx`](super::InferMetaCtx) by position, which is not checked).
#[derive(Clone, Copy, Debug)]
pub struct InferMetaEntry {
    /// Paddle's name (`"ConvInferMeta"`).
    pub name: &'static str,
    /// The entry point.
    pub func: InferMetaFn,
    /// The typed signatures (empty: unchecked).
    pub signatures: &'static [InferMetaSignature],
}

impl InferMetaEntry {
    /// An entry whose parameters are not described (not checked against op definitions).
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, InferMetaEntry, InferMetaError};
    /// fn f(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
    /// const E: InferMetaEntry = InferMetaEntry::unchecked("UnchangedInferMeta", f);
    /// assert!(E.signatures.is_empty());
    /// ```
    pub const fn unchecked(name: &'static str, func: InferMetaFn) -> InferMetaEntry {
        InferMetaEntry {
            name,
            func,
            signatures: &[],
        }
    }

    /// How `args` fit: [`Fit::Fits`] when any signature fits (or there is none to check),
    /// else the mismatch against the signature with as many parameters as there are arguments
    /// (the first signature when none has).
    pub const fn fit(&self, args: &[(&str, ArgKind)]) -> Fit {
        if self.signatures.is_empty() {
            return Fit::Fits;
        }
        let mut worst = Fit::Count;
        let mut i = 0;
        while i < self.signatures.len() {
            match self.signatures[i].fit(args) {
                Fit::Fits => return Fit::Fits,
                Fit::Kind(k) => worst = Fit::Kind(k),
                Fit::Count => {}
            }
            i += 1;
        }
        worst
    }
}

/// Byte-wise string order, usable in `const` evaluation.
pub(crate) const fn cmp_str(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] < b[i] {
            return Ordering::Less;
        }
        if a[i] > b[i] {
            return Ordering::Greater;
        }
        i += 1;
    }
    if a.len() < b.len() {
        Ordering::Less
    } else if a.len() > b.len() {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// The capacity of a [`FitMessage`]; longer text is cut with `...`.
const MESSAGE_CAP: usize = 4096;

/// A message built without allocating, so that `const` evaluation can build it: the text of a
/// fit error, identical at compile time and at run time.
///
/// ```
/// use pir_runtime::meta::FitMessage;
/// assert!(FitMessage::new().is_empty());
/// ```
#[derive(Clone)]
pub struct FitMessage {
    buf: [u8; MESSAGE_CAP],
    len: usize,
    cut: bool,
}

impl FitMessage {
    /// An empty message.
    pub const fn new() -> FitMessage {
        FitMessage {
            buf: [0; MESSAGE_CAP],
            len: 0,
            cut: false,
        }
    }

    /// Whether nothing was written (the arguments fit).
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        let (head, _) = self.buf.split_at(self.len);
        match std::str::from_utf8(head) {
            Ok(s) => s,
            Err(_) => "infer-meta fit error (message not UTF-8)",
        }
    }

    const fn push(&mut self, s: &str) {
        if self.cut {
            return;
        }
        let s = s.as_bytes();
        // Room for a final "..." when the text does not fit.
        let room = MESSAGE_CAP - 3;
        let mut i = 0;
        while i < s.len() {
            if self.len >= room {
                // Drop the bytes of a character cut in the middle.
                while i > 0 && (s[i] & 0xC0) == 0x80 {
                    self.len -= 1;
                    i -= 1;
                }
                self.buf[self.len] = b'.';
                self.buf[self.len + 1] = b'.';
                self.buf[self.len + 2] = b'.';
                self.len += 3;
                self.cut = true;
                return;
            }
            self.buf[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
    }

    const fn push_usize(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut k = digits.len();
        loop {
            k -= 1;
            digits[k] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let (_, tail) = digits.split_at(k);
        match std::str::from_utf8(tail) {
            Ok(s) => self.push(s),
            Err(_) => self.push("?"),
        }
    }

    fn into_string(self) -> String {
        self.as_str().to_string()
    }
}

impl Default for FitMessage {
    fn default() -> Self {
        FitMessage::new()
    }
}

impl std::fmt::Debug for FitMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("FitMessage").field(&self.as_str()).finish()
    }
}

/// Writes `(Tensor x, int axis)`.
const fn push_args(m: &mut FitMessage, args: &[(&str, ArgKind)]) {
    m.push("(");
    let mut i = 0;
    while i < args.len() {
        if i > 0 {
            m.push(", ");
        }
        m.push(args[i].1.yaml_type());
        m.push(" ");
        m.push(args[i].0);
        i += 1;
    }
    m.push(")");
}

/// Writes `conv_infer_meta(input: &TensorMeta, ...) at file:line`.
const fn push_signature(m: &mut FitMessage, s: &InferMetaSignature) {
    m.push(s.rust_name);
    m.push("(");
    let mut i = 0;
    while i < s.params.len() {
        if i > 0 {
            m.push(", ");
        }
        m.push(s.params[i].name);
        m.push(": ");
        m.push(s.params[i].rust_type);
        i += 1;
    }
    m.push(") at ");
    m.push(s.location);
}

/// The message for `args` of `op` not fitting `entry` (empty when they fit).
///
/// `op` names the op and where it is defined (`"op `pd_op.conv2d` (ops.yaml:12)"`).
pub const fn fit_message(op: &str, entry: &InferMetaEntry, args: &[(&str, ArgKind)]) -> FitMessage {
    let mut m = FitMessage::new();
    let fit = entry.fit(args);
    if let Fit::Fits = fit {
        return m;
    }
    m.push(op);
    m.push(": its infer_meta.param list does not fit ");
    m.push(entry.name);
    m.push(": ");
    match fit {
        Fit::Kind(i) => {
            // The signature with as many parameters as arguments.
            let mut s = 0;
            while s < entry.signatures.len() && entry.signatures[s].params.len() != args.len() {
                s += 1;
            }
            let p = &entry.signatures[s].params[i];
            m.push("argument ");
            m.push_usize(i);
            m.push(" `");
            m.push(args[i].0);
            m.push("` is ");
            m.push(args[i].1.yaml_type());
            m.push(" but parameter `");
            m.push(p.name);
            m.push(": ");
            m.push(p.rust_type);
            m.push("` takes ");
            m.push(p.kind.describe());
        }
        _ => {
            m.push("the op passes ");
            m.push_usize(args.len());
            m.push(" argument");
            if args.len() != 1 {
                m.push("s");
            }
            m.push(" but the function takes ");
            let mut s = 0;
            while s < entry.signatures.len() {
                if s > 0 {
                    m.push(" or ");
                }
                m.push_usize(entry.signatures[s].params.len());
                s += 1;
            }
        }
    }
    m.push("\n  infer_meta.param: ");
    push_args(&mut m, args);
    let mut s = 0;
    while s < entry.signatures.len() {
        m.push("\n  function: ");
        push_signature(&mut m, &entry.signatures[s]);
        s += 1;
    }
    m
}

/// Why an op's `infer_meta.param` list does not fit its function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FitMismatch {
    /// The numbers of arguments and parameters differ.
    Count {
        /// Arguments the op passes.
        args: usize,
    },
    /// Argument `position` does not fit its parameter.
    Kind {
        /// The argument's position.
        position: usize,
    },
    /// A `param` entry names neither an input nor an attribute of the op.
    UnknownParam {
        /// The name.
        name: String,
    },
}

/// An op whose `infer_meta.param` list does not fit the parameters of its infer-meta function
/// (the run-time twin of the compile error generated ops give).
///
/// ```
/// use pir_runtime::meta::{FitMismatch, InferMetaFitError};
/// let e = InferMetaFitError {
///     op: "pd_op.foo".into(),
///     func: "FooInferMeta".into(),
///     mismatch: FitMismatch::Count { args: 1 },
///     message: "op `pd_op.foo`: ...".into(),
/// };
/// assert_eq!(e.to_string(), "op `pd_op.foo`: ...");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InferMetaFitError {
    /// The op.
    pub op: String,
    /// Paddle's name of the function.
    pub func: String,
    /// What does not fit.
    pub mismatch: FitMismatch,
    /// The full message, naming the op, its yaml param list and the function's parameters.
    pub message: String,
}

impl InferMetaFitError {
    pub(super) fn new(
        op: &str,
        op_label: &str,
        entry: &InferMetaEntry,
        args: &[(&str, ArgKind)],
    ) -> Option<InferMetaFitError> {
        let mismatch = match entry.fit(args) {
            Fit::Fits => return None,
            Fit::Count => FitMismatch::Count { args: args.len() },
            Fit::Kind(position) => FitMismatch::Kind { position },
        };
        Some(InferMetaFitError {
            op: op.to_string(),
            func: entry.name.to_string(),
            mismatch,
            message: fit_message(op_label, entry, args).into_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::{InferMetaCtx, InferMetaError};

    fn f(_: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        Ok(())
    }

    const X: ParamSpec = ParamSpec {
        name: "x",
        kind: ParamKind::Tensor,
        rust_type: "&TensorMeta",
    };
    const AXIS: ParamSpec = ParamSpec {
        name: "axis",
        kind: ParamKind::Int,
        rust_type: "i64",
    };
    const ONE: InferMetaSignature = InferMetaSignature {
        rust_name: "one",
        params: &[X],
        outputs: &[],
        location: "a.rs:1",
    };
    const TWO: InferMetaSignature = InferMetaSignature {
        rust_name: "two",
        params: &[X, AXIS],
        outputs: &[],
        location: "a.rs:2",
    };

    #[test]
    fn overloads_fit_when_any_signature_fits() {
        let e = InferMetaEntry {
            name: "FooInferMeta",
            func: f,
            signatures: &[ONE, TWO],
        };
        let attr = |k| ("axis", ArgKind::Attr(k));
        assert_eq!(e.fit(&[("x", ArgKind::Tensor)]), Fit::Fits);
        assert_eq!(
            e.fit(&[("x", ArgKind::OptionalTensor), attr(AttrKind::Scalar)]),
            Fit::Fits
        );
        assert_eq!(
            e.fit(&[("x", ArgKind::Tensor), attr(AttrKind::Str)]),
            Fit::Kind(1)
        );
        assert_eq!(e.fit(&[]), Fit::Count);
        assert_eq!(InferMetaEntry::unchecked("F", f).fit(&[]), Fit::Fits);
    }

    #[test]
    fn messages_name_the_op_the_yaml_and_the_function() {
        let e = InferMetaEntry {
            name: "FooInferMeta",
            func: f,
            signatures: &[ONE, TWO],
        };
        let m = fit_message("op `t.foo`", &e, &[("x", ArgKind::TensorList)]);
        assert_eq!(
            m.as_str(),
            "op `t.foo`: its infer_meta.param list does not fit FooInferMeta: argument 0 `x` is \
             Tensor[] but parameter `x: &TensorMeta` takes a tensor\
             \n  infer_meta.param: (Tensor[] x)\
             \n  function: one(x: &TensorMeta) at a.rs:1\
             \n  function: two(x: &TensorMeta, axis: i64) at a.rs:2"
        );
        let m = fit_message("op `t.foo`", &e, &[]);
        assert!(
            m.as_str().contains(
                "the op passes 0 arguments but the function takes 1 or 2\n  infer_meta.param: ()"
            ),
            "{m:?}"
        );
        assert!(fit_message("op", &e, &[("x", ArgKind::Tensor)]).is_empty());
    }

    #[test]
    fn long_messages_are_cut_on_a_char_boundary() {
        let mut m = FitMessage::new();
        for _ in 0..3000 {
            m.push("é");
        }
        assert!(m.as_str().ends_with("é..."));
        assert!(m.as_str().len() <= MESSAGE_CAP);
        let mut m = FitMessage::new();
        m.push_usize(0);
        m.push(" ");
        m.push_usize(18446744073709551615);
        assert_eq!(m.as_str(), "0 18446744073709551615");
    }
}
