//! The table of infer-meta functions by Paddle's name, and the check that an op's
//! `infer_meta.param` list fits the function it names.

use std::cmp::Ordering;
use std::fmt;

use pir_spec::{InputKind, OpSchema, ValueKind};

use super::signature::{cmp_str, fit_message, ArgKind, FitMessage, FitMismatch};
use super::{InferMetaEntry, InferMetaFitError, InferMetaFn};

#[derive(Clone, Copy)]
enum Entries {
    /// Hand-written pairs: not checked against op definitions.
    Pairs(&'static [(&'static str, InferMetaFn)]),
    /// Generated entries with their signatures.
    Entries(&'static [InferMetaEntry]),
}

/// A table of infer-meta functions by Paddle's name (`"UnchangedInferMeta"`), sorted by name so
/// lookup is a binary search. A dialect crate defines one as a `static` and names it to the
/// yaml macro. `op-defs` generates its registry from the functions written with
/// `#[pir_macros::infer_meta]` ([`InferMetaRegistry::from_entries`]), which also carries their
/// typed signatures; a hand-written one lists `(name, function)` pairs.
///
/// ```
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry};
/// fn unchanged(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
/// static REGISTRY: InferMetaRegistry = InferMetaRegistry::new(&[
///     ("RealAndImagInferMeta", unchanged),
///     ("UnchangedInferMeta", unchanged),
/// ]);
/// REGISTRY.check_sorted().unwrap();
/// assert!(REGISTRY.get("UnchangedInferMeta").is_some());
/// assert!(REGISTRY.get("ConvInferMeta").is_none());
/// assert_eq!(REGISTRY.names().collect::<Vec<_>>(), ["RealAndImagInferMeta", "UnchangedInferMeta"]);
/// ```
#[derive(Clone, Copy)]
pub struct InferMetaRegistry {
    entries: Entries,
}

impl InferMetaRegistry {
    /// A registry over `(name, function)` pairs, which must be sorted by name with no
    /// duplicates; this is checked by [`InferMetaRegistry::check_sorted`] (call it from a
    /// test). Such functions are not checked against the ops that name them.
    pub const fn new(entries: &'static [(&'static str, InferMetaFn)]) -> InferMetaRegistry {
        InferMetaRegistry {
            entries: Entries::Pairs(entries),
        }
    }

    /// A registry over generated entries, which must be sorted by name with no duplicates.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, InferMetaEntry, InferMetaError, InferMetaRegistry};
    /// fn f(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
    /// static R: InferMetaRegistry =
    ///     InferMetaRegistry::from_entries(&[InferMetaEntry::unchecked("UnchangedInferMeta", f)]);
    /// const _: () = assert!(R.is_sorted());
    /// assert_eq!(R.len(), 1);
    /// ```
    pub const fn from_entries(entries: &'static [InferMetaEntry]) -> InferMetaRegistry {
        InferMetaRegistry {
            entries: Entries::Entries(entries),
        }
    }

    const fn name_at(&self, i: usize) -> &'static str {
        match self.entries {
            Entries::Pairs(p) => p[i].0,
            Entries::Entries(e) => e[i].name,
        }
    }

    /// Number of functions.
    pub const fn len(&self) -> usize {
        match self.entries {
            Entries::Pairs(p) => p.len(),
            Entries::Entries(e) => e.len(),
        }
    }

    /// Whether there are none.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The position of `name` (binary search, usable in `const` evaluation).
    const fn position(&self, name: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match cmp_str(self.name_at(mid), name) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The function named `name`.
    pub fn get(&self, name: &str) -> Option<InferMetaFn> {
        match self.entries {
            Entries::Pairs(p) => p
                .binary_search_by(|(n, _)| (*n).cmp(name))
                .ok()
                .map(|i| p[i].1),
            Entries::Entries(e) => e
                .binary_search_by(|x| x.name.cmp(name))
                .ok()
                .map(|i| e[i].func),
        }
    }

    /// The entry named `name`, with its signatures (none for a hand-written pair).
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry};
    /// fn f(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { ctx.share_output(0, 0) }
    /// static R: InferMetaRegistry = InferMetaRegistry::new(&[("UnchangedInferMeta", f)]);
    /// assert!(R.entry("UnchangedInferMeta").unwrap().signatures.is_empty());
    /// ```
    pub const fn entry(&self, name: &str) -> Option<InferMetaEntry> {
        match self.position(name) {
            None => None,
            Some(i) => Some(match self.entries {
                Entries::Pairs(p) => InferMetaEntry::unchecked(p[i].0, p[i].1),
                Entries::Entries(e) => e[i],
            }),
        }
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..self.len()).map(|i| self.name_at(i))
    }

    /// Whether the names are strictly increasing (sorted, no duplicates).
    pub const fn is_sorted(&self) -> bool {
        let mut i = 1;
        while i < self.len() {
            if !matches!(
                cmp_str(self.name_at(i - 1), self.name_at(i)),
                Ordering::Less
            ) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Err with the first out-of-order or duplicate name.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry};
    /// fn f(_: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { Ok(()) }
    /// static BAD: InferMetaRegistry = InferMetaRegistry::new(&[("B", f), ("A", f)]);
    /// assert_eq!(BAD.check_sorted().unwrap_err(), "\"B\" must sort before \"A\"");
    /// ```
    pub fn check_sorted(&self) -> Result<(), String> {
        for i in 1..self.len() {
            let (a, b) = (self.name_at(i - 1), self.name_at(i));
            if a >= b {
                return Err(format!("{a:?} must sort before {b:?}"));
            }
        }
        Ok(())
    }

    /// The compile-time fit check of generated ops: the message (empty when the arguments fit)
    /// for `op` passing `args` to `func`. A function the registry lacks (not implemented yet)
    /// or holds without a signature is not checked.
    ///
    /// ```
    /// use pir_runtime::meta::{ArgKind, EMPTY_REGISTRY};
    /// const M: bool = EMPTY_REGISTRY.fit_message("ConvInferMeta", "op `x`", &[("x", ArgKind::Tensor)]).is_empty();
    /// assert!(M);
    /// ```
    pub const fn fit_message(&self, func: &str, op: &str, args: &[(&str, ArgKind)]) -> FitMessage {
        match self.entry(func) {
            Some(e) => fit_message(op, &e, args),
            None => FitMessage::new(),
        }
    }

    /// Checks that an op's `infer_meta.param` list fits the parameters of the function it names
    /// (what generated ops check at compile time, for ops defined while the program runs).
    /// `Ok` when the op names no function, or one the registry lacks or does not describe.
    ///
    /// ```
    /// use pir_runtime::meta::*;
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// fn cast(_: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> { Ok(()) }
    /// // What `#[infer_meta]` generates for `cast_infer_meta(x: &TensorMeta, dtype: DataType, out)`.
    /// static REGISTRY: InferMetaRegistry = InferMetaRegistry::from_entries(&[InferMetaEntry {
    ///     name: "CastInferMeta",
    ///     func: cast,
    ///     signatures: &[InferMetaSignature {
    ///         rust_name: "cast_infer_meta",
    ///         params: &[
    ///             ParamSpec { name: "x", kind: ParamKind::Tensor, rust_type: "&TensorMeta" },
    ///             ParamSpec { name: "dtype", kind: ParamKind::DataType, rust_type: "DataType" },
    ///         ],
    ///         outputs: &[OutputSpec { name: "out", kind: OutputKind::Tensor }],
    ///         location: "unary.rs:7",
    ///     }],
    /// }]);
    /// let ops = "- op : cast\n  args : (Tensor x, DataType dtype)\n  output : Tensor(out)\n  \
    ///            infer_meta :\n    func : CastInferMeta\n    param : [dtype, x]\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// let e = REGISTRY.check_schema(set.get("cast").unwrap()).unwrap_err();
    /// assert_eq!(e.mismatch, FitMismatch::Kind { position: 0 });
    /// assert_eq!(e.to_string(), "op `pd_op.cast` (ops.yaml:1): its infer_meta.param list does \
    ///     not fit CastInferMeta: argument 0 `dtype` is DataType but parameter `x: &TensorMeta` \
    ///     takes a tensor\n  infer_meta.param: (DataType dtype, Tensor x)\
    ///     \n  function: cast_infer_meta(x: &TensorMeta, dtype: DataType) at unary.rs:7");
    /// ```
    pub fn check_schema(&self, s: &OpSchema) -> Result<(), InferMetaFitError> {
        let func = &*s.runtime.infer_meta_func;
        let Some(entry) = (!func.is_empty()).then(|| self.entry(func)).flatten() else {
            return Ok(());
        };
        let mut args = Vec::with_capacity(s.runtime.infer_meta_param.len());
        for p in s.runtime.infer_meta_param.iter() {
            let kind = if let Some(i) = s.input_index(p) {
                let input = &s.inputs[i];
                match (&input.kind, input.optional) {
                    (InputKind::Value(ValueKind::Tensor(_)), false) => ArgKind::Tensor,
                    (InputKind::Value(ValueKind::Tensor(_)), true) => ArgKind::OptionalTensor,
                    (InputKind::Value(ValueKind::Vector(_)), false) => ArgKind::TensorList,
                    (InputKind::Value(ValueKind::Vector(_)), true) => ArgKind::OptionalTensorList,
                    (InputKind::MutableAttribute(m), _) => ArgKind::Attr(m.kind),
                }
            } else if let Some(i) = s.attribute_index(p) {
                ArgKind::Attr(s.attributes[i].kind)
            } else if OpSchema::param_constant(p).is_some() {
                ArgKind::Attr(pir_spec::AttrKind::Bool)
            } else {
                return Err(InferMetaFitError {
                    op: s.name.to_string(),
                    func: func.to_string(),
                    mismatch: FitMismatch::UnknownParam {
                        name: p.to_string(),
                    },
                    message: format!(
                        "{}: infer_meta param `{p}` is neither an input nor an attribute",
                        op_label(s)
                    ),
                });
            };
            args.push((&**p, kind));
        }
        match InferMetaFitError::new(&s.name, &op_label(s), &entry, &args) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// `op `pd_op.conv2d` (ops.yaml:12)`, as the generated compile-time check names ops.
pub(crate) fn op_label(s: &OpSchema) -> String {
    match &s.source {
        Some(l) => format!("op `{}` ({}:{})", s.name, l.file, l.line),
        None => format!("op `{}`", s.name),
    }
}

/// A registry with no functions: ops generated without one report every infer-meta function as
/// not implemented.
///
/// ```
/// use pir_runtime::meta::EMPTY_REGISTRY;
/// assert!(EMPTY_REGISTRY.is_empty());
/// assert!(EMPTY_REGISTRY.get("UnchangedInferMeta").is_none());
/// ```
pub static EMPTY_REGISTRY: InferMetaRegistry = InferMetaRegistry::new(&[]);

impl fmt::Debug for InferMetaRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}
